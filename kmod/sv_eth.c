// SPDX-License-Identifier: GPL-2.0
/*
 * Pure helpers that turn Ethernet facts into IB port facts.  No device
 * state: tests/kunit/eth_kunit.c exercises them directly.
 */
#include <linux/etherdevice.h>
#include <linux/ipv6.h>
#include <linux/ip.h>

#include "sv_eth.h"
#include "sv_param.h"

/*
 * The IB path MTU is the largest payload one packet may carry (IBTA
 * 9.7.7.2.6); on RoCEv2 that payload rides behind IP, UDP and the IB
 * transport headers, and the ICRC follows it.  Size for the larger IPv6
 * header so a path MTU valid here is valid for both address families.
 * Returns 0 if the netdev cannot carry even a 256-byte payload.
 */
enum ib_mtu sv_eth_mtu_to_ib_mtu(unsigned int netdev_mtu)
{
	unsigned int overhead = sizeof(struct ipv6hdr) + SV_UDP_HDR_LEN +
				SV_ROCE_MAX_IB_HDRS;
	unsigned int room;

	if (netdev_mtu < overhead + 256)
		return 0;
	room = netdev_mtu - overhead;
	if (room >= 4096)
		return IB_MTU_4096;
	if (room >= 2048)
		return IB_MTU_2048;
	if (room >= 1024)
		return IB_MTU_1024;
	if (room >= 512)
		return IB_MTU_512;
	return IB_MTU_256;
}

/*
 * Modified EUI-64 from a 48-bit MAC (RFC 4291 appendix A), the GUID form
 * RoCE uses for node and system image GUIDs: flip the universal/local bit
 * and put ff:fe in the middle.
 */
__be64 sv_eth_guid_from_mac(const u8 *mac)
{
	u64 eui = (u64)(mac[0] ^ 2) << 56 | (u64)mac[1] << 48 |
		  (u64)mac[2] << 40 | 0xfffeULL << 24 |
		  (u64)mac[3] << 16 | (u64)mac[4] << 8 | mac[5];

	return cpu_to_be64(eui);
}
