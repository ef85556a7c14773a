// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs command marshalling, open/close and queries against the fake
 * kernel (fake.c), called through the public API exactly as a program
 * compiled against <infiniband/verbs.h> calls it: the inline wrappers
 * ibv_query_port, ibv_query_device_ex, ibv_query_gid_ex, ibv_create_cq_ex
 * ... are the distro header's own code.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fake.h"
#include "harness.h"

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t u16_at(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* Open the first (only) device of the standard fake tree. */
static struct ibv_context *open_first(struct fake_tree *t)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;

	fake_standard_setup(t);
	list = ibv_get_device_list(NULL);
	CHECK(list && list[0]);
	if (list && list[0])
		ctx = ibv_open_device(list[0]);
	/* The context keeps its device alive after the list is gone. */
	ibv_free_device_list(list);
	CHECK(ctx != NULL);
	return ctx;
}

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

TEST(cmd_get_context_bytes)
{
	struct sv_resp_get_context resp;
	const uint8_t *b;

	fake_kernel_install();
	CHECK_INT(sv_cmd_get_context(-1, &resp), 0);
	CHECK_INT(fk.ncmds, 1);
	b = fk.cmds[0].bytes;
	CHECK_INT(fk.cmds[0].len, 16);
	CHECK_INT(u32_at(b), IB_USER_VERBS_CMD_GET_CONTEXT);
	CHECK_INT(u16_at(b + 4), 4);		/* in_words: 16 bytes / 4 */
	CHECK_INT(u16_at(b + 6), 2);		/* out_words: 8 bytes / 4 */
	CHECK(u64_at(b + 8) == (uintptr_t)&resp);
	CHECK_INT(resp.core.async_fd, fk.async_rd);
	CHECK_INT(resp.core.num_comp_vectors, 3);
	close(fk.async_rd);
	close(fk.async_wr);
}

TEST(cmd_query_port_bytes)
{
	struct ibv_context *ctx;
	struct fake_tree t;
	struct ibv_port_attr pa;
	const uint8_t *b;
	unsigned int i;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	i = fk.ncmds;
	CHECK_INT(ibv_query_port(ctx, 1, &pa), 0);
	CHECK_INT(fk.ncmds, i + 1);
	b = fk.cmds[i].bytes;
	CHECK_INT(fk.cmds[i].len, 24);
	CHECK_INT(u32_at(b), IB_USER_VERBS_CMD_QUERY_PORT);
	CHECK_INT(u16_at(b + 4), 6);
	CHECK_INT(u16_at(b + 6), sizeof(struct ib_uverbs_query_port_resp) / 4);
	CHECK(u64_at(b + 8) != 0);
	CHECK_INT(b[16], 1);			/* port_num */
	CHECK(all_zero(b + 17, 7));		/* reserved */
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

TEST(cmd_ex_query_device_bytes)
{
	struct ibv_device_attr_ex ax;
	struct ibv_context *ctx;
	struct fake_tree t;
	const uint8_t *b;
	unsigned int i;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	i = fk.ncmds;
	CHECK_INT(ibv_query_device_ex(ctx, NULL, &ax), 0);
	CHECK_INT(fk.ncmds, i + 1);
	b = fk.cmds[i].bytes;
	CHECK_INT(fk.cmds[i].len, 8 + 16 + 8);
	CHECK(u32_at(b) == (IB_USER_VERBS_CMD_FLAG_EXTENDED |
			    IB_USER_VERBS_EX_CMD_QUERY_DEVICE));
	CHECK_INT(u16_at(b + 4), 1);		/* core in: 8 bytes / 8 */
	CHECK_INT(u16_at(b + 6),
		  sizeof(struct ib_uverbs_ex_query_device_resp) / 8);
	CHECK(u64_at(b + 8) != 0);		/* ex_hdr.response */
	CHECK(all_zero(b + 16, 8));		/* provider words, reserved */
	CHECK(all_zero(b + 24, 8));		/* comp_mask, reserved */
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

TEST(cmd_rejects_bad_sizes_without_writing)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		uint64_t response;
		uint8_t odd[2];
	} cmd = {};
	uint8_t resp[8];

	fake_kernel_install();
	CHECK_INT(sv_cmd_write(-1, 1, &cmd, 18, resp, 8), EINVAL);
	CHECK_INT(sv_cmd_write(-1, 1, &cmd, 16, resp, 6), EINVAL);
	CHECK_INT(sv_cmd_write(-1, 1, &cmd, 4, resp, 8), EINVAL);
	CHECK_INT(sv_cmd_write_ex(-1, 1, &cmd, 4, 0, resp, 8, 0), EINVAL);
	CHECK_INT(fk.ncmds, 0);
}

