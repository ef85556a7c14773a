// SPDX-License-Identifier: GPL-2.0
/* ib_core consults ops.get_netdev (removed upstream after 6.12) */
#include <rdma/ib_verbs.h>

static struct net_device *probe(struct ib_device *dev, u32 port)
{
	return NULL;
}

const struct ib_device_ops sv_probe_ops = { .get_netdev = probe };
