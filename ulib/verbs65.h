/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The verbs API rdma-core 59 to 65 added (libibverbs 1.15 to 1.18), for
 * building libsoftverbs against an older <infiniband/verbs.h> (rdma-core 44
 * on Debian 12, 56 on Debian 13).  Types keep rdma-core 65's names and
 * layouts, since programs built against its header pass them to us.
 * probe-verbs.sh says which parts the distro header already has.
 *
 * struct ibv_buf is opaque in verbs.h; its contents are ours (ulib.h).
 */
#ifndef SV_VERBS65_H
#define SV_VERBS65_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#if defined(SV_HAVE_VERBS_MR_EX) && !defined(SV_HAVE_VERBS_MR_BUF)
/* rdma-core 59..63: an ibv_mr_init_attr without buf we cannot extend */
#error "verbs.h of rdma-core 59 to 63 is not supported: build against <= 58 or >= 64"
#endif

#ifndef SV_HAVE_VERBS_MR_EX
/* IBVERBS_1.15 */
struct ibv_dmah {
	struct ibv_context *context;
};

enum ibv_mr_init_attr_mask {
	IBV_REG_MR_MASK_IOVA = 1 << 0,
	IBV_REG_MR_MASK_ADDR = 1 << 1,
	IBV_REG_MR_MASK_FD = 1 << 2,
	IBV_REG_MR_MASK_FD_OFFSET = 1 << 3,
	IBV_REG_MR_MASK_DMAH = 1 << 4,
	IBV_REG_MR_MASK_BUF = 1 << 5,		/* IBVERBS_1.17 */
};

struct ibv_buf;

struct ibv_mr_init_attr {
	size_t length;
	int access;
	uint64_t comp_mask;	/* enum ibv_mr_init_attr_mask */
	uint64_t iova;
	void *addr;
	int fd;
	uint64_t fd_offset;
	struct ibv_dmah *dmah;
	struct ibv_buf *buf;	/* IBVERBS_1.17 */
};

enum ibv_tph_mem_type {
	IBV_TPH_MEM_TYPE_VM,
	IBV_TPH_MEM_TYPE_PM,
};

enum ibv_dmah_init_attr_mask {
	IBV_DMAH_INIT_ATTR_MASK_CPU_ID = 1 << 0,
	IBV_DMAH_INIT_ATTR_MASK_PH = 1 << 1,
	IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE = 1 << 2,
};

struct ibv_dmah_init_attr {
	uint32_t comp_mask;
	uint32_t cpu_id;
	uint8_t ph;
	uint8_t tph_mem_type;	/* enum ibv_tph_mem_type */
};
#endif /* SV_HAVE_VERBS_MR_EX */

#ifndef SV_HAVE_VERBS_COMP_CNTR
/* IBVERBS_1.18 */
enum ibv_qp_attach_comp_cntr_op {
	IBV_QP_ATTACH_COMP_CNTR_OP_SEND = 1 << 0,
	IBV_QP_ATTACH_COMP_CNTR_OP_RECV = 1 << 1,
	IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ = 1 << 2,
	IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ = 1 << 3,
	IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE = 1 << 4,
	IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE = 1 << 5,
};

struct ibv_comp_cntr_caps {
	uint64_t max_value;
	uint32_t max_counters;
	uint32_t supported_qp_attach_ops;	/* enum ibv_qp_attach_comp_cntr_op */
};

struct ibv_comp_cntr {
	struct ibv_context *context;
	uint32_t handle;
};

enum ibv_comp_cntr_type {
	IBV_COMP_CNTR_TYPE_WRS,
	IBV_COMP_CNTR_TYPE_BYTES,
};

struct ibv_comp_cntr_init_attr {
	uint32_t comp_mask;
	enum ibv_comp_cntr_type type;
	uint32_t flags;
};

struct ibv_qp_attach_comp_cntr_attr {
	uint32_t comp_mask;
	uint32_t op_mask;	/* enum ibv_qp_attach_comp_cntr_op */
};
#endif /* SV_HAVE_VERBS_COMP_CNTR */

/*
 * The functions, as rdma-core 65 declares them (a repeated compatible
 * declaration is harmless where the distro header has them too).
 */
/* IBVERBS_1.15 */
struct ibv_mr *ibv_reg_mr_ex(struct ibv_pd *pd,
			     struct ibv_mr_init_attr *mr_init_attr);
struct ibv_dmah *ibv_alloc_dmah(struct ibv_context *context,
				struct ibv_dmah_init_attr *attr);
int ibv_dealloc_dmah(struct ibv_dmah *dmah);
/* IBVERBS_1.16 */
int ibv_query_port_speed(struct ibv_context *context, uint32_t port_num,
			 uint64_t *port_speed);
int ibv_dm_export_dmabuf_fd(struct ibv_dm *dm);
/* IBVERBS_1.17 */
void *ibv_alloc_buf(struct ibv_pd *pd, size_t size, struct ibv_buf **buf);
void ibv_free_buf(struct ibv_buf *buf);
struct ibv_mr *ibv_reg_buf_mr(struct ibv_pd *pd, struct ibv_buf *buf,
			      void *addr, size_t length, int access);
/* IBVERBS_1.18 */
int ibv_export_buf_dmabuf_fd(struct ibv_buf *buf);
int _ibv_query_comp_cntr_caps(struct ibv_context *context,
			      struct ibv_comp_cntr_caps *caps, size_t caps_size);
struct ibv_comp_cntr *ibv_create_comp_cntr(struct ibv_context *context,
					   struct ibv_comp_cntr_init_attr *cc_attr);
int ibv_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr);
int ibv_set_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value);
int ibv_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t value);
int ibv_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
int ibv_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t amount);
int ibv_read_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
int ibv_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr, uint64_t *value);
int ibv_qp_attach_comp_cntr(struct ibv_qp *qp, struct ibv_comp_cntr *comp_cntr,
			    struct ibv_qp_attach_comp_cntr_attr *attr);

#ifndef SV_HAVE_VERBS_COMP_CNTR
static inline int ibv_query_comp_cntr_caps(struct ibv_context *context,
					   struct ibv_comp_cntr_caps *caps)
{
	return _ibv_query_comp_cntr_caps(context, caps, sizeof(*caps));
}
#endif

#endif /* SV_VERBS65_H */