TEST(cmd_write_errors_map_to_errno)
{
	struct sv_resp_get_context resp;

	fake_kernel_install();
	fk.write_err = ENOSPC;
	CHECK_INT(sv_cmd_get_context(-1, &resp), ENOSPC);
	fk.write_err = 0;
	fk.short_write = true;
	CHECK_INT(sv_cmd_get_context(-1, &resp), EIO);
	close(fk.async_rd);
	close(fk.async_wr);

	fake_kernel_install();
	fk.eintr_count = 2;	/* interrupted writes are retried */
	CHECK_INT(sv_cmd_get_context(-1, &resp), 0);
	CHECK_INT(fk.ncmds, 3);
	close(fk.async_rd);
	close(fk.async_wr);
}

TEST(open_device_sets_up_context)
{
	struct ibv_context *ctx;
	struct verbs_context *vctx;
	struct fake_tree t;
	char node[PATH_MAX * 2];
	int async_fd, cmd_fd;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	snprintf(node, sizeof(node), "%s/infiniband/uverbs0", t.dev);
	CHECK_STR(fk.opened, node);
	CHECK_STR(ibv_get_device_name(ctx->device), "sv0");
	CHECK_INT(ctx->async_fd, fk.async_rd);
	CHECK_INT(ctx->num_comp_vectors, 3);
	CHECK(fd_open(ctx->cmd_fd));
	CHECK(ctx->abi_compat == __VERBS_ABI_IS_EXTENDED);
	vctx = verbs_get_ctx(ctx);
	CHECK(vctx != NULL);
	if (vctx) {
		CHECK_INT(vctx->sz, sizeof(*vctx));
		CHECK(verbs_get_ctx_op(ctx, query_port) != NULL);
		CHECK(verbs_get_ctx_op(ctx, query_device_ex) != NULL);
		CHECK(verbs_get_ctx_op(ctx, create_cq_ex) != NULL);
		CHECK(verbs_get_ctx_op(ctx, create_qp_ex) != NULL);
		CHECK(verbs_get_ctx_op(ctx, advise_mr) != NULL);
		CHECK(verbs_get_ctx_op(ctx, query_rt_values) == NULL);
	}
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_GET_CONTEXT], 1);

	async_fd = ctx->async_fd;
	cmd_fd = ctx->cmd_fd;
	CHECK_INT(ibv_close_device(ctx), 0);
	CHECK(!fd_open(async_fd));
	CHECK(!fd_open(cmd_fd));
	close(fk.async_wr);
out:
	fake_tree_destroy(&t);
}

TEST(open_device_failure_cleans_up)
{
	struct ibv_device **list;
	struct fake_tree t;
	int probe;

	fake_standard_setup(&t);
	fk.get_context_err = EPERM;
	list = ibv_get_device_list(NULL);
	CHECK(list && list[0]);
	if (!list || !list[0])
		goto out;
	probe = dup(0);		/* lowest free fd before the attempt */
	close(probe);
	errno = 0;
	CHECK(ibv_open_device(list[0]) == NULL);
	CHECK_INT(errno, EPERM);
	CHECK(!fd_open(probe));	/* the cmd fd was closed again */

	/* Missing device node. */
	fk.get_context_err = 0;
	snprintf(fk.opened, sizeof(fk.opened), "%s", "");
	{
		char node[PATH_MAX * 2];

		snprintf(node, sizeof(node), "%s/infiniband/uverbs0", t.dev);
		unlink(node);
	}
	errno = 0;
	CHECK(ibv_open_device(list[0]) == NULL);
	CHECK_INT(errno, ENOENT);
out:
	ibv_free_device_list(list);
	fake_tree_destroy(&t);
}

