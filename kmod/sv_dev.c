// SPDX-License-Identifier: GPL-2.0
/*
 * Device life cycle: creation by "rdma link add", removal by "rdma link
 * delete", by the netdev going away and by module unload.
 *
 * Removal paths all end in ib_core's unregistration, which calls
 * sv_dev_dealloc_driver() once; that is the only place device resources are
 * released.  ib_core frees the ib_device itself afterwards (RCU-deferred),
 * so RCU readers of sv_devices never see freed memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_verbs.h>

#include "sv.h"
#include "sv_eth.h"
#include "compat/sv_compat_cntr.h"
#include "compat/sv_compat_ops.h"

/*
 * All softverbs devices.  Writers hold sv_devices_mutex; the receive path
 * walks the list under RCU.  Lock order: RTNL, then sv_devices_mutex
 * (Documentation/design.md, "Locking").
 */
static LIST_HEAD(sv_devices);
static DEFINE_MUTEX(sv_devices_mutex);
atomic_t sv_dev_gen = ATOMIC_INIT(0);

/*
 * Off the device list, and past every receive path that found the device
 * on it: such a path may still count into sv->stats and read the fault
 * state, which the caller frees next (the struct itself is freed by
 * ib_core after a grace period, but these are ours).
 */
static void sv_dev_unlist(struct sv_dev *sv)
{
	mutex_lock(&sv_devices_mutex);
	list_del_rcu(&sv->list);
	atomic_inc(&sv_dev_gen);
	mutex_unlock(&sv_devices_mutex);
	synchronize_rcu();
}

static void sv_dev_dealloc_driver(struct ib_device *ibdev)
{
	struct sv_dev *sv = to_sv_dev(ibdev);

	sv_dev_unlist(sv);

	/*
	 * Every object is gone by now: ib_core destroyed the user space ones,
	 * and its clients' remove callbacks made the kernel consumers destroy
	 * theirs.  A warning here is a consumer's leak (6.1's svcrdma leaks a
	 * PD and two CQs when a connection is being accepted as the device
	 * goes, Documentation/transport-tests.md); the objects stay where
	 * they are, they belong to that consumer.
	 */
	WARN_ON(atomic_read(&sv->num_pd) || atomic_read(&sv->num_cq) ||
		atomic_read(&sv->num_qp) || atomic_read(&sv->num_srq) ||
		atomic_read(&sv->num_mr) || atomic_read(&sv->num_mw) ||
		atomic_read(&sv->num_ah) || atomic_read(&sv->num_xrcd) ||
		atomic_read(&sv->num_cntr));
	WARN_ON(!xa_empty(&sv->qp_xa) || !xa_empty(&sv->mr_xa) ||
		!xa_empty(&sv->srq_xa) || !xa_empty(&sv->ah_xa));
	xa_destroy(&sv->qp_xa);
	xa_destroy(&sv->mr_xa);
	xa_destroy(&sv->srq_xa);
	xa_destroy(&sv->ah_xa);
	/* management plane: off sv_devices, so no receive hook from now on */
	sv_fault_dev_cleanup(sv);
	free_percpu(sv->stats);
	sv_net_sock_put(sv->net);
	sv_parent_destroy(sv);
	netdev_put(sv->ndev, &sv->ndev_tracker);
}

