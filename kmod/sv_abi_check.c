// SPDX-License-Identifier: GPL-2.0
/*
 * Compile-time proof that uapi/softverbs-abi.h lays out every shared
 * structure exactly like the kernel's own <rdma/rdma_user_rxe.h>, which is
 * what librxe is built against.  Generates no code.
 */
#include <rdma/rdma_user_rxe.h>

#define SV_ABI_CHECK_LAYOUTS
#include "softverbs-abi.h"
