// SPDX-License-Identifier: GPL-2.0
/*
 * IB_ODP_SUPPORT_FLUSH and IB_ODP_SUPPORT_ATOMIC_WRITE (6.15+): ODP
 * capabilities for the IBTA 1.5 memory placement operations
 */
#include <rdma/ib_verbs.h>

unsigned int probe_odp_support_mpe = IB_ODP_SUPPORT_FLUSH |
				     IB_ODP_SUPPORT_ATOMIC_WRITE;
