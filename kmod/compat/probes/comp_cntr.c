// SPDX-License-Identifier: GPL-2.0
/*
 * ib_core's completion counter object (UVERBS_OBJECT_COMP_CNTR): the
 * driver ops, and the umem of a buffer descriptor attribute, in which a
 * driver takes the memory of the counts
 */
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

static int create(struct ib_comp_cntr *cc, struct uverbs_attr_bundle *attrs)
{
	struct ib_umem *umem = ib_umem_get_attr(cc->device, attrs, 0,
						sizeof(u64), 0);

	return PTR_ERR_OR_ZERO(umem);
}

static int destroy(struct ib_comp_cntr *cc)
{
	return atomic_read(&cc->usecnt);
}

static int modify(struct ib_comp_cntr *cc, enum ib_comp_cntr_entry entry,
		  enum ib_comp_cntr_modify_op op, u64 value)
{
	return 0;
}

static int read(struct ib_comp_cntr *cc, enum ib_comp_cntr_entry entry,
		u64 *value)
{
	return 0;
}

static int caps(struct ib_device *dev, struct ib_comp_cntr_caps *caps,
		struct uverbs_attr_bundle *attrs)
{
	return 0;
}

static int attach(struct ib_qp *qp, struct ib_comp_cntr *cc,
		  struct ib_qp_attach_comp_cntr_attr *attr)
{
	return 0;
}

const struct ib_device_ops sv_probe_ops = {
	.create_comp_cntr = create,
	.destroy_comp_cntr = destroy,
	.modify_comp_cntr = modify,
	.read_comp_cntr = read,
	.query_comp_cntr_caps = caps,
	.qp_attach_comp_cntr = attach,
};
