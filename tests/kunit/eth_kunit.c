// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmod/sv_eth.c: Ethernet facts to IB port facts.
 *
 *   sv_eth_mtu_to_ib_mtu()  netdev MTU -> largest IB path MTU whose full
 *                           RoCEv2 packet (IPv6 + UDP + IB headers + ICRC)
 *                           still fits in one Ethernet frame
 *   sv_eth_guid_from_mac()  MAC -> modified EUI-64 GUID (RFC 4291 app. A)
 */
#include <kunit/test.h>
#include <linux/ipv6.h>

#include "sv_eth.h"
#include "sv_param.h"

/* Everything in front of and behind the IB payload on the wire. */
#define ROCE_OVERHEAD (sizeof(struct ipv6hdr) + SV_UDP_HDR_LEN + SV_ROCE_MAX_IB_HDRS)

static const enum ib_mtu all_ib_mtus[] = {
	IB_MTU_256, IB_MTU_512, IB_MTU_1024, IB_MTU_2048, IB_MTU_4096,
};

/* Highest netdev MTU the sweeping tests look at: beyond 9000-byte jumbo. */
#define SWEEP_MAX 10000

static void mtu_standard_ethernet(struct kunit *test)
{
	/* 1500 - 92 = 1408 bytes of room: 1024 fits, 2048 does not */
	KUNIT_EXPECT_EQ_MSG(test, sv_eth_mtu_to_ib_mtu(1500), IB_MTU_1024,
			    "netdev MTU 1500 must give IB MTU 1024 (enum 3)");
}

static void mtu_jumbo(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, sv_eth_mtu_to_ib_mtu(9000), IB_MTU_4096,
			    "netdev MTU 9000 must give IB MTU 4096 (enum 5)");
	KUNIT_EXPECT_EQ_MSG(test, sv_eth_mtu_to_ib_mtu(65535), IB_MTU_4096,
			    "netdev MTU 65535 must be capped at IB MTU 4096 (enum 5)");
}

/*
 * Exactly at each step the larger IB MTU must be chosen; one byte below it
 * the smaller one.
 */
static void mtu_step_boundaries(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(all_ib_mtus); i++) {
		enum ib_mtu want = all_ib_mtus[i];
		unsigned int at = ROCE_OVERHEAD + ib_mtu_enum_to_int(want);
		enum ib_mtu below = i ? all_ib_mtus[i - 1] : 0;

		KUNIT_EXPECT_EQ_MSG(test, sv_eth_mtu_to_ib_mtu(at), want,
				    "netdev MTU %u (= %zu overhead + %d) must give IB MTU %d",
				    at, ROCE_OVERHEAD, ib_mtu_enum_to_int(want),
				    ib_mtu_enum_to_int(want));
		KUNIT_EXPECT_EQ_MSG(test, sv_eth_mtu_to_ib_mtu(at - 1), below,
				    "netdev MTU %u (one below the step to %d) must give enum %d",
				    at - 1, ib_mtu_enum_to_int(want), below);
	}
}

static void mtu_too_small_is_zero(struct kunit *test)
{
	/* IPv6 minimum link MTU 1280 is fine, but these are not */
	KUNIT_EXPECT_EQ_MSG(test, sv_eth_mtu_to_ib_mtu(0), 0,
			    "netdev MTU 0 must give 0 (no usable IB MTU)");
	KUNIT_EXPECT_EQ_MSG(test, sv_eth_mtu_to_ib_mtu(68), 0,
			    "netdev MTU 68 (IPv4 minimum) must give 0");
	KUNIT_EXPECT_EQ_MSG(test, sv_eth_mtu_to_ib_mtu(ROCE_OVERHEAD + 255), 0,
			    "netdev MTU %zu leaves 255 bytes, below IB MTU 256: must give 0",
			    ROCE_OVERHEAD + 255);
	KUNIT_EXPECT_EQ_MSG(test, sv_eth_mtu_to_ib_mtu(1280), IB_MTU_1024,
			    "netdev MTU 1280 (IPv6 minimum) must give IB MTU 1024");
}

/* Whatever the netdev MTU, a full-size packet must fit in one frame. */
static void mtu_result_always_fits(struct kunit *test)
{
	unsigned int mtu;

	for (mtu = 0; mtu <= SWEEP_MAX; mtu++) {
		enum ib_mtu got = sv_eth_mtu_to_ib_mtu(mtu);

		if (!got)
			continue;
		if (ROCE_OVERHEAD + ib_mtu_enum_to_int(got) > mtu) {
			KUNIT_FAIL(test,
				   "netdev MTU %u gave IB MTU %d: %zu-byte packet does not fit",
				   mtu, ib_mtu_enum_to_int(got),
				   ROCE_OVERHEAD + ib_mtu_enum_to_int(got));
			return;
		}
	}
}

