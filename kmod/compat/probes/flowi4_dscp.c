// SPDX-License-Identifier: GPL-2.0
/* the IPv4 flow key holds a DSCP (flowi4_dscp), no longer the TOS */
#include <net/flow.h>
#include <net/inet_dscp.h>

void sv_probe(struct flowi4 *fl4, u8 tclass);
void sv_probe(struct flowi4 *fl4, u8 tclass)
{
	fl4->flowi4_dscp = inet_dsfield_to_dscp(tclass);
}
