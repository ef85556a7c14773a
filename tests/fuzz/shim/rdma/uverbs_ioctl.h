/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_RDMA_UVERBS_IOCTL_H
#define SHIM_RDMA_UVERBS_IOCTL_H
#include <rdma/ib_verbs.h>
struct uverbs_attr_bundle { struct ib_udata driver_udata; };
#endif
