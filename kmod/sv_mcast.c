// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast groups: UD QPs attached to multicast GIDs, the IP group joined on
 * the netdev, and the lookup of a group's QPs for the receive path.
 *
 * Documentation/design.md, "Verbs objects" (multicast).
 */
#include <linux/hashtable.h>
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/jhash.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>

#include "sv.h"
#include "sv_xport_obj.h"

struct sv_mcg {
	struct hlist_node	node;		/* in sv->mcg_hash (RCU) */
	union ib_gid		mgid;
	struct list_head	attached;	/* struct sv_mcg_attach (RCU) */
	unsigned int		num_qps;
	struct rcu_head		rcu;
};

/* one QP in one group */
struct sv_mcg_attach {
	struct list_head	mcg_entry;	/* in mcg->attached (RCU) */
	struct list_head	qp_entry;	/* in qp->mcast_list */
	struct sv_mcg		*mcg;
	/* the QP's handle: all an RCU reader may touch (see sv_verbs.h) */
	struct sv_qp_handle	*handle;
	/*
	 * Successful attaches of this QP to this group not yet detached.
	 * ib_core counts each in the QP's usecnt and keeps its own list keyed
	 * by GID and LID, so the same group with another LID is a second
	 * attach there: it must need a second detach here, or ib_core's last
	 * detach fails, the QP's usecnt never drops and its destroy is
	 * refused for ever (a process's exit then leaves its objects).
	 */
	unsigned int		refs;
	struct rcu_head		rcu;
};

static DEFINE_MUTEX(sv_mcast_mutex);

static u32 sv_mcg_hash(const union ib_gid *mgid)
{
	return jhash(mgid->raw, sizeof(mgid->raw), 0);
}

/* under RCU or sv_mcast_mutex */
static struct sv_mcg *sv_mcg_find(struct sv_dev *sv, const union ib_gid *mgid)
{
	struct sv_mcg *mcg;

	hash_for_each_possible_rcu(sv->mcg_hash, mcg, node, sv_mcg_hash(mgid),
				   lockdep_is_held(&sv_mcast_mutex))
		if (!memcmp(mcg->mgid.raw, mgid->raw, sizeof(mgid->raw)))
			return mcg;
	return NULL;
}

static struct sv_mcg_attach *sv_mcg_find_attach(struct sv_mcg *mcg,
						struct sv_qp *qp)
{
	struct sv_mcg_attach *at;

	lockdep_assert_held(&sv_mcast_mutex);

	list_for_each_entry(at, &mcg->attached, mcg_entry)
		if (at->handle == qp->handle)
			return at;
	return NULL;
}

/* Join the IP group of @mgid on the device's netdev. */
static int sv_mcg_join(struct sv_dev *sv, const union ib_gid *mgid)
{
	const struct in6_addr *addr = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;
	int err = 0;

	rtnl_lock();
	if (ipv6_addr_v4mapped(addr)) {
		in_dev = __in_dev_get_rtnl(sv->ndev);
		if (in_dev)
			ip_mc_inc_group(in_dev, addr->s6_addr32[3]);
		else
			err = -ENODEV;	/* IPv4 is off on the netdev */
	} else {
		/* -ENODEV when IPv6 is off on the netdev */
		err = ipv6_dev_mc_inc(sv->ndev, addr);
	}
	rtnl_unlock();
	return err;
}

static void sv_mcg_leave(struct sv_dev *sv, const union ib_gid *mgid)
{
	const struct in6_addr *addr = (const struct in6_addr *)mgid->raw;
	struct in_device *in_dev;

	rtnl_lock();
	if (ipv6_addr_v4mapped(addr)) {
		/* gone with the netdev's IPv4 state: nothing to leave */
		in_dev = __in_dev_get_rtnl(sv->ndev);
		if (in_dev)
			ip_mc_dec_group(in_dev, addr->s6_addr32[3]);
	} else {
		ipv6_dev_mc_dec(sv->ndev, addr);
	}
	rtnl_unlock();
}

static void sv_mcg_detach_locked(struct sv_dev *sv, struct sv_mcg_attach *at)
{
	struct sv_mcg *mcg = at->mcg;

	lockdep_assert_held(&sv_mcast_mutex);

	list_del_rcu(&at->mcg_entry);
	list_del(&at->qp_entry);
	kfree_rcu(at, rcu);
	sv->num_mcg_attach--;
	if (--mcg->num_qps)
		return;

	hash_del_rcu(&mcg->node);
	sv->num_mcg--;
	sv_mcg_leave(sv, &mcg->mgid);
	kfree_rcu(mcg, rcu);
}

