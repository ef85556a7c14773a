/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softverbs: the device, and the one header every kmod/ file includes.
 *
 *   sv.h        struct sv_dev, logging, the module-level prototypes
 *   sv_verbs.h  the verbs objects: user context, PD, CQ, SRQ, QP, the
 *               paths of address vectors, AH
 *   sv_mkey.h   memory regions, memory windows and their key space
 *   sv_loc.h    the verbs entry points, grouped by the file defining them
 *   sv_xport.h  the transport contract: between the roles and the wire
 *               (included by the transport's files)
 *   sv_xport_obj.h  what the transport calls of the objects (included by
 *               the files that implement it, and by sv_xport.h)
 *
 * Locking: the order in which the locks nest is written once, in
 * Documentation/design.md ("Locking"); each lock's comment says what it
 * protects and which context takes it.
 */
#ifndef SV_H
#define SV_H

#include <linux/completion.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/refcount.h>
#include <linux/seqlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "compat/compat.h"
#include "sv_param.h"
#include "softverbs-abi.h"
#include "sv_queue.h"
#include "sv_stats.h"
#include "sv_fault.h"
#include "sv_task.h"

/* SV_VERSION comes from dkms.conf through kmod/Kbuild */
#ifndef SV_VERSION
#error "build softverbs through its Kbuild, which defines SV_VERSION"
#endif

/*
 * One softverbs device: an ib_device with one RoCE port on top of an
 * Ethernet netdev, created by "rdma link add NAME type softverbs netdev DEV".
 */
/*
 * The ib_device's sysfs parent (sv_parent.c): a root device whose net/
 * directory links the netdev.  Set up before registration, torn down in
 * dealloc_driver; ifname and the link change under RTNL.
 */
struct sv_parent {
	struct device		*dev;	/* NULL: none */
	struct kobject		*net;
	char			ifname[IFNAMSIZ];
	int			id;
};

struct sv_dev {
	struct ib_device	ibdev;	/* first: ib_alloc_device() needs it */

	/* Immutable from creation until dealloc_driver. */
	struct net_device	*ndev;	/* held, with ndev_tracker */
	netdevice_tracker	ndev_tracker;
	struct net		*net;	/* dev_net(ndev) at creation */
	struct sv_net_sock	*sock;	/* RoCEv2 sockets of net, ref held */
	/*
	 * The netdev carries IP without a link header (tun, WireGuard,
	 * ipip, gre: sv_dev_netdev_is_l3()): RoCEv2 only, no MACs.
	 */
	bool			l3;

	/* In sv_devices; written under sv_devices_mutex, read under RCU. */
	struct list_head	list;

	/* Unregisters the device when its netdev goes away. */
	struct work_struct	unreg_work;
	/*
	 * L3 netdevs only: adds the GIDs of addresses that appeared after
	 * creation (ib_core follows address events of Ethernet netdevs only).
	 */
	struct work_struct	gid_work;

	/* /sys/devices/softverbsN, the ib_device's parent */
	struct sv_parent	parent;

	/*
	 * Port state and active MTU follow the netdev.  Written only under
	 * RTNL (netdev notifier, and once at creation), read locklessly
	 * with READ_ONCE by query_port.
	 */
	enum ib_port_state	port_state;
	enum ib_mtu		active_mtu;

	/*
	 * Object tables: allocating xarrays (each with its own internal
	 * lock) that map wire-visible numbers to objects.
	 *   qp_xa:  QPN -> struct sv_qp_handle of a QP (QPN 1 is the GSI QP,
	 *           0 and 2..15 are unused)
	 *   mr_xa:  key index (lkey/rkey >> 8) -> struct sv_mkey of an MR
	 *           or MW; freed indices keep a tombstone (sv_mr.c)
	 *   srq_xa: SRQ number -> struct sv_srq
	 *   ah_xa:  AH number (librxe's ah_num) -> struct sv_path of an AH;
	 *           irq-safe: AHs come and go with interrupts off (sv_av.c)
	 */
	struct xarray		qp_xa;
	struct xarray		mr_xa;
	struct xarray		srq_xa;
	struct xarray		ah_xa;
	/* next mr_xa index to try (sv_mkey_publish), under mr_xa's lock */
	u32			mkey_next;
	/*
	 * A direct-mapped front of mr_xa: slot index % SV_MKEY_HOT holds the
	 * last object published at such an index, NULL once it is
	 * unpublished.  Written under mr_xa's lock, read under RCU
	 * (sv_mkey_get); a lookup that misses falls back to mr_xa.
	 */
	struct sv_mkey __rcu	*mkey_hot[SV_MKEY_HOT];
	/*
	 * The same for qp_xa: slot QPN % SV_QP_HOT holds the handle of the
	 * last QP published at such a QPN, NULL once it is hidden (destroy).
	 * Written under qp_xa's lock, read under RCU (sv_qp_get_by_qpn_rcu).
	 */
	struct sv_qp_handle __rcu *qp_hot[SV_QP_HOT];
	/* xa_alloc_cyclic() cursors, under the lock of qp_xa, ah_xa, srq_xa */
	u32			qpn_next;
	u32			ah_num_next;
	u32			srq_num_next;

	/*
	 * Multicast groups (sv_mcast.c): MGID -> struct sv_mcg, read under
	 * RCU; the table and the counts are written under sv_mcast_mutex.
	 */
	DECLARE_HASHTABLE(mcg_hash, 8);
	unsigned int		num_mcg;
	unsigned int		num_mcg_attach;

	/* live objects, checked against the limits in sv_param.h */
	atomic_t		num_pd;
	atomic_t		num_xrcd;
	atomic_t		num_cq;
	atomic_t		num_qp;
	atomic_t		num_srq;
	atomic_t		num_mr;
	atomic_t		num_mw;
	atomic_t		num_ah;
	atomic_t		num_cntr;
	/* asynchronous ibv_advise_mr() prefetches queued (sv_mr_advise()) */
	atomic_t		num_prefetch;

	/* data path counters (sv_stats.h), allocated with the device */
	struct sv_stats __percpu *stats;

	/* --- management plane (sv_stats.c, sv_fault.c, sv_nl.c) --- */
	/* most QPs alive at once; raised by sv_stats_qp_created() */
	atomic_t		qp_peak;
	/* fault injection state (sv_fault.h) */
	struct sv_fault		fault;
	/* --- end management plane --- */
};

/*
 * Take one of @count's @max slots; false when all are in use.  Creation
 * verbs call this first and sv_dev_count_put() on failure or destroy.
 */
static inline bool sv_dev_count_get(atomic_t *count, unsigned int max)
{
	return atomic_add_unless(count, 1, max);
}

static inline void sv_dev_count_put(atomic_t *count)
{
	atomic_dec(count);
}

/*
 * Check a verb's driver data.  librxe sends no command, so a non-zero
 * input byte is something softverbs does not know: -EOPNOTSUPP.  The
 * response needs @outlen bytes (0 for a verb without one): -EINVAL.
 */
static inline int sv_dev_check_udata(struct ib_udata *udata, size_t outlen)
{
	if (!udata)
		return 0;
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	return udata->outlen < outlen ? -EINVAL : 0;
}

static inline struct sv_dev *to_sv_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sv_dev, ibdev);
}

