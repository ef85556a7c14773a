// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection (svctl fault): drop, corrupt, duplicate and reorder
 * packets on transmit and receive, reproducibly from a seed, so that tests
 * can show the transport recovers.
 *
 * Documentation/design.md, "Transport" (fault injection).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/random.h>

#include "sv.h"

DEFINE_STATIC_KEY_FALSE(sv_fault_key);

/*
 * Set while a packet the receive hook already judged (a duplicate, or a
 * held packet being released) goes through sv_recv() again, so the hook
 * lets it pass.  Per CPU: re-injection is synchronous, with bottom halves
 * off.
 */
static DEFINE_PER_CPU(bool, sv_fault_reinjecting);

/* distinct PRNG streams for the two directions from one seed */
static const u64 sv_fault_dir_salt[SV_FAULT_NUM_DIRS] = {
	0x0, 0x9e3779b97f4a7c15ULL,
};

/* how a packet goes on: tx sends it, rx processes it */
struct sv_fault_out {
	sv_fault_send_t		send;
	sv_fault_recv_t		recv;
};

static void sv_fault_rx_reinject(struct sv_dev *sv, struct sk_buff *skb,
				 sv_fault_recv_t recv)
{
	lockdep_assert_in_softirq();
	__this_cpu_write(sv_fault_reinjecting, true);
	recv(sv, skb);
	__this_cpu_write(sv_fault_reinjecting, false);
}

/* Send (TX) or deliver (RX) a packet the hook has judged; BHs off, RCU. */
static int sv_fault_pass(struct sv_fault_dir_state *d, struct sk_buff *skb,
			 const struct sv_fault_out *out)
{
	if (d->dir == SV_FAULT_TX)
		return out->send(d->sv, skb);
	sv_fault_rx_reinject(d->sv, skb, out->recv);
	return 0;
}

/* Take the held packet, if any; the caller passes it on. */
static struct sk_buff *sv_fault_take_held(struct sv_fault_dir_state *d,
					  struct sv_fault_out *out)
{
	struct sk_buff *skb;

	lockdep_assert_held(&d->lock);
	skb = d->held;
	out->send = d->held_send;
	out->recv = d->held_recv;
	d->held = NULL;
	d->held_send = NULL;
	d->held_recv = NULL;
	return skb;
}

/* Pass the held packet on, if any; with BHs disabled. */
static void sv_fault_pass_held(struct sv_fault_dir_state *d)
{
	struct sv_fault_out out;
	struct sk_buff *skb;

	spin_lock_bh(&d->lock);
	skb = sv_fault_take_held(d, &out);
	spin_unlock_bh(&d->lock);
	if (!skb)
		return;
	/* the receive path and path lookups expect RCU, like encap_recv */
	rcu_read_lock();
	sv_fault_pass(d, skb, &out);
	rcu_read_unlock();
}

static void sv_fault_timer(struct timer_list *t)
{
	struct sv_fault_dir_state *d = timer_container_of(d, t, timer);

	sv_fault_pass_held(d);
}

/* flip one bit of the last byte the ICRC covers before the ICRC itself */
static void sv_fault_corrupt(struct sk_buff *skb, u32 r)
{
	unsigned int off;

	if (skb->len < 5 || skb_ensure_writable(skb, skb->len))
		return;
	off = skb->len - 5;
	skb->data[off] ^= 1U << (r & 7);
}

/*
 * Judge one packet.  Returns the packet to pass on now (NULL when it was
 * dropped or held), *@dup a copy to pass on right after it and *@prev a
 * previously held packet to pass on after both.
 */
static struct sk_buff *sv_fault_judge(struct sv_fault_dir_state *d,
				      struct sk_buff *skb,
				      const struct sv_fault_out *out,
				      struct sk_buff **dup,
				      struct sk_buff **prev,
				      struct sv_fault_out *prev_out)
{
	bool hit[SV_FAULT_NUM_KINDS];
	u32 r[SV_FAULT_NUM_KINDS];
	int k;

	*dup = NULL;
	*prev = NULL;

