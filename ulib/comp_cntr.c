// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion counters (libibverbs 1.18): not supported yet.
 *
 * A counter is a kernel uverbs object (UVERBS_OBJECT_COMP_CNTR, with the
 * QP method QP_ATTACH_COMP_CNTR and the device method
 * QUERY_COMP_CNTR_CAPS) that the device increments as a QP's work
 * requests complete, whether or not anyone polls a CQ.  ib_core has it
 * only after the kernels softverbs builds for (6.1 to 6.12), and the
 * softverbs module implements no counter ops, so there is nothing behind
 * these calls; counting in the library at poll time would count what was
 * polled, not what completed.  Each call answers EOPNOTSUPP, as libibverbs
 * does for a provider without counters (librxe): the capabilities read as
 * zero, no counter is ever created, so none can be passed back to us.
 * Documentation/ulib.md, "Completion counters", says what support needs.
 */
#include <errno.h>
#include <string.h>

#include "ulib.h"

static int unsupported(const void *obj)
{
	errno = obj ? EOPNOTSUPP : EINVAL;
	return errno;
}

/* Zero caps, as libibverbs does before asking the provider, and refuse. */
SV_EXPORT int _ibv_query_comp_cntr_caps(struct ibv_context *context,
					struct ibv_comp_cntr_caps *caps,
					size_t caps_size)
{
	if (!context || !caps || caps_size < sizeof(*caps)) {
		errno = EINVAL;
		return EINVAL;
	}
	memset(caps, 0, caps_size);
	return unsupported(context);
}

SV_EXPORT struct ibv_comp_cntr *
ibv_create_comp_cntr(struct ibv_context *context,
		     struct ibv_comp_cntr_init_attr *cc_attr)
{
	unsupported(context && cc_attr ? context : NULL);
	return NULL;
}

SV_EXPORT int ibv_destroy_comp_cntr(struct ibv_comp_cntr *comp_cntr)
{
	return unsupported(comp_cntr);
}

SV_EXPORT int ibv_set_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				uint64_t value)
{
	(void)value;
	return unsupported(comp_cntr);
}

SV_EXPORT int ibv_set_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				    uint64_t value)
{
	(void)value;
	return unsupported(comp_cntr);
}

SV_EXPORT int ibv_inc_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				uint64_t amount)
{
	(void)amount;
	return unsupported(comp_cntr);
}

SV_EXPORT int ibv_inc_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				    uint64_t amount)
{
	(void)amount;
	return unsupported(comp_cntr);
}

SV_EXPORT int ibv_read_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				 uint64_t *value)
{
	return unsupported(value ? comp_cntr : NULL);
}

SV_EXPORT int ibv_read_err_comp_cntr(struct ibv_comp_cntr *comp_cntr,
				     uint64_t *value)
{
	return unsupported(value ? comp_cntr : NULL);
}

SV_EXPORT int ibv_qp_attach_comp_cntr(struct ibv_qp *qp,
				      struct ibv_comp_cntr *comp_cntr,
				      struct ibv_qp_attach_comp_cntr_attr *attr)
{
	return unsupported(qp && attr ? comp_cntr : NULL);
}
