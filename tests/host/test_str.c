// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* String helpers and IB rate conversions. */
#include <dlfcn.h>

#include <infiniband/verbs.h>

#include "fake.h"	/* ulib.h: ibv_wr_opcode_str where verbs.h lacks it */
#include "harness.h"

TEST(node_type_str_values)
{
	CHECK_STR(ibv_node_type_str(IBV_NODE_CA), "InfiniBand channel adapter");
	CHECK_STR(ibv_node_type_str(IBV_NODE_RNIC), "iWARP NIC");
	CHECK_STR(ibv_node_type_str(IBV_NODE_UNSPECIFIED), "unspecified");
	CHECK_STR(ibv_node_type_str(IBV_NODE_UNKNOWN), "unknown");
	CHECK_STR(ibv_node_type_str((enum ibv_node_type)0), "unknown");
	CHECK_STR(ibv_node_type_str((enum ibv_node_type)99), "unknown");
}

TEST(port_state_str_values)
{
	CHECK_STR(ibv_port_state_str(IBV_PORT_NOP), "no state change (NOP)");
	CHECK_STR(ibv_port_state_str(IBV_PORT_DOWN), "down");
	CHECK_STR(ibv_port_state_str(IBV_PORT_ACTIVE), "active");
	CHECK_STR(ibv_port_state_str(IBV_PORT_ACTIVE_DEFER), "active defer");
	CHECK_STR(ibv_port_state_str((enum ibv_port_state)6), "unknown");
	CHECK_STR(ibv_port_state_str((enum ibv_port_state)-1), "unknown");
}

TEST(event_type_str_values)
{
	CHECK_STR(ibv_event_type_str(IBV_EVENT_CQ_ERR), "CQ error");
	CHECK_STR(ibv_event_type_str(IBV_EVENT_PORT_ACTIVE), "port active");
	CHECK_STR(ibv_event_type_str(IBV_EVENT_GID_CHANGE), "GID table change");
	CHECK_STR(ibv_event_type_str(IBV_EVENT_WQ_FATAL), "WQ fatal");
	CHECK_STR(ibv_event_type_str((enum ibv_event_type)(IBV_EVENT_WQ_FATAL + 5)),
		  "unknown");
	CHECK_STR(ibv_event_type_str((enum ibv_event_type)-3), "unknown");
}

TEST(wc_status_str_values)
{
	CHECK_STR(ibv_wc_status_str(IBV_WC_SUCCESS), "success");
	CHECK_STR(ibv_wc_status_str(IBV_WC_WR_FLUSH_ERR),
		  "Work Request Flushed Error");
	CHECK_STR(ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR),
		  "transport retry counter exceeded");
	CHECK_STR(ibv_wc_status_str(IBV_WC_TM_RNDV_INCOMPLETE),
		  "TM software rendezvous");
	CHECK_STR(ibv_wc_status_str((enum ibv_wc_status)1000), "unknown");
	CHECK_STR(ibv_wc_status_str((enum ibv_wc_status)-1), "unknown");
}

TEST(wr_opcode_str_values)
{
	CHECK_STR(ibv_wr_opcode_str(IBV_WR_RDMA_WRITE), "rdma-write");
	CHECK_STR(ibv_wr_opcode_str(IBV_WR_SEND_WITH_INV), "send-with-inv");
	CHECK_STR(ibv_wr_opcode_str((enum ibv_wr_opcode)SV_WR_FLUSH), "flush");
	CHECK_STR(ibv_wr_opcode_str(IBV_WR_ATOMIC_WRITE), "atomic-write");
	CHECK_STR(ibv_wr_opcode_str((enum ibv_wr_opcode)16), "unknown");
	CHECK_STR(ibv_wr_opcode_str((enum ibv_wr_opcode)-1), "unknown");
}

TEST(rate_mult_conversions)
{
	CHECK_INT(ibv_rate_to_mult(IBV_RATE_2_5_GBPS), 1);
	CHECK_INT(ibv_rate_to_mult(IBV_RATE_10_GBPS), 4);
	CHECK_INT(ibv_rate_to_mult(IBV_RATE_120_GBPS), 48);
	CHECK_INT(ibv_rate_to_mult(IBV_RATE_28_GBPS), 11);
	CHECK_INT(ibv_rate_to_mult(IBV_RATE_1200_GBPS), 480);
	/* 64b/66b rates are no multiple of 2.5 Gb/s */
	CHECK_INT(ibv_rate_to_mult(IBV_RATE_14_GBPS), -1);
	CHECK_INT(ibv_rate_to_mult(IBV_RATE_100_GBPS), -1);
	CHECK_INT(ibv_rate_to_mult(IBV_RATE_MAX), -1);
	CHECK_INT(mult_to_ibv_rate(4), IBV_RATE_10_GBPS);
	CHECK_INT(mult_to_ibv_rate(160), IBV_RATE_400_GBPS);
	CHECK_INT(mult_to_ibv_rate(3), IBV_RATE_MAX);
	CHECK_INT(mult_to_ibv_rate(0), IBV_RATE_MAX);
	CHECK_INT(mult_to_ibv_rate(-1), IBV_RATE_MAX);
}

