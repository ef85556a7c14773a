// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What libibverbs 1.15 to 1.18 (rdma-core 65) added, against the fake
 * kernel: ibv_reg_mr_ex's attribute masks and the command each reaches,
 * ibv_alloc_buf buffers and their registration, ibv_query_port_speed from
 * QUERY_PORT, and the EOPNOTSUPP answers (DMA handles, device memory
 * export, completion counters), none of which sends a command.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "fake.h"
#include "harness.h"

struct env {
	struct fake_tree t;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
};

static bool setup(struct env *e)
{
	struct ibv_device **list;

	memset(e, 0, sizeof(*e));
	fake_standard_setup(&e->t);
	fk.objects = true;
	list = ibv_get_device_list(NULL);
	if (list && list[0])
		e->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	CHECK(e->ctx != NULL);
	if (!e->ctx)
		return false;
	e->pd = ibv_alloc_pd(e->ctx);
	CHECK(e->pd != NULL);
	return e->pd != NULL;
}

static void teardown(struct env *e)
{
	if (e->pd)
		CHECK_INT(ibv_dealloc_pd(e->pd), 0);
	if (e->ctx)
		CHECK_INT(ibv_close_device(e->ctx), 0);
	fake_tree_destroy(&e->t);
}

static unsigned int reg_cmds(void)
{
	return fk.count[IB_USER_VERBS_CMD_REG_MR] + fk.dmabuf_count;
}

/* ------------------------------------------------------------------ */
/* ibv_query_port_speed                                                */

TEST(port_speed_from_width_and_speed)
{
	static const struct { uint8_t w; uint16_t s; uint64_t want; } ok[] = {
		{ 1, 1, 25 },		/* 1X SDR: 2.5 Gb/s */
		{ 2, 1, 100 },		/* 4X SDR */
		{ 1, 8, 100 },		/* 1X FDR10 */
		{ 8, 16, 1680 },	/* 12X FDR */
		{ 2, 32, 1000 },	/* 4X EDR: 100 Gb/s */
		{ 16, 64, 1000 },	/* 2X HDR */
		{ 4, 128, 8000 },	/* 8X NDR */
		{ 2, 256, 8000 },	/* 4X XDR */
	};
	uint64_t v;
	unsigned int i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 0;
		CHECK_INT(sv_port_speed(ok[i].w, ok[i].s, &v), 0);
		CHECK_INT(v, ok[i].want);
	}
	v = 7;
	CHECK_INT(sv_port_speed(0, 1, &v), EINVAL);
	CHECK_INT(sv_port_speed(3, 1, &v), EINVAL);
	CHECK_INT(sv_port_speed(1, 0, &v), EINVAL);
	CHECK_INT(sv_port_speed(1, 3, &v), EINVAL);
	CHECK_INT(v, 7);
}

TEST(query_port_speed_reads_query_port)
{
	struct env e;
	uint64_t v = 0;

	if (!setup(&e))
		return;
	fk.port.active_width = 2;	/* 4X */
	fk.port.active_speed = 32;	/* EDR */
	CHECK_INT(ibv_query_port_speed(e.ctx, 1, &v), 0);
	CHECK_INT(v, 1000);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_QUERY_PORT], 1);

	/* the kernel's answer for a port it does not have */
	CHECK_INT(ibv_query_port_speed(e.ctx, 2, &v), EINVAL);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_QUERY_PORT], 2);
	/* refused before any command */
	CHECK_INT(ibv_query_port_speed(e.ctx, 0, &v), EINVAL);
	CHECK_INT(ibv_query_port_speed(e.ctx, 256, &v), EINVAL);
	CHECK_INT(ibv_query_port_speed(e.ctx, 1, NULL), EINVAL);
	CHECK_INT(ibv_query_port_speed(NULL, 1, &v), EINVAL);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_QUERY_PORT], 2);
	/* an encoding that names no rate */
	fk.port.active_speed = 3;
	CHECK_INT(ibv_query_port_speed(e.ctx, 1, &v), EINVAL);
	CHECK_INT(v, 1000);
	teardown(&e);
}

/* ------------------------------------------------------------------ */
/* ibv_reg_mr_ex                                                       */

