// SPDX-License-Identifier: GPL-2.0
/* the IPv4 flow key holds the TOS (flowi4_tos; before flowi4_dscp) */
#include <linux/ip.h>
#include <net/flow.h>

void sv_probe(struct flowi4 *fl4, u8 tclass);
void sv_probe(struct flowi4 *fl4, u8 tclass)
{
	fl4->flowi4_tos = tclass & IPTOS_TOS_MASK;
}
