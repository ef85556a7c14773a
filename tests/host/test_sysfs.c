// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* sysfs text formats and device discovery against fake sysfs trees. */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fake.h"
#include "harness.h"

TEST(parse_gid_accepts_kernel_format)
{
	static const uint8_t want[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x02, 0x02, 0xc9, 0xff, 0xfe, 0xAB, 0xcd, 0x01,
	};
	union ibv_gid gid;

	CHECK_INT(sv_parse_gid("fe80:0000:0000:0000:0202:c9ff:feAB:cd01", &gid), 0);
	CHECK_MEM(gid.raw, want, 16);
	CHECK_INT(sv_parse_gid("0000:0000:0000:0000:0000:0000:0000:0000", &gid), 0);
	CHECK(gid.global.subnet_prefix == 0 && gid.global.interface_id == 0);
}

TEST(parse_gid_rejects_malformed)
{
	union ibv_gid gid;

	memset(&gid, 0x5a, sizeof(gid));
	CHECK_INT(sv_parse_gid("fe80:0000:0000:0000:0202:c9ff:fe00:001", &gid), EINVAL);
	CHECK_INT(sv_parse_gid("fe80:0000:0000:0000:0202:c9ff:fe00:00011", &gid), EINVAL);
	CHECK_INT(sv_parse_gid("fe80-0000:0000:0000:0202:c9ff:fe00:0001", &gid), EINVAL);
	CHECK_INT(sv_parse_gid("fe80:0000:0000:0000:0202:c9ff:fe00:00g1", &gid), EINVAL);
	CHECK_INT(sv_parse_gid("fe80::1", &gid), EINVAL);
	CHECK_INT(sv_parse_gid("", &gid), EINVAL);
	CHECK_INT(gid.raw[0], 0x5a);	/* untouched on error */
}

TEST(parse_guid)
{
	__be64 guid = 0;

	CHECK_INT(sv_parse_guid("0002:c9ff:fe00:0a0b", &guid), 0);
	CHECK(be64toh(guid) == 0x0002c9fffe000a0bULL);
	CHECK_INT(sv_parse_guid("0002:c9ff:fe00", &guid), EINVAL);
	CHECK_INT(sv_parse_guid("0002:c9ff:fe00:0a0b:", &guid), EINVAL);
	CHECK(be64toh(guid) == 0x0002c9fffe000a0bULL);
}

