// SPDX-License-Identifier: GPL-2.0
/*
 * XRC domains (IBTA vol 1 Annex A14).  Like a PD, a domain is a tag: the
 * XRC SRQs and XRC target QPs created in it belong together, and a target
 * QP accepts only requests naming an SRQ of its own domain (sv_resp.c).
 *
 * What makes a domain shareable between processes is ib_core's, not the
 * driver's: ib_uverbs' open_xrcd keys the domain by the inode of a file
 * the processes open, counts its openers, and calls dealloc_xrcd when the
 * last one closes; ib_core also keeps the domain's table of target QPs
 * that ib_open_qp() looks up.  ib_core destroys a domain only once no SRQ
 * or QP uses it (ib_xrcd.usecnt), so there is nothing to drain here.
 */
#include "sv.h"

int sv_xrcd_alloc(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibxrcd->device);

	if (!sv_dev_count_get(&sv->num_xrcd, SV_MAX_XRCD)) {
		sv_dbg_dev(sv, "no more than %u XRC domains\n", SV_MAX_XRCD);
		return -ENOMEM;
	}
	return 0;
}

int sv_xrcd_dealloc(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	sv_dev_count_put(&to_sv_dev(ibxrcd->device)->num_xrcd);
	return 0;
}