TEST(rate_mbps_conversions)
{
	int r;

	CHECK_INT(ibv_rate_to_mbps(IBV_RATE_2_5_GBPS), 2500);
	CHECK_INT(ibv_rate_to_mbps(IBV_RATE_14_GBPS), 14062);
	CHECK_INT(ibv_rate_to_mbps(IBV_RATE_100_GBPS), 103125);
	CHECK_INT(ibv_rate_to_mbps(IBV_RATE_1200_GBPS), 1275000);
	CHECK_INT(ibv_rate_to_mbps(IBV_RATE_MAX), -1);
	CHECK_INT(ibv_rate_to_mbps((enum ibv_rate)25), -1);
	CHECK_INT(mbps_to_ibv_rate(56250), IBV_RATE_56_GBPS);
	CHECK_INT(mbps_to_ibv_rate(100000), IBV_RATE_MAX);
	/* Every valid rate survives the round trip both ways. */
	for (r = IBV_RATE_2_5_GBPS; r <= IBV_RATE_1200_GBPS; r++) {
		CHECK_INT(mbps_to_ibv_rate(ibv_rate_to_mbps((enum ibv_rate)r)), r);
		if (ibv_rate_to_mult((enum ibv_rate)r) > 0)
			CHECK_INT(mult_to_ibv_rate(ibv_rate_to_mult((enum ibv_rate)r)),
				  r);
	}
}

/*
 * The distro libibverbs is the reference: every helper must return the
 * same for every input, including out-of-range ones.
 */
TEST(strings_and_rates_match_libibverbs)
{
	const char *(*node)(int), *(*port)(int), *(*event)(int), *(*wc)(int);
	int (*to_mult)(int), (*to_rate_m)(int), (*to_mbps)(int), (*to_rate_b)(int);
	void *h = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	int i;

	if (!h)
		sv_test_skip("libibverbs.so.1 not installed");
	node = (const char *(*)(int))dlsym(h, "ibv_node_type_str");
	port = (const char *(*)(int))dlsym(h, "ibv_port_state_str");
	event = (const char *(*)(int))dlsym(h, "ibv_event_type_str");
	wc = (const char *(*)(int))dlsym(h, "ibv_wc_status_str");
	to_mult = (int (*)(int))dlsym(h, "ibv_rate_to_mult");
	to_rate_m = (int (*)(int))dlsym(h, "mult_to_ibv_rate");
	to_mbps = (int (*)(int))dlsym(h, "ibv_rate_to_mbps");
	to_rate_b = (int (*)(int))dlsym(h, "mbps_to_ibv_rate");
	CHECK(node && port && event && wc && to_mult && to_rate_m && to_mbps &&
	      to_rate_b);
	if (!(node && port && event && wc && to_mult && to_rate_m && to_mbps &&
	      to_rate_b))
		return;

	for (i = -3; i < 40; i++) {
		CHECK_STR(ibv_node_type_str((enum ibv_node_type)i), node(i));
		CHECK_STR(ibv_port_state_str((enum ibv_port_state)i), port(i));
		CHECK_STR(ibv_event_type_str((enum ibv_event_type)i), event(i));
		CHECK_STR(ibv_wc_status_str((enum ibv_wc_status)i), wc(i));
		CHECK_INT(ibv_rate_to_mult((enum ibv_rate)i), to_mult(i));
		CHECK_INT(ibv_rate_to_mbps((enum ibv_rate)i), to_mbps(i));
	}
	for (i = -2; i <= 600; i++)
		CHECK_INT(mult_to_ibv_rate(i), to_rate_m(i));
	for (i = 0; i < 40; i++) {
		int mbps = to_mbps(i);

		CHECK_INT(mbps_to_ibv_rate(mbps), to_rate_b(mbps));
		CHECK_INT(mbps_to_ibv_rate(mbps + 1), to_rate_b(mbps + 1));
	}
	dlclose(h);
}