int sv_mcast_attach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sv_dev *sv = to_sv_dev(ibqp->device);
	struct sv_qp *qp = to_sv_qp(ibqp);
	struct sv_mcg *mcg, *new_mcg = NULL;
	struct sv_mcg_attach *at;
	int err;

	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (!rdma_is_multicast_addr((struct in6_addr *)mgid->raw))
		return -EINVAL;

	at = kzalloc(sizeof(*at), GFP_KERNEL);
	if (!at)
		return -ENOMEM;

	mutex_lock(&sv_mcast_mutex);
	mcg = sv_mcg_find(sv, mgid);
	if (mcg) {
		struct sv_mcg_attach *old = sv_mcg_find_attach(mcg, qp);

		if (old) {
			/* attached already: one more to detach (see refs) */
			old->refs++;
			err = 0;
			goto err_unlock;
		}
	}
	if (mcg ? mcg->num_qps >= SV_MAX_MCAST_QP_ATTACH :
		  sv->num_mcg >= SV_MAX_MCAST_GRP) {
		err = -ENOMEM;
		goto err_unlock;
	}
	if (sv->num_mcg_attach >= SV_MAX_TOTAL_MCAST_QP_ATTACH) {
		err = -ENOMEM;
		goto err_unlock;
	}

	if (!mcg) {
		new_mcg = kzalloc(sizeof(*new_mcg), GFP_KERNEL);
		if (!new_mcg) {
			err = -ENOMEM;
			goto err_unlock;
		}
		new_mcg->mgid = *mgid;
		INIT_LIST_HEAD(&new_mcg->attached);
		err = sv_mcg_join(sv, mgid);
		if (err)
			goto err_free_mcg;
		hash_add_rcu(sv->mcg_hash, &new_mcg->node, sv_mcg_hash(mgid));
		sv->num_mcg++;
		mcg = new_mcg;
	}

	at->mcg = mcg;
	at->handle = qp->handle;
	at->refs = 1;
	list_add_tail_rcu(&at->mcg_entry, &mcg->attached);
	list_add_tail(&at->qp_entry, &qp->mcast_list);
	mcg->num_qps++;
	sv->num_mcg_attach++;
	mutex_unlock(&sv_mcast_mutex);
	sv_dbg_qp(qp, "attached to %pI6\n", mgid->raw);
	return 0;

err_free_mcg:
	kfree(new_mcg);
err_unlock:
	mutex_unlock(&sv_mcast_mutex);
	kfree(at);
	return err;
}

int sv_mcast_detach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct sv_dev *sv = to_sv_dev(ibqp->device);
	struct sv_qp *qp = to_sv_qp(ibqp);
	struct sv_mcg_attach *at = NULL;
	struct sv_mcg *mcg;

	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;

	mutex_lock(&sv_mcast_mutex);
	mcg = sv_mcg_find(sv, mgid);
	if (mcg)
		at = sv_mcg_find_attach(mcg, qp);
	if (at && !--at->refs)
		sv_mcg_detach_locked(sv, at);
	mutex_unlock(&sv_mcast_mutex);
	if (!at)
		return -EINVAL;	/* not attached to that group */
	sv_dbg_qp(qp, "detached from %pI6\n", mgid->raw);
	return 0;
}

/* destroy_qp: leave every group, before the QP's handle goes */
void sv_mcast_detach_all(struct sv_qp *qp)
{
	struct sv_dev *sv = to_sv_dev(qp->ibqp.device);
	struct sv_mcg_attach *at, *next;

	/* nothing attaches a QP that is being destroyed: no race here */
	if (list_empty(&qp->mcast_list))
		return;
	mutex_lock(&sv_mcast_mutex);
	list_for_each_entry_safe(at, next, &qp->mcast_list, qp_entry)
		sv_mcg_detach_locked(sv, at);
	mutex_unlock(&sv_mcast_mutex);
}

unsigned int sv_mcast_get_qps(struct sv_dev *sv, const union ib_gid *mgid,
			      struct sv_qp **qps, unsigned int max)
{
	struct sv_mcg_attach *at;
	struct sv_mcg *mcg;
	unsigned int n = 0;
	struct sv_qp *qp;

	rcu_read_lock();
	mcg = sv_mcg_find(sv, mgid);
	if (mcg) {
		list_for_each_entry_rcu(at, &mcg->attached, mcg_entry) {
			if (n == max)
				break;
			qp = sv_qp_handle_get_rcu(at->handle);
			if (qp)
				qps[n++] = qp;
		}
	}
	rcu_read_unlock();
	return n;
}
