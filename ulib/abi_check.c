// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Compile-time proof that the ring and udata layouts ulib writes and reads
 * (uapi/softverbs-abi.h) are Soft-RoCE's (<rdma/rdma_user_rxe.h>, from the
 * distro's kernel headers): the same checks the kmod makes, on the user
 * side of the ABI.  And that the rdma-core 65 types of verbs65.h (or of the
 * distro header, when it has them) have 65's layout.  No code.
 */
#include <netinet/in.h>	/* before the kernel's linux/in.h (libc-compat) */
#include <stddef.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>

#define SV_ABI_CHECK_LAYOUTS
#include "../uapi/softverbs-abi.h"

#include "verbs65.h"

/* offsets and sizes of rdma-core 65's verbs.h on LP64 (x86_64, arm64) */
#if __SIZEOF_POINTER__ == 8 && __SIZEOF_LONG__ == 8
#define SV_AT(t, f, off) \
	_Static_assert(offsetof(struct t, f) == (off), #t "." #f " moved")
#define SV_SIZE(t, n) \
	_Static_assert(sizeof(struct t) == (n), #t " resized")
SV_AT(ibv_mr_init_attr, length, 0);
SV_AT(ibv_mr_init_attr, access, 8);
SV_AT(ibv_mr_init_attr, comp_mask, 16);
SV_AT(ibv_mr_init_attr, iova, 24);
SV_AT(ibv_mr_init_attr, addr, 32);
SV_AT(ibv_mr_init_attr, fd, 40);
SV_AT(ibv_mr_init_attr, fd_offset, 48);
SV_AT(ibv_mr_init_attr, dmah, 56);
SV_AT(ibv_mr_init_attr, buf, 64);
SV_SIZE(ibv_mr_init_attr, 72);
SV_SIZE(ibv_dmah, 8);
SV_AT(ibv_dmah_init_attr, cpu_id, 4);
SV_AT(ibv_dmah_init_attr, ph, 8);
SV_AT(ibv_dmah_init_attr, tph_mem_type, 9);
SV_SIZE(ibv_dmah_init_attr, 12);
SV_AT(ibv_comp_cntr_caps, max_counters, 8);
SV_AT(ibv_comp_cntr_caps, supported_qp_attach_ops, 12);
SV_SIZE(ibv_comp_cntr_caps, 16);
SV_AT(ibv_comp_cntr, handle, 8);
SV_SIZE(ibv_comp_cntr, 16);
SV_AT(ibv_comp_cntr_init_attr, type, 4);
SV_AT(ibv_comp_cntr_init_attr, flags, 8);
SV_SIZE(ibv_comp_cntr_init_attr, 12);
SV_AT(ibv_qp_attach_comp_cntr_attr, op_mask, 4);
SV_SIZE(ibv_qp_attach_comp_cntr_attr, 8);
#endif
