/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * The softverbs generic netlink family: the one definition of its
 * commands and attributes, shared by the module (kmod/sv_nl.c) and svctl.
 *
 * Family "softverbs", version 1.  Every attribute of a request is checked
 * against a policy; a rejected request carries an extack message that
 * names the attribute.
 *
 * Devices and namespaces
 * ----------------------
 * A softverbs device belongs to the network namespace of its netdev.  A
 * socket sees, and may name, only the devices of its own namespace; to
 * every other namespace a device does not exist (ENODEV).  Reads need no
 * privilege; changes need CAP_NET_ADMIN in the user namespace owning the
 * socket's (hence the device's) network namespace.
 *
 * A request names its device with SV_NL_ATTR_DEV_INDEX (the ib_device
 * index, as "rdma dev" prints it) or SV_NL_ATTR_DEV_NAME; when both are
 * given they must agree.
 *
 * Commands
 * --------
 * SV_NL_CMD_DEV_GET	do: one device; dump: every device of the namespace.
 *	request:  DEV_INDEX | DEV_NAME (do only)
 *	reply:    DEV_INDEX, DEV_NAME, NETDEV_INDEX, NETDEV_NAME,
 *		  FAULT_TX, FAULT_RX (settings only), FAULT_SEED (if set)
 *
 * SV_NL_CMD_DEV_SET	reserved for the transport's tunables; none exist
 *	yet, so the module does not implement it (EOPNOTSUPP).
 *
 * SV_NL_CMD_FAULT_GET	do: one device; dump: every device.
 *	reply:    DEV_INDEX, DEV_NAME, FAULT_TX, FAULT_RX (settings and
 *		  counters), FAULT_SEED (if a seed was set)
 *
 * SV_NL_CMD_FAULT_SET	do (CAP_NET_ADMIN): change fault injection.
 *	request:  DEV_INDEX | DEV_NAME, and at least one of
 *		  FAULT_TX, FAULT_RX (the probabilities they contain; those
 *		  left out keep their values), FAULT_SEED, FAULT_OFF
 *	FAULT_OFF sets every probability of both directions to 0 first.
 *	FAULT_SEED restarts the PRNG streams from the seed and zeroes the
 *	hit counters: with the same seed, settings and packet sequence, the
 *	same packets are hit.
 *
 * SV_NL_CMD_STATS_GET	do: one device; dump: every device.
 *	reply:    DEV_INDEX, DEV_NAME, STATS
 *	The same values as the device's port hw counters ("rdma statistic
 *	show"), with their names, in the same order.
 *
 * Attribute tree
 * --------------
 *   SV_NL_ATTR_DEV_INDEX	u32
 *   SV_NL_ATTR_DEV_NAME	string, at most 63 bytes
 *   SV_NL_ATTR_NETDEV_INDEX	u32 (reply only)
 *   SV_NL_ATTR_NETDEV_NAME	string (reply only)
 *   SV_NL_ATTR_FAULT_TX	nest: faults on transmit
 *   SV_NL_ATTR_FAULT_RX	nest: faults on receive
 *	SV_NL_FAULT_ATTR_DROP		u32, probability in parts per
 *	SV_NL_FAULT_ATTR_DUP		u32  million, 0..1000000
 *	SV_NL_FAULT_ATTR_REORDER	u32
 *	SV_NL_FAULT_ATTR_CORRUPT	u32
 *	SV_NL_FAULT_ATTR_PACKETS	u64, packets judged (reply only)
 *	SV_NL_FAULT_ATTR_DROP_HITS	u64, packets dropped (reply only)
 *	SV_NL_FAULT_ATTR_DUP_HITS	u64, packets duplicated (reply only)
 *	SV_NL_FAULT_ATTR_REORDER_HITS	u64, packets held back (reply only)
 *	SV_NL_FAULT_ATTR_CORRUPT_HITS	u64, packets corrupted (reply only)
 *   SV_NL_ATTR_FAULT_SEED	u64
 *   SV_NL_ATTR_FAULT_OFF	flag (request only)
 *   SV_NL_ATTR_STATS		nest (reply only) of
 *	SV_NL_ATTR_STAT		nest, one per counter, in table order:
 *	   SV_NL_STAT_ATTR_NAME		string
 *	   SV_NL_STAT_ATTR_VALUE	u64
 *   SV_NL_ATTR_PAD		padding for 64-bit values
 *
 * What the faults do (kmod/sv_fault.c): each packet a direction sees is
 * dropped, corrupted (one bit flipped just before the ICRC, so the
 * receiver's ICRC check fails), duplicated, or held back until the next
 * packet has passed (at most 1 ms), each with its own probability.  A
 * dropped packet is never corrupted, duplicated or held.
 */
#ifndef SOFTVERBS_NL_H
#define SOFTVERBS_NL_H

#define SV_GENL_NAME		"softverbs"
#define SV_GENL_VERSION		1

#define SV_NL_DEV_NAME_MAX	64	/* with the NUL, IB_DEVICE_NAME_MAX */
#define SV_NL_FAULT_PPM_MAX	1000000

enum sv_nl_cmd {
	SV_NL_CMD_UNSPEC,
	SV_NL_CMD_DEV_GET,
	SV_NL_CMD_DEV_SET,
	SV_NL_CMD_FAULT_GET,
	SV_NL_CMD_FAULT_SET,
	SV_NL_CMD_STATS_GET,

	__SV_NL_CMD_MAX,
	SV_NL_CMD_MAX = __SV_NL_CMD_MAX - 1
};

enum sv_nl_attr {
	SV_NL_ATTR_UNSPEC,
	SV_NL_ATTR_PAD,
	SV_NL_ATTR_DEV_INDEX,
	SV_NL_ATTR_DEV_NAME,
	SV_NL_ATTR_NETDEV_INDEX,
	SV_NL_ATTR_NETDEV_NAME,
	SV_NL_ATTR_FAULT_TX,
	SV_NL_ATTR_FAULT_RX,
	SV_NL_ATTR_FAULT_SEED,
	SV_NL_ATTR_FAULT_OFF,
	SV_NL_ATTR_STATS,
	SV_NL_ATTR_STAT,

	__SV_NL_ATTR_MAX,
	SV_NL_ATTR_MAX = __SV_NL_ATTR_MAX - 1
};

enum sv_nl_fault_attr {
	SV_NL_FAULT_ATTR_UNSPEC,
	SV_NL_FAULT_ATTR_PAD,
	SV_NL_FAULT_ATTR_DROP,
	SV_NL_FAULT_ATTR_DUP,
	SV_NL_FAULT_ATTR_REORDER,
	SV_NL_FAULT_ATTR_CORRUPT,
	SV_NL_FAULT_ATTR_PACKETS,
	SV_NL_FAULT_ATTR_DROP_HITS,
	SV_NL_FAULT_ATTR_DUP_HITS,
	SV_NL_FAULT_ATTR_REORDER_HITS,
	SV_NL_FAULT_ATTR_CORRUPT_HITS,

	__SV_NL_FAULT_ATTR_MAX,
	SV_NL_FAULT_ATTR_MAX = __SV_NL_FAULT_ATTR_MAX - 1
};

enum sv_nl_stat_attr {
	SV_NL_STAT_ATTR_UNSPEC,
	SV_NL_STAT_ATTR_PAD,
	SV_NL_STAT_ATTR_NAME,
	SV_NL_STAT_ATTR_VALUE,

	__SV_NL_STAT_ATTR_MAX,
	SV_NL_STAT_ATTR_MAX = __SV_NL_STAT_ATTR_MAX - 1
};

#endif /* SOFTVERBS_NL_H */
