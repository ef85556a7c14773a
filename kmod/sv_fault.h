/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection (sv_fault.c): per device and per direction, packets are
 * dropped, duplicated, corrupted or reordered with configured
 * probabilities, for testing the transport's recovery.  Configured through
 * the softverbs generic netlink family (uapi/softverbs-nl.h, sv_nl.c).
 *
 * Cost when off: a static key (no device has faults enabled: a patched-out
 * branch), then one READ_ONCE of the direction's flag.
 */
#ifndef SV_FAULT_H
#define SV_FAULT_H

#include <linux/jump_label.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

struct sv_dev;

enum sv_fault_dir {
	SV_FAULT_TX,
	SV_FAULT_RX,
	SV_FAULT_NUM_DIRS
};

enum sv_fault_kind {
	SV_FAULT_DROP,
	SV_FAULT_DUP,
	SV_FAULT_REORDER,
	SV_FAULT_CORRUPT,
	SV_FAULT_NUM_KINDS
};

/* probabilities are in parts per million */
#define SV_FAULT_PPM_MAX	1000000U

/* a held (reordered) packet goes out at the latest after this long */
#define SV_FAULT_REORDER_HOLD_MS 1

/*
 * How a judged packet goes on, consuming the skb: the transmit path's
 * "hand it to IP", the receive path's "process it" (which must not offer
 * it to sv_fault_rx() again: the hook knows it is re-injecting and lets it
 * pass).
 */
typedef int (*sv_fault_send_t)(struct sv_dev *sv, struct sk_buff *skb);
typedef void (*sv_fault_recv_t)(struct sv_dev *sv, struct sk_buff *skb);

struct sv_fault_dir_state {
	/* any probability non-zero; read locklessly by the hooks */
	bool			on;

	/*
	 * lock (_bh: the hooks run in softirq, or with bottom halves off)
	 * protects everything below: the probabilities, the PRNG (one
	 * stream per direction, so a seeded run draws the same sequence
	 * for the same packet sequence), the held packet and the counters.
	 * A leaf lock (Documentation/design.md, "Locking").
	 */
	spinlock_t		lock;
	u32			ppm[SV_FAULT_NUM_KINDS];
	struct rnd_state	rnd;
	struct sk_buff		*held;		/* reordered packet waiting */
	sv_fault_send_t		held_send;	/* TX: how to send it */
	sv_fault_recv_t		held_recv;	/* RX: how to deliver it */
	struct timer_list	timer;		/* releases held */
	bool			dead;		/* device going: no new holds */
	u64			seen;		/* packets the hook looked at */
	u64			hits[SV_FAULT_NUM_KINDS];

	struct sv_dev		*sv;		/* back pointer for the timer */
	enum sv_fault_dir	dir;
};

struct sv_fault {
	/*
	 * config_mutex serialises configuration changes (FAULT_SET), which
	 * may take the static key; the data path never takes it.
	 */
	struct mutex		config_mutex;
	bool			key_held;	/* counted in sv_fault_key */
	bool			ever_on;	/* hooks may have run */
	bool			seeded;		/* seed given by the user */
	u64			seed;
	struct sv_fault_dir_state d[SV_FAULT_NUM_DIRS];
};

/* a configuration as netlink carries it */
struct sv_fault_cfg {
	u32	ppm[SV_FAULT_NUM_DIRS][SV_FAULT_NUM_KINDS];
	bool	set[SV_FAULT_NUM_DIRS][SV_FAULT_NUM_KINDS];
	bool	has_seed;
	u64	seed;
};

struct sv_fault_dir_info {
	u32	ppm[SV_FAULT_NUM_KINDS];
	u64	seen;
	u64	hits[SV_FAULT_NUM_KINDS];
};

DECLARE_STATIC_KEY_FALSE(sv_fault_key);

/*
 * The hooks' test: faults enabled for direction @dir of device @sv.  The
 * transmit path then sends through sv_fault_tx(), the receive path asks
 * sv_fault_rx() whether it took the packet.
 */
#define sv_fault_active(sv, dir) \
	(static_branch_unlikely(&sv_fault_key) && \
	 READ_ONCE((sv)->fault.d[dir].on))

/* device life cycle: init at creation; cleanup once no hook can run */
void sv_fault_dev_init(struct sv_dev *sv);
void sv_fault_dev_cleanup(struct sv_dev *sv);

/* configuration, process context (sv_nl.c) */
int sv_fault_configure(struct sv_dev *sv, const struct sv_fault_cfg *cfg);
void sv_fault_get(struct sv_dev *sv, enum sv_fault_dir dir,
		  struct sv_fault_dir_info *info, bool *seeded, u64 *seed);

/* slow paths of the hooks below */
int sv_fault_tx(struct sv_dev *sv, struct sk_buff *skb, sv_fault_send_t send);
bool sv_fault_rx(struct sv_dev *sv, struct sk_buff *skb, sv_fault_recv_t recv);

#endif /* SV_FAULT_H */
