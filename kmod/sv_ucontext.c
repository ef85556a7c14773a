// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts.  A softverbs context carries no driver data of its own:
 * librxe's GET_CONTEXT exchange has no driver-specific part, and every
 * mapped queue is tracked by ib_core's mmap entries of the context.
 */
#include "sv.h"

int sv_ucontext_alloc(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	return 0;
}

void sv_ucontext_dealloc(struct ib_ucontext *ibuc)
{
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
