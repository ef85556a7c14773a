// SPDX-License-Identifier: GPL-2.0
/*
 * <net/ipv6_stubs.h>: IPv6 routing through ipv6_stub, so that a module
 * works whether IPv6 is built in, a module or absent (gone once IPv6
 * could no longer be a module)
 */
#include <net/ipv6_stubs.h>

struct dst_entry *sv_probe(struct net *net, struct flowi6 *fl6);
struct dst_entry *sv_probe(struct net *net, struct flowi6 *fl6)
{
	return ipv6_stub->ipv6_dst_lookup_flow(net, NULL, fl6, NULL);
}
