// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Compile-time proof that the ring and udata layouts ulib writes and reads
 * (uapi/softverbs-abi.h) are Soft-RoCE's (<rdma/rdma_user_rxe.h>, from the
 * distro's kernel headers): the same checks the kmod makes, on the user
 * side of the ABI.  No code.
 */
#include <netinet/in.h>	/* before the kernel's linux/in.h (libc-compat) */

#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>

#define SV_ABI_CHECK_LAYOUTS
#include "../uapi/softverbs-abi.h"
