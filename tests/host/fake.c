// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Test doubles for ulib: see fake.h. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "fake.h"
#include "harness.h"

struct fake_kernel fk;

static void mkdir_p(const char *path)
{
	char tmp[PATH_MAX], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(tmp, 0755);
		*p = '/';
	}
	mkdir(tmp, 0755);
}

static void write_file(const char *path, const char *text)
{
	char dir[PATH_MAX], *slash;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		mkdir_p(dir);
	}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		abort();
	}
	fputs(text, f);
	fclose(f);
}

void fake_tree_init(struct fake_tree *t)
{
	char path[PATH_MAX + 64];

	snprintf(t->root, sizeof(t->root), "/tmp/svtest.XXXXXX");
	if (!mkdtemp(t->root)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(t->sys, sizeof(t->sys), "%s/sys", t->root);
	snprintf(t->dev, sizeof(t->dev), "%s/dev", t->root);
	snprintf(path, sizeof(path), "%s/class/infiniband", t->sys);
	mkdir_p(path);
	snprintf(path, sizeof(path), "%s/infiniband", t->dev);
	mkdir_p(path);
	fake_sys_write(t, "class/infiniband_verbs/abi_version", "6\n");
	setenv("SOFTVERBS_SYSFS_ROOT", t->sys, 1);
	setenv("SOFTVERBS_DEV_ROOT", t->dev, 1);
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

void fake_tree_destroy(struct fake_tree *t)
{
	nftw(t->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void fake_sys_write(struct fake_tree *t, const char *rel, const char *fmt, ...)
{
	char path[PATH_MAX * 2], text[512];
	va_list ap;

	snprintf(path, sizeof(path), "%s/%s", t->sys, rel);
	if (!fmt) {
		unlink(path);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	write_file(path, text);
}

void fake_add_device(struct fake_tree *t, unsigned int n, const char *ibdev,
		     int abi, bool softverbs)
{
	char rel[PATH_MAX], path[PATH_MAX * 2];

	snprintf(rel, sizeof(rel), "class/infiniband_verbs/uverbs%u/ibdev", n);
	fake_sys_write(t, rel, "%s\n", ibdev);
	snprintf(rel, sizeof(rel), "class/infiniband_verbs/uverbs%u/abi_version", n);
	fake_sys_write(t, rel, "%d\n", abi);
	snprintf(rel, sizeof(rel), "class/infiniband_verbs/uverbs%u/dev", n);
	fake_sys_write(t, rel, "231:%u\n", 192 + n);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/node_type", ibdev);
	fake_sys_write(t, rel, "1: CA\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/node_guid", ibdev);
	fake_sys_write(t, rel, "0002:c9ff:fe00:00%02x\n", n);
	if (softverbs) {
		snprintf(rel, sizeof(rel), "class/infiniband/%s/softverbs_version",
			 ibdev);
		fake_sys_write(t, rel, "0.1.0\n");
	}
	snprintf(path, sizeof(path), "%s/infiniband/uverbs%u", t->dev, n);
	write_file(path, "");
}

void fake_add_port(struct fake_tree *t, const char *ibdev, unsigned int port)
{
	static const char *const gids[4] = {
		"fe80:0000:0000:0000:0202:c9ff:fe00:0001",
		"fe80:0000:0000:0000:0202:c9ff:fe00:0001",
		"0000:0000:0000:0000:0000:0000:0000:0000",
		"0000:0000:0000:0000:0000:ffff:c0a8:0a01",
	};
	static const char *const types[4] = {
		"IB/RoCE v1", "RoCE v2", NULL, "RoCE v2",
	};
	char rel[PATH_MAX];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/gids/%u",
			 ibdev, port, i);
		fake_sys_write(t, rel, "%s\n", gids[i]);
		if (!types[i])
			continue;	/* empty slot: the kernel fails the read */
		snprintf(rel, sizeof(rel),
			 "class/infiniband/%s/ports/%u/gid_attrs/types/%u",
			 ibdev, port, i);
		fake_sys_write(t, rel, "%s\n", types[i]);
		snprintf(rel, sizeof(rel),
			 "class/infiniband/%s/ports/%u/gid_attrs/ndevs/%u",
			 ibdev, port, i);
		fake_sys_write(t, rel, "lo\n");
	}
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/pkeys/0", ibdev, port);
	fake_sys_write(t, rel, "0xffff\n");
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/pkeys/1", ibdev, port);
	fake_sys_write(t, rel, "0x8001\n");
}

void fake_standard_setup(struct fake_tree *t)
{
	fake_tree_init(t);
	fake_add_device(t, 0, "sv0", 2, true);
	fake_add_port(t, "sv0", 1);
	fake_kernel_install();
}

/* ------------------------------------------------------------------ */
/* The fake kernel                                                     */

static int fk_open(const char *path)
{
	snprintf(fk.opened, sizeof(fk.opened), "%s", path);
	return open(path, O_RDWR | O_CLOEXEC);
}

static int respond(uint64_t ptr, size_t room, const void *resp, size_t len)
{
	if (!ptr)
		return EFAULT;
	memcpy((void *)(uintptr_t)ptr, resp, len < room ? len : room);
	if (room > len)
		memset((char *)(uintptr_t)ptr + len, 0, room - len);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Rings and object commands                                           */

static unsigned int order_for(uint32_t entries)
{
	unsigned int log2 = 1;

	while ((1u << log2) < entries + 1)	/* one slot stays free */
		log2++;
	return log2;
}

/* A new ring of >= entries usable slots; fills mi for the response. */
static struct sv_queue_buf *new_ring(uint32_t entries, unsigned int log2_elem,
				     struct sv_mmap_info *mi)
{
	struct fake_ring *r;
	unsigned int log2 = order_for(entries);

	if (fk.nrings == sizeof(fk.rings) / sizeof(fk.rings[0]))
		abort();
	r = &fk.rings[fk.nrings];
	r->size = sizeof(struct sv_queue_buf) + ((size_t)1 << (log2 + log2_elem));
	r->buf = calloc(1, r->size);
	if (!r->buf)
		abort();
	r->buf->index_mask = (1u << log2) - 1;
	r->buf->log2_elem_size = log2_elem;
	r->offset = 0x10000ull * (fk.nrings + 1);
	mi->offset = r->offset;
	mi->size = (uint32_t)r->size;
	fk.nrings++;
	return r->buf;
}

struct fake_ring *fake_ring_of(const void *addr)
{
	unsigned int i;

	for (i = 0; i < fk.nrings; i++)
		if (fk.rings[i].buf == addr)
			return &fk.rings[i];
	return NULL;
}

static void *fk_mmap(int fd, size_t len, uint64_t offset)
{
	unsigned int i;

	(void)fd;
	for (i = 0; i < fk.nrings; i++) {
		if (fk.rings[i].offset == offset && fk.rings[i].size == len) {
			fk.rings[i].maps++;
			return fk.rings[i].buf;
		}
	}
	errno = EINVAL;
	return MAP_FAILED;
}

static int fk_munmap(void *addr, size_t len)
{
	struct fake_ring *r = fake_ring_of(addr);

	if (!r || r->size != len) {
		sv_test_fail(__FILE__, __LINE__, "munmap of an unknown ring");
		return -1;
	}
	r->maps--;
	return 0;
}

/* Driver data follows the core request/response at the core's size. */
static int object_cmd(uint32_t cmd, const uint8_t *req, size_t in_len,
		      uint64_t ptr, size_t out_len)
{
#define REQ(type, var)							\
	struct type var;						\
	if (in_len < sizeof(var))					\
		return EINVAL;						\
	memcpy(&var, req, sizeof(var))

	switch (cmd) {
	case IB_USER_VERBS_CMD_ALLOC_PD: {
		struct ib_uverbs_alloc_pd_resp r = { .pd_handle = fk.next_handle++ };

		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_REG_MR: {
		REQ(ib_uverbs_reg_mr, c);
		uint32_t h = fk.next_handle++;
		struct ib_uverbs_reg_mr_resp r = {
			.mr_handle = h, .lkey = 0x1100 + h, .rkey = 0x2200 + h,
		};

		fk.last_reg_mr = c;
		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_DEALLOC_PD:
	case IB_USER_VERBS_CMD_DESTROY_AH:
	case IB_USER_VERBS_CMD_DEREG_MR:
	case IB_USER_VERBS_CMD_CLOSE_XRCD:
		return in_len == 4 ? 0 : EINVAL;
	case IB_USER_VERBS_CMD_OPEN_XRCD: {
		REQ(ib_uverbs_open_xrcd, c);
		struct ib_uverbs_open_xrcd_resp r = {
			.xrcd_handle = fk.next_handle++,
		};

		/* ib_uverbs: a file without a domain needs O_CREAT */
		if ((int)c.fd != -1 && !(c.oflags & O_CREAT))
			return EAGAIN;
		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_CREATE_XSRQ: {
		REQ(ib_uverbs_create_xsrq, c);
		struct sv_resp_create_srq r = {};

		if (out_len < sizeof(r) || !c.max_wr)
			return EINVAL;
		fk.last_xsrq = c;
		r.core.srq_handle = fk.next_handle++;
		r.core.max_wr = c.max_wr;
		r.core.max_sge = c.max_sge;
		r.core.srqn = 0x500 + r.core.srq_handle;
		r.drv.srq_num = r.core.srqn;
		new_ring(c.max_wr, 7, &r.drv.mi);
		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_DESTROY_SRQ: {
		struct ib_uverbs_destroy_srq_resp r = {};

		if (in_len != sizeof(struct ib_uverbs_destroy_srq))
			return EINVAL;
		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_OPEN_QP: {
		REQ(ib_uverbs_open_qp, c);
		struct ib_uverbs_create_qp_resp r = {};

		fk.last_open_qp = c;
		/* ib_uverbs: no XRC target QP of that number in the domain */
		if (fk.open_qp_err)
			return fk.open_qp_err;
		r.qp_handle = fk.next_handle++;
		r.qpn = c.qpn;
		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_REQ_NOTIFY_CQ:
		return in_len == sizeof(struct ib_uverbs_req_notify_cq) ?
		       0 : EINVAL;
	case IB_USER_VERBS_CMD_CREATE_CQ: {
		REQ(ib_uverbs_create_cq, c);
		struct sv_resp_create_cq r = {};

		if (out_len < sizeof(r) || !c.cqe)
			return EINVAL;
		r.core.cq_handle = fk.next_handle++;
		r.core.cqe = c.cqe;
		fk.last_cq = new_ring(c.cqe, 6, &r.drv.mi);
		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_RESIZE_CQ: {
		REQ(ib_uverbs_resize_cq, c);
		struct sv_resp_resize_cq r = {};
		struct sv_queue_buf *old = fk.last_cq, *q;
		uint32_t n = 0, cons, prod;

		if (out_len < sizeof(r))
			return EINVAL;
		q = new_ring(c.cqe, 6, &r.drv.mi);
		/* move the pending entries, as the kernel does */
		cons = old->consumer_index;
		prod = old->producer_index;
		while (((prod - cons - n) & old->index_mask)) {
			memcpy(q->data + ((size_t)n << 6),
			       old->data + ((size_t)((cons + n) &
						     old->index_mask) << 6), 64);
			n++;
		}
		q->producer_index = n;
		fk.last_cq = q;
		r.core.cqe = c.cqe;
		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_DESTROY_CQ: {
		struct ib_uverbs_destroy_cq_resp r = {};

		if (in_len != sizeof(struct ib_uverbs_destroy_cq))
			return EINVAL;
		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_CREATE_QP: {
		REQ(ib_uverbs_create_qp, c);
		struct sv_resp_create_qp r = {};

		if (out_len < sizeof(r))
			return EINVAL;
		fk.last_create_qp = c;
		r.core.qp_handle = fk.next_handle++;
		r.core.qpn = 0x100 + r.core.qp_handle;
		/* an XRC target: ib_core makes it, no driver data, no ring */
		if (c.qp_type == IB_UVERBS_QPT_XRC_TGT) {
			fk.last_qp_handle = r.core.qp_handle;
			return respond(ptr, out_len, &r, sizeof(r));
		}
		r.core.max_send_wr = c.max_send_wr;
		r.core.max_recv_wr = c.max_recv_wr;
		r.core.max_send_sge = c.max_send_sge;
		r.core.max_recv_sge = c.max_recv_sge;
		/* what a 512-byte slot holds after the fixed part */
		r.core.max_inline_data = 512 - offsetof(struct sv_send_wqe,
							dma.inline_data);
		fk.last_sq = new_ring(c.max_send_wr, 9, &r.drv.sq_mi);
		/* with an SRQ, and on an XRC initiator, there is no RQ */
		fk.last_rq = c.is_srq || c.qp_type == IB_UVERBS_QPT_XRC_INI ?
			     NULL : new_ring(c.max_recv_wr, 7, &r.drv.rq_mi);
		fk.last_qp_handle = r.core.qp_handle;
		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_MODIFY_QP: {
		REQ(ib_uverbs_modify_qp, c);

		fk.last_modify_state = c.qp_state;
		fk.last_modify_handle = c.qp_handle;
		return 0;
	}
	case IB_USER_VERBS_CMD_QUERY_QP: {
		REQ(ib_uverbs_query_qp, c);
		struct ib_uverbs_query_qp_resp r = {
			.qp_state = (uint8_t)fk.last_modify_state,
			.sq_sig_all = 1,
		};

		fk.last_query_qp_handle = c.qp_handle;
		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_DESTROY_QP: {
		struct ib_uverbs_destroy_qp_resp r = {};

		if (in_len != sizeof(struct ib_uverbs_destroy_qp))
			return EINVAL;
		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_POST_SEND: {
		REQ(ib_uverbs_post_send, c);
		struct ib_uverbs_post_send_resp r = {};

		/* uverbs checks the WR size even when there are none */
		if (c.wqe_size < sizeof(struct ib_uverbs_send_wr))
			return EINVAL;
		fk.last_post_send = c;
		return respond(ptr, out_len, &r, sizeof(r));
	}
	default:
		return EOPNOTSUPP;
	}
#undef REQ
}

static int legacy(const struct ib_uverbs_cmd_hdr *hdr, const uint8_t *req,
		  size_t in_len, size_t out_len)
{
	uint32_t cmd = hdr->command;
	uint64_t ptr;

	/* Requests without a response start with a handle, not a pointer. */
	ptr = 0;
	if (in_len >= sizeof(ptr))
		memcpy(&ptr, req, sizeof(ptr));
	if (cmd < 64)
		fk.count[cmd]++;
	if (!fk.have_context && cmd != IB_USER_VERBS_CMD_GET_CONTEXT)
		return EINVAL;

	switch (cmd) {
	case IB_USER_VERBS_CMD_GET_CONTEXT: {
		struct ib_uverbs_get_context_resp r = {};
		int p[2];

		if (fk.have_context)
			return EINVAL;
		if (out_len < sizeof(r))
			return ENOSPC;
		if (fk.get_context_err)
			return fk.get_context_err;
		if (pipe2(p, O_CLOEXEC))
			return errno;
		fk.async_rd = p[0];
		fk.async_wr = p[1];
		r.async_fd = p[0];
		r.num_comp_vectors = fk.num_comp_vectors;
		fk.have_context = true;
		return respond(ptr, out_len, &r, sizeof(r));
	}
	case IB_USER_VERBS_CMD_QUERY_DEVICE:
		if (in_len != sizeof(struct ib_uverbs_query_device))
			return EINVAL;
		if (out_len < sizeof(fk.dev.base))
			return ENOSPC;
		return respond(ptr, out_len, &fk.dev.base, sizeof(fk.dev.base));
	case IB_USER_VERBS_CMD_QUERY_PORT: {
		struct ib_uverbs_query_port q;

		if (in_len != sizeof(q))
			return EINVAL;
		memcpy(&q, req, sizeof(q));
		if (out_len < sizeof(fk.port))
			return ENOSPC;
		if (q.port_num < 1 || q.port_num > fk.nports)
			return EINVAL;
		return respond(ptr, out_len, &fk.port, sizeof(fk.port));
	}
	default:
		if (!fk.objects)
			return EOPNOTSUPP;
		return object_cmd(cmd, req, in_len, ptr, out_len);
	}
}

static int extended(const struct ib_uverbs_cmd_hdr *hdr, const uint8_t *buf,
		    size_t len)
{
	struct ib_uverbs_ex_cmd_hdr ex;
	uint32_t cmd = hdr->command & IB_USER_VERBS_CMD_COMMAND_MASK;
	struct ib_uverbs_ex_query_device q;
	struct ib_uverbs_ex_query_device_resp r;

	if (hdr->command & ~(IB_USER_VERBS_CMD_FLAG_EXTENDED |
			     IB_USER_VERBS_CMD_COMMAND_MASK))
		return EINVAL;
	if (len < sizeof(*hdr) + sizeof(ex))
		return EINVAL;
	memcpy(&ex, buf + sizeof(*hdr), sizeof(ex));
	if ((hdr->in_words + ex.provider_in_words) * 8 !=
	    len - sizeof(*hdr) - sizeof(ex))
		return EINVAL;
	if (ex.cmd_hdr_reserved)
		return EINVAL;
	if (!ex.response && (hdr->out_words || ex.provider_out_words))
		return EINVAL;
	if (cmd < 64)
		fk.ex_count[cmd]++;
	if (!fk.have_context)
		return EINVAL;
	if (cmd != IB_USER_VERBS_EX_CMD_QUERY_DEVICE)
		return EOPNOTSUPP;
	if (fk.ex_query_err)
		return fk.ex_query_err;
	if (hdr->in_words * 8 < sizeof(q))
		return ENOSPC;
	if (hdr->out_words * 8 <
	    offsetof(struct ib_uverbs_ex_query_device_resp, response_length) + 4)
		return ENOSPC;
	memcpy(&q, buf + sizeof(*hdr) + sizeof(ex), sizeof(q));
	if (q.comp_mask || q.reserved)
		return EINVAL;
	r = fk.dev;
	r.response_length = fk.ex_resp_len ? fk.ex_resp_len : sizeof(r);
	if (r.response_length > hdr->out_words * 8u)
		r.response_length = hdr->out_words * 8u;
	/* The kernel only writes what response_length covers. */
	return respond(ex.response, hdr->out_words * 8u, &r, r.response_length);
}

static ssize_t fk_write(int fd, const void *buf, size_t len)
{
	struct ib_uverbs_cmd_hdr hdr;
	int err;

	(void)fd;
	if (fk.ncmds < FAKE_MAX_CMDS && len <= sizeof(fk.cmds[0].bytes)) {
		memcpy(fk.cmds[fk.ncmds].bytes, buf, len);
		fk.cmds[fk.ncmds].len = len;
	}
	fk.ncmds++;
	if (fk.eintr_count > 0) {
		fk.eintr_count--;
		errno = EINTR;
		return -1;
	}
	if (fk.write_err) {
		errno = fk.write_err;
		return -1;
	}
	if (len < sizeof(hdr)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&hdr, buf, sizeof(hdr));
	if (hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED) {
		err = extended(&hdr, buf, len);
	} else if (hdr.in_words * 4u != len) {
		err = EINVAL;
	} else {
		err = legacy(&hdr, (const uint8_t *)buf + sizeof(hdr),
			     len - sizeof(hdr), hdr.out_words * 4u);
	}
	if (err) {
		errno = err;
		return -1;
	}
	return fk.short_write ? (ssize_t)len - 1 : (ssize_t)len;
}

/*
 * The two ioctl methods libsoftverbs issues, decoded as ib_uverbs does:
 * the header, then attributes by id (inline data up to 8 bytes, else a
 * pointer; IDRs with len 0).  Another object is EPROTONOSUPPORT (a kernel
 * without it: the completion counters of 6.x), another method of MR
 * EOPNOTSUPP.
 */
static const struct ib_uverbs_attr *fk_attr(const struct ib_uverbs_ioctl_hdr *h,
					    uint16_t id)
{
	unsigned int i;

	for (i = 0; i < h->num_attrs; i++)
		if (h->attrs[i].attr_id == id)
			return &h->attrs[i];
	return NULL;
}

static int fk_ioctl(int fd, unsigned long request, void *arg)
{
	struct ib_uverbs_ioctl_hdr *h = arg;
	const struct ib_uverbs_attr *a, *b;
	uint32_t key;

	(void)fd;
	if (request != RDMA_VERBS_IOCTL ||
	    h->length != sizeof(*h) + h->num_attrs * sizeof(h->attrs[0]) ||
	    h->driver_id != RDMA_DRIVER_RXE) {
		errno = EINVAL;
		return -1;
	}
	/* as uverbs answers for an object or method it does not have */
	if (h->object_id != UVERBS_OBJECT_MR) {
		fk.ioctl_unknown++;
		errno = EPROTONOSUPPORT;
		return -1;
	}
	if (h->method_id == UVERBS_METHOD_ADVISE_MR) {
		a = fk_attr(h, UVERBS_ATTR_ADVISE_MR_SGE_LIST);
		if (!a || !fk_attr(h, UVERBS_ATTR_ADVISE_MR_PD_HANDLE) ||
		    !fk_attr(h, UVERBS_ATTR_ADVISE_MR_ADVICE) ||
		    fk_attr(h, UVERBS_ATTR_ADVISE_MR_PD_HANDLE)->len ||
		    fk_attr(h, UVERBS_ATTR_ADVISE_MR_ADVICE)->len != 8 ||
		    !a->len || a->len % sizeof(struct ib_uverbs_sge)) {
			errno = EINVAL;
			return -1;
		}
		fk.advise_count++;
		fk.last_advise_pd = fk_attr(h, UVERBS_ATTR_ADVISE_MR_PD_HANDLE)->data;
		fk.last_advice = fk_attr(h, UVERBS_ATTR_ADVISE_MR_ADVICE)->data;
		b = fk_attr(h, UVERBS_ATTR_ADVISE_MR_FLAGS);
		fk.last_advise_flags = b ? b->data : 0;
		fk.last_advise_nsge = a->len / sizeof(struct ib_uverbs_sge);
		memcpy(&fk.last_advise_sge, (void *)(uintptr_t)a->data,
		       sizeof(fk.last_advise_sge));
		return 0;
	}
	if (h->method_id == UVERBS_METHOD_REG_DMABUF_MR) {
		a = fk_attr(h, UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY);
		b = fk_attr(h, UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY);
		if (!a || !b || a->len != 4 || b->len != 4 ||
		    !fk_attr(h, UVERBS_ATTR_REG_DMABUF_MR_HANDLE) ||
		    !fk_attr(h, UVERBS_ATTR_REG_DMABUF_MR_FD)) {
			errno = EINVAL;
			return -1;
		}
		fk.dmabuf_count++;
		fk.last_dmabuf_offset = fk_attr(h, UVERBS_ATTR_REG_DMABUF_MR_OFFSET)->data;
		fk.last_dmabuf_length = fk_attr(h, UVERBS_ATTR_REG_DMABUF_MR_LENGTH)->data;
		fk.last_dmabuf_iova = fk_attr(h, UVERBS_ATTR_REG_DMABUF_MR_IOVA)->data;
		fk.last_dmabuf_fd = fk_attr(h, UVERBS_ATTR_REG_DMABUF_MR_FD)->data;
		fk.last_dmabuf_access =
			fk_attr(h, UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS)->data;
		/* the new handle goes back into the attribute, as uverbs does */
		((struct ib_uverbs_attr *)fk_attr(h,
			UVERBS_ATTR_REG_DMABUF_MR_HANDLE))->data = 77;
		key = 0x4242;
		memcpy((void *)(uintptr_t)a->data, &key, 4);
		memcpy((void *)(uintptr_t)b->data, &key, 4);
		return 0;
	}
	errno = EOPNOTSUPP;
	return -1;
}

static const struct sv_transport fake_transport = {
	.open = fk_open,
	.write = fk_write,
	.ioctl = fk_ioctl,
	.mmap = fk_mmap,
	.munmap = fk_munmap,
};

void fake_kernel_install(void)
{
	struct ib_uverbs_query_device_resp *b = &fk.dev.base;

	memset(&fk, 0, sizeof(fk));
	fk.async_rd = fk.async_wr = -1;
	fk.next_handle = 1;
	fk.nports = 1;
	fk.num_comp_vectors = 3;

	b->fw_ver = (1ULL << 32) | (2ULL << 16) | 3;
	b->node_guid = htobe64(0x0002c9fffe000001ULL);
	b->sys_image_guid = htobe64(0x0002c9fffe000001ULL);
	b->max_mr_size = ~0ULL;
	b->page_size_cap = 0xfffff000;
	b->vendor_id = 0x5356;
	b->vendor_part_id = 0;
	b->hw_ver = 0;
	b->max_qp = 1 << 16;
	b->max_qp_wr = 1 << 14;
	b->device_cap_flags = 0x00217c76;
	b->max_sge = 32;
	b->max_sge_rd = 32;
	b->max_cq = 1 << 14;
	b->max_cqe = (1 << 15) - 1;
	b->max_mr = 1 << 18;
	b->max_pd = 1 << 16;
	b->max_qp_rd_atom = 128;
	b->max_res_rd_atom = 258048;
	b->max_qp_init_rd_atom = 128;
	b->atomic_cap = IBV_ATOMIC_HCA;
	b->max_mw = 1 << 16;
	b->max_mcast_grp = 8192;
	b->max_mcast_qp_attach = 56;
	b->max_total_mcast_qp_attach = 458752;
	b->max_ah = 1 << 15;
	b->max_srq = 960;
	b->max_srq_wr = 1 << 14;
	b->max_srq_sge = 27;
	b->max_pkeys = 64;
	b->local_ca_ack_delay = 15;
	b->phys_port_cnt = 1;
	fk.dev.device_cap_flags_ex = 0x1000217c76ULL;
	fk.dev.odp_caps.general_caps = 1;
	fk.dev.odp_caps.per_transport_caps.rc_odp_caps = 0x3f;
	fk.dev.max_wq_type_rq = 7;
	fk.dev.max_dm_size = 4096;
	fk.dev.xrc_odp_caps = 5;

	fk.port.state = IBV_PORT_ACTIVE;
	fk.port.max_mtu = IBV_MTU_4096;
	fk.port.active_mtu = IBV_MTU_1024;
	fk.port.gid_tbl_len = 4;
	fk.port.port_cap_flags = 0x00890000;
	fk.port.max_msg_sz = 0x800000;
	fk.port.bad_pkey_cntr = 1;
	fk.port.qkey_viol_cntr = 2;
	fk.port.pkey_tbl_len = 2;
	fk.port.lid = 0;
	fk.port.sm_lid = 0;
	fk.port.lmc = 0;
	fk.port.max_vl_num = 1;
	fk.port.sm_sl = 0;
	fk.port.subnet_timeout = 0;
	fk.port.init_type_reply = 0;
	fk.port.active_width = 1;
	fk.port.active_speed = 1;
	fk.port.phys_state = 5;
	fk.port.link_layer = IBV_LINK_LAYER_ETHERNET;
	fk.port.flags = 1;	/* IB_UVERBS_QPF_GRH_REQUIRED */

	sv_transport = &fake_transport;
}
