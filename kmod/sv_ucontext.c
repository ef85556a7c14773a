// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts: what a context holds of its own is the count of kernel
 * memory its queues and ODP page tables take, against the ctx_mem_max_mb
 * limit.
 *
 * Documentation/design.md, "Hostile peers and hostile users" (memory).
 */
#include <linux/moduleparam.h>

#include "sv.h"

static unsigned int ctx_mem_max_mb = 1024;
module_param(ctx_mem_max_mb, uint, 0644);
MODULE_PARM_DESC(ctx_mem_max_mb,
		 "Kernel memory the queues of one user context may take (rings, send WQE copies, ODP page tables), MiB; 0: no limit (default 1024)");

int sv_ucontext_alloc(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	atomic64_set(&to_sv_uc(ibuc)->mem_bytes, 0);
	return 0;
}

void sv_ucontext_dealloc(struct ib_ucontext *ibuc)
{
	/* ib_core destroys every object of a context before the context */
	WARN_ON_ONCE(atomic64_read(&to_sv_uc(ibuc)->mem_bytes));
}

/*
 * The device is going away under a live process.  By now ib_core has
 * destroyed every object of the context and zapped the mappings it
 * tracks; our queue mappings hold their own page references (sv_queue.c),
 * so nothing is left to revoke.  Providing this op is what lets device
 * removal proceed without waiting for the process to exit.
 */
void sv_ucontext_disassociate(struct ib_ucontext *ibuc)
{
}

/*
 * Count @bytes more of queue memory for @uc.  -ENOMEM (and nothing
 * counted) when that would pass ctx_mem_max_mb.  Any process context.
 */
int sv_ucontext_charge(struct sv_ucontext *uc, size_t bytes)
{
	u64 max = (u64)READ_ONCE(ctx_mem_max_mb) << 20;
	s64 now = atomic64_add_return(bytes, &uc->mem_bytes);

	if (max && now > max) {
		atomic64_sub(bytes, &uc->mem_bytes);
		ibdev_info_ratelimited(uc->ibuc.device,
				       "pid %d: %zu bytes more of queues or ODP tables would pass the context's limit (ctx_mem_max_mb=%u)\n",
				       task_pid_nr(current), bytes,
				       READ_ONCE(ctx_mem_max_mb));
		return -ENOMEM;
	}
	return 0;
}

void sv_ucontext_uncharge(struct sv_ucontext *uc, size_t bytes)
{
	atomic64_sub(bytes, &uc->mem_bytes);
}
