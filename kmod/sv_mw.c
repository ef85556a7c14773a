// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows (IBTA 10.6.7), types 1 and 2: allocation, binding through a
 * work request (sv_mw_bind()), invalidation, deallocation.
 *
 * Documentation/design.md, "Verbs objects" (MWs).
 */
#include <linux/slab.h>

#include "sv.h"
#include "sv_xport_obj.h"

/*
 * Rights a bind may grant.  IB_ACCESS_LOCAL_WRITE means nothing for a
 * window (it is reached only remotely) but consumers pass it (rdma-core's
 * own tests do), so it is accepted and ignored; IB_ACCESS_MW_BIND likewise.
 */
#define SV_MW_ACCESS_REMOTE	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)
#define SV_MW_ACCESS		(SV_MW_ACCESS_REMOTE | IB_ZERO_BASED | \
				 IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND)

/* drop the binding of @mw; returns the MR to detach (outside the lock) */
static struct sv_mr *sv_mw_unbind_locked(struct sv_mw *mw)
{
	struct sv_mr *mr = mw->mr;

	lockdep_assert_held(&mw->lock);
	if (mw->binds) {
		spin_lock(&mw->binds->lock);
		list_del_init(&mw->bind_entry);
		spin_unlock(&mw->binds->lock);
		mw->binds = NULL;
	}
	mw->mr = NULL;
	mw->addr = 0;
	mw->length = 0;
	mw->access = 0;
	mw->qpn = 0;
	return mr;
}

int sv_mw_alloc(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sv_mw_obj *obj = container_of(ibmw, struct sv_mw_obj, ibmw);
	struct sv_dev *sv = to_sv_dev(ibmw->device);
	struct sv_mw *mw;
	int err;

	/* no driver-specific input or output in the rxe ABI */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (!sv_dev_count_get(&sv->num_mw, SV_MAX_MW)) {
		sv_dbg_dev(sv, "no more than %u MWs\n", SV_MAX_MW);
		return -ENOMEM;
	}

	mw = kzalloc(sizeof(*mw), GFP_KERNEL);
	if (!mw) {
		err = -ENOMEM;
		goto err_put_count;
	}
	sv_mkey_init(&mw->mkey, SV_MKEY_MW);
	spin_lock_init(&mw->lock);
	INIT_LIST_HEAD(&mw->bind_entry);
	mw->sv = sv;
	mw->type = ibmw->type;
	mw->pd = ibmw->pd;
	mw->state = SV_MW_FREE;

	err = sv_mkey_publish(sv, &mw->mkey);
	if (err)
		goto err_free_mw;
	obj->mw = mw;
	ibmw->rkey = mw->mkey.key;
	return 0;

err_free_mw:
	kfree(mw);
err_put_count:
	sv_mkey_count_put(sv, &sv->num_mw);
	return err;
}

/*
 * ib_core frees struct sv_mw_obj right after this returns; struct sv_mw,
 * which lookups may still be reading under RCU, is freed after a grace
 * period.
 */
int sv_mw_dealloc(struct ib_mw *ibmw)
{
	struct sv_mw *mw = to_sv_mw(ibmw);
	struct sv_dev *sv = mw->sv;
	struct sv_mr *mr;

	sv_mkey_unpublish(sv, &mw->mkey);

	spin_lock_bh(&mw->lock);
	mw->state = SV_MW_INVALID;
	mr = sv_mw_unbind_locked(mw);
	spin_unlock_bh(&mw->lock);
	if (mr)
		sv_mr_mw_detach(mr);

	sv_mkey_put(&mw->mkey);
	sv_mkey_wait(sv, &mw->mkey);
	kfree_rcu(mw, mkey.rcu);
	sv_mkey_count_put(sv, &sv->num_mw);
	return 0;
}

