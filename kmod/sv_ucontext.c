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
