/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The local destination a role's frames went to last (sv_net.c), kept in
 * the role's state (struct sv_req_state, struct sv_resp_state): a header
 * of its own, as those state parts are read without sv.h.
 *
 * Documentation/design.md, "Transport" (local frames).
 */
#ifndef SV_NET_DEST_H
#define SV_NET_DEST_H

#include <rdma/ib_verbs.h>

struct net_device;
struct sv_dev;

/*
 * Kept by the role under its own lock (qp->req.dest, qp->resp.dest).  It
 * holds while the namespace's routes (which move with every address,
 * route and netdev change) and the device list (sv_dev_gen) are as they
 * were, whether it found a device of this host or not; @ndev is not held:
 * a holder looks at it under RCU only while both hold
 * (sv_net_frame_dest()).
 */
struct sv_net_dest {
	union ib_gid		dgid;
	u8			network_type;
	bool			valid;
	int			rt_genid;
	int			dev_gen;
	struct net_device	*ndev;	/* NULL: not a device of this host */
	struct sv_dev		*dst;
};

#endif /* SV_NET_DEST_H */