static const struct ib_device_ops sv_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,	/* what librxe matches, see compat.h */
	.uverbs_abi_ver = SV_UVERBS_ABI_VERSION,

	.dealloc_driver = sv_dev_dealloc_driver,
	.device_group = &sv_port_dev_attr_group,

	.alloc_ucontext = sv_ucontext_alloc,
	.dealloc_ucontext = sv_ucontext_dealloc,
	.disassociate_ucontext = sv_ucontext_disassociate,
	.mmap = sv_queue_mmap,
	.mmap_free = sv_queue_mmap_free,

	.query_device = sv_port_query_device,
	.query_port = sv_port_query,
	.query_pkey = sv_port_query_pkey,
	.get_port_immutable = sv_port_immutable,
	.get_link_layer = sv_port_link_layer,
	.get_netdev = sv_port_get_netdev,
	.get_dev_fw_str = sv_port_get_fw_str,

	.alloc_pd = sv_pd_alloc,
	.dealloc_pd = sv_pd_dealloc,
	.alloc_xrcd = sv_xrcd_alloc,
	.dealloc_xrcd = sv_xrcd_dealloc,

	.create_cq = sv_cq_create,
	.destroy_cq = sv_cq_destroy,
	.poll_cq = sv_cq_poll,
	.req_notify_cq = sv_cq_req_notify,
	SV_OPS_RESIZE_CQ(sv_cq_resize),

	.create_srq = sv_srq_create,
	.modify_srq = sv_srq_modify,
	.query_srq = sv_srq_query,
	.destroy_srq = sv_srq_destroy,
	.post_srq_recv = sv_srq_post_recv,

	.create_qp = sv_qp_create,
	.query_qp = sv_qp_query,
	.modify_qp = sv_qp_modify,
	.destroy_qp = sv_qp_destroy,
	.post_send = sv_qp_post_send,
	.post_recv = sv_qp_post_recv,

	.create_ah = sv_ah_create,
	.create_user_ah = sv_ah_create,
	.query_ah = sv_ah_query,
	.destroy_ah = sv_ah_destroy,

	.attach_mcast = sv_mcast_attach,
	.detach_mcast = sv_mcast_detach,

	.get_dma_mr = sv_mr_get_dma,
	.reg_user_mr = sv_compat_reg_user_mr,
	.rereg_user_mr = sv_mr_rereg_user,
	.dereg_mr = sv_mr_dereg,
	.reg_user_mr_dmabuf = sv_compat_reg_dmabuf,
	.advise_mr = sv_mr_advise,
	.alloc_mr = sv_mr_alloc_fast,
	.map_mr_sg = sv_mr_map_sg,

	.alloc_mw = sv_mw_alloc,
	.dealloc_mw = sv_mw_dealloc,

	/* management plane (sv_stats.c) */
	.alloc_hw_port_stats = sv_stats_alloc_port,
	.get_hw_stats = sv_stats_get,
	.fill_res_qp_entry = sv_stats_fill_res_qp,
	.fill_res_cq_entry = sv_stats_fill_res_cq,
	.fill_res_mr_entry = sv_stats_fill_res_mr,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, sv_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_pd, sv_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, sv_xrcd, ibxrcd),
	INIT_RDMA_OBJ_SIZE(ib_cq, sv_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_srq, sv_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_qp, sv_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ah, sv_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_mw, sv_mw_obj, ibmw),

	/* completion counters, where ib_core has them (sv_cntr.c) */
	SV_OPS_COMP_CNTR
};

/*
 * Added to sv_dev_ops for a device on an L3 netdev: ib_core then shows us
 * each GID before it enters the table (sv_port_add_gid()).
 */
static const struct ib_device_ops sv_dev_l3_ops = {
	.add_gid = sv_port_add_gid,
	.del_gid = sv_port_del_gid,
};

static void sv_dev_unreg_work(struct work_struct *work)
{
	struct sv_dev *sv = container_of(work, struct sv_dev, unreg_work);

	ib_unregister_device_and_put(&sv->ibdev);
}

/*
 * ib_core's RoCE GID management (roce_gid_mgmt.c, 6.1 and 6.12) lists the
 * addresses of every netdev when a device registers, but follows address
 * and netdev events of ARPHRD_ETHER netdevs only.  For an L3 netdev the
 * addresses that appear later are added by a rescan of the device, which
 * adds what is missing (an existing GID is kept).  A removed address cannot
 * be taken out: ib_core exports nothing that deletes a GID.
 */
