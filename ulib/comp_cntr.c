// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion counters (libibverbs 1.18): ib_core's uverbs object
 * UVERBS_OBJECT_COMP_CNTR (CREATE, DESTROY, MODIFY, READ), the QP method
 * QP_ATTACH_COMP_CNTR and the device method QUERY_COMP_CNTR_CAPS, all
 * ioctl-only, in kernels that have them (the softverbs module implements
 * the ops there).
 *
 * A counter's two counts live in one page of ours: CREATE names the two
 * words with softverbs' driver attributes (uapi/softverbs-abi.h, enum
 * sv_comp_cntr_create_attrs), the kernel pins them and stores each new
 * count with release semantics as work requests complete.  So a read is an
 * acquire load, no system call; set and increment are MODIFY, done by the
 * kernel under the lock it counts under, so that no completion is lost.
 *
 * Where the kernel has no such object (ib_core before it, or a module
 * without the ops) the method is unknown to uverbs and every call is
 * EOPNOTSUPP, as libibverbs answers for a provider without counters.
 * Documentation/ulib.md, "Completion counters".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ulib.h"

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

/*
 * ib_core's numbers (<rdma/ib_user_ioctl_cmds.h> and _verbs.h of Linux
 * 7.3), which the distro headers we build with may lack.  uverbs ABI:
 * they never change.
 */
enum {
	SV_OBJECT_COMP_CNTR = 19,		/* UVERBS_OBJECT_COMP_CNTR */
	SV_METHOD_QUERY_COMP_CNTR_CAPS = 8,	/* of UVERBS_OBJECT_DEVICE */
	SV_METHOD_QP_ATTACH_COMP_CNTR = 2,	/* of UVERBS_OBJECT_QP */
	/* enum uverbs_methods_comp_cntr */
	SV_METHOD_COMP_CNTR_CREATE = 0,
	SV_METHOD_COMP_CNTR_DESTROY,
	SV_METHOD_COMP_CNTR_MODIFY,
	SV_METHOD_COMP_CNTR_READ,
	/* enum ib_uverbs_comp_cntr_entry, _modify_op */
	SV_COMP_CNTR_ENTRY_COMP = 0,
	SV_COMP_CNTR_ENTRY_ERR = 1,
	SV_COMP_CNTR_OP_SET = 0,
	SV_COMP_CNTR_OP_INC = 1,
	/* enum ib_uverbs_buffer_type */
	SV_BUFFER_TYPE_VA = 1,
};

/* struct ib_uverbs_buffer_desc (Linux 7.3) */
struct sv_buffer_desc {
	uint32_t type;
	int32_t fd;
	uint32_t flags;
	uint32_t optional_flags;
	uint64_t addr;
	uint64_t length;
};
_Static_assert(sizeof(struct sv_buffer_desc) == 32, "ib_uverbs_buffer_desc");

/* the operation types the kernel counts: the ibv_ bits are the kernel's */
#define SV_CC_OPS (IBV_QP_ATTACH_COMP_CNTR_OP_SEND |			\
		   IBV_QP_ATTACH_COMP_CNTR_OP_RECV |			\
		   IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ |		\
		   IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ |	\
		   IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE |		\
		   IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE)

/*
 * The counts, each alone on its cache line of the page: completions at
 * word 0, errors at word 8 (64 bytes on).
 */
#define SV_CC_ERR_WORD	8

struct sv_comp_cntr {
	struct ibv_comp_cntr cc;
	uint64_t *mem;			/* one page, mmap'ed */
	size_t mem_size;
};

static struct sv_comp_cntr *to_sv_cc(struct ibv_comp_cntr *cc)
{
	return sv_container_of(cc, struct sv_comp_cntr, cc);
}

/* uverbs without the object or method: the feature is not there */
static int cc_errno(int err)
{
	switch (err) {
	case EPROTONOSUPPORT:	/* unknown object, method or attribute */
	case ENOENT:
	case ENOTTY:
	case ENOSYS:
		return EOPNOTSUPP;
	default:
		return err;
	}
}

