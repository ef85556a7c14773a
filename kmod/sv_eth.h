/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SV_ETH_H
#define SV_ETH_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

enum ib_mtu sv_eth_mtu_to_ib_mtu(unsigned int netdev_mtu);
__be64 sv_eth_guid_from_mac(const u8 *mac);

#endif
