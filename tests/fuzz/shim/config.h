/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmod/compat/config.h as kmod/compat/probe.sh writes it for an ib_core
 * of 6.2+ (the shim's rdma/ib_verbs.h).  An in-tree module build leaves
 * its own kmod/compat/config.h, which then takes precedence ("config.h"
 * is looked up next to compat.h first); the shim serves either.
 */
#ifndef SV_COMPAT_CONFIG_H
#define SV_COMPAT_CONFIG_H
#define SV_HAVE_OPS_GET_NETDEV 1
#define SV_HAVE_IB_MPE 1
#endif