static void sv_dev_gid_work(struct work_struct *work)
{
	struct sv_dev *sv = container_of(work, struct sv_dev, gid_work);

	rdma_roce_rescan_device(&sv->ibdev);
	ib_device_put(&sv->ibdev);
}

static void sv_dev_queue_gid_rescan(struct sv_dev *sv)
{
	if (!ib_device_try_get(&sv->ibdev))
		return;
	if (!queue_work(sv_wq, &sv->gid_work))
		ib_device_put(&sv->ibdev);
}

/*
 * Queue unregistration of @sv, e.g. because its netdev is going away.  It
 * cannot be done inline: the netdev notifier runs under RTNL, which parts
 * of ib_core's unregistration take.  The queued work owns a device
 * reference; if the device is already being unregistered there is nothing
 * to do.
 */
static void sv_dev_queue_unregister(struct sv_dev *sv)
{
	if (!ib_device_try_get(&sv->ibdev))
		return;
	if (!queue_work(sv_wq, &sv->unreg_work))
		ib_device_put(&sv->ibdev);
}

/* Called under RCU or sv_devices_mutex. */
struct sv_dev *sv_dev_find_rcu(const struct net_device *ndev)
{
	struct sv_dev *sv;

	list_for_each_entry_rcu(sv, &sv_devices, list,
				lockdep_is_held(&sv_devices_mutex))
		if (sv->ndev == ndev)
			return sv;
	return NULL;
}

/*
 * Netdevs that carry IP packets without a link header: tun (IFF_TUN),
 * WireGuard, raw-IP modems (ARPHRD_NONE, ARPHRD_RAWIP), ipip and ip6tnl
 * (ARPHRD_TUNNEL, ARPHRD_TUNNEL6), sit, gre and ip6gre.  RoCEv2 is UDP/IP
 * (IBTA Annex A17), so it runs over them; RoCE v1 (Annex A16) is an
 * Ethernet frame and cannot.
 */
static bool sv_dev_netdev_is_l3(const struct net_device *ndev)
{
	switch (ndev->type) {
	case ARPHRD_NONE:
	case ARPHRD_RAWIP:
	case ARPHRD_TUNNEL:
	case ARPHRD_TUNNEL6:
	case ARPHRD_SIT:
	case ARPHRD_IPGRE:
	case ARPHRD_IP6GRE:
		return true;
	default:
		return false;
	}
}

static int sv_dev_check_netdev(struct net_device *ndev)
{
	/*
	 * RoCE needs Ethernet framing (v1 and v2) or an IP-only netdev (v2
	 * only, see sv_dev_netdev_is_l3()): loopback, IPoIB and the rest
	 * are refused.
	 */
	if (ndev->flags & IFF_LOOPBACK) {
		pr_info("netdev %s is a loopback device\n", ndev->name);
		return -EINVAL;
	}
	if (ndev->type != ARPHRD_ETHER && !sv_dev_netdev_is_l3(ndev)) {
		pr_info("netdev %s is neither an Ethernet nor an IP-only device (type %u)\n",
			ndev->name, ndev->type);
		return -EINVAL;
	}
	/*
	 * A VLAN device is Ethernet, but ib_core fills a RoCE port's GID
	 * table from the addresses of the port's netdev and of its upper
	 * (VLAN) devices, each GID tagged with its VLAN; for a port whose
	 * netdev is itself a VLAN device it lists only the default GIDs,
	 * never the VLAN's addresses (roce_gid_mgmt.c).  Such a device
	 * could not be addressed, so say where it belongs instead: on the
	 * real device, where every VLAN on top of it is usable.
	 */
	if (is_vlan_dev(ndev)) {
		pr_info("netdev %s is a VLAN device: create the softverbs device on %s, its VLANs' addresses become GIDs of it\n",
			ndev->name, vlan_dev_real_dev(ndev)->name);
		return -EOPNOTSUPP;
	}
	if (!sv_eth_mtu_to_ib_mtu(ndev->max_mtu ? ndev->max_mtu : ndev->mtu)) {
		pr_info("netdev %s cannot carry RoCE packets\n", ndev->name);
		return -EINVAL;
	}
	return 0;
}

