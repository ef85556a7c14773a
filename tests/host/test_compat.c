// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * compat.c and fork.c: the kernel-struct translations librdmacm uses, the
 * sysfs helpers, ibv_query_gid_type, and the MADV_DONTFORK range counts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/sa.h>
#include <rdma/ib_user_sa.h>

#include "fake.h"
#include "harness.h"

TEST(copy_ah_and_qp_attr_from_kern)
{
	struct ib_uverbs_qp_attr k;
	struct ibv_qp_attr a;
	unsigned int i;

	memset(&k, 0, sizeof(k));
	memset(&a, 0xee, sizeof(a));
	for (i = 0; i < 16; i++)
		k.ah_attr.grh.dgid[i] = (uint8_t)(0xa0 + i);
	k.ah_attr.grh.flow_label = 0x12345;
	k.ah_attr.grh.sgid_index = 3;
	k.ah_attr.grh.hop_limit = 64;
	k.ah_attr.grh.traffic_class = 7;
	k.ah_attr.dlid = 0xbeef;
	k.ah_attr.sl = 5;
	k.ah_attr.src_path_bits = 1;
	k.ah_attr.static_rate = 2;
	k.ah_attr.is_global = 1;
	k.ah_attr.port_num = 1;
	k.alt_ah_attr.port_num = 2;
	k.cur_qp_state = IBV_QPS_RTS;
	k.path_mtu = IBV_MTU_1024;
	k.qkey = 0x11111111;
	k.rq_psn = 0x123;
	k.sq_psn = 0x456;
	k.dest_qp_num = 0x789;
	k.qp_access_flags = IBV_ACCESS_REMOTE_READ;
	k.max_send_wr = 10;
	k.max_recv_wr = 11;
	k.max_send_sge = 2;
	k.max_recv_sge = 3;
	k.max_inline_data = 64;
	k.pkey_index = 1;
	k.max_rd_atomic = 4;
	k.max_dest_rd_atomic = 5;
	k.min_rnr_timer = 12;
	k.port_num = 1;
	k.timeout = 14;
	k.retry_cnt = 7;
	k.rnr_retry = 6;
	ibv_copy_qp_attr_from_kern(&a, &k);
	CHECK_MEM(a.ah_attr.grh.dgid.raw, k.ah_attr.grh.dgid, 16);
	CHECK_INT(a.ah_attr.grh.flow_label, 0x12345);
	CHECK_INT(a.ah_attr.grh.sgid_index, 3);
	CHECK_INT(a.ah_attr.grh.hop_limit, 64);
	CHECK_INT(a.ah_attr.grh.traffic_class, 7);
	CHECK_INT(a.ah_attr.dlid, 0xbeef);
	CHECK_INT(a.ah_attr.sl, 5);
	CHECK_INT(a.ah_attr.src_path_bits, 1);
	CHECK_INT(a.ah_attr.static_rate, 2);
	CHECK_INT(a.ah_attr.is_global, 1);
	CHECK_INT(a.ah_attr.port_num, 1);
	CHECK_INT(a.alt_ah_attr.port_num, 2);
	CHECK_INT(a.cur_qp_state, IBV_QPS_RTS);
	CHECK_INT(a.path_mtu, IBV_MTU_1024);
	CHECK_INT(a.qkey, 0x11111111);
	CHECK_INT(a.rq_psn, 0x123);
	CHECK_INT(a.sq_psn, 0x456);
	CHECK_INT(a.dest_qp_num, 0x789);
	CHECK_INT(a.qp_access_flags, IBV_ACCESS_REMOTE_READ);
	CHECK_INT(a.cap.max_send_wr, 10);
	CHECK_INT(a.cap.max_recv_wr, 11);
	CHECK_INT(a.cap.max_send_sge, 2);
	CHECK_INT(a.cap.max_recv_sge, 3);
	CHECK_INT(a.cap.max_inline_data, 64);
	CHECK_INT(a.pkey_index, 1);
	CHECK_INT(a.max_rd_atomic, 4);
	CHECK_INT(a.max_dest_rd_atomic, 5);
	CHECK_INT(a.min_rnr_timer, 12);
	CHECK_INT(a.port_num, 1);
	CHECK_INT(a.timeout, 14);
	CHECK_INT(a.retry_cnt, 7);
	CHECK_INT(a.rnr_retry, 6);
	/* not the translation's business (the caller sets them) */
	CHECK_INT(a.qp_state, 0xeeeeeeee);
}

