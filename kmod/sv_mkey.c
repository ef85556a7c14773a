// SPDX-License-Identifier: GPL-2.0
/*
 * The L_Key/R_Key space that MRs and memory windows share: publishing a
 * key, looking it up, the references that keep its object alive and the
 * wait for them at destruction.  Layout and lifetime rules: struct
 * sv_mkey in sv_mkey.h.
 *
 * Documentation/design.md, "Verbs objects".
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "sv.h"
#include "sv_xport_obj.h"

/* mr_xa mark of a tombstone: a free index that remembers its last variant */
#define SV_MKEY_TOMBSTONE	XA_MARK_1


void sv_mkey_init(struct sv_mkey *mk, enum sv_mkey_type type)
{
	mk->key = 0;	/* no valid key has index 0 */
	mk->type = type;
	refcount_set(&mk->ref, 1);
	init_completion(&mk->released);
}

/*
 * Give @mk an index and a key, and make it visible to lookups.  The index
 * is picked cyclically from SV_MKEY_INDEX_MAX slots, so a freed index is
 * reused as late as possible; a reused index gets the next variant after
 * the one its tombstone remembers, so every key a freed object had is
 * stale for the next one at that index.  A never-used index gets a random
 * variant.  Process context.
 */
int sv_mkey_publish(struct sv_dev *sv, struct sv_mkey *mk)
{
	struct xarray *xa = &sv->mr_xa;
	unsigned long tomb_idx;
	void *tomb, *curr;
	u32 start, idx, variant;
	int pass, err;

	xa_lock_bh(xa);
retry:
	start = sv->mkey_next ?: 1;
	err = -ENOSPC;
	for (pass = 0; pass < 2; pass++) {
		u32 lo = pass ? 1 : start;

		tomb_idx = lo;
		tomb = xa_find(xa, &tomb_idx, SV_MKEY_INDEX_MAX,
			       SV_MKEY_TOMBSTONE);
		/* a never-used index below the first tombstone comes first */
		if (!tomb || tomb_idx > lo) {
			u32 hi = tomb ? tomb_idx - 1 : SV_MKEY_INDEX_MAX;

			err = __xa_alloc(xa, &idx, mk, XA_LIMIT(lo, hi),
					 GFP_KERNEL);
			if (!err) {
				variant = get_random_u32() & SV_MKEY_VARIANT_MASK;
				goto found;
			}
			if (err != -EBUSY)
				goto out_unlock;
		}
		if (tomb) {
			/*
			 * __xa_alloc() may have dropped the lock to allocate
			 * memory; the tombstone is ours only if it is still
			 * there with the same variant.
			 */
			curr = __xa_cmpxchg(xa, tomb_idx, tomb, mk, GFP_KERNEL);
			if (xa_is_err(curr)) {
				err = xa_err(curr);
				goto out_unlock;
			}
			if (curr != tomb)
				goto retry;
			__xa_clear_mark(xa, tomb_idx, SV_MKEY_TOMBSTONE);
			idx = tomb_idx;
			variant = (xa_to_value(tomb) + 1) & SV_MKEY_VARIANT_MASK;
			goto found;
		}
		if (start == 1)
			break;
	}
	/* unreachable while SV_MAX_MR + SV_MAX_MW < SV_MKEY_INDEX_MAX */
	goto out_unlock;

found:
	/* lookups that find @mk before this see key 0, which never matches */
	WRITE_ONCE(mk->key, idx << 8 | variant);
	rcu_assign_pointer(sv->mkey_hot[idx % SV_MKEY_HOT], mk);
	sv->mkey_next = idx < SV_MKEY_INDEX_MAX ? idx + 1 : 1;
	err = 0;
out_unlock:
	xa_unlock_bh(xa);
	return err;
}

/*
 * Remove @mk from lookups, leaving a tombstone with its last variant.  New
 * lookups fail from now on; references taken before stay valid.
 */