	spin_lock_bh(&d->lock);
	d->seen++;
	for (k = 0; k < SV_FAULT_NUM_KINDS; k++) {
		r[k] = prandom_u32_state(&d->rnd);
		hit[k] = r[k] % SV_FAULT_PPM_MAX < d->ppm[k];
		/* a dropped packet suffers nothing else; reorder counts below */
		if (hit[k] && k != SV_FAULT_REORDER &&
		    (k == SV_FAULT_DROP || !hit[SV_FAULT_DROP]))
			d->hits[k]++;
	}
	if (hit[SV_FAULT_DROP]) {
		spin_unlock_bh(&d->lock);
		kfree_skb(skb);
		return NULL;
	}
	spin_unlock_bh(&d->lock);

	if (hit[SV_FAULT_CORRUPT])
		sv_fault_corrupt(skb, r[SV_FAULT_CORRUPT] >> 20);
	if (hit[SV_FAULT_DUP])
		/*
		 * A full copy, not a clone: the IP layer writes link headers
		 * into the headroom, and the receive path may pull and
		 * modify, so two users must not share the data.
		 */
		*dup = skb_copy(skb, GFP_ATOMIC);

	spin_lock_bh(&d->lock);
	if (hit[SV_FAULT_REORDER] && !d->held && !d->dead) {
		d->hits[SV_FAULT_REORDER]++;
		d->held = skb;
		d->held_send = out->send;
		d->held_recv = out->recv;
		mod_timer(&d->timer,
			  jiffies + msecs_to_jiffies(SV_FAULT_REORDER_HOLD_MS));
		skb = NULL;
	} else {
		/* this packet overtakes the held one, if there is one */
		*prev = sv_fault_take_held(d, prev_out);
	}
	spin_unlock_bh(&d->lock);
	if (!skb && *dup) {
		/* the copy goes now, the original later: still reordered */
		skb = *dup;
		*dup = NULL;
	}
	return skb;
}

/* Transmit hook: any context with bottom halves allowed or off, RCU held. */
int sv_fault_tx(struct sv_dev *sv, struct sk_buff *skb, sv_fault_send_t send)
{
	struct sv_fault_dir_state *d = &sv->fault.d[SV_FAULT_TX];
	struct sv_fault_out out = { .send = send }, prev_out;
	struct sk_buff *dup, *prev;
	int err = 0;

	skb = sv_fault_judge(d, skb, &out, &dup, &prev, &prev_out);
	if (skb)
		err = send(sv, skb);
	if (dup)
		send(sv, dup);
	if (prev)
		sv_fault_pass(d, prev, &prev_out);
	return err;
}

/*
 * Receive hook, softirq under RCU: true when the hook took @skb (dropped
 * it, held it, or passed it and its copies on itself), false when the
 * caller goes on with it.
 */
bool sv_fault_rx(struct sv_dev *sv, struct sk_buff *skb, sv_fault_recv_t recv)
{
	struct sv_fault_dir_state *d = &sv->fault.d[SV_FAULT_RX];
	struct sv_fault_out out = { .recv = recv }, prev_out;
	struct sk_buff *dup, *prev;

	if (__this_cpu_read(sv_fault_reinjecting))
		return false;

	skb = sv_fault_judge(d, skb, &out, &dup, &prev, &prev_out);
	if (skb)
		sv_fault_rx_reinject(sv, skb, recv);
	if (dup)
		sv_fault_rx_reinject(sv, dup, recv);
	if (prev)
		sv_fault_pass(d, prev, &prev_out);
	return true;
}

void sv_fault_dev_init(struct sv_dev *sv)
{
	struct sv_fault *f = &sv->fault;
	int i;

	mutex_init(&f->config_mutex);
	f->seed = get_random_u64();
	for (i = 0; i < SV_FAULT_NUM_DIRS; i++) {
		struct sv_fault_dir_state *d = &f->d[i];

		spin_lock_init(&d->lock);
		timer_setup(&d->timer, sv_fault_timer, 0);
		prandom_seed_state(&d->rnd, f->seed ^ sv_fault_dir_salt[i]);
		d->sv = sv;
		d->dir = i;
	}
}

/* Pass a held packet on from process context (faults being turned off). */
static void sv_fault_flush_held(struct sv_fault_dir_state *d)
{
	timer_delete_sync(&d->timer);
	local_bh_disable();
	sv_fault_pass_held(d);
	local_bh_enable();
}