TEST(open_device_refuses_non_char_node)
{
	static const struct sv_transport *real;
	struct ibv_device **list;
	struct fake_tree t;

	real = sv_transport;	/* the library default: open(2) + write(2) */
	fake_tree_init(&t);
	fake_add_device(&t, 0, "sv0", 2, true);	/* node is a regular file */
	list = ibv_get_device_list(NULL);
	CHECK(list && list[0]);
	CHECK(real == sv_transport);
	if (list && list[0]) {
		errno = 0;
		CHECK(ibv_open_device(list[0]) == NULL);
		CHECK_INT(errno, ENODEV);
	}
	ibv_free_device_list(list);
	fake_tree_destroy(&t);
}

TEST(query_device_copies_response)
{
	struct ibv_device_attr a;
	struct ibv_context *ctx;
	struct fake_tree t;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	memset(&a, 0xa5, sizeof(a));
	CHECK_INT(ibv_query_device(ctx, &a), 0);
	CHECK_STR(a.fw_ver, "1.2.3");
	CHECK(be64toh(a.node_guid) == 0x0002c9fffe000001ULL);
	CHECK(a.max_mr_size == ~0ULL);
	CHECK_INT(a.vendor_id, 0x5356);
	CHECK_INT(a.max_qp, 1 << 16);
	CHECK_INT(a.max_qp_wr, 1 << 14);
	CHECK_INT(a.device_cap_flags, 0x00217c76);
	CHECK_INT(a.max_cqe, (1 << 15) - 1);
	CHECK_INT(a.max_res_rd_atom, 258048);
	CHECK_INT(a.atomic_cap, IBV_ATOMIC_HCA);
	CHECK_INT(a.max_srq_sge, 27);
	CHECK_INT(a.max_pkeys, 64);
	CHECK_INT(a.local_ca_ack_delay, 15);
	CHECK_INT(a.phys_port_cnt, 1);
	CHECK_INT(a.max_ee, 0);
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

TEST(query_device_ex_fields_and_short_response)
{
	struct ibv_device_attr_ex ax;
	struct ibv_context *ctx;
	struct fake_tree t;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	CHECK_INT(ibv_query_device_ex(ctx, NULL, &ax), 0);
	CHECK_INT(ax.orig_attr.max_qp, 1 << 16);
	CHECK(ax.device_cap_flags_ex == 0x1000217c76ULL);
	CHECK(ax.odp_caps.general_caps == 1);
	CHECK_INT(ax.odp_caps.per_transport_caps.rc_odp_caps, 0x3f);
	CHECK_INT(ax.max_wq_type_rq, 7);
	CHECK(ax.max_dm_size == 4096);
	CHECK_INT(ax.xrc_odp_caps, 5);
	CHECK_INT(ax.phys_port_cnt_ex, 1);

	/* An older kernel answering only up to response_length. */
	fk.ex_resp_len = offsetof(struct ib_uverbs_ex_query_device_resp,
				  timestamp_mask);
	CHECK_INT(ibv_query_device_ex(ctx, NULL, &ax), 0);
	CHECK_INT(ax.orig_attr.max_qp, 1 << 16);
	CHECK(ax.odp_caps.general_caps == 1);
	CHECK(ax.device_cap_flags_ex == 0);
	CHECK_INT(ax.max_wq_type_rq, 0);
	CHECK(ax.max_dm_size == 0);

	/* Inline wrapper's own check. */
	{
		struct ibv_query_device_ex_input in = { .comp_mask = 1 };

		CHECK_INT(ibv_query_device_ex(ctx, &in, &ax), EINVAL);
	}
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

TEST(query_device_ex_falls_back_to_legacy_once)
{
	struct ibv_device_attr_ex ax;
	struct ibv_context *ctx;
	struct fake_tree t;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	fk.ex_query_err = EOPNOTSUPP;
	CHECK_INT(ibv_query_device_ex(ctx, NULL, &ax), 0);
	CHECK_INT(ax.orig_attr.max_qp, 1 << 16);
	CHECK_STR(ax.orig_attr.fw_ver, "1.2.3");
	CHECK(ax.device_cap_flags_ex == 0);
	CHECK_INT(ax.phys_port_cnt_ex, 1);
	CHECK_INT(ibv_query_device_ex(ctx, NULL, &ax), 0);
	CHECK_INT(fk.ex_count[IB_USER_VERBS_EX_CMD_QUERY_DEVICE], 1);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_QUERY_DEVICE], 2);

	/* Other errors are reported, not papered over. */
	ibv_close_device(ctx);
	close(fk.async_wr);
	ctx = open_first(&t);
	if (!ctx)
		goto out;
	fk.ex_query_err = EFAULT;
	CHECK_INT(ibv_query_device_ex(ctx, NULL, &ax), EFAULT);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_QUERY_DEVICE], 0);
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