static int fail(int err)
{
	errno = err;
	return err;
}

static void attr_in(struct ib_uverbs_attr *a, uint16_t id, uint16_t len,
		    uint64_t data)
{
	memset(a, 0, sizeof(*a));
	a->attr_id = id;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	a->len = len;
	a->data = data;
}

SV_EXPORT int _ibv_query_comp_cntr_caps(struct ibv_context *context,
					struct ibv_comp_cntr_caps *caps,
					size_t caps_size)
{
	struct ib_uverbs_attr a[3];
	uint32_t max_counters = 0, ops = 0;
	uint64_t max_value = 0;
	int err;

	if (!context || !caps || caps_size < sizeof(*caps))
		return fail(EINVAL);
	memset(caps, 0, caps_size);
	attr_in(&a[0], 0, sizeof(max_counters), (uintptr_t)&max_counters);
	attr_in(&a[1], 1, sizeof(max_value), (uintptr_t)&max_value);
	attr_in(&a[2], 2, sizeof(ops), (uintptr_t)&ops);
	err = sv_cmd_ioctl(context->cmd_fd, UVERBS_OBJECT_DEVICE,
			   SV_METHOD_QUERY_COMP_CNTR_CAPS, a, 3);
	if (err)
		return fail(cc_errno(err));
	caps->max_counters = max_counters;
	caps->max_value = max_value;
	caps->supported_qp_attach_ops = ops;
	return 0;
}

SV_EXPORT struct ibv_comp_cntr *
ibv_create_comp_cntr(struct ibv_context *context,
		     struct ibv_comp_cntr_init_attr *cc_attr)
{
	struct sv_buffer_desc desc[2];
	struct ib_uverbs_attr a[3];
	struct sv_comp_cntr *c;
	long page = sysconf(_SC_PAGESIZE);
	int err;

	if (!context || !cc_attr || cc_attr->comp_mask || cc_attr->flags) {
		fail(EINVAL);
		return NULL;
	}
	/* counts of work requests; of bytes, no */
	if (cc_attr->type != IBV_COMP_CNTR_TYPE_WRS) {
		fail(cc_attr->type == IBV_COMP_CNTR_TYPE_BYTES ? EOPNOTSUPP :
								 EINVAL);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		fail(ENOMEM);
		return NULL;
	}
	c->mem_size = page > 0 ? (size_t)page : 4096;
	c->mem = mmap(NULL, c->mem_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->mem == MAP_FAILED) {
		err = errno ? errno : ENOMEM;
		goto err_free;
	}

	memset(desc, 0, sizeof(desc));
	desc[0].type = SV_BUFFER_TYPE_VA;
	desc[0].addr = (uintptr_t)&c->mem[0];
	desc[0].length = sizeof(uint64_t);
	desc[1] = desc[0];
	desc[1].addr = (uintptr_t)&c->mem[SV_CC_ERR_WORD];
	/* the new object's handle comes back in a[0].data */
	attr_in(&a[0], 0, 0, 0);
	attr_in(&a[1], SV_ATTR_CREATE_COMP_CNTR_COMP_BUFFER, sizeof(desc[0]),
		(uintptr_t)&desc[0]);
	attr_in(&a[2], SV_ATTR_CREATE_COMP_CNTR_ERR_BUFFER, sizeof(desc[1]),
		(uintptr_t)&desc[1]);
	err = sv_cmd_ioctl(context->cmd_fd, SV_OBJECT_COMP_CNTR,
			   SV_METHOD_COMP_CNTR_CREATE, a, 3);
	if (err) {
		err = cc_errno(err);
		goto err_unmap;
	}
	c->cc.context = context;
	c->cc.handle = (uint32_t)a[0].data;
	return &c->cc;

err_unmap:
	munmap(c->mem, c->mem_size);
err_free:
	free(c);
	fail(err);
	return NULL;
}