TEST(copy_path_rec_both_ways)
{
	struct ib_user_path_rec k, back;
	struct ibv_sa_path_rec p;
	unsigned int i;

	memset(&k, 0, sizeof(k));
	for (i = 0; i < 16; i++) {
		k.dgid[i] = (uint8_t)i;
		k.sgid[i] = (uint8_t)(0x80 | i);
	}
	k.dlid = htobe16(0x12);
	k.slid = htobe16(0x34);
	k.raw_traffic = 1;
	k.flow_label = htobe32(0x55);
	k.reversible = 1;
	k.mtu = IBV_MTU_4096;
	k.pkey = htobe16(0xffff);
	k.hop_limit = 9;
	k.traffic_class = 10;
	k.numb_path = 1;
	k.sl = 3;
	k.mtu_selector = 2;
	k.rate_selector = 2;
	k.rate = 7;
	k.packet_life_time_selector = 2;
	k.packet_life_time = 18;
	k.preference = 1;
	ibv_copy_path_rec_from_kern(&p, &k);
	CHECK_MEM(p.dgid.raw, k.dgid, 16);
	CHECK_MEM(p.sgid.raw, k.sgid, 16);
	CHECK_INT(be16toh(p.dlid), 0x12);
	CHECK_INT(be16toh(p.slid), 0x34);
	CHECK_INT(p.raw_traffic, 1);
	CHECK_INT(be32toh(p.flow_label), 0x55);
	CHECK_INT(p.reversible, 1);
	CHECK_INT(p.mtu, IBV_MTU_4096);
	CHECK_INT(p.pkey, 0xffff);
	CHECK_INT(p.hop_limit, 9);
	CHECK_INT(p.traffic_class, 10);
	CHECK_INT(p.sl, 3);
	CHECK_INT(p.rate, 7);
	CHECK_INT(p.packet_life_time, 18);
	CHECK_INT(p.packet_life_time_selector, 2);
	CHECK_INT(p.preference, 1);
	memset(&back, 0, sizeof(back));
	ibv_copy_path_rec_to_kern(&back, &p);
	CHECK_MEM(&back, &k, sizeof(k));
}

TEST(read_sysfs_file_contract)
{
	struct fake_tree t;
	char buf[8];

	fake_tree_init(&t);
	fake_sys_write(&t, "a/nl", "abc\n");
	fake_sys_write(&t, "a/raw", "abc");
	fake_sys_write(&t, "a/big", "12345678");
	CHECK_INT(ibv_read_sysfs_file(t.sys, "a/nl", buf, sizeof(buf)), 3);
	CHECK_STR(buf, "abc");
	CHECK_INT(ibv_read_sysfs_file(t.sys, "a/raw", buf, sizeof(buf)), 3);
	CHECK_STR(buf, "abc");
	/* no room for the terminator: refused, not truncated */
	CHECK_INT(ibv_read_sysfs_file(t.sys, "a/big", buf, sizeof(buf)), -1);
	errno = 0;
	CHECK_INT(ibv_read_sysfs_file(t.sys, "a/none", buf, sizeof(buf)), -1);
	CHECK_INT(errno, ENOENT);
	fake_tree_destroy(&t);
}

TEST(get_sysfs_path_is_our_root)
{
	setenv("SOFTVERBS_SYSFS_ROOT", "/x/sys//", 1);
	CHECK_STR(ibv_get_sysfs_path(), "/x/sys");
	/* computed once per process, like libibverbs */
	setenv("SOFTVERBS_SYSFS_ROOT", "/y", 1);
	CHECK_STR(ibv_get_sysfs_path(), "/x/sys");
}

