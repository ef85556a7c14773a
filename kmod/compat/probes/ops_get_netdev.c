// SPDX-License-Identifier: GPL-2.0
/*
 * ib_core consults ops.get_netdev (the legacy way: new drivers use
 * ib_device_set_netdev(), which softverbs must not, see compat.h)
 */
#include <rdma/ib_verbs.h>

static struct net_device *probe(struct ib_device *dev, u32 port)
{
	return NULL;
}

const struct ib_device_ops sv_probe_ops = { .get_netdev = probe };