SV_EXPORT int ibv_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr)
{
	struct ib_uverbs_attr a[1];
	struct sv_comp_cntr *c;
	int err;

	if (!comp_cntr)
		return fail(EINVAL);
	c = to_sv_cc(comp_cntr);
	attr_in(&a[0], 0, 0, comp_cntr->handle);
	err = sv_cmd_ioctl(comp_cntr->context->cmd_fd, SV_OBJECT_COMP_CNTR,
			   SV_METHOD_COMP_CNTR_DESTROY, a, 1);
	if (err)
		return fail(cc_errno(err));	/* EBUSY while attached */
	munmap(c->mem, c->mem_size);
	free(c);
	return 0;
}

static int modify(struct ibv_comp_cntr *comp_cntr, uint64_t entry,
		  uint64_t op, uint64_t value)
{
	struct ib_uverbs_attr a[4];
	int err;

	if (!comp_cntr)
		return fail(EINVAL);
	attr_in(&a[0], 0, 0, comp_cntr->handle);
	attr_in(&a[1], 1, sizeof(uint64_t), entry);
	attr_in(&a[2], 2, sizeof(uint64_t), op);
	attr_in(&a[3], 3, sizeof(uint64_t), value);
	err = sv_cmd_ioctl(comp_cntr->context->cmd_fd, SV_OBJECT_COMP_CNTR,
			   SV_METHOD_COMP_CNTR_MODIFY, a, 4);
	return err ? fail(cc_errno(err)) : 0;
}

SV_EXPORT int ibv_set_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				uint64_t value)
{
	return modify(comp_cntr, SV_COMP_CNTR_ENTRY_COMP, SV_COMP_CNTR_OP_SET,
		      value);
}

SV_EXPORT int ibv_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				    uint64_t value)
{
	return modify(comp_cntr, SV_COMP_CNTR_ENTRY_ERR, SV_COMP_CNTR_OP_SET,
		      value);
}

SV_EXPORT int ibv_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				uint64_t amount)
{
	return modify(comp_cntr, SV_COMP_CNTR_ENTRY_COMP, SV_COMP_CNTR_OP_INC,
		      amount);
}

SV_EXPORT int ibv_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				    uint64_t amount)
{
	return modify(comp_cntr, SV_COMP_CNTR_ENTRY_ERR, SV_COMP_CNTR_OP_INC,
		      amount);
}

/* acquire: what the count counts happened before it was stored */
static int load(struct ibv_comp_cntr *comp_cntr, unsigned int word,
		uint64_t *value)
{
	if (!comp_cntr || !value)
		return fail(EINVAL);
	*value = __atomic_load_n(&to_sv_cc(comp_cntr)->mem[word],
				 __ATOMIC_ACQUIRE);
	return 0;
}

SV_EXPORT int ibv_read_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				 uint64_t *value)
{
	return load(comp_cntr, 0, value);
}

SV_EXPORT int ibv_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				     uint64_t *value)
{
	return load(comp_cntr, SV_CC_ERR_WORD, value);
}

SV_EXPORT int ibv_qp_attach_comp_cntr(struct ibv_qp *qp,
				      struct ibv_comp_cntr *comp_cntr,
				      struct ibv_qp_attach_comp_cntr_attr *attr)
{
	struct ib_uverbs_attr a[3];
	int err;

	if (!qp || !comp_cntr || !attr || attr->comp_mask || !attr->op_mask ||
	    qp->context != comp_cntr->context)
		return fail(EINVAL);
	if (attr->op_mask & ~(uint32_t)SV_CC_OPS)
		return fail(EOPNOTSUPP);
	attr_in(&a[0], 0, 0, qp->handle);
	attr_in(&a[1], 1, 0, comp_cntr->handle);
	attr_in(&a[2], 2, sizeof(uint32_t), attr->op_mask);
	err = sv_cmd_ioctl(qp->context->cmd_fd, UVERBS_OBJECT_QP,
			   SV_METHOD_QP_ATTACH_COMP_CNTR, a, 3);
	return err ? fail(cc_errno(err)) : 0;
}