int sv_mw_bind(struct sv_dev *sv, struct ib_pd *pd, struct sv_mw_binds *binds,
	       const struct sv_mw_bind_args *args)
{
	struct sv_mkey *mw_mk, *mr_mk = NULL;
	struct sv_mr *mr = NULL, *old;
	struct sv_mw *mw;
	int err;

	mw_mk = sv_mkey_get(sv, args->mw_rkey);
	if (!mw_mk)
		return -EINVAL;
	if (mw_mk->type != SV_MKEY_MW) {
		err = -EINVAL;
		goto out_put_mw;
	}
	mw = container_of(mw_mk, struct sv_mw, mkey);

	/* the new R_Key keeps the index, the consumer picks the variant */
	if ((args->new_rkey ^ args->mw_rkey) & ~SV_MKEY_VARIANT_MASK) {
		err = -EINVAL;
		goto out_put_mw;
	}
	if (args->access & ~SV_MW_ACCESS) {
		err = -EINVAL;
		goto out_put_mw;
	}
	if (mw->type == IB_MW_TYPE_1 && (args->access & IB_ZERO_BASED)) {
		/* o10-36.2.2: type 1 windows are virtually addressed */
		err = -EINVAL;
		goto out_put_mw;
	}
	if (mw->type == IB_MW_TYPE_2 && !args->length) {
		/* o10-37.2.40: a type 2 window is unbound by invalidation */
		err = -EINVAL;
		goto out_put_mw;
	}
	if (mw->pd != pd) {
		/* C10-72: the QP that binds and the window share a PD */
		err = -EACCES;
		goto out_put_mw;
	}
	if (args->length) {
		mr_mk = sv_mkey_get(sv, args->mr_lkey);
		if (!mr_mk || mr_mk->type != SV_MKEY_MR) {
			err = -EINVAL;
			goto out_put_mr;
		}
		mr = container_of(mr_mk, struct sv_mr, mkey);
	}

	/*
	 * The window is named by its index only: librxe sends the R_Key the
	 * window was allocated with (struct ibv_mw's rkey, which it updates
	 * after a type 1 bind but never after a type 2 one), so a type 2
	 * window could not be bound a second time if the variant had to
	 * match.  The consumer owns the window; the PD check above is what
	 * keeps other consumers out.  Lock order: window, then MR.
	 */
	spin_lock_bh(&mw->lock);
	if (mw->state == SV_MW_INVALID) {
		err = -EINVAL;
		goto out_unlock;
	}
	if (mw->type == IB_MW_TYPE_2 && mw->state != SV_MW_FREE) {
		/* o10-37.2.30: a bound type 2 window must be invalidated first */
		err = -EINVAL;
		goto out_unlock;
	}
	if (mr) {
		/* the MR's state, PD, rights and range (C10-73..75) */
		err = sv_mr_mw_attach(mr, args->mr_lkey, pd, args->addr,
				      args->length, args->access);
		if (err)
			goto out_unlock;
	}
	old = sv_mw_unbind_locked(mw);
	if (mr) {
		/* our lookup reference becomes the binding's */
		mw->mr = mr;
		mr_mk = NULL;
		mw->addr = args->addr;
		mw->length = args->length;
		mw->access = args->access & (SV_MW_ACCESS_REMOTE | IB_ZERO_BASED);
		if (mw->type == IB_MW_TYPE_2) {
			mw->qpn = binds->qpn;
			mw->binds = binds;
			spin_lock(&binds->lock);
			list_add_tail(&mw->bind_entry, &binds->list);
			spin_unlock(&binds->lock);
		}
		mw->state = SV_MW_VALID;
	} else {
		mw->state = SV_MW_FREE;		/* type 1, length 0: unbind */
	}
	WRITE_ONCE(mw->mkey.key, args->new_rkey);
	spin_unlock_bh(&mw->lock);
	if (old)
		sv_mr_mw_detach(old);
	err = 0;
	goto out_put_mr;

out_unlock:
	spin_unlock_bh(&mw->lock);
out_put_mr:
	if (mr_mk)
		sv_mkey_put(mr_mk);
out_put_mw:
	sv_mkey_put(mw_mk);
	return err;
}

int sv_mw_invalidate(struct sv_mw *mw, u32 rkey, struct ib_pd *pd, u32 qpn,
		     bool remote)
{
	struct sv_mr *mr = NULL;
	int err = 0;

	spin_lock_bh(&mw->lock);
	if (mw->mkey.key != rkey || mw->state != SV_MW_VALID)
		err = -EINVAL;
	else if (mw->type == IB_MW_TYPE_1)
		/* o10-37.2.26: type 1 windows are unbound by a bind only */
		err = -EINVAL;
	else if (mw->pd != pd || (remote && mw->qpn != qpn))
		/* a SEND with Invalidate must arrive on the window's QP */
		err = -EACCES;
	if (!err) {
		mr = sv_mw_unbind_locked(mw);
		mw->state = SV_MW_FREE;
	}
	spin_unlock_bh(&mw->lock);
	if (mr)
		sv_mr_mw_detach(mr);
	return err;
}

struct sv_mr *sv_mw_resolve(struct sv_mw *mw, u32 rkey, struct ib_pd *pd,
			    u32 qpn, int access, u64 *iova, u64 length)
{
	struct sv_mr *mr = NULL;
	u64 base;
	int err = 0;

	spin_lock_bh(&mw->lock);
	base = mw->access & IB_ZERO_BASED ? 0 : mw->addr;
	if (mw->mkey.key != rkey || mw->state != SV_MW_VALID)
		err = -EINVAL;
	else if (mw->pd != pd ||
		 (mw->type == IB_MW_TYPE_2 && mw->qpn != qpn) ||
		 (access & ~mw->access & SV_MW_ACCESS_REMOTE))
		err = -EACCES;
	else if (!sv_mr_range_ok(base, mw->length, *iova, length))
		err = -ERANGE;
	if (!err) {
		/* the binding holds the MR: the count cannot be zero */
		mr = mw->mr;
		sv_mr_hold(mr);
		*iova = mw->addr + (*iova - base);
	}
	spin_unlock_bh(&mw->lock);
	return err ? ERR_PTR(err) : mr;
}

void sv_mw_invalidate_qp(struct sv_mw_binds *binds)
{
	struct sv_mr *mr;
	struct sv_mw *mw;

	/*
	 * Nothing adds to the list any more (the requester is stopped); a
	 * concurrent dealloc may take windows off it.  A window read from
	 * the list is not freed before a grace period (dealloc unbinds it,
	 * then kfree_rcu), so under RCU its lock can be taken; under that
	 * lock it is still ours or already off the list: each pass removes
	 * one window.
	 */
	for (;;) {
		rcu_read_lock();
		spin_lock_bh(&binds->lock);
		mw = list_first_entry_or_null(&binds->list, struct sv_mw,
					      bind_entry);
		spin_unlock_bh(&binds->lock);
		if (!mw) {
			rcu_read_unlock();
			return;
		}
		mr = NULL;
		spin_lock_bh(&mw->lock);
		if (mw->binds == binds) {
			mr = sv_mw_unbind_locked(mw);
			mw->state = SV_MW_FREE;
		}
		spin_unlock_bh(&mw->lock);
		rcu_read_unlock();
		if (mr)
			sv_mr_mw_detach(mr);
	}
}
