// SPDX-License-Identifier: GPL-2.0
/*
 * ib_core knows the IBTA 1.5 Memory Placement Extensions (6.2+): work
 * request and completion opcodes, MR access rights, device capabilities.
 */
#include <rdma/ib_verbs.h>

int probe_wr[] = { IB_WR_ATOMIC_WRITE, IB_WR_FLUSH };
int probe_wc[] = { IB_WC_ATOMIC_WRITE, IB_WC_FLUSH };
int probe_access = IB_ACCESS_FLUSH_GLOBAL | IB_ACCESS_FLUSH_PERSISTENT;
u64 probe_caps = IB_DEVICE_FLUSH_GLOBAL | IB_DEVICE_ATOMIC_WRITE;
