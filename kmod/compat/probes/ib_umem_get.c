// SPDX-License-Identifier: GPL-2.0
/* ib_umem_get() of user virtual memory (before ib_umem_get_va()) */
#include <rdma/ib_umem.h>

struct ib_umem *(*probe_ib_umem_get)(struct ib_device *, unsigned long,
				     size_t, int) = ib_umem_get;