TEST(query_device_ex_honours_attr_size)
{
	struct {
		struct ibv_device_attr_ex ax;
		uint8_t canary[16];
	} buf;
	struct ibv_context *ctx;
	struct verbs_context *vctx;
	struct fake_tree t;
	size_t small = sizeof(struct ibv_device_attr) + 8;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	vctx = verbs_get_ctx_op(ctx, query_device_ex);
	CHECK(vctx != NULL);
	if (!vctx)
		goto close;
	memset(&buf, 0x77, sizeof(buf));
	/* As called by a program built against older, smaller headers. */
	CHECK_INT(vctx->query_device_ex(ctx, NULL, &buf.ax, small), 0);
	CHECK_INT(buf.ax.orig_attr.max_qp, 1 << 16);
	CHECK_INT(((uint8_t *)&buf)[small], 0x77);
	CHECK_INT(buf.canary[0], 0x77);
	/* Too small for even the base attributes. */
	CHECK_INT(vctx->query_device_ex(ctx, NULL, &buf.ax, 16), EINVAL);
close:
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

TEST(query_port_inline_wrapper)
{
	struct ibv_context *ctx;
	struct ibv_port_attr pa;
	struct fake_tree t;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	memset(&pa, 0xee, sizeof(pa));
	CHECK_INT(ibv_query_port(ctx, 1, &pa), 0);
	CHECK_INT(pa.state, IBV_PORT_ACTIVE);
	CHECK_INT(pa.max_mtu, IBV_MTU_4096);
	CHECK_INT(pa.active_mtu, IBV_MTU_1024);
	CHECK_INT(pa.gid_tbl_len, 4);
	CHECK_INT(pa.port_cap_flags, 0x00890000);
	CHECK_INT(pa.max_msg_sz, 0x800000);
	CHECK_INT(pa.bad_pkey_cntr, 1);
	CHECK_INT(pa.qkey_viol_cntr, 2);
	CHECK_INT(pa.pkey_tbl_len, 2);
	CHECK_INT(pa.max_vl_num, 1);
	CHECK_INT(pa.active_width, 1);
	CHECK_INT(pa.active_speed, 1);
	CHECK_INT(pa.phys_state, 5);
	CHECK_INT(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	CHECK_INT(pa.flags, 1);
	CHECK_INT(pa.port_cap_flags2, 0);
	CHECK_INT(ibv_query_port(ctx, 2, &pa), EINVAL);
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

TEST(query_port_compat_symbol_writes_old_layout)
{
	struct {
		struct ibv_port_attr pa;
		uint8_t canary[8];
	} buf;
	struct ibv_context *ctx;
	struct fake_tree t;
	size_t old = offsetof(struct ibv_port_attr, flags) + 1;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	memset(&buf, 0x77, sizeof(buf));
	/* The exported symbol, as old binaries and the non-extended path call it. */
	CHECK_INT((ibv_query_port)(ctx, 1, (struct _compat_ibv_port_attr *)&buf.pa), 0);
	CHECK_INT(buf.pa.state, IBV_PORT_ACTIVE);
	CHECK_INT(buf.pa.flags, 1);
	CHECK_INT(((uint8_t *)&buf.pa)[old], 0x77);	/* past the old struct */
	CHECK_INT(ctx->ops._compat_query_port(ctx, 1,
		(struct _compat_ibv_port_attr *)&buf.pa), 0);
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

TEST(query_gid_reads_sysfs)
{
	static const uint8_t ll[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x02, 0xc9, 0xff, 0xfe, 0, 0, 1,
	};
	union ibv_gid gid;
	struct ibv_context *ctx;
	struct fake_tree t;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	CHECK_INT(ibv_query_gid(ctx, 1, 0, &gid), 0);
	CHECK_MEM(gid.raw, ll, 16);
	memset(&gid, 0xff, sizeof(gid));
	CHECK_INT(ibv_query_gid(ctx, 1, 2, &gid), 0);	/* empty slot */
	CHECK(gid.global.subnet_prefix == 0 && gid.global.interface_id == 0);
	CHECK_INT(ibv_query_gid(ctx, 1, 9, &gid), -1);
	CHECK_INT(ibv_query_gid(ctx, 1, -1, &gid), -1);
	CHECK_INT(errno, EINVAL);
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

TEST(query_gid_ex_types_and_errors)
{
	struct ibv_gid_entry e;
	struct ibv_context *ctx;
	struct fake_tree t;
	unsigned int n;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	CHECK_INT(ibv_query_gid_ex(ctx, 1, 0, &e, 0), 0);
	CHECK_INT(e.gid_type, IBV_GID_TYPE_ROCE_V1);	/* v1 on Ethernet */
	CHECK_INT(e.gid_index, 0);
	CHECK_INT(e.port_num, 1);
	CHECK_INT(e.ndev_ifindex, if_nametoindex("lo"));
	/* Only "IB/RoCE v1" needs the port's link layer (a command). */
	n = fk.count[IB_USER_VERBS_CMD_QUERY_PORT];
	CHECK_INT(ibv_query_gid_ex(ctx, 1, 1, &e, 0), 0);
	CHECK_INT(e.gid_type, IBV_GID_TYPE_ROCE_V2);
	CHECK_INT(e.gid_index, 1);
	CHECK_INT(fk.count[IB_USER_VERBS_CMD_QUERY_PORT], n);
	CHECK_INT(ibv_query_gid_ex(ctx, 1, 3, &e, 0), 0);
	CHECK_INT(e.gid.raw[10], 0xff);
	CHECK_INT(e.gid.raw[15], 0x01);
	CHECK_INT(ibv_query_gid_ex(ctx, 1, 2, &e, 0), ENODATA);
	CHECK_INT(ibv_query_gid_ex(ctx, 1, 4, &e, 0), EINVAL);	/* >= gid_tbl_len */
	CHECK_INT(ibv_query_gid_ex(ctx, 1, 0, &e, 1), EINVAL);	/* flags */
	CHECK_INT(ibv_query_gid_ex(ctx, 2, 0, &e, 0), EINVAL);	/* no port 2 */

	/* IB link layer: "IB/RoCE v1" means IB. */
	fk.port.link_layer = IBV_LINK_LAYER_INFINIBAND;
	CHECK_INT(ibv_query_gid_ex(ctx, 1, 0, &e, 0), 0);
	CHECK_INT(e.gid_type, IBV_GID_TYPE_IB);

	/* A netdev in another namespace: the GID stays readable. */
	fake_sys_write(&t, "class/infiniband/sv0/ports/1/gid_attrs/ndevs/1",
		       "veth-elsewhere\n");
	CHECK_INT(ibv_query_gid_ex(ctx, 1, 1, &e, 0), 0);
	CHECK_INT(e.ndev_ifindex, 0);

	fake_sys_write(&t, "class/infiniband/sv0/ports/1/gid_attrs/types/1",
		       "RoCE v3\n");
	CHECK_INT(ibv_query_gid_ex(ctx, 1, 1, &e, 0), EINVAL);
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

TEST(query_gid_table_lists_valid_entries)
{
	struct ibv_gid_entry e[8];
	struct ibv_context *ctx;
	struct fake_tree t;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	memset(e, 0xcc, sizeof(e));
	CHECK_INT(ibv_query_gid_table(ctx, e, 8, 0), 3);
	CHECK_INT(e[0].gid_index, 0);
	CHECK_INT(e[0].gid_type, IBV_GID_TYPE_ROCE_V1);
	CHECK_INT(e[1].gid_index, 1);
	CHECK_INT(e[1].gid_type, IBV_GID_TYPE_ROCE_V2);
	CHECK_INT(e[2].gid_index, 3);
	CHECK_INT(e[2].port_num, 1);
	CHECK_INT(e[3].gid_index, 0xcccccccc);		/* untouched */
	CHECK_INT(ibv_query_gid_table(ctx, e, 2, 0), -EINVAL);
	CHECK_INT(ibv_query_gid_table(ctx, e, 8, 1), -EINVAL);
	/* Bigger entries from newer headers: stride honoured, tail zeroed. */
	{
		struct { struct ibv_gid_entry e; uint64_t more; } big[4];

		memset(big, 0xcc, sizeof(big));
		CHECK_INT(_ibv_query_gid_table(ctx, &big[0].e, 4, 0,
					       sizeof(big[0])), 3);
		CHECK_INT(big[1].e.gid_index, 1);
		CHECK_INT(big[2].e.gid_index, 3);
		CHECK(big[1].more == 0);
	}
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

TEST(query_pkey_and_index)
{
	struct ibv_context *ctx;
	struct fake_tree t;
	__be16 pkey = 0;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	CHECK_INT(ibv_query_pkey(ctx, 1, 0, &pkey), 0);
	CHECK_INT(be16toh(pkey), 0xffff);
	CHECK_INT(ibv_query_pkey(ctx, 1, 1, &pkey), 0);
	CHECK_INT(be16toh(pkey), 0x8001);
	CHECK_INT(ibv_query_pkey(ctx, 1, 2, &pkey), -1);
	CHECK_INT(ibv_get_pkey_index(ctx, 1, htobe16(0x8001)), 1);
	CHECK_INT(ibv_get_pkey_index(ctx, 1, htobe16(0x7fff)), -1);
	fake_sys_write(&t, "class/infiniband/sv0/ports/1/pkeys/1", "0x1ffff\n");
	CHECK_INT(ibv_query_pkey(ctx, 1, 1, &pkey), -1);
	CHECK_INT(errno, EINVAL);
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

static void inject(uint32_t type, uint64_t element)
{
	struct ib_uverbs_async_event_desc d = {
		.element = element, .event_type = type,
	};

	CHECK_INT(write(fk.async_wr, &d, sizeof(d)), sizeof(d));
}

TEST(async_events_decode_and_ack)
{
	struct ibv_async_event ev;
	struct ibv_context *ctx;
	struct fake_tree t;
	struct ibv_cq cq = {};
	struct ibv_qp qp = {};
	struct ibv_srq srq = {};

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	pthread_mutex_init(&cq.mutex, NULL);
	pthread_cond_init(&cq.cond, NULL);
	pthread_mutex_init(&qp.mutex, NULL);
	pthread_cond_init(&qp.cond, NULL);
	pthread_mutex_init(&srq.mutex, NULL);
	pthread_cond_init(&srq.cond, NULL);

	inject(IBV_EVENT_PORT_ACTIVE, 1);
	CHECK_INT(ibv_get_async_event(ctx, &ev), 0);
	CHECK_INT(ev.event_type, IBV_EVENT_PORT_ACTIVE);
	CHECK_INT(ev.element.port_num, 1);
	ibv_ack_async_event(&ev);

	inject(IBV_EVENT_CQ_ERR, (uintptr_t)&cq);
	CHECK_INT(ibv_get_async_event(ctx, &ev), 0);
	CHECK(ev.element.cq == &cq);
	ibv_ack_async_event(&ev);
	CHECK_INT(cq.async_events_completed, 1);

	inject(IBV_EVENT_QP_LAST_WQE_REACHED, (uintptr_t)&qp);
	inject(IBV_EVENT_COMM_EST, (uintptr_t)&qp);
	CHECK_INT(ibv_get_async_event(ctx, &ev), 0);
	CHECK(ev.element.qp == &qp);
	ibv_ack_async_event(&ev);
	CHECK_INT(ibv_get_async_event(ctx, &ev), 0);
	CHECK_INT(ev.event_type, IBV_EVENT_COMM_EST);
	ibv_ack_async_event(&ev);
	CHECK_INT(qp.events_completed, 2);

	inject(IBV_EVENT_SRQ_LIMIT_REACHED, (uintptr_t)&srq);
	CHECK_INT(ibv_get_async_event(ctx, &ev), 0);
	CHECK(ev.element.srq == &srq);
	ibv_ack_async_event(&ev);
	CHECK_INT(srq.events_completed, 1);

	inject(IBV_EVENT_DEVICE_FATAL, 0);
	CHECK_INT(ibv_get_async_event(ctx, &ev), 0);
	CHECK_INT(ev.event_type, IBV_EVENT_DEVICE_FATAL);
	ibv_ack_async_event(&ev);

	/* Non-blocking and empty: EAGAIN, as the caller asked for. */
	fcntl(ctx->async_fd, F_SETFL, O_NONBLOCK);
	errno = 0;
	CHECK_INT(ibv_get_async_event(ctx, &ev), -1);
	CHECK_INT(errno, EAGAIN);

	/* A torn descriptor is an I/O error, not an event. */
	CHECK_INT(write(fk.async_wr, "abc", 3), 3);
	errno = 0;
	CHECK_INT(ibv_get_async_event(ctx, &ev), -1);
	CHECK_INT(errno, EIO);
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}

/*
 * What is still unimplemented fails cleanly, and object verbs report the
 * kernel's refusal (the fake kernel knows no object commands).
 */
TEST(unimplemented_verbs_fail_cleanly)
{
	struct ibv_cq_init_attr_ex cq_attr = { .cqe = 4 };
	struct ibv_qp_init_attr_ex qp_attr = {};
	struct ibv_xrcd_init_attr xattr = {};
	struct ibv_context *ctx;
	struct fake_tree t;
	struct sv_pd spd;
	struct ibv_pd *pdp = &spd.ibpd;
	struct ibv_wc wc;

	ctx = open_first(&t);
	if (!ctx)
		goto out;
	/* Exported entry points: the kernel's errno comes through. */
	errno = 0;
	CHECK(ibv_alloc_pd(ctx) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	errno = 0;
	CHECK(ibv_create_cq(ctx, 4, NULL, NULL, 0) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	errno = 0;
	CHECK(ibv_create_comp_channel(ctx) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	/* Inline wrappers that go through verbs_get_ctx_op. */
	errno = 0;
	CHECK(ibv_create_cq_ex(ctx, &cq_attr) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	cq_attr.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	CHECK(ibv_create_cq_ex(ctx, &cq_attr) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	/* a domain needs its fd and flags; a newer libibverbs' fields not */
	errno = 0;
	CHECK(ibv_open_xrcd(ctx, &xattr) == NULL);
	CHECK_INT(errno, EINVAL);
	xattr.comp_mask = IBV_XRCD_INIT_ATTR_RESERVED;
	errno = 0;
	CHECK(ibv_open_xrcd(ctx, &xattr) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	xattr.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
	xattr.fd = -1;
	xattr.oflags = O_CREAT;
	errno = 0;
	CHECK(ibv_open_xrcd(ctx, &xattr) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	/* Verbs on objects use the object's context. */
	memset(&spd, 0, sizeof(spd));
	pdp->context = ctx;
	errno = 0;
	CHECK(ibv_reg_mr(pdp, &wc, sizeof(wc), IBV_ACCESS_LOCAL_WRITE) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	errno = 0;
	CHECK(ibv_alloc_mw(pdp, IBV_MW_TYPE_1) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	/* creation flags: none supported (EX_CREATE_QP has them) */
	qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	qp_attr.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	qp_attr.pd = pdp;
	qp_attr.qp_type = IBV_QPT_RC;
	errno = 0;
	CHECK(ibv_create_qp_ex(ctx, &qp_attr) == NULL);
	CHECK_INT(errno, EOPNOTSUPP);
	CHECK_INT(ibv_dealloc_pd(pdp), EOPNOTSUPP);
	/*
	 * Fork handling: nothing to do with the kernel's copy-on-fork; without
	 * it (the host has no RDMA netlink) the MR above came too early.
	 */
	if (ibv_is_fork_initialized() == IBV_FORK_UNNEEDED)
		CHECK_INT(ibv_fork_init(), 0);
	else
		CHECK_INT(ibv_fork_init(), EINVAL);
	ibv_close_device(ctx);
out:
	fake_tree_destroy(&t);
}