TEST(reg_mr_ex_by_address)
{
	struct ibv_mr_init_attr a = {
		.length = 8192,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
		.comp_mask = IBV_REG_MR_MASK_ADDR,
	};
	static char mem[8192] __attribute__((aligned(4096)));
	struct ibv_mr *mr;
	struct env e;

	if (!setup(&e))
		return;
	a.addr = mem;
	mr = ibv_reg_mr_ex(e.pd, &a);
	CHECK(mr != NULL);
	if (!mr)
		goto out;
	CHECK(fk.last_reg_mr.start == (uintptr_t)mem);
	CHECK(fk.last_reg_mr.hca_va == (uintptr_t)mem);	/* no IOVA: the address */
	CHECK_INT(fk.last_reg_mr.length, 8192);
	CHECK_INT(fk.last_reg_mr.pd_handle, e.pd->handle);
	CHECK_INT(fk.last_reg_mr.access_flags,
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	CHECK(mr->addr == mem && mr->length == 8192);
	CHECK(mr->pd == e.pd && mr->context == e.ctx);
	CHECK_INT(mr->lkey, 0x1100 + mr->handle);
	CHECK_INT(ibv_dereg_mr(mr), 0);

	/* with an IOVA, and the caller's struct left as it was */
	a.comp_mask |= IBV_REG_MR_MASK_IOVA;
	a.iova = 0x7000000;
	mr = ibv_reg_mr_ex(e.pd, &a);
	CHECK(mr != NULL);
	CHECK(fk.last_reg_mr.hca_va == 0x7000000);
	CHECK(fk.last_reg_mr.start == (uintptr_t)mem);
	CHECK(a.comp_mask == (IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_IOVA) &&
	      a.addr == mem && a.iova == 0x7000000);
	if (mr)
		CHECK_INT(ibv_dereg_mr(mr), 0);
out:
	teardown(&e);
}

TEST(reg_mr_ex_by_dmabuf)
{
	struct ibv_mr_init_attr a = {
		.length = 8192,
		.access = IBV_ACCESS_LOCAL_WRITE,
		.comp_mask = IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET |
			     IBV_REG_MR_MASK_IOVA,
		.fd = 9,
		.fd_offset = 4096,
		.iova = 0x5000,
	};
	struct ibv_mr *mr;
	struct env e;

	if (!setup(&e))
		return;
	mr = ibv_reg_mr_ex(e.pd, &a);
	CHECK(mr != NULL);
	CHECK_INT(fk.dmabuf_count, 1);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_REG_MR], 0);
	CHECK(fk.last_dmabuf_offset == 4096 && fk.last_dmabuf_length == 8192 &&
	      fk.last_dmabuf_iova == 0x5000);
	CHECK_INT(fk.last_dmabuf_fd, 9);
	CHECK_INT(fk.last_dmabuf_access, IBV_ACCESS_LOCAL_WRITE);
	if (mr) {
		/* as ibv_reg_dmabuf_mr: addr is the offset in the buffer */
		CHECK(mr->addr == (void *)4096 && mr->length == 8192);
		CHECK(mr->pd == e.pd);
		CHECK_INT(ibv_dereg_mr(mr), 0);
	}
	teardown(&e);
}

static void refuse(struct ibv_pd *pd, struct ibv_mr_init_attr *a, int err,
		   int line)
{
	errno = 0;
	if (ibv_reg_mr_ex(pd, a) != NULL)
		sv_test_fail(__FILE__, line, "registered");
	else if (errno != err)
		sv_test_fail(__FILE__, line, "errno %d, want %d", errno, err);
}

#define REFUSE(pd, mask, err)						\
	do {								\
		a.comp_mask = (mask);					\
		refuse(pd, &a, err, __LINE__);				\
	} while (0)