/*
 * The rdma_link_ops.newlink hook.  ib_core (nldev) holds a reference on
 * @ndev for the duration of the call; the device takes its own.
 */
int sv_dev_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct sv_dev *sv;
	int err;

	err = sv_dev_check_netdev(ndev);
	if (err)
		return err;

	if (sv_ib_device_name_taken(ibdev_name)) {
		pr_info("an RDMA device named %s already exists\n", ibdev_name);
		return -EEXIST;
	}

	/*
	 * One softverbs device per netdev.  Checked again under the mutex
	 * right before the device is published, this early check only gives
	 * the common case a cheap exit.
	 */
	rcu_read_lock();
	err = sv_dev_find_rcu(ndev) ? -EEXIST : 0;
	rcu_read_unlock();
	if (err) {
		pr_info("netdev %s already has a softverbs device\n",
			ndev->name);
		return err;
	}

	sv = ib_alloc_device(sv_dev, ibdev);
	if (!sv)
		return -ENOMEM;

	sv->net = dev_net(ndev);
	sv->ndev = ndev;
	netdev_hold(ndev, &sv->ndev_tracker, GFP_KERNEL);
	INIT_LIST_HEAD(&sv->list);
	sv->l3 = sv_dev_netdev_is_l3(ndev);
	INIT_WORK(&sv->unreg_work, sv_dev_unreg_work);
	INIT_WORK(&sv->gid_work, sv_dev_gid_work);
	/* _BH: numbers are looked up from the receive path (softirq) */
	xa_init_flags(&sv->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	xa_init_flags(&sv->mr_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	xa_init_flags(&sv->srq_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	/* _IRQ: ib_cm creates and destroys AHs with interrupts off */
	xa_init_flags(&sv->ah_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	sv->port_state = IB_PORT_DOWN;
	sv->active_mtu = sv_eth_mtu_to_ib_mtu(READ_ONCE(ndev->mtu)) ?:
			 IB_MTU_256;

	sv->stats = alloc_percpu(struct sv_stats);
	if (!sv->stats) {
		err = -ENOMEM;
		goto err_put_netdev;
	}
	/* management plane: nothing to undo until dealloc_driver */
	sv_fault_dev_init(sv);

	sv->sock = sv_net_sock_get(sv->net);
	if (IS_ERR(sv->sock)) {
		err = PTR_ERR(sv->sock);
		goto err_free_stats;
	}

	sv->ibdev.node_type = RDMA_NODE_IB_CA;
	sv->ibdev.phys_port_cnt = 1;
	/*
	 * One completion vector per CPU online at creation: a kernel CQ's
	 * handler runs on its vector's CPU (sv_cq.c), as a NIC's completion
	 * interrupt does, so ULPs that spread their queues over vectors
	 * (nvme-rdma, nvmet-rdma, the RPC transports) spread their work.
	 */
	sv->ibdev.num_comp_vectors = num_online_cpus();
	/*
	 * Legacy write commands ib_core leaves off by default: librxe arms
	 * CQs with REQ_NOTIFY_CQ.  (POLL_CQ and POST_SRQ_RECV stay off:
	 * librxe polls and posts through the mapped rings.)
	 */
	sv->ibdev.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	/* fixed at creation, like a NIC's burnt-in GUID */
	if (sv->l3) {
		u8 mac[ETH_ALEN];

		/* no MAC to derive it from: a random, locally administered one */
		eth_random_addr(mac);
		sv->ibdev.node_guid = sv_eth_guid_from_mac(mac);
	} else {
		sv->ibdev.node_guid = sv_eth_guid_from_mac(ndev->dev_addr);
	}
	strscpy(sv->ibdev.node_desc, "softverbs", sizeof(sv->ibdev.node_desc));
	/* librxe rings the SQ doorbell with a POST_SEND of no work requests */
	sv->ibdev.uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND);

	/* where tools look for the netdev: sysfs device/net/ (sv_parent.c) */
	err = sv_parent_create(sv);
	if (err)
		goto err_put_sock;
	sv->ibdev.dev.parent = sv->parent.dev;
	/*
	 * From here ib_dealloc_device() calls dealloc_driver, which undoes
	 * everything above: the ops go in last, once all of it is set up.
	 */
	ib_set_device_ops(&sv->ibdev, &sv_dev_ops);
	/* our attributes of ib_core's methods (completion counters) */
	sv->ibdev.driver_def = SV_CNTR_DRIVER_DEF;
	if (sv->l3)
		ib_set_device_ops(&sv->ibdev, &sv_dev_l3_ops);
	/* the user named it; newer rdma-core's udev renamer then keeps it */
	sv_mark_name_assigned_by_user(&sv->ibdev);

	/*
	 * No DMA device: ib_core then uses virtual DMA ops, and our "DMA
	 * addresses" are kernel virtual addresses.
	 */
	err = ib_register_device(&sv->ibdev, ibdev_name, NULL);
	if (err == -ENFILE) {
		/*
		 * The name is taken (nldev refuses '%' names, so no name
		 * pattern ran out): a late comer, or an ib_core that
		 * answers no name lookup (sv_ib_device_name_taken()).
		 */
		pr_info("an RDMA device named %s already exists\n", ibdev_name);
		err = -EEXIST;
	}
	if (err) {
		/* dealloc_driver releases what the device holds */
		ib_dealloc_device(&sv->ibdev);
		return err;
	}

	/*
	 * Publish.  Under RTNL the netdev notifier cannot run, so the
	 * device either sees its netdev registered (and then every later
	 * event finds it in the list) or learns here that it is already
	 * being unregistered and removes itself.
	 */
	rtnl_lock();
	mutex_lock(&sv_devices_mutex);
	if (sv_dev_find_rcu(ndev)) {
		mutex_unlock(&sv_devices_mutex);
		rtnl_unlock();
		/* lost a race with a concurrent link add on the same netdev */
		pr_info("netdev %s already has a softverbs device\n",
			ndev->name);
		ib_unregister_device(&sv->ibdev);
		return -EEXIST;
	}
	list_add_tail_rcu(&sv->list, &sv_devices);
	atomic_inc(&sv_dev_gen);
	mutex_unlock(&sv_devices_mutex);
	/* a rename before the notifier could see us */
	sv_parent_netdev_renamed(sv);
	if (ndev->reg_state != NETREG_REGISTERED)
		sv_dev_queue_unregister(sv);
	else
		sv_port_update(sv);
	rtnl_unlock();

	sv_dbg_dev(sv, "created on %s\n", ndev->name);
	return 0;

err_put_sock:
	sv_net_sock_put(sv->net);
err_free_stats:
	free_percpu(sv->stats);
err_put_netdev:
	netdev_put(ndev, &sv->ndev_tracker);
	ib_dealloc_device(&sv->ibdev);
	return err;
}

/* --- management plane --- */
/*
 * For the generic netlink family: the device of namespace @net with the
 * smallest ib_device index >= @index, with a reference (ib_device_put()),
 * or NULL.  Devices being unregistered are skipped.
 */
struct sv_dev *sv_dev_get_next(struct net *net, u32 index)
{
	struct sv_dev *sv, *best = NULL;

	mutex_lock(&sv_devices_mutex);
	list_for_each_entry(sv, &sv_devices, list) {
		if (!net_eq(sv->net, net) || sv->ibdev.index < index ||
		    (best && sv->ibdev.index > best->ibdev.index))
			continue;
		if (!ib_device_try_get(&sv->ibdev))
			continue;
		if (best)
			ib_device_put(&best->ibdev);
		best = sv;
	}
	mutex_unlock(&sv_devices_mutex);
	return best;
}
/* --- end management plane --- */

/*
 * Module unload: remove every device.  A device found here may be in the
 * middle of its own unregistration (link delete or netdev removal); then
 * ib_unregister_device() waits for that to finish, since both serialise on
 * ib_core's per-device unregistration lock.  get_device() keeps the memory
 * alive until we are done looking at it.
 */
void sv_dev_remove_all(void)
{
	struct sv_dev *sv;

	/* pending netdev-removal work unregisters its devices itself */
	flush_workqueue(sv_wq);

	for (;;) {
		mutex_lock(&sv_devices_mutex);
		sv = list_first_entry_or_null(&sv_devices, struct sv_dev, list);
		if (sv)
			get_device(&sv->ibdev.dev);
		mutex_unlock(&sv_devices_mutex);
		if (!sv)
			break;
		ib_unregister_device(&sv->ibdev);
		put_device(&sv->ibdev.dev);
	}
}

static int sv_dev_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sv_dev *sv;

	ASSERT_RTNL();

	mutex_lock(&sv_devices_mutex);
	sv = sv_dev_find_rcu(ndev);
	if (!sv)
		goto out_unlock;

	switch (event) {
	case NETDEV_UNREGISTER:
		/* also sent when the netdev moves to another namespace */
		sv_dev_queue_unregister(sv);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		sv_port_update(sv);
		break;
	case NETDEV_CHANGENAME:
		sv_parent_netdev_renamed(sv);
		break;
	default:
		break;
	}
out_unlock:
	mutex_unlock(&sv_devices_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block sv_dev_netdev_nb = {
	.notifier_call = sv_dev_netdev_event,
};

/* An address of @ndev appeared: an L3 device's GIDs need a rescan. */
static void sv_dev_addr_up(struct net_device *ndev)
{
	struct sv_dev *sv;

	rcu_read_lock();
	sv = sv_dev_find_rcu(ndev);
	if (sv && sv->l3)
		sv_dev_queue_gid_rescan(sv);
	rcu_read_unlock();
}

/* under RTNL */
static int sv_dev_inetaddr_event(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	const struct in_ifaddr *ifa = ptr;

	if (event == NETDEV_UP)
		sv_dev_addr_up(ifa->ifa_dev->dev);
	return NOTIFY_DONE;
}

static struct notifier_block sv_dev_inetaddr_nb = {
	.notifier_call = sv_dev_inetaddr_event,
};

/* atomic context (an atomic notifier chain) */
static int sv_dev_inet6addr_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	const struct inet6_ifaddr *ifa = ptr;

	if (event == NETDEV_UP)
		sv_dev_addr_up(ifa->idev->dev);
	return NOTIFY_DONE;
}

static struct notifier_block sv_dev_inet6addr_nb = {
	.notifier_call = sv_dev_inet6addr_event,
};

int sv_dev_notifier_register(void)
{
	int err;

	err = register_netdevice_notifier(&sv_dev_netdev_nb);
	if (err)
		return err;
	err = register_inetaddr_notifier(&sv_dev_inetaddr_nb);
	if (err)
		goto err_unregister_netdev_nb;
	err = register_inet6addr_notifier(&sv_dev_inet6addr_nb);
	if (err)
		goto err_unregister_inetaddr_nb;
	return 0;

err_unregister_inetaddr_nb:
	unregister_inetaddr_notifier(&sv_dev_inetaddr_nb);
err_unregister_netdev_nb:
	unregister_netdevice_notifier(&sv_dev_netdev_nb);
	return err;
}

void sv_dev_notifier_unregister(void)
{
	unregister_inet6addr_notifier(&sv_dev_inet6addr_nb);
	unregister_inetaddr_notifier(&sv_dev_inetaddr_nb);
	unregister_netdevice_notifier(&sv_dev_netdev_nb);
}