TEST(sysfs_read_helpers)
{
	struct fake_tree t;
	char buf[16];
	long v = 0;

	fake_tree_init(&t);
	fake_sys_write(&t, "a/num", "42\n");
	fake_sys_write(&t, "a/bad", "4x\n");
	fake_sys_write(&t, "a/empty", "%s", "");
	fake_sys_write(&t, "a/long", "0123456789abcdefXYZ\n");

	CHECK_INT(sv_sysfs_read(t.sys, buf, sizeof(buf), "a/%s", "num"), 2);
	CHECK_STR(buf, "42");
	CHECK_INT(sv_sysfs_read_int(t.sys, &v, "a/num"), 0);
	CHECK_INT(v, 42);
	CHECK_INT(sv_sysfs_read_int(t.sys, &v, "a/bad"), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(sv_sysfs_read_int(t.sys, &v, "a/empty"), -1);
	CHECK_INT(errno, EINVAL);
	CHECK_INT(sv_sysfs_read(t.sys, buf, sizeof(buf), "a/missing"), -1);
	CHECK_INT(errno, ENOENT);
	/* Truncated to the buffer, still terminated. */
	CHECK_INT(sv_sysfs_read(t.sys, buf, sizeof(buf), "a/long"), 15);
	CHECK_STR(buf, "0123456789abcde");
	fake_tree_destroy(&t);
}

TEST(roots_default_and_env)
{
	unsetenv("SOFTVERBS_SYSFS_ROOT");
	unsetenv("SOFTVERBS_DEV_ROOT");
	CHECK_STR(sv_sysfs_root(), "/sys");
	CHECK_STR(sv_dev_root(), "/dev");
	setenv("SOFTVERBS_SYSFS_ROOT", "/x/sys", 1);
	setenv("SOFTVERBS_DEV_ROOT", "", 1);
	CHECK_STR(sv_sysfs_root(), "/x/sys");
	CHECK_STR(sv_dev_root(), "/dev");
}

static int list_names(char *out, size_t len)
{
	struct ibv_device **list;
	int n = -1, i;

	out[0] = '\0';
	list = ibv_get_device_list(&n);
	if (!list)
		return -1;
	for (i = 0; list[i]; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%s",
			 i ? "," : "", ibv_get_device_name(list[i]));
	CHECK_INT(i, n);
	ibv_free_device_list(list);
	return n;
}

TEST(discovery_lists_only_softverbs)
{
	struct ibv_device **list;
	struct fake_tree t;
	char path[PATH_MAX * 2];
	int n = -1;

	fake_tree_init(&t);
	fake_add_device(&t, 0, "rxe0", 2, false);	/* Soft-RoCE: no marker */
	fake_add_device(&t, 1, "sv0", 2, true);

	list = ibv_get_device_list(&n);
	CHECK(list != NULL);
	if (!list)
		goto out;
	CHECK_INT(n, 1);
	CHECK(list[0] != NULL && list[1] == NULL);
	if (!list[0])
		goto out_free;
	CHECK_STR(ibv_get_device_name(list[0]), "sv0");
	CHECK_STR(list[0]->name, "sv0");
	CHECK_STR(list[0]->dev_name, "uverbs1");
	snprintf(path, sizeof(path), "%s/class/infiniband_verbs/uverbs1", t.sys);
	CHECK_STR(list[0]->dev_path, path);
	snprintf(path, sizeof(path), "%s/class/infiniband/sv0", t.sys);
	CHECK_STR(list[0]->ibdev_path, path);
	CHECK_INT(list[0]->node_type, IBV_NODE_CA);
	CHECK_INT(list[0]->transport_type, IBV_TRANSPORT_IB);
	CHECK(be64toh(ibv_get_device_guid(list[0])) == 0x0002c9fffe000001ULL);
	CHECK_INT(ibv_get_device_index(list[0]), -1);
out_free:
	ibv_free_device_list(list);
out:
	fake_tree_destroy(&t);
}

TEST(discovery_rejects_bad_abi_version)
{
	struct fake_tree t;
	char names[256];

	fake_tree_init(&t);
	fake_add_device(&t, 0, "sv0", 1, true);
	fake_add_device(&t, 1, "sv1", 3, true);
	fake_add_device(&t, 2, "sv2", 2, true);
	fake_add_device(&t, 3, "sv3", 2, true);
	fake_sys_write(&t, "class/infiniband_verbs/uverbs3/abi_version", "two\n");
	fake_add_device(&t, 4, "sv4", 2, true);
	fake_sys_write(&t, "class/infiniband_verbs/uverbs4/abi_version", "\n");
	fake_add_device(&t, 5, "sv5", 2, true);
	fake_sys_write(&t, "class/infiniband_verbs/uverbs5/abi_version", "2x\n");

	CHECK_INT(list_names(names, sizeof(names)), 1);
	CHECK_STR(names, "sv2");
	fake_tree_destroy(&t);
}

TEST(discovery_skips_missing_files)
{
	struct fake_tree t;
	char names[256];

	fake_tree_init(&t);
	fake_add_device(&t, 0, "sv0", 2, true);
	fake_sys_write(&t, "class/infiniband_verbs/uverbs0/ibdev", NULL);
	fake_add_device(&t, 1, "sv1", 2, true);
	fake_sys_write(&t, "class/infiniband_verbs/uverbs1/abi_version", NULL);
	fake_add_device(&t, 2, "sv2", 2, true);
	fake_sys_write(&t, "class/infiniband/sv2/softverbs_version", NULL);
	fake_add_device(&t, 3, "sv3", 2, true);
	/* ibdev names a device without a sysfs directory */
	fake_sys_write(&t, "class/infiniband_verbs/uverbs3/ibdev", "ghost\n");
	fake_add_device(&t, 4, "sv4", 2, true);
	/* missing node_guid: still listed, GUID 0 */
	fake_sys_write(&t, "class/infiniband/sv4/node_guid", NULL);
	fake_add_device(&t, 5, "sv5", 2, true);
	fake_sys_write(&t, "class/infiniband/sv5/node_guid", "garbage\n");

	CHECK_INT(list_names(names, sizeof(names)), 2);
	CHECK_STR(names, "sv4,sv5");
	{
		struct ibv_device **list = ibv_get_device_list(NULL);

		CHECK(list && list[0] && list[1]);
		if (list && list[0] && list[1]) {
			CHECK(ibv_get_device_guid(list[0]) == 0);
			CHECK(ibv_get_device_guid(list[1]) == 0);
		}
		ibv_free_device_list(list);
	}
	fake_tree_destroy(&t);
}

TEST(discovery_orders_by_uverbs_number)
{
	struct fake_tree t;
	char names[256];

	fake_tree_init(&t);
	fake_add_device(&t, 10, "svc", 2, true);
	fake_add_device(&t, 2, "svb", 2, true);
	fake_add_device(&t, 1, "sva", 2, true);
	/* Entries that are not uverbsN are ignored. */
	fake_sys_write(&t, "class/infiniband_verbs/uverbsX/ibdev", "sva\n");
	fake_sys_write(&t, "class/infiniband_verbs/uverbs/ibdev", "sva\n");
	fake_sys_write(&t, "class/infiniband_verbs/other/ibdev", "sva\n");

	CHECK_INT(list_names(names, sizeof(names)), 3);
	CHECK_STR(names, "sva,svb,svc");
	fake_tree_destroy(&t);
}

TEST(discovery_skips_names_too_long)
{
	struct fake_tree t;
	char names[256], longname[80];

	memset(longname, 'x', 70);
	longname[70] = '\0';
	fake_tree_init(&t);
	fake_add_device(&t, 0, longname, 2, true);
	fake_add_device(&t, 1, "sv1", 2, true);
	CHECK_INT(list_names(names, sizeof(names)), 1);
	CHECK_STR(names, "sv1");
	fake_tree_destroy(&t);
}

TEST(discovery_needs_uverbs_abi_6)
{
	struct fake_tree t;
	int n = 7;

	fake_tree_init(&t);
	fake_add_device(&t, 0, "sv0", 2, true);
	fake_sys_write(&t, "class/infiniband_verbs/abi_version", "5\n");
	errno = 0;
	CHECK(ibv_get_device_list(&n) == NULL);
	CHECK_INT(errno, ENOSYS);
	CHECK_INT(n, 0);
	fake_sys_write(&t, "class/infiniband_verbs/abi_version", NULL);
	errno = 0;
	CHECK(ibv_get_device_list(&n) == NULL);
	CHECK_INT(errno, ENOSYS);
	fake_tree_destroy(&t);

	/* No uverbs at all (module not loaded). */
	setenv("SOFTVERBS_SYSFS_ROOT", "/nonexistent-softverbs-root", 1);
	errno = 0;
	CHECK(ibv_get_device_list(&n) == NULL);
	CHECK_INT(errno, ENOSYS);
}

TEST(discovery_empty_class_gives_empty_list)
{
	struct ibv_device **list;
	struct fake_tree t;
	int n = 7;

	fake_tree_init(&t);
	fake_add_device(&t, 0, "rxe0", 2, false);
	list = ibv_get_device_list(&n);
	CHECK(list != NULL);
	CHECK_INT(n, 0);
	if (list)
		CHECK(list[0] == NULL);
	ibv_free_device_list(list);
	ibv_free_device_list(NULL);	/* allowed, does nothing */
	fake_tree_destroy(&t);
}

/*
 * SOFTVERBS_ALLOW_RXE=1 (test-only) also lists Soft-RoCE devices: ABI 2
 * and rxe's "parent" attribute.  Anything else, or any other value, no.
 */
TEST(discovery_allow_rxe_override)
{
	struct ibv_device **list;
	struct fake_tree t;
	int n = -1;

	fake_tree_init(&t);
	fake_add_device(&t, 0, "rxe0", 2, false);
	fake_sys_write(&t, "class/infiniband/rxe0/parent", "vA\n");
	fake_add_device(&t, 1, "mlx0", 2, false);	/* ABI 2, no parent */
	fake_add_device(&t, 2, "rxe2", 1, false);	/* parent, wrong ABI */
	fake_sys_write(&t, "class/infiniband/rxe2/parent", "vB\n");
	fake_add_device(&t, 3, "sv3", 2, true);

	setenv("SOFTVERBS_ALLOW_RXE", "yes", 1);
	list = ibv_get_device_list(&n);
	CHECK_INT(n, 1);
	ibv_free_device_list(list);

	setenv("SOFTVERBS_ALLOW_RXE", "1", 1);
	list = ibv_get_device_list(&n);
	CHECK_INT(n, 2);
	if (list && n == 2) {
		CHECK_STR(ibv_get_device_name(list[0]), "rxe0");
		CHECK_STR(ibv_get_device_name(list[1]), "sv3");
	}
	ibv_free_device_list(list);
	unsetenv("SOFTVERBS_ALLOW_RXE");
	fake_tree_destroy(&t);
}
