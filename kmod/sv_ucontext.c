// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts: what a context holds of its own is the count of kernel
 * memory its queues and ODP page tables take, against the ctx_mem_max_mb
 * limit, and the thread that faults its ODP MRs (sv_odp.c).
 *
 * Documentation/design.md, "Hostile peers and hostile users" (memory).
 */
#include <linux/moduleparam.h>

#include "sv.h"
#include "sv_xport_obj.h"

static unsigned int ctx_mem_max_mb = 1024;
module_param(ctx_mem_max_mb, uint, 0644);
MODULE_PARM_DESC(ctx_mem_max_mb,
		 "Kernel memory the queues of one user context may take (rings, send WQE copies, ODP page tables), MiB; 0: no limit (default 1024)");

int sv_ucontext_alloc(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct sv_ucontext *uc = to_sv_uc(ibuc);

	atomic64_set(&uc->mem_bytes, 0);
	mutex_init(&uc->odp_mutex);
	uc->odp = NULL;
	return 0;
}

void sv_ucontext_dealloc(struct ib_ucontext *ibuc)
{
	struct sv_ucontext *uc = to_sv_uc(ibuc);

	/* ib_core destroys every object of a context before the context */
	WARN_ON_ONCE(atomic64_read(&uc->mem_bytes));
	/* so its ODP thread has nothing left to run (sv_odp.c) */
	sv_odp_ctx_put(uc);
	mutex_destroy(&uc->odp_mutex);
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
