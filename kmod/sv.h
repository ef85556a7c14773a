/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softverbs: shared declarations, grouped by the .c file that defines them.
 */
#ifndef SV_H
#define SV_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "compat/compat.h"
#include "sv_param.h"
#include "softverbs-abi.h"
#include "sv_queue.h"

/*
 * One softverbs device: an ib_device with one RoCE port on top of an
 * Ethernet netdev, created by "rdma link add NAME type softverbs netdev DEV".
 */
struct sv_dev {
	struct ib_device	ibdev;	/* first: ib_alloc_device() needs it */

	/* Immutable from creation until dealloc_driver. */
	struct net_device	*ndev;	/* held, with ndev_tracker */
	netdevice_tracker	ndev_tracker;
	struct net		*net;	/* dev_net(ndev) at creation */
	struct sv_net_sock	*sock;	/* RoCEv2 sockets of net, ref held */

	/* In sv_devices; written under sv_devices_mutex, read under RCU. */
	struct list_head	list;

	/* Unregisters the device when its netdev goes away. */
	struct work_struct	unreg_work;

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
	 *   qp_xa:  QPN -> struct sv_qp (QPN 1 is the GSI QP, 0 is unused)
	 *   mr_xa:  key index (lkey/rkey >> 8) -> struct sv_mr or sv_mw
	 *   srq_xa: SRQ number -> struct sv_srq
	 *   ah_xa:  AH number (librxe's ah_num) -> struct sv_ah
	 */
	struct xarray		qp_xa;
	struct xarray		mr_xa;
	struct xarray		srq_xa;
	struct xarray		ah_xa;

	/* live objects, checked against the limits in sv_param.h */
	atomic_t		num_pd;
	atomic_t		num_cq;
	atomic_t		num_qp;
	atomic_t		num_srq;
	atomic_t		num_mr;
	atomic_t		num_mw;
	atomic_t		num_ah;
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

static inline struct sv_dev *to_sv_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sv_dev, ibdev);
}

/* Log with the device name as prefix; the error variant is rate-limited. */
#define sv_dbg_dev(sv, fmt, ...) \
	ibdev_dbg(&(sv)->ibdev, "%s: " fmt, __func__, ##__VA_ARGS__)
#define sv_err_dev(sv, fmt, ...) \
	ibdev_err_ratelimited(&(sv)->ibdev, "%s: " fmt, __func__, \
			      ##__VA_ARGS__)

/* sv_main.c */
extern struct workqueue_struct *sv_wq;

/* sv_dev.c: device life cycle and netdev events */
int sv_dev_newlink(const char *ibdev_name, struct net_device *ndev);
void sv_dev_remove_all(void);
int sv_dev_notifier_register(void);
void sv_dev_notifier_unregister(void);
struct sv_dev *sv_dev_find_rcu(const struct net_device *ndev);

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
void sv_port_get_fw_str(struct ib_device *ibdev, char *str);
extern const struct attribute_group sv_port_dev_attr_group;

/* sv_net.c: per network namespace RoCEv2 UDP sockets */
struct sv_net_sock;
int sv_net_init(void);
void sv_net_exit(void);
struct sv_net_sock *sv_net_sock_get(struct net *net);
void sv_net_sock_put(struct net *net);

/* sv_ucontext.c */
struct sv_ucontext {
	struct ib_ucontext	ibuc;
};

static inline struct sv_ucontext *to_sv_uc(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct sv_ucontext, ibuc);
}

int sv_ucontext_alloc(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sv_ucontext_dealloc(struct ib_ucontext *ibuc);
void sv_ucontext_disassociate(struct ib_ucontext *ibuc);

/* sv_pd.c */
struct sv_pd {
	struct ib_pd		ibpd;
};

static inline struct sv_pd *to_sv_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sv_pd, ibpd);
}

int sv_pd_alloc(struct ib_pd *ibpd, struct ib_udata *udata);
int sv_pd_dealloc(struct ib_pd *ibpd, struct ib_udata *udata);

/* sv_cq.c */
struct sv_cq {
	struct ib_cq		ibcq;
};

static inline struct sv_cq *to_sv_cq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sv_cq, ibcq);
}

/*
 * Append one completion (any context, also softirq).  @wc is in kernel
 * form; for a user CQ it is converted to struct ib_uverbs_wc using
 * wc->qp->qp_num.  Overrun reports IB_EVENT_CQ_ERR and returns -EOVERFLOW.
 * @solicited: the completion is for a solicited event (IBTA 10.2.6.3).
 */
int sv_cq_post(struct sv_cq *cq, const struct ib_wc *wc, bool solicited);

int sv_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		 sv_create_cq_arg_t arg);
int sv_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata);
int sv_cq_poll(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int sv_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* sv_qp.c */
struct sv_qp {
	struct ib_qp		ibqp;
};

int sv_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		 struct ib_udata *udata);
int sv_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_udata *udata);
int sv_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata);
int sv_qp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sv_qp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

/* sv_mr.c */
struct ib_mr *sv_mr_get_dma(struct ib_pd *ibpd, int access);
struct ib_mr *sv_mr_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
			     u64 iova, int access, struct ib_udata *udata);
int sv_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata);

#endif /* SV_H */