/* ...and it must be the largest IB MTU that fits, not a smaller one. */
static void mtu_result_is_largest(struct kunit *test)
{
	unsigned int mtu;

	for (mtu = 0; mtu <= SWEEP_MAX; mtu++) {
		enum ib_mtu got = sv_eth_mtu_to_ib_mtu(mtu);
		enum ib_mtu next = got ? got + 1 : IB_MTU_256;

		if (got == IB_MTU_4096)
			continue;
		if (ROCE_OVERHEAD + ib_mtu_enum_to_int(next) <= mtu) {
			KUNIT_FAIL(test,
				   "netdev MTU %u gave enum %d, but IB MTU %d would fit too",
				   mtu, got, ib_mtu_enum_to_int(next));
			return;
		}
	}
}

static void mtu_monotonic(struct kunit *test)
{
	enum ib_mtu prev = sv_eth_mtu_to_ib_mtu(0);
	unsigned int mtu;

	for (mtu = 1; mtu <= SWEEP_MAX; mtu++) {
		enum ib_mtu got = sv_eth_mtu_to_ib_mtu(mtu);

		if (got < prev) {
			KUNIT_FAIL(test,
				   "netdev MTU %u gave enum %d, smaller than enum %d for MTU %u",
				   mtu, got, prev, mtu - 1);
			return;
		}
		prev = got;
	}
}

/* Compare in wire (big-endian) byte order, independent of host order. */
static void expect_guid(struct kunit *test, const u8 mac[ETH_ALEN],
			const u8 want[8])
{
	__be64 guid = sv_eth_guid_from_mac(mac);
	u8 got[8];

	memcpy(got, &guid, sizeof(got));
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(got, want, sizeof(got)),
			      "MAC %pM: GUID %8phC, want %8phC", mac, got, want);
}

static void guid_universal_mac(struct kunit *test)
{
	/* universal MAC: U/L bit 0 becomes 1, ff:fe goes in the middle */
	static const u8 mac[ETH_ALEN] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
	static const u8 want[8] = { 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 };

	expect_guid(test, mac, want);
}

static void guid_local_mac(struct kunit *test)
{
	/* locally administered (veth, random): U/L bit 1 becomes 0 */
	static const u8 mac[ETH_ALEN] = { 0x02, 0xab, 0xcd, 0xef, 0x01, 0x23 };
	static const u8 want[8] = { 0x00, 0xab, 0xcd, 0xff, 0xfe, 0xef, 0x01, 0x23 };

	expect_guid(test, mac, want);
}

static void guid_keeps_other_bits(struct kunit *test)
{
	/* only bit 1 of the first byte flips: multicast bit and the rest stay */
	static const u8 mac[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const u8 want[8] = { 0xfd, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff };
	static const u8 mac0[ETH_ALEN] = { 0 };
	static const u8 want0[8] = { 0x02, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x00 };

	expect_guid(test, mac, want);
	expect_guid(test, mac0, want0);
}

/* MACs that differ in any one byte give different GUIDs. */
static void guid_distinct_macs(struct kunit *test)
{
	static const u8 base[ETH_ALEN] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	__be64 g0 = sv_eth_guid_from_mac(base);
	unsigned int i;

	for (i = 0; i < ETH_ALEN; i++) {
		u8 mac[ETH_ALEN];

		memcpy(mac, base, ETH_ALEN);
		mac[i] ^= 0x80;
		KUNIT_EXPECT_NE_MSG(test, be64_to_cpu(sv_eth_guid_from_mac(mac)),
				    be64_to_cpu(g0),
				    "MAC %pM and %pM (byte %u differs) gave the same GUID",
				    mac, base, i);
	}
}

static struct kunit_case eth_mtu_cases[] = {
	KUNIT_CASE(mtu_standard_ethernet),
	KUNIT_CASE(mtu_jumbo),
	KUNIT_CASE(mtu_step_boundaries),
	KUNIT_CASE(mtu_too_small_is_zero),
	KUNIT_CASE(mtu_result_always_fits),
	KUNIT_CASE(mtu_result_is_largest),
	KUNIT_CASE(mtu_monotonic),
	{}
};

static struct kunit_suite eth_mtu_suite = {
	.name = "eth_mtu_kunit",
	.test_cases = eth_mtu_cases,
};

static struct kunit_case eth_guid_cases[] = {
	KUNIT_CASE(guid_universal_mac),
	KUNIT_CASE(guid_local_mac),
	KUNIT_CASE(guid_keeps_other_bits),
	KUNIT_CASE(guid_distinct_macs),
	{}
};

static struct kunit_suite eth_guid_suite = {
	.name = "eth_guid_kunit",
	.test_cases = eth_guid_cases,
};

kunit_test_suites(&eth_mtu_suite, &eth_guid_suite);
