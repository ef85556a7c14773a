/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion counters are ib_core's uverbs object (UVERBS_OBJECT_COMP_CNTR,
 * the QP method QP_ATTACH_COMP_CNTR, the device method
 * QUERY_COMP_CNTR_CAPS) where ib_core has it (SV_HAVE_COMP_CNTR); softverbs
 * then implements its ops (sv_cntr.c) and adds to CREATE the two
 * attributes that give it the memory of the counts (uapi/softverbs-abi.h,
 * enum sv_comp_cntr_create_attrs).  Where ib_core has no such object
 * uverbs has nothing to call: SV_COMP_CNTR is 0, the ops table and the
 * driver's uapi tree get nothing, and no QP ever has a counter.
 * Included by sv_dev.c (the ops table) and sv_cntr.c, after sv.h.
 */
#ifndef SV_COMPAT_CNTR_H
#define SV_COMPAT_CNTR_H

#include "compat.h"

#ifdef SV_HAVE_COMP_CNTR
#define SV_COMP_CNTR	1

/* the QP attach mask's bits are enum sv_cntr_op's numbers */
static_assert(BIT(SV_CNTR_SEND) == IB_QP_ATTACH_COMP_CNTR_OP_SEND);
static_assert(BIT(SV_CNTR_RECV) == IB_QP_ATTACH_COMP_CNTR_OP_RECV);
static_assert(BIT(SV_CNTR_READ) == IB_QP_ATTACH_COMP_CNTR_OP_RDMA_READ);
static_assert(BIT(SV_CNTR_REMOTE_READ) ==
	      IB_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ);
static_assert(BIT(SV_CNTR_WRITE) == IB_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE);
static_assert(BIT(SV_CNTR_REMOTE_WRITE) ==
	      IB_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE);
static_assert((int)IB_COMP_CNTR_ENTRY_COMP == (int)SV_CNTR_COMP);
static_assert((int)IB_COMP_CNTR_ENTRY_ERR == (int)SV_CNTR_ERR);

struct sv_comp_cntr {
	struct ib_comp_cntr	ibcc;
	struct sv_cntr		c;
};

static inline struct sv_comp_cntr *to_sv_comp_cntr(struct ib_comp_cntr *ibcc)
{
	return container_of(ibcc, struct sv_comp_cntr, ibcc);
}

int sv_cntr_create(struct ib_comp_cntr *ibcc,
		   struct uverbs_attr_bundle *attrs);
int sv_cntr_destroy(struct ib_comp_cntr *ibcc);
int sv_cntr_modify(struct ib_comp_cntr *ibcc, enum ib_comp_cntr_entry entry,
		   enum ib_comp_cntr_modify_op op, u64 value);
int sv_cntr_read(struct ib_comp_cntr *ibcc, enum ib_comp_cntr_entry entry,
		 u64 *value);
int sv_cntr_query_caps(struct ib_device *ibdev, struct ib_comp_cntr_caps *caps,
		       struct uverbs_attr_bundle *attrs);
int sv_cntr_attach(struct ib_qp *ibqp, struct ib_comp_cntr *ibcc,
		   struct ib_qp_attach_comp_cntr_attr *attr);

extern const struct uapi_definition sv_cntr_uapi_defs[];

#define SV_OPS_COMP_CNTR						\
	.create_comp_cntr = sv_cntr_create,				\
	.destroy_comp_cntr = sv_cntr_destroy,				\
	.modify_comp_cntr = sv_cntr_modify,				\
	.read_comp_cntr = sv_cntr_read,					\
	.query_comp_cntr_caps = sv_cntr_query_caps,			\
	.qp_attach_comp_cntr = sv_cntr_attach,				\
	INIT_RDMA_OBJ_SIZE(ib_comp_cntr, sv_comp_cntr, ibcc),
#define SV_CNTR_DRIVER_DEF	sv_cntr_uapi_defs
#else
#define SV_COMP_CNTR	0
#define SV_OPS_COMP_CNTR
#define SV_CNTR_DRIVER_DEF	NULL
#endif

#endif /* SV_COMPAT_CNTR_H */