/*
 * Log with the device name as prefix.  The info and error variants are
 * rate-limited: info says why a verb refused what a consumer asked for
 * (the errno alone rarely tells which attribute it was).
 */
#define sv_dbg_dev(sv, fmt, ...) \
	ibdev_dbg(&(sv)->ibdev, "%s: " fmt, __func__, ##__VA_ARGS__)
#define sv_info_dev(sv, fmt, ...) \
	ibdev_info_ratelimited(&(sv)->ibdev, fmt, ##__VA_ARGS__)
#define sv_err_dev(sv, fmt, ...) \
	ibdev_err_ratelimited(&(sv)->ibdev, "%s: " fmt, __func__, \
			      ##__VA_ARGS__)

/* sv_parent.c */
int sv_parent_create(struct sv_dev *sv);
void sv_parent_netdev_renamed(struct sv_dev *sv);
void sv_parent_destroy(struct sv_dev *sv);
void sv_parent_wait_children(struct sv_parent *p);	/* for destroy, KUnit */

/* sv_main.c */
extern struct workqueue_struct *sv_wq;

/* sv_dev.c: device life cycle and netdev events */
int sv_dev_newlink(const char *ibdev_name, struct net_device *ndev);
void sv_dev_remove_all(void);
int sv_dev_notifier_register(void);
void sv_dev_notifier_unregister(void);
struct sv_dev *sv_dev_find_rcu(const struct net_device *ndev);

/* --- management plane --- */
/* sv_stats.c: hw counters (rdma statistic) and restrack driver detail */
void sv_stats_read(struct sv_dev *sv, u64 *vals);
unsigned int sv_stats_num(void);
const char *sv_stats_name(unsigned int i);
void sv_stats_qp_created(struct sv_dev *sv);
struct rdma_hw_stats *sv_stats_alloc_port(struct ib_device *ibdev,
					  u32 port_num);
int sv_stats_get(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		 u32 port_num, int index);
int sv_stats_fill_res_qp(struct sk_buff *msg, struct ib_qp *ibqp);
int sv_stats_fill_res_cq(struct sk_buff *msg, struct ib_cq *ibcq);
int sv_stats_fill_res_mr(struct sk_buff *msg, struct ib_mr *ibmr);

/* sv_nl.c: the softverbs generic netlink family */
int sv_nl_init(void);
void sv_nl_exit(void);

/* sv_dev.c, for sv_nl.c: the device of @net after @index, referenced */
struct sv_dev *sv_dev_get_next(struct net *net, u32 index);
/* --- end management plane --- */

/* sv_port.c: port and device attributes */
int sv_port_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
			 struct ib_udata *udata);
int sv_port_query(struct ib_device *ibdev, u32 port_num,
		  struct ib_port_attr *attr);
int sv_port_immutable(struct ib_device *ibdev, u32 port_num,
		      struct ib_port_immutable *immutable);
int sv_port_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		       u16 *pkey);
enum rdma_link_layer sv_port_link_layer(struct ib_device *ibdev,
					u32 port_num);
struct net_device *sv_port_get_netdev(struct ib_device *ibdev, u32 port_num);
void sv_port_update(struct sv_dev *sv);
bool sv_port_gid_is_addr_of(const union ib_gid *gid, struct net_device *ndev);
int sv_port_add_gid(const struct ib_gid_attr *attr, void **context);
int sv_port_del_gid(const struct ib_gid_attr *attr, void **context);
void sv_port_get_fw_str(struct ib_device *ibdev, char *str);
extern const struct attribute_group sv_port_dev_attr_group;

/*
 * sv_dev.c: moves whenever a device joins or leaves the device list (a
 * leaving one before the grace period that lets its state go), so that a
 * kept local destination (struct sv_net_dest) is looked up again
 */
extern atomic_t sv_dev_gen;

/* sv_net.c: per network namespace RoCEv2 UDP sockets */
struct sv_net_sock;
int sv_net_init(void);
void sv_net_exit(void);
struct sv_net_sock *sv_net_sock_get(struct net *net);
void sv_net_sock_put(struct net *net);

#include "sv_mkey.h"	/* first: the QP embeds struct sv_mw_binds */
#include "sv_verbs.h"
#include "sv_loc.h"

#endif /* SV_H */