TEST(query_gid_type_like_libibverbs)
{
	struct ibv_context ctx = { 0 };
	struct ibv_device dev = { 0 };
	enum sv_gid_type_sysfs type;
	struct fake_tree t;

	fake_tree_init(&t);
	fake_add_device(&t, 0, "sv0", 2, true);
	fake_add_port(&t, "sv0", 1);
	CHECK(strlen(t.sys) + 24 < sizeof(dev.ibdev_path));
	memcpy(dev.ibdev_path, t.sys, strlen(t.sys));
	strcat(dev.ibdev_path, "/class/infiniband/sv0");
	ctx.device = &dev;
	CHECK_INT(ibv_query_gid_type(&ctx, 1, 0, &type), 0);
	CHECK_INT(type, SV_GID_TYPE_SYSFS_IB_ROCE_V1);
	CHECK_INT(ibv_query_gid_type(&ctx, 1, 1, &type), 0);
	CHECK_INT(type, SV_GID_TYPE_SYSFS_ROCE_V2);
	/* gid_attrs exists but the slot's type file does not */
	errno = 0;
	CHECK_INT(ibv_query_gid_type(&ctx, 1, 2, &type), -1);
	CHECK_INT(errno, EFAULT);
	fake_sys_write(&t, "class/infiniband/sv0/ports/1/gid_attrs/types/3",
		       "RoCE v3\n");
	errno = 0;
	CHECK_INT(ibv_query_gid_type(&ctx, 1, 3, &type), -1);
	CHECK_INT(errno, ENOTSUP);
	/* an old kernel without gid_attrs: everything is v1 */
	fake_sys_write(&t, "class/infiniband/sv0/ports/2/gids/0", "x\n");
	type = SV_GID_TYPE_SYSFS_ROCE_V2;
	CHECK_INT(ibv_query_gid_type(&ctx, 2, 0, &type), 0);
	CHECK_INT(type, SV_GID_TYPE_SYSFS_IB_ROCE_V1);
	fake_tree_destroy(&t);
}

/* Does the kernel mark the mapping holding addr VM_DONTCOPY ("dc")? */
static bool dontcopy(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	bool inside = false, dc = false;
	char line[512];

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			continue;
		}
		if (inside && !strncmp(line, "VmFlags:", 8)) {
			dc = strstr(line, " dc") != NULL;
			break;
		}
	}
	fclose(f);
	return dc;
}

TEST(fork_ranges_are_counted_per_page)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 8 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(m != MAP_FAILED);
	CHECK_INT(sv_fork_track_start(), 0);
	/* unaligned ranges cover their whole pages: [0,4) and [2,6) */
	CHECK_INT(ibv_dontfork_range(m + 10, 4 * pg - 20), 0);
	CHECK_INT(ibv_dontfork_range(m + 2 * pg, 4 * pg), 0);
	CHECK_INT(sv_fork_count(m), 1);
	CHECK_INT(sv_fork_count(m + 3 * pg), 2);
	CHECK_INT(sv_fork_count(m + 5 * pg), 1);
	CHECK_INT(sv_fork_count(m + 6 * pg), 0);
	CHECK(dontcopy(m) && dontcopy(m + 3 * pg) && dontcopy(m + 5 * pg));
	CHECK(!dontcopy(m + 6 * pg));
	/* the first range goes: pages 0..1 fork again, 2..5 still held */
	CHECK_INT(ibv_dofork_range(m + 10, 4 * pg - 20), 0);
	CHECK(!dontcopy(m) && !dontcopy(m + pg));
	CHECK(dontcopy(m + 2 * pg) && dontcopy(m + 5 * pg));
	CHECK_INT(sv_fork_count(m + 3 * pg), 1);
	CHECK_INT(ibv_dofork_range(m + 2 * pg, 4 * pg), 0);
	CHECK(!dontcopy(m + 2 * pg) && !dontcopy(m + 5 * pg));
	CHECK_INT(sv_fork_count(m + 3 * pg), 0);
	/* an unbalanced dofork changes nothing */
	CHECK_INT(ibv_dofork_range(m, pg), 0);
	CHECK_INT(sv_fork_count(m), 0);
	/* memory that is not mapped: the madvise error, nothing counted */
	munmap(m + 7 * pg, pg);
	errno = 0;
	CHECK_INT(ibv_dontfork_range(m + 6 * pg, 2 * pg), -1);
	CHECK_INT(errno, ENOMEM);
	CHECK_INT(sv_fork_count(m + 6 * pg), 0);
	CHECK(!dontcopy(m + 6 * pg));
	munmap(m, 7 * pg);
}

TEST(fork_init_too_late_after_unprotected_range)
{
	char buf[64];

	/* tracking off: the range call succeeds and does nothing ... */
	CHECK_INT(ibv_dontfork_range(buf, sizeof(buf)), 0);
	CHECK_INT(sv_fork_count(buf), 0);
	/* ... and turning it on afterwards is refused */
	CHECK_INT(sv_fork_track_start(), EINVAL);
	if (ibv_is_fork_initialized() == IBV_FORK_UNNEEDED)
		CHECK_INT(ibv_fork_init(), 0);
	else
		CHECK_INT(ibv_fork_init(), EINVAL);
}
