// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rs_devinfo: a C port of rust-ibverbs' examples/devinfo.rs, with the
 * calls its Device, Context::query_device/_ex, query_port, gid_table and
 * query_rt_values_ex make: list every device, open it, print the device
 * and port attributes.  Checks what must hold on a softverbs device: the
 * extended attributes agree with the legacy ones, every port answers,
 * the GID table is not empty, and query_rt_values_ex says EOPNOTSUPP
 * (softverbs has no device clock).
 *
 *   rs_devinfo [-d DEV]
 */
#include <unistd.h>

#include "rs_common.h"

static void port_info(struct ibv_context *ctx, uint8_t port)
{
	struct ibv_port_attr pa;

	need_ok(ibv_query_port(ctx, port, &pa), "ibv_query_port");
	printf("port %u: state %s, max_mtu %d, active_mtu %d, gid_tbl_len %d, "
	       "link_layer %u, port_cap_flags 0x%x, port_cap_flags2 0x%x, "
	       "active_width %u, active_speed %u\n", port,
	       ibv_port_state_str(pa.state), pa.max_mtu, pa.active_mtu,
	       pa.gid_tbl_len, pa.link_layer, pa.port_cap_flags,
	       pa.port_cap_flags2, pa.active_width, pa.active_speed);
	CHECK(pa.gid_tbl_len > 0, "port %u: no GID table", port);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	const char *only = NULL;
	int i, n, opt, shown = 0;

	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd')
			die(1, "usage: rs_devinfo [-d DEV]");
		only = optarg;
	}
	list = ibv_get_device_list(&n);
	if (!list || !n) {
		printf("no RDMA devices found\n");
		return EXIT_SKIP;
	}
	for (i = 0; list[i]; i++) {
		struct ibv_device_attr_ex ax;
		struct ibv_device_attr a;
		struct ibv_values_ex rt = {
			.comp_mask = IBV_VALUES_MASK_RAW_CLOCK,
		};
		struct ibv_gid_entry gids[64];
		struct ibv_context *ctx;
		ssize_t ng;
		uint8_t p;

		if (only && strcmp(ibv_get_device_name(list[i]), only))
			continue;
		printf("Device { name: %s, guid: %016llx, index: %d }\n",
		       ibv_get_device_name(list[i]),
		       (unsigned long long)be64toh(ibv_get_device_guid(list[i])),
		       ibv_get_device_index(list[i]));
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			printf("    could not open device: %s\n", strerror(errno));
			continue;
		}
		need_ok(ibv_query_device(ctx, &a), "ibv_query_device");
		need_ok(ibv_query_device_ex(ctx, NULL, &ax),
			"ibv_query_device_ex");
		printf("DeviceAttr { fw_ver: %s, max_qp: %d, max_qp_wr: %d, "
		       "max_sge: %d, max_cqe: %d, max_mr_size: %llu, "
		       "atomic_cap: %d, phys_port_cnt: %u }\n", a.fw_ver,
		       a.max_qp, a.max_qp_wr, a.max_sge, a.max_cqe,
		       (unsigned long long)a.max_mr_size, a.atomic_cap,
		       a.phys_port_cnt);
		printf("DeviceAttrEx { device_cap_flags_ex: 0x%llx, "
		       "odp general_caps: 0x%llx, rc_odp_caps: 0x%x, "
		       "completion_timestamp_mask: %llu, hca_core_clock: %llu, "
		       "max_tso: %u, pci_atomic fetch_add: %u }\n",
		       (unsigned long long)ax.device_cap_flags_ex,
		       (unsigned long long)ax.odp_caps.general_caps,
		       ax.odp_caps.per_transport_caps.rc_odp_caps,
		       (unsigned long long)ax.completion_timestamp_mask,
		       (unsigned long long)ax.hca_core_clock,
		       ax.tso_caps.max_tso, ax.pci_atomic_caps.fetch_add);
		CHECK(!memcmp(&a, &ax.orig_attr, sizeof(a)),
		      "query_device and query_device_ex disagree");
		for (p = 1; p <= a.phys_port_cnt; p++)
			port_info(ctx, p);
		ng = ibv_query_gid_table(ctx, gids, 64, 0);
		CHECK(ng > 0, "gid_table: %zd", ng);
		printf("gid_table: %zd entries\n", ng);
		/* rust: Context::query_rt_values_ex */
		n = ibv_query_rt_values_ex(ctx, &rt);
		printf("query_rt_values_ex: %s\n", n ? strerror(n) : "ok");
		CHECK(n == EOPNOTSUPP, "query_rt_values_ex: %d, want EOPNOTSUPP "
		      "(no device clock)", n);
		ibv_close_device(ctx);
		shown++;
	}
	ibv_free_device_list(list);
	if (!shown)
		die(EXIT_SKIP, "device %s not found", only);
	return 0;
}