void sv_mkey_unpublish(struct sv_dev *sv, struct sv_mkey *mk)
{
	struct xarray *xa = &sv->mr_xa;
	u32 key = READ_ONCE(mk->key);
	u32 idx = key >> 8;
	void *old;

	xa_lock_bh(xa);
	/* replacing a present entry allocates nothing */
	old = __xa_store(xa, idx, xa_mk_value(key & SV_MKEY_VARIANT_MASK),
			 GFP_ATOMIC);
	if (WARN_ON(old != mk)) {
		if (!xa_is_err(old))
			__xa_store(xa, idx, old, GFP_ATOMIC);
	} else {
		__xa_set_mark(xa, idx, SV_MKEY_TOMBSTONE);
	}
	if (rcu_access_pointer(sv->mkey_hot[idx % SV_MKEY_HOT]) == mk)
		RCU_INIT_POINTER(sv->mkey_hot[idx % SV_MKEY_HOT], NULL);
	xa_unlock_bh(xa);
}

/* drop every tombstone: the device holds no MR or MW any more */
static void sv_mkey_purge(struct sv_dev *sv)
{
	struct xarray *xa = &sv->mr_xa;
	unsigned long idx;
	unsigned int n;
	void *entry;

	do {
		n = 0;
		xa_lock_bh(xa);
		xa_for_each_marked(xa, idx, entry, SV_MKEY_TOMBSTONE) {
			__xa_erase(xa, idx);
			if (++n == 64)
				break;
		}
		xa_unlock_bh(xa);
		cond_resched();
	} while (n == 64);
}

/*
 * Give back a count taken with sv_dev_count_get() for an MR or MW.  When no
 * MR and no MW is left, the tombstones go: device removal finds mr_xa
 * empty.  Losing the remembered variants then is harmless, no key of this
 * device can be in use.  Both counts are read after a full barrier that
 * follows our own decrement, so of two racing last puts at least one sees
 * both counts at zero.
 */
void sv_mkey_count_put(struct sv_dev *sv, atomic_t *count)
{
	sv_dev_count_put(count);
	/* order our decrement before reading both counts (see above) */
	smp_mb__after_atomic();
	if (!atomic_read(&sv->num_mr) && !atomic_read(&sv->num_mw))
		sv_mkey_purge(sv);
}

/*
 * A reference on the object at @key's index, whatever its variant, or
 * NULL.  Any context, under RCU (sv_mkey_get(): its own).  The caller
 * checks the full key under the object's lock.  The object found in
 * mkey_hot is the one mr_xa holds at that index, or one being
 * unpublished, which a lookup in mr_xa could have found as well a moment
 * earlier; objects are freed after a grace period (kfree_rcu).
 */
struct sv_mkey *sv_mkey_get_rcu(struct sv_dev *sv, u32 key)
{
	u32 idx = key >> 8;
	struct sv_mkey *mk;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "key look-up without RCU");
	mk = rcu_dereference(sv->mkey_hot[idx % SV_MKEY_HOT]);
	if (!mk || READ_ONCE(mk->key) >> 8 != idx)
		mk = xa_load(&sv->mr_xa, idx);
	if (!mk || xa_is_value(mk) || !refcount_inc_not_zero(&mk->ref))
		mk = NULL;
	return mk;
}

struct sv_mkey *sv_mkey_get(struct sv_dev *sv, u32 key)
{
	struct sv_mkey *mk;

	rcu_read_lock();
	mk = sv_mkey_get_rcu(sv, key);
	rcu_read_unlock();
	return mk;
}

void sv_mkey_put(struct sv_mkey *mk)
{
	if (refcount_dec_and_test(&mk->ref))
		complete(&mk->released);
}

/*
 * After sv_mkey_unpublish() and dropping the owner's reference: wait until
 * no lookup holds @mk any more.  In-flight packets hold references only
 * for the time of one copy, so a long wait means a leaked reference.
 */
void sv_mkey_wait(struct sv_dev *sv, struct sv_mkey *mk)
{
	while (!wait_for_completion_timeout(&mk->released, 10 * HZ))
		sv_err_dev(sv, "key %#x still referenced after 10 s\n",
			   READ_ONCE(mk->key));
}