TEST(reg_mr_ex_refusals_send_nothing)
{
	static char mem[4096];
	struct ibv_mr_init_attr a = {
		.length = sizeof(mem), .addr = mem, .fd = 9, .iova = 1,
	};
	struct ibv_dmah dmah;
	struct env e;

	if (!setup(&e))
		return;
	a.dmah = &dmah;
	errno = 0;
	CHECK(ibv_reg_mr_ex(NULL, &a) == NULL && errno == EINVAL);
	CHECK(ibv_reg_mr_ex(e.pd, NULL) == NULL && errno == EINVAL);
	/* unknown bits; a DMA handle, which none can be */
	REFUSE(e.pd, IBV_REG_MR_MASK_ADDR | (1ULL << 6), EOPNOTSUPP);
	REFUSE(e.pd, IBV_REG_MR_MASK_ADDR | (1ULL << 63), EOPNOTSUPP);
	REFUSE(e.pd, IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_DMAH, EOPNOTSUPP);
	/* neither an address nor a dma-buf */
	REFUSE(e.pd, 0, EINVAL);
	REFUSE(e.pd, IBV_REG_MR_MASK_IOVA, EINVAL);
	/* an address with a dma-buf offset or fd */
	REFUSE(e.pd, IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_FD_OFFSET, EINVAL);
	REFUSE(e.pd, IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_FD |
	       IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA, EINVAL);
	/* a dma-buf without its offset or IOVA */
	REFUSE(e.pd, IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_IOVA, EINVAL);
	REFUSE(e.pd, IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET, EINVAL);
	/* a buffer handle that is NULL */
	a.buf = NULL;
	REFUSE(e.pd, IBV_REG_MR_MASK_ADDR | IBV_REG_MR_MASK_BUF, EINVAL);
	CHECK_INT(reg_cmds(), 0);
	teardown(&e);
}

/* ------------------------------------------------------------------ */
/* ibv_alloc_buf, ibv_reg_buf_mr                                       */

TEST(alloc_buf_and_register_it)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ibv_buf *buf = NULL;
	struct ibv_mr *mr;
	struct ibv_pd *pd2;
	struct env e;
	char *p;

	if (!setup(&e))
		return;
	p = ibv_alloc_buf(e.pd, 3 * page, &buf);
	CHECK(p != NULL && buf != NULL);
	if (!p || !buf)
		goto out;
	CHECK_INT((uintptr_t)p % page, 0);
	memset(p, 0x5a, 3 * page);	/* ours to write (ASan checks) */

	mr = ibv_reg_buf_mr(e.pd, buf, p, 3 * page, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr != NULL);
	CHECK(fk.last_reg_mr.start == (uintptr_t)p &&
	      fk.last_reg_mr.hca_va == (uintptr_t)p);
	CHECK_INT(fk.last_reg_mr.length, 3 * page);
	if (mr) {
		CHECK(mr->addr == p && mr->length == (size_t)(3 * page));
		CHECK_INT(ibv_dereg_mr(mr), 0);
	}
	/* a part of it; the end of it with length 0 */
	mr = ibv_reg_buf_mr(e.pd, buf, p + page, page, 0);
	CHECK(mr != NULL);
	CHECK(fk.last_reg_mr.start == (uintptr_t)(p + page));
	if (mr)
		CHECK_INT(ibv_dereg_mr(mr), 0);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_REG_MR], 2);

	/* outside it, another PD, no buffer: refused before any command */
	errno = 0;
	CHECK(ibv_reg_buf_mr(e.pd, buf, p + page, 2 * page + 1, 0) == NULL &&
	      errno == EINVAL);
	CHECK(ibv_reg_buf_mr(e.pd, buf, p - 1, 2, 0) == NULL &&
	      errno == EINVAL);
	CHECK(ibv_reg_buf_mr(e.pd, buf, p + 3 * page + 1, 0, 0) == NULL &&
	      errno == EINVAL);
	CHECK(ibv_reg_buf_mr(e.pd, buf, p, SIZE_MAX, 0) == NULL &&
	      errno == EINVAL);
	CHECK(ibv_reg_buf_mr(e.pd, NULL, p, page, 0) == NULL &&
	      errno == EINVAL);
	pd2 = ibv_alloc_pd(e.ctx);
	CHECK(pd2 != NULL);
	if (pd2) {
		CHECK(ibv_reg_buf_mr(pd2, buf, p, page, 0) == NULL &&
		      errno == EINVAL);
		CHECK_INT(ibv_dealloc_pd(pd2), 0);
	}
	/* through ibv_reg_mr_ex: the buffer with a dma-buf fd, or no address */
	{
		struct ibv_mr_init_attr a = {
			.length = page, .addr = p, .buf = buf, .fd = 9,
		};

		REFUSE(e.pd, IBV_REG_MR_MASK_BUF | IBV_REG_MR_MASK_ADDR |
		       IBV_REG_MR_MASK_FD, EINVAL);
		REFUSE(e.pd, IBV_REG_MR_MASK_BUF | IBV_REG_MR_MASK_ADDR |
		       IBV_REG_MR_MASK_FD_OFFSET, EINVAL);
		REFUSE(e.pd, IBV_REG_MR_MASK_BUF, EINVAL);
	}
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_REG_MR], 2);

	/* no dma-buf is ever behind a buffer */
	errno = 0;
	CHECK_INT(ibv_export_buf_dmabuf_fd(buf), -1);
	CHECK_INT(errno, ENODATA);
	CHECK_INT(ibv_export_buf_dmabuf_fd(NULL), -1);
	CHECK_INT(errno, EINVAL);
	ibv_free_buf(buf);
	ibv_free_buf(NULL);