/* Take or release sv->fault's count in sv_fault_key to match the flags. */
static void sv_fault_update_key(struct sv_fault *f)
{
	bool on = f->d[SV_FAULT_TX].on || f->d[SV_FAULT_RX].on;

	lockdep_assert_held(&f->config_mutex);
	f->ever_on |= on;
	if (on && !f->key_held)
		static_branch_inc(&sv_fault_key);
	else if (!on && f->key_held)
		static_branch_dec(&sv_fault_key);
	f->key_held = on;
}

/*
 * Apply @cfg: the probabilities it sets (others keep their values) and,
 * with a seed, restart both PRNG streams from it and zero the counters,
 * so that a seeded run starts from a known state.  Process context.
 */
int sv_fault_configure(struct sv_dev *sv, const struct sv_fault_cfg *cfg)
{
	struct sv_fault *f = &sv->fault;
	int i, k;

	mutex_lock(&f->config_mutex);
	for (i = 0; i < SV_FAULT_NUM_DIRS; i++) {
		struct sv_fault_dir_state *d = &f->d[i];
		bool on = false;

		spin_lock_bh(&d->lock);
		if (d->dead) {
			spin_unlock_bh(&d->lock);
			mutex_unlock(&f->config_mutex);
			return -ENODEV;
		}
		for (k = 0; k < SV_FAULT_NUM_KINDS; k++) {
			if (cfg->set[i][k])
				d->ppm[k] = min(cfg->ppm[i][k], SV_FAULT_PPM_MAX);
			on |= d->ppm[k] != 0;
		}
		if (cfg->has_seed) {
			prandom_seed_state(&d->rnd,
					   cfg->seed ^ sv_fault_dir_salt[i]);
			d->seen = 0;
			memset(d->hits, 0, sizeof(d->hits));
		}
		WRITE_ONCE(d->on, on);
		spin_unlock_bh(&d->lock);
		if (!on)
			sv_fault_flush_held(d);
	}
	if (cfg->has_seed) {
		f->seeded = true;
		f->seed = cfg->seed;
	}
	sv_fault_update_key(f);
	mutex_unlock(&f->config_mutex);
	return 0;
}

void sv_fault_get(struct sv_dev *sv, enum sv_fault_dir dir,
		  struct sv_fault_dir_info *info, bool *seeded, u64 *seed)
{
	struct sv_fault *f = &sv->fault;
	struct sv_fault_dir_state *d = &f->d[dir];

	mutex_lock(&f->config_mutex);
	*seeded = f->seeded;
	*seed = f->seed;
	spin_lock_bh(&d->lock);
	memcpy(info->ppm, d->ppm, sizeof(info->ppm));
	memcpy(info->hits, d->hits, sizeof(info->hits));
	info->seen = d->seen;
	spin_unlock_bh(&d->lock);
	mutex_unlock(&f->config_mutex);
}

/*
 * Device removal (dealloc_driver): the device has no QPs left, so nothing
 * transmits; it is off sv_devices, so after an RCU grace period no receive
 * hook runs either.  Stop the timers and free what they would have sent.
 */
void sv_fault_dev_cleanup(struct sv_dev *sv)
{
	struct sv_fault *f = &sv->fault;
	int i;

	mutex_lock(&f->config_mutex);
	for (i = 0; i < SV_FAULT_NUM_DIRS; i++) {
		spin_lock_bh(&f->d[i].lock);
		f->d[i].dead = true;
		WRITE_ONCE(f->d[i].on, false);
		spin_unlock_bh(&f->d[i].lock);
	}
	sv_fault_update_key(f);
	mutex_unlock(&f->config_mutex);
	/* never enabled: no hook ever ran, nothing can be held */
	if (!f->ever_on)
		goto out;

	synchronize_net();
	for (i = 0; i < SV_FAULT_NUM_DIRS; i++) {
		struct sv_fault_dir_state *d = &f->d[i];

		timer_delete_sync(&d->timer);
		/* no lock needed: no hook and no timer can run any more */
		kfree_skb(d->held);
		d->held = NULL;
	}
out:
	mutex_destroy(&f->config_mutex);
}
