/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel compatibility: the only place that knows kernels differ.
 *
 * Kbuild runs compat/probe.sh, which compiles each compat/probes/NAME.c
 * against the target tree and writes SV_HAVE_NAME into compat/config.h.
 * Core code uses only the shims below and never tests version numbers.
 *
 * Supported kernels: Linux 6.1 to 6.12 (also stated in dkms.conf and
 * README.md).
 */
#ifndef SV_COMPAT_H
#define SV_COMPAT_H

#include "config.h"
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/*
 * softverbs reports its netdev through ib_device_ops.get_netdev rather
 * than ib_device_set_netdev(): ib_device_get_by_netdev() must never find a
 * softverbs device, because Soft-RoCE shares our driver id (RDMA_DRIVER_RXE,
 * which librxe matches on) and its netdev notifier would treat our device
 * as its own.
 */
#ifndef SV_HAVE_OPS_GET_NETDEV
#error "softverbs supports Linux 6.1 to 6.12: this ib_core has no ib_device_ops.get_netdev"
#endif

/*
 * ib_device_ops.create_cq: the last argument became a uverbs_attr_bundle
 * (NULL for kernel consumers) in place of the udata.
 */
#ifdef SV_HAVE_CREATE_CQ_ATTRS
typedef struct uverbs_attr_bundle *sv_create_cq_arg_t;

static inline struct ib_udata *sv_create_cq_udata(sv_create_cq_arg_t arg)
{
	return arg ? &arg->driver_udata : NULL;
}
#else
typedef struct ib_udata *sv_create_cq_arg_t;

static inline struct ib_udata *sv_create_cq_udata(sv_create_cq_arg_t arg)
{
	return arg;
}
#endif

#endif /* SV_COMPAT_H */