out:
	teardown(&e);
}

TEST(alloc_buf_refusals)
{
	struct ibv_buf *buf = (struct ibv_buf *)&buf;
	struct env e;

	if (!setup(&e))
		return;
	errno = 0;
	CHECK(ibv_alloc_buf(NULL, 4096, &buf) == NULL && errno == EINVAL);
	CHECK(ibv_alloc_buf(e.pd, 0, &buf) == NULL && errno == EINVAL);
	CHECK(ibv_alloc_buf(e.pd, 4096, NULL) == NULL && errno == EINVAL);
	CHECK(buf == (struct ibv_buf *)&buf);	/* untouched on failure */
	teardown(&e);
}

/* ------------------------------------------------------------------ */
/* DMA handles, device memory export: nothing behind them              */

TEST(dmah_and_dm_export_unsupported)
{
	struct ibv_dmah_init_attr da = {
		.comp_mask = IBV_DMAH_INIT_ATTR_MASK_CPU_ID, .cpu_id = 1,
	};
	struct ibv_dmah dmah;
	struct ibv_dm dm;
	struct env e;
	unsigned int n;

	if (!setup(&e))
		return;
	n = fk.ncmds;
	dmah.context = e.ctx;
	memset(&dm, 0, sizeof(dm));
	dm.context = e.ctx;
	errno = 0;
	CHECK(ibv_alloc_dmah(e.ctx, &da) == NULL && errno == EOPNOTSUPP);
	CHECK(ibv_alloc_dmah(e.ctx, NULL) == NULL && errno == EINVAL);
	CHECK(ibv_alloc_dmah(NULL, &da) == NULL && errno == EINVAL);
	CHECK_INT(ibv_dealloc_dmah(&dmah), EOPNOTSUPP);
	CHECK_INT(ibv_dealloc_dmah(NULL), EINVAL);
	CHECK_INT(ibv_dm_export_dmabuf_fd(&dm), -1);
	CHECK_INT(errno, EOPNOTSUPP);
	CHECK_INT(ibv_dm_export_dmabuf_fd(NULL), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(fk.ncmds, n);
	teardown(&e);
}

/* ------------------------------------------------------------------ */
/* Completion counters                                                 */

TEST(comp_cntr_unsupported)
{
	/* a kernel without ib_core's completion counter object (6.x) */
	struct ibv_comp_cntr_init_attr ca = { .type = IBV_COMP_CNTR_TYPE_WRS };
	struct ibv_qp_attach_comp_cntr_attr qa = {
		.op_mask = IBV_QP_ATTACH_COMP_CNTR_OP_SEND,
	};
	struct ibv_comp_cntr_caps caps;
	struct ibv_comp_cntr cc;
	struct ibv_qp qp;
	uint64_t v = 5;
	struct env e;
	unsigned int n;

	if (!setup(&e))
		return;
	n = fk.ncmds;
	/* no support: capabilities read as zero */
	memset(&caps, 0xff, sizeof(caps));
	CHECK_INT(ibv_query_comp_cntr_caps(e.ctx, &caps), EOPNOTSUPP);
	CHECK(caps.max_value == 0 && caps.max_counters == 0 &&
	      caps.supported_qp_attach_ops == 0);
	CHECK_INT(fk.ioctl_unknown, 1);
	memset(&caps, 0xff, sizeof(caps));
	CHECK_INT(_ibv_query_comp_cntr_caps(e.ctx, &caps, sizeof(caps) - 1),
		  EINVAL);
	CHECK_INT(caps.max_counters, UINT32_MAX);	/* too small: untouched */
	CHECK_INT(_ibv_query_comp_cntr_caps(e.ctx, NULL, sizeof(caps)), EINVAL);
	CHECK_INT(_ibv_query_comp_cntr_caps(NULL, &caps, sizeof(caps)), EINVAL);

	/* CREATE goes to the kernel, which has no such object */
	errno = 0;
	CHECK(ibv_create_comp_cntr(e.ctx, &ca) == NULL && errno == EOPNOTSUPP);
	CHECK_INT(fk.ioctl_unknown, 2);
	CHECK(ibv_create_comp_cntr(e.ctx, NULL) == NULL && errno == EINVAL);
	CHECK(ibv_create_comp_cntr(NULL, &ca) == NULL && errno == EINVAL);
	ca.type = IBV_COMP_CNTR_TYPE_BYTES;
	CHECK(ibv_create_comp_cntr(e.ctx, &ca) == NULL && errno == EOPNOTSUPP);
	ca.type = IBV_COMP_CNTR_TYPE_WRS;
	ca.flags = 1;
	CHECK(ibv_create_comp_cntr(e.ctx, &ca) == NULL && errno == EINVAL);
	CHECK_INT(fk.ioctl_unknown, 2);

	/* the kernel's methods of a handle: EOPNOTSUPP from such a kernel */
	memset(&cc, 0, sizeof(cc));
	cc.context = e.ctx;
	memset(&qp, 0, sizeof(qp));
	qp.context = e.ctx;
	CHECK_INT(ibv_set_comp_cntr(&cc, 1), EOPNOTSUPP);
	CHECK_INT(ibv_set_err_comp_cntr(&cc, 1), EOPNOTSUPP);
	CHECK_INT(ibv_inc_comp_cntr(&cc, 1), EOPNOTSUPP);
	CHECK_INT(ibv_inc_err_comp_cntr(&cc, 1), EOPNOTSUPP);
	CHECK_INT(ibv_qp_attach_comp_cntr(&qp, &cc, &qa), EOPNOTSUPP);
	CHECK_INT(errno, EOPNOTSUPP);
	CHECK_INT(fk.ioctl_unknown, 7);

	/* refused before the kernel */
	CHECK_INT(ibv_destroy_comp_cntr(NULL), EINVAL);
	CHECK_INT(ibv_set_comp_cntr(NULL, 1), EINVAL);
	CHECK_INT(ibv_set_err_comp_cntr(NULL, 1), EINVAL);
	CHECK_INT(ibv_inc_comp_cntr(NULL, 1), EINVAL);
	CHECK_INT(ibv_inc_err_comp_cntr(NULL, 1), EINVAL);
	CHECK_INT(ibv_read_comp_cntr(NULL, &v), EINVAL);
	CHECK_INT(ibv_read_comp_cntr(&cc, NULL), EINVAL);
	CHECK_INT(ibv_read_err_comp_cntr(&cc, NULL), EINVAL);
	CHECK_INT(v, 5);
	CHECK_INT(ibv_qp_attach_comp_cntr(NULL, &cc, &qa), EINVAL);
	CHECK_INT(ibv_qp_attach_comp_cntr(&qp, NULL, &qa), EINVAL);
	CHECK_INT(ibv_qp_attach_comp_cntr(&qp, &cc, NULL), EINVAL);
	qa.op_mask = 0;
	CHECK_INT(ibv_qp_attach_comp_cntr(&qp, &cc, &qa), EINVAL);
	qa.op_mask = 1u << 6;
	CHECK_INT(ibv_qp_attach_comp_cntr(&qp, &cc, &qa), EOPNOTSUPP);
	CHECK_INT(fk.ioctl_unknown, 7);
	CHECK_INT(fk.ncmds, n);
	teardown(&e);
}
