// SPDX-License-Identifier: GPL-2.0
/*
 * The wire: RoCEv2 packets in IPv4/IPv6 UDP datagrams through the
 * per-namespace sockets, RoCE v1 frames (ethertype 0x8915), packet buffers,
 * the in-driver loopback between devices of one host, and the receive hooks
 * that hand packets to sv_recv.c.
 *
 * Documentation/design.md, "Namespaces", "Transport" and "RoCE v1".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_addr.h>

#include "sv.h"
#include "sv_icrc.h"
#include "sv_xport.h"
#include "compat/sv_compat_net.h"

struct sv_net_sock {
	struct socket	*sk4;
	struct socket	*sk6;	/* NULL when the namespace has no IPv6 */
};

struct sv_net {
	struct mutex		lock;	/* protects users and sock */
	unsigned int		users;	/* devices holding sock */
	struct sv_net_sock	sock;
};

static unsigned int sv_net_id __read_mostly;

/*
 * rxe_flush_icrc: write the ICRC of RDMA FLUSH requests in Soft-RoCE's
 * form, not the IBTA's (sv_icrc.c): Soft-RoCE (Linux 6.2 on) silently
 * drops a FLUSH with the spec's ICRC.  Off by default; received FLUSHes
 * pass with either form.
 */
static bool rxe_flush_icrc;
module_param(rxe_flush_icrc, bool, 0644);
MODULE_PARM_DESC(rxe_flush_icrc,
		 "RDMA FLUSH ICRC as Soft-RoCE computes it, for Soft-RoCE peers (default: IBTA's)");

static enum sv_icrc_form sv_net_icrc_form(void)
{
	return READ_ONCE(rxe_flush_icrc) ? SV_ICRC_RXE : SV_ICRC_SPEC;
}

static struct sv_net *sv_net(struct net *net)
{
	return net_generic(net, sv_net_id);
}

/* --- transmit ------------------------------------------------------------- */

/*
 * room for the link header (a VLAN tag too), IPv6 (the larger) and UDP,
 * or for RoCE v1 the GRH (as long as IPv6)
 */
static unsigned int sv_net_headroom(const struct sv_dev *sv)
{
	return LL_RESERVED_SPACE(sv->ndev) + VLAN_HLEN +
	       sizeof(struct ipv6hdr) + sizeof(struct udphdr);
}

/* the largest fallback buffer (data and skb_shared_info) on a page fragment */
#define SV_NET_FRAG_MAX		1024

struct sk_buff *sv_net_alloc_skb(struct sv_dev *sv, const struct sv_path *path,
				 unsigned int ib_len, gfp_t gfp)
{
	unsigned int headroom = sv_net_headroom(sv);
	unsigned int size = SKB_DATA_ALIGN(headroom + ib_len) +
			    SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	struct sk_buff *skb;
	void *data;

	/*
	 * Never a fresh slab buffer if it can be helped: with init_on_alloc
	 * (Debian's default) it is zeroed first, which costs as much as
	 * the copies on 6.1 under emulation.  Every packet up to four pages
	 * (a local burst) is cut from softverbs' per-CPU rings of reused pages
	 * (sv_pktbuf.c).  The stack's per-CPU fragment cache is only the
	 * fallback for a small packet when the ring's next page is still in
	 * flight: that cache reuses its 32 KiB page only if every fragment
	 * has come back when it wraps, so a window of packets in flight (a
	 * READ stream's requests and responses) makes it take, and clear, a
	 * new page every 32 KiB.  Both never sleep.
	 */
	data = NULL;
	if (!gfpflags_allow_blocking(gfp)) {
		data = sv_pktbuf_alloc(size);
		if (!data && size <= SV_NET_FRAG_MAX)
			data = netdev_alloc_frag(size);
	}
	if (data) {
		skb = sv_net_napi_ctx() ? napi_build_skb(data, size) :
					  build_skb(data, size);
		if (unlikely(!skb)) {
			skb_free_frag(data);
			return NULL;
		}
	} else {
		skb = alloc_skb(headroom + ib_len, gfp);
		if (unlikely(!skb))
			return NULL;
	}
	skb_reserve(skb, headroom);
	skb_put(skb, ib_len);
	if (path->network_type == RDMA_NETWORK_ROCE_V1)
		skb->protocol = htons(ETH_P_IBOE);
	else
		skb->protocol = sv_path_is_ipv4(path) ? htons(ETH_P_IP) :
							htons(ETH_P_IPV6);
	return skb;
}

static void sv_net_push_udp(struct sk_buff *skb, u16 sport)
{
	struct udphdr *uh;

	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(sport);
	uh->dest = htons(SV_ROCE_V2_UDP_PORT);
	uh->len = htons(skb->len);
	/*
	 * No UDP checksum: the ICRC protects the packet (IBTA Annex
	 * A17.4.3.1), and Soft-RoCE sends none either.
	 */
	uh->check = 0;
	skb->ip_summed = CHECKSUM_NONE;
}

/* --- fault injection (sv_fault.c): how a judged packet goes out --- */
static int sv_net_out4(struct sv_dev *sv, struct sk_buff *skb)
{
	return ip_local_out(sv->net, sv->sock->sk4->sk, skb);
}

static int sv_net_out6(struct sv_dev *sv, struct sk_buff *skb)
{
	return ip6_local_out(sv->net, sv->sock->sk6->sk, skb);
}
/* --- end fault injection --- */

/* --- loopback ------------------------------------------------------------ */

/*
 * Per CPU: local packets waiting for delivery: skbs and local frames
 * (design.md, "Local frames") in one order.  Filled on the CPU of the
 * sender, in any context (a lock-free list) and drained by that CPU's
 * tasklet, so one sender's packets are delivered in the order they were
 * sent, as through lo's per-CPU backlog.
 */
struct sv_net_loop {
	struct llist_head	queue;		/* newest first */
	/* packets in @queue and @taken: the bound */
	atomic_t		qlen;
	/*
	 * What the tasklet took from the queue in one go, oldest first, and
	 * has not delivered yet: older than all of the queue.  Only the
	 * tasklet touches it, and a tasklet never runs twice at once.
	 */
	struct llist_node	*taken;
	struct tasklet_struct	tasklet;
	/*
	 * The tasklet is draining the queue on this CPU: a packet queued
	 * meanwhile from the same CPU (a responder's ACK, a completer's
	 * next request) is picked up by that same run, so it need not
	 * schedule the tasklet again.  Written and read on this CPU only.
	 */
	bool			draining;
	/*
	 * A requester's batch on this CPU will deliver what it queues when
	 * it ends (sv_net_loop_hold()): no tasklet needed meanwhile; and
	 * something was queued so (held_queued).  This CPU only, bottom
	 * halves off (an interrupt on this CPU may set held_queued).
	 */
	bool			held;
	bool			held_queued;
};

static DEFINE_PER_CPU(struct sv_net_loop, sv_net_loop);

/* skb->cb of a queued local skb: its place in the queue, how it is taken */
struct sv_net_loop_cb {
	struct sv_net_pkt	pkt;
	bool	wire;	/* ICRC set: receive as from the wire (sv_recv()) */
	bool	v1;	/* RoCE v1: skb->data at the GRH (sv_recv_v1()) */
};

static struct sv_net_loop_cb *sv_net_loop_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sv_net_loop_cb) > sizeof(skb->cb));
	return (struct sv_net_loop_cb *)skb->cb;
}

/* the skb whose skb->cb holds @pkt */
static struct sk_buff *sv_net_pkt_skb(struct sv_net_pkt *pkt)
{
	BUILD_BUG_ON(offsetof(struct sv_net_loop_cb, pkt));
	return (struct sk_buff *)((char *)pkt - offsetof(struct sk_buff, cb));
}

/*
 * Packets a CPU's queue holds at most: a sender that outruns delivery
 * gets -ENOBUFS, as from a full backlog (netdev_max_backlog's default).
 * The responder paces long reads by it; RC requests are retransmitted.
 */
#define SV_NET_LOOP_QLEN	1000
/* packets one tasklet run delivers before it lets other softirqs run */
#define SV_NET_LOOP_BUDGET	64

/*
 * The softverbs device of @ndev: its own, or for a VLAN netdev that of
 * the real netdev (ib_core puts the VLAN's GIDs into that device's
 * table); NULL if that device is of another namespace than @ndev.  A
 * VLAN can be moved to another namespace while its real netdev stays: what
 * arrives there is for that namespace, not for a device whose QPs and
 * sockets live in the real netdev's (an AH from such a VLAN's GID is
 * refused too, sv_av.c).  Under RCU.
 */
static struct sv_dev *sv_net_ndev_dev_rcu(struct net_device *ndev)
{
	struct sv_dev *sv = sv_dev_find_rcu(ndev);

	if (!sv && is_vlan_dev(ndev))
		sv = sv_dev_find_rcu(vlan_dev_real_dev(ndev));
	if (sv && !net_eq(dev_net(ndev), sv->net))
		return NULL;
	return sv;
}

/* Deliver one queued packet to the device of the netdev it holds. */
static void sv_net_loop_deliver(struct sv_net_pkt *pkt)
{
	struct net_device *ndev;
	struct sk_buff *skb;
	struct sv_dev *sv;

	if (pkt->frame) {
		struct sv_net_frame *f = container_of(pkt, struct sv_net_frame,
						      pkt);

		ndev = f->ndev;
		/* the netdev is held; its device may be gone meanwhile */
		rcu_read_lock();
		sv = sv_net_ndev_dev_rcu(ndev);
		if (sv)
			sv_recv_frame(sv, f);
		else
			sv_net_frame_free(f);
		rcu_read_unlock();
		dev_put(ndev);
		return;
	}

	skb = sv_net_pkt_skb(pkt);
	ndev = skb->dev;
	rcu_read_lock();
	sv = sv_net_ndev_dev_rcu(ndev);
	if (!sv)
		kfree_skb(skb);
	else if (sv_net_loop_cb(skb)->v1 && sv_net_loop_cb(skb)->wire)
		sv_recv_v1(sv, skb);
	else if (sv_net_loop_cb(skb)->v1)
		sv_recv_v1_local(sv, skb);
	else if (sv_net_loop_cb(skb)->wire)
		sv_recv(sv, skb);
	else
		sv_recv_local(sv, skb);
	rcu_read_unlock();
	dev_put(ndev);
}

/*
 * Deliver what this CPU's queue holds, SV_NET_LOOP_BUDGET packets at most;
 * the tasklet takes the rest.  Bottom halves off, this CPU's @loop.
 */
static void sv_net_loop_drain(struct sv_net_loop *loop)
{
	int budget = SV_NET_LOOP_BUDGET;

	WRITE_ONCE(loop->draining, true);
	while (budget-- > 0) {
		struct llist_node *node;

		if (!loop->taken)
			loop->taken = llist_reverse_order(
					llist_del_all(&loop->queue));
		node = loop->taken;
		if (!node)
			break;
		loop->taken = node->next;
		atomic_dec(&loop->qlen);
		sv_net_loop_deliver(container_of(node, struct sv_net_pkt,
						 lnode));
	}
	/*
	 * A packet queued after this (an interrupt's, here) sees draining
	 * off and schedules the tasklet itself; one queued before is seen
	 * by the test below.  The same CPU: program order is enough.
	 */
	WRITE_ONCE(loop->draining, false);
	barrier();
	if (loop->taken || !llist_empty(&loop->queue))
		tasklet_schedule(&loop->tasklet);
}

static void sv_net_loop_run(struct tasklet_struct *t)
{
	struct sv_net_loop *loop = from_tasklet(loop, t, tasklet);

	sv_net_loop_drain(loop);
}

void sv_net_loop_hold(void)
{
	lockdep_assert_in_softirq();
	WRITE_ONCE(this_cpu_ptr(&sv_net_loop)->held, true);
}

void sv_net_loop_release(void)
{
	struct sv_net_loop *loop = this_cpu_ptr(&sv_net_loop);

	lockdep_assert_in_softirq();
	WRITE_ONCE(loop->held, false);
	/*
	 * The same CPU as every queueing that saw held (an interrupt's
	 * included): program order.  One that comes after this schedules
	 * the tasklet itself.  A drain running below us (not from a
	 * batch that began with bottom halves on) takes them anyway.
	 */
	barrier();
	if (!READ_ONCE(loop->held_queued))
		return;
	WRITE_ONCE(loop->held_queued, false);
	if (!loop->draining)
		sv_net_loop_drain(loop);
}

/*
 * The netdev of @net holding destination address @v4 or @v6 if a softverbs
 * device is on it, so that a packet there can skip the stack; held, its
 * device in *@dst.  Under RCU.
 */
static struct net_device *sv_net_loop_find(struct net *net, __be32 v4,
					   const struct in6_addr *v6,
					   struct sv_dev **dst)
{
	struct net_device *ndev;

	if (v6)
		ndev = ipv6_dev_find(net, v6, NULL);
	else
		ndev = __ip_dev_find(net, v4, false);
	/* no device there: the stack drops it, and counts where it should */
	if (!ndev)
		return NULL;
	*dst = sv_net_ndev_dev_rcu(ndev);
	if (!*dst)
		return NULL;
	dev_hold(ndev);
	return ndev;
}

/* the local netdev of a RoCE v1 destination GID (an IP address, or none) */
static struct net_device *sv_net_loop_find_gid(struct net *net,
					       const u8 *gid,
					       struct sv_dev **dst)
{
	const struct in6_addr *a = (const struct in6_addr *)gid;

	if (ipv6_addr_v4mapped(a))
		return sv_net_loop_find(net, a->s6_addr32[3], NULL, dst);
	return sv_net_loop_find(net, 0, a, dst);
}

/*
 * The local netdev @path leads to (held), or NULL for the stack; with it
 * *@faults: whether this device sends or that one receives with fault
 * injection, so that the packet goes as over a wire, and its device in
 * *@dstp.  Under RCU: this is per packet.
 */
static struct net_device *sv_net_loop_dest_rcu(struct sv_dev *sv,
					       const struct sv_path *path,
					       bool *faults,
					       struct sv_dev **dstp)
{
	struct net_device *ndev;
	struct sv_dev *dst;

	if (path->network_type == RDMA_NETWORK_ROCE_V1)
		ndev = sv_net_loop_find_gid(sv->net, path->dgid.raw, &dst);
	else if (sv_path_is_ipv4(path))
		ndev = sv_net_loop_find(sv->net, sv_path_daddr4(path), NULL,
					&dst);
	else
		ndev = sv_net_loop_find(sv->net, 0,
					(const struct in6_addr *)path->dgid.raw,
					&dst);
	if (ndev) {
		*faults = sv_fault_active(sv, SV_FAULT_TX) ||
			  sv_fault_active(dst, SV_FAULT_RX);
		*dstp = dst;
	}
	return ndev;
}

/* sv_net_loop_dest_rcu() for a caller that may hold no RCU */
static struct net_device *sv_net_loop_dest(struct sv_dev *sv,
					   const struct sv_path *path,
					   bool *faults)
{
	struct net_device *ndev;
	struct sv_dev *dst;

	rcu_read_lock();
	ndev = sv_net_loop_dest_rcu(sv, path, faults, &dst);
	rcu_read_unlock();
	return ndev;
}

/*
 * Queue @pkt (its netdev held) for delivery on this CPU.  Returns 0, or
 * -ENOBUFS when the queue is full: then the caller still owns it.
 */
static int sv_net_loop_enqueue(struct sv_net_pkt *pkt)
{
	struct sv_net_loop *loop;
	bool bh_off;
	int err = 0;

	/*
	 * From process context with interrupts on, bottom halves go off
	 * around the queueing, so that the tasklet runs when they come back
	 * on, here, as netif_rx() does.  Otherwise scheduling it only wakes
	 * ksoftirqd, which a sender busy-polling its CQ on the same CPU keeps
	 * off the CPU until the next tick: one device sending to itself
	 * waited a tick (4 ms at HZ=250) per packet on 6.1.
	 */
	bh_off = !(hardirq_count() | softirq_count()) && !irqs_disabled();
	if (bh_off)
		local_bh_disable();
	loop = get_cpu_ptr(&sv_net_loop);
	if (likely(atomic_read(&loop->qlen) < SV_NET_LOOP_QLEN)) {
		atomic_inc(&loop->qlen);
		llist_add(&pkt->lnode, &loop->queue);
		/*
		 * Not when this CPU's run is draining the queue: rescheduled,
		 * the tasklet would run once more for an empty queue, and a
		 * softirq still pending when __do_softirq() ends (a tick
		 * during the run is enough) wakes ksoftirqd, which then
		 * preempts the sender on its way back to user space.  Nor
		 * while a requester's batch holds the queue: it delivers.
		 */
		if (READ_ONCE(loop->held))
			WRITE_ONCE(loop->held_queued, true);
		else if (!READ_ONCE(loop->draining))
			tasklet_schedule(&loop->tasklet);
	} else {
		err = -ENOBUFS;
	}
	put_cpu_ptr(&sv_net_loop);
	if (bh_off)
		local_bh_enable();
	return err;
}

/*
 * Queue @skb (UDP header at skb->data; the GRH for RoCE v1, skb->protocol
 * ETH_P_IBOE) for delivery to the device of @ndev, whose reference it
 * takes over; @wire: it carries an ICRC and is received as from the wire.
 * Consumes @skb.
 */
static int sv_net_loop_queue(struct sk_buff *skb, struct net_device *ndev,
			     bool wire)
{
	int err;

	skb->dev = ndev;
	skb->pkt_type = PACKET_HOST;
	sv_net_loop_cb(skb)->pkt.frame = false;
	sv_net_loop_cb(skb)->wire = wire;
	sv_net_loop_cb(skb)->v1 = skb->protocol == htons(ETH_P_IBOE);
	err = sv_net_loop_enqueue(&sv_net_loop_cb(skb)->pkt);
	if (err) {
		kfree_skb(skb);
		dev_put(ndev);
	}
	return err;
}

/*
 * How fault injection sends a local packet it let through or held (IP
 * header or GRH at skb->data, ICRC set): the destination is looked up
 * again, as the stack would route a held packet when it finally goes.
 */
static int sv_net_loop_out(struct sv_dev *sv, struct sk_buff *skb)
{
	bool v1 = skb->protocol == htons(ETH_P_IBOE);
	struct net_device *ndev;
	struct sv_dev *dst;

	rcu_read_lock();
	if (v1)
		ndev = sv_net_loop_find_gid(sv->net, skb->data + SV_GRH_DGID,
					    &dst);
	else if (skb->protocol == htons(ETH_P_IP))
		ndev = sv_net_loop_find(sv->net, ip_hdr(skb)->daddr, NULL,
					&dst);
	else
		ndev = sv_net_loop_find(sv->net, 0, &ipv6_hdr(skb)->daddr,
					&dst);
	rcu_read_unlock();
	if (!ndev) {
		kfree_skb(skb);
		return -ENETUNREACH;
	}
	if (!v1)
		__skb_pull(skb, skb_transport_offset(skb));
	return sv_net_loop_queue(skb, ndev, true);
}

/* Write the ICRC of @skb (IP header or, for RoCE v1, GRH at skb->data). */
static int sv_net_icrc_set(struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IBOE))
		return sv_icrc_v1_set_skb(skb, 0, skb->len);
	return sv_icrc_set_skb(skb, 0, skb->len, sv_net_icrc_form());
}

/*
 * Send @skb (IP header or GRH at skb->data, IPv4 header checksum and ICRC
 * not set) to @ndev's device of this host, whose reference it takes over;
 * @faults from sv_net_loop_dest().  Consumes @skb.
 */
static int sv_net_loop_xmit(struct sv_dev *sv, struct sk_buff *skb,
			    struct net_device *ndev, bool faults)
{
	int err;

	if (!faults) {
		/*
		 * Nobody reads the IPv4 header checksum of a packet that
		 * never leaves softverbs, nor its ICRC, whose place holds
		 * zeros rather than stale memory.
		 */
		memset(skb_tail_pointer(skb) - SV_ICRC_BYTES, 0,
		       SV_ICRC_BYTES);
		/* received from the UDP header on, like the encap hook */
		if (skb->protocol != htons(ETH_P_IBOE))
			__skb_pull(skb, skb_transport_offset(skb));
		return sv_net_loop_queue(skb, ndev, false);
	}

	/* as for the wire; sv_net_loop_out() finds the device again */
	dev_put(ndev);
	if (skb->protocol == htons(ETH_P_IP))
		ip_send_check(ip_hdr(skb));
	err = sv_net_icrc_set(skb);
	if (unlikely(err)) {
		kfree_skb(skb);
		return err;
	}
	/* --- fault injection (sv_fault.c) --- */
	if (sv_fault_active(sv, SV_FAULT_TX))
		return sv_fault_tx(sv, skb, sv_net_loop_out);
	/* --- end fault injection --- */
	return sv_net_loop_out(sv, skb);
}

static void sv_net_loop_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sv_net_loop *loop = per_cpu_ptr(&sv_net_loop, cpu);

		init_llist_head(&loop->queue);
		tasklet_setup(&loop->tasklet, sv_net_loop_run);
	}
}

/* Module exit, all devices gone: nothing is queued any more. */
static void sv_net_loop_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sv_net_loop *loop = per_cpu_ptr(&sv_net_loop, cpu);

		tasklet_kill(&loop->tasklet);
		WARN_ON(!llist_empty(&loop->queue) || loop->taken);
	}
}

static void sv_net_push_ip4(struct sv_dev *sv, const struct sv_path *path,
			    struct sk_buff *skb, __be32 saddr, __be32 daddr,
			    u8 ttl)
{
	struct iphdr *iph;

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = path->traffic_class;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = ttl;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = saddr;
	iph->daddr = daddr;
	iph->check = 0;
	/* before the ICRC: the identification is not a masked field */
	ip_select_ident(sv->net, skb, NULL);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
}

/*
 * The route cache of a connected QP's path (SV_PATH_CACHE), or NULL: the
 * one part of a published path that changes.  It holds routes to remote
 * destinations only, so a hit also answers sv_net_loop_dest() (an address
 * that becomes local changes the routing tables, which makes the cached
 * route stale).  Used with bottom halves off: the cache is per CPU.
 */
static struct dst_cache *sv_net_route_cache(const struct sv_path *path)
{
	return path->dst_cache.cache ? (struct dst_cache *)&path->dst_cache :
				       NULL;
}

/* the kept route of @path on this CPU while current (a reference), or NULL */
static struct dst_entry *sv_net_route_get(const struct sv_path *path)
{
	struct dst_cache *cache = sv_net_route_cache(path);
	struct dst_entry *dst;

	if (!cache)
		return NULL;
	local_bh_disable();
	dst = dst_cache_get(cache);
	local_bh_enable();
	return dst;
}

static void sv_net_push_ip6(const struct sv_path *path, struct sk_buff *skb,
			    u8 hop_limit)
{
	struct ipv6hdr *ip6h;

	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, path->traffic_class,
		     htonl(path->flow_label & IB_GRH_FLOWLABEL_MASK));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = hop_limit;
	ip6h->saddr = *(const struct in6_addr *)path->sgid.raw;
	ip6h->daddr = *(const struct in6_addr *)path->dgid.raw;
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
}

/* the hop limit of a packet on @path to a device of this host (no route) */
static u8 sv_net_local_hops(struct sv_dev *sv, const struct sv_path *path)
{
	if (path->hop_limit)
		return path->hop_limit;
	return sv_path_is_ipv4(path) ?
	       READ_ONCE(sv->net->ipv4.sysctl_ip_default_ttl) :
	       READ_ONCE(sv->net->ipv6.devconf_all->hop_limit);
}

/* The UDP and IP headers of a RoCEv2 packet on @path to a device of this host. */
static void sv_net_push_local(struct sv_dev *sv, const struct sv_path *path,
			      u16 sport, struct sk_buff *skb)
{
	sv_net_push_udp(skb, sport);
	if (sv_path_is_ipv4(path))
		sv_net_push_ip4(sv, path, skb, sv_path_saddr4(path),
				sv_path_daddr4(path),
				sv_net_local_hops(sv, path));
	else
		sv_net_push_ip6(path, skb, sv_net_local_hops(sv, path));
}

static int sv_net_xmit4(struct sv_dev *sv, const struct sv_path *path,
			u16 sport, struct sk_buff *skb)
{
	struct flowi4 fl4 = {
		.flowi4_oif = path->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.daddr = sv_path_daddr4(path),
		.saddr = sv_path_saddr4(path),
		.fl4_sport = htons(sport),
		.fl4_dport = htons(SV_ROCE_V2_UDP_PORT),
	};
	struct dst_cache *cache = sv_net_route_cache(path);
	struct dst_entry *kept = sv_net_route_get(path);
	struct net_device *local;
	struct rtable *rt;
	bool faults;
	int err;

	if (kept) {
		rt = container_of(kept, struct rtable, dst);
		goto routed;
	}
	sv_flowi4_set_tclass(&fl4, path->traffic_class);
	local = sv_net_loop_dest(sv, path, &faults);
	if (local) {
		sv_net_push_local(sv, path, sport, skb);
		return sv_net_loop_xmit(sv, skb, local, faults);
	}

	rt = ip_route_output_key(sv->net, &fl4);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	if (cache && rt->rt_type != RTN_LOCAL) {
		local_bh_disable();
		dst_cache_set_ip4(cache, &rt->dst, fl4.saddr);
		local_bh_enable();
	}
routed:
	skb_dst_set(skb, &rt->dst);

	sv_net_push_udp(skb, sport);
	sv_net_push_ip4(sv, path, skb, sv_path_saddr4(path),
			sv_path_daddr4(path),
			path->hop_limit ?: ip4_dst_hoplimit(&rt->dst));

	err = sv_icrc_set_skb(skb, 0, skb->len, sv_net_icrc_form());
	if (unlikely(err)) {
		kfree_skb(skb);
		return err;
	}
	/* --- fault injection (sv_fault.c) --- */
	if (sv_fault_active(sv, SV_FAULT_TX))
		err = sv_fault_tx(sv, skb, sv_net_out4);
	else
	/* --- end fault injection --- */
		err = ip_local_out(sv->net, sv->sock->sk4->sk, skb);
	return net_xmit_eval(err) ? -ENOBUFS : 0;
}

static int sv_net_xmit6(struct sv_dev *sv, const struct sv_path *path,
			u16 sport, struct sk_buff *skb)
{
	struct flowi6 fl6 = {
		.flowi6_oif = path->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.flowlabel = ip6_make_flowinfo(path->traffic_class,
					       htonl(path->flow_label)),
		.daddr = *(const struct in6_addr *)path->dgid.raw,
		.saddr = *(const struct in6_addr *)path->sgid.raw,
		.fl6_sport = htons(sport),
		.fl6_dport = htons(SV_ROCE_V2_UDP_PORT),
	};
	struct dst_cache *cache = sv_net_route_cache(path);
	struct socket *sock = sv->sock->sk6;
	struct net_device *local;
	struct dst_entry *dst;
	bool faults;
	int err;

	if (!sock) {
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
	dst = sv_net_route_get(path);
	if (dst)
		goto routed;
	local = sv_net_loop_dest(sv, path, &faults);
	if (local) {
		sv_net_push_local(sv, path, sport, skb);
		return sv_net_loop_xmit(sv, skb, local, faults);
	}

	dst = sv_ip6_dst_lookup_flow(sv->net, sock->sk, &fl6);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	if (cache &&
	    !(container_of(dst, struct rt6_info, dst)->rt6i_flags & RTF_LOCAL)) {
		local_bh_disable();
		dst_cache_set_ip6(cache, dst, &fl6.saddr);
		local_bh_enable();
	}
routed:
	skb_dst_set(skb, dst);

	sv_net_push_udp(skb, sport);
	sv_net_push_ip6(path, skb, path->hop_limit ?: ip6_dst_hoplimit(dst));

	err = sv_icrc_set_skb(skb, 0, skb->len, sv_net_icrc_form());
	if (unlikely(err)) {
		kfree_skb(skb);
		return err;
	}
	/* --- fault injection (sv_fault.c) --- */
	if (sv_fault_active(sv, SV_FAULT_TX))
		err = sv_fault_tx(sv, skb, sv_net_out6);
	else
	/* --- end fault injection --- */
		err = ip6_local_out(sv->net, sock->sk, skb);
	return net_xmit_eval(err) ? -ENOBUFS : 0;
}

/* --- RoCE v1 (IBTA Annex A16) --- */

/* skb->cb of a RoCE v1 frame on its way out: the netdev to send it on */
struct sv_net_v1_cb {
	int	ifindex;
};

static struct sv_net_v1_cb *sv_net_v1_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sv_net_v1_cb) > sizeof(skb->cb));
	return (struct sv_net_v1_cb *)skb->cb;
}

/*
 * Queue a v1 frame (Ethernet header built) on its netdev.  Also how fault
 * injection sends one it let through or held: the netdev is looked up
 * again by index, as a held packet may outlive a VLAN netdev.
 */
static int sv_net_out_v1(struct sv_dev *sv, struct sk_buff *skb)
{
	struct net_device *ndev;
	int err;

	rcu_read_lock();
	ndev = dev_get_by_index_rcu(sv->net, sv_net_v1_cb(skb)->ifindex);
	if (unlikely(!ndev)) {
		rcu_read_unlock();
		kfree_skb(skb);
		return -ENETDOWN;
	}
	skb->dev = ndev;
	err = dev_queue_xmit(skb);
	rcu_read_unlock();
	return err;
}

/*
 * A v1 frame to a group also reaches the groups of the sending device, as
 * IP multicast loops RoCEv2 packets back to it.  @skb: GRH at skb->data,
 * ICRC set.
 */
static void sv_net_v1_mcast_loop(struct sv_dev *sv, struct sk_buff *skb)
{
	struct sk_buff *copy = skb_copy(skb, GFP_ATOMIC);

	if (!copy)
		return;
	dev_hold(sv->ndev);
	sv_net_loop_queue(copy, sv->ndev, true);
}

static int sv_net_xmit_v1(struct sv_dev *sv, const struct sv_path *path,
			  struct sk_buff *skb)
{
	struct net_device *ndev, *local;
	bool faults;
	u8 *grh;
	int err;

	grh = skb_push(skb, SV_GRH_BYTES);
	skb_reset_network_header(skb);
	sv_hdr_build_grh(grh, path->traffic_class, path->flow_label,
			 skb->len - SV_GRH_BYTES, path->hop_limit,
			 path->sgid.raw, path->dgid.raw);

	local = sv_net_loop_dest(sv, path, &faults);
	if (local)
		return sv_net_loop_xmit(sv, skb, local, faults);

	err = sv_icrc_v1_set_skb(skb, 0, skb->len);
	if (unlikely(err))
		goto err_free;
	if (rdma_is_multicast_addr((struct in6_addr *)path->dgid.raw))
		sv_net_v1_mcast_loop(sv, skb);

	rcu_read_lock();
	ndev = dev_get_by_index_rcu(sv->net, path->ifindex);
	if (unlikely(!ndev || !(ndev->flags & IFF_UP))) {
		rcu_read_unlock();
		err = -ENETDOWN;
		goto err_free;
	}
	/* the tag of a VLAN netdev is its business (vlan_dev_hard_header) */
	if (unlikely(dev_hard_header(skb, ndev, ETH_P_IBOE, path->dmac,
				     ndev->dev_addr, skb->len) < 0)) {
		rcu_read_unlock();
		err = -EINVAL;
		goto err_free;
	}
	skb_reset_mac_header(skb);
	skb->dev = ndev;
	sv_net_v1_cb(skb)->ifindex = ndev->ifindex;
	/* --- fault injection (sv_fault.c) --- */
	if (sv_fault_active(sv, SV_FAULT_TX))
		err = sv_fault_tx(sv, skb, sv_net_out_v1);
	else
	/* --- end fault injection --- */
		err = sv_net_out_v1(sv, skb);
	rcu_read_unlock();
	if (err < 0)
		return err;
	return net_xmit_eval(err) ? -ENOBUFS : 0;

err_free:
	kfree_skb(skb);
	return err;
}

/*
 * On an L3 netdev ib_core follows no address event: softverbs adds the
 * GIDs of new addresses, but a removed address keeps its GID until the
 * device goes.  An AH or QP made from it must not go on sending from an
 * address the netdev no longer has.  IPv4's route lookup refuses a source
 * that is no local address, IPv6's does not, and neither is asked for a
 * local destination (the loopback queue): so every packet is checked
 * before either.  On Ethernet ib_core deletes the GID with its address.
 */
static bool sv_net_src_ok(struct sv_dev *sv, const struct sv_path *path)
{
	return !sv->l3 || sv_port_gid_is_addr_of(&path->sgid, sv->ndev);
}

/* --- local frames (design.md, "Local frames") --- */

/* the namespace's route generation of @path's family */
static int sv_net_rt_genid(struct sv_dev *sv, const struct sv_path *path)
{
#if IS_ENABLED(CONFIG_IPV6)
	if (!sv_path_is_ipv4(path))
		return rt_genid_ipv6(sv->net);
#endif
	return rt_genid_ipv4(sv->net);
}

/*
 * The netdev of this host a frame on @path goes to (held), or NULL: as
 * sv_net_loop_dest_rcu(), but first through @kept (may be NULL).  A
 * destination looked up before holds while the routes of its namespace
 * and the device list have not changed since (an address, a route or a
 * netdev coming or going moves the route generation; unregistering a
 * netdev frees it only after a grace period that follows; sv_dev_gen
 * likewise for devices).  A route kept for @path leads elsewhere.  Under
 * RCU and the lock of @kept's owner, bottom halves off.
 */
static struct net_device *sv_net_frame_dest(struct sv_dev *sv,
					    const struct sv_path *path,
					    struct sv_net_dest *kept,
					    bool *faults)
{
	int rt_genid = sv_net_rt_genid(sv, path);
	int dev_gen = atomic_read(&sv_dev_gen);
	struct dst_cache *cache;
	struct net_device *ndev;
	struct sv_dev *dst_sv;

	if (kept && kept->valid && kept->rt_genid == rt_genid &&
	    kept->dev_gen == dev_gen &&
	    kept->network_type == path->network_type &&
	    !memcmp(&kept->dgid, &path->dgid, sizeof(kept->dgid))) {
		if (!kept->ndev)
			return NULL;
		dev_hold(kept->ndev);
		*faults = sv_fault_active(sv, SV_FAULT_TX) ||
			  sv_fault_active(kept->dst, SV_FAULT_RX);
		return kept->ndev;
	}
	ndev = NULL;
	dst_sv = NULL;
	cache = sv_net_route_cache(path);
	if (cache) {
		struct dst_entry *dst = dst_cache_get(cache);

		if (dst)
			dst_release(dst);
		else
			ndev = sv_net_loop_dest_rcu(sv, path, faults, &dst_sv);
	} else {
		ndev = sv_net_loop_dest_rcu(sv, path, faults, &dst_sv);
	}
	if (kept) {
		/* the generations from before the look-up: a change misses */
		kept->valid = true;
		kept->ndev = ndev;
		kept->dst = dst_sv;
		kept->dgid = path->dgid;
		kept->network_type = path->network_type;
		kept->rt_genid = rt_genid;
		kept->dev_gen = dev_gen;
	}
	return ndev;
}

/*
 * A local frame for @ib_len bytes on @path (its netdev held), or NULL
 * where a packet there must be an skb (not a device of this host, RoCE v1,
 * fault injection on either end, a source the netdev no longer has,
 * bottom halves on) or there is no buffer.  Under RCU.
 */
static struct sv_net_frame *sv_net_frame_alloc(struct sv_dev *sv,
					       const struct sv_path *path,
					       unsigned int ib_len,
					       struct sv_net_dest *kept)
{
	unsigned int size = SKB_DATA_ALIGN(sizeof(struct sv_net_frame) +
					   ib_len);
	struct sv_net_frame *f;
	struct net_device *ndev;
	bool faults;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "frame without RCU");
	/* the per-CPU caches below (route, ring) want bottom halves off */
	if (path->network_type == RDMA_NETWORK_ROCE_V1 ||
	    !sv_net_napi_ctx() || !sv_net_src_ok(sv, path))
		return NULL;
	ndev = sv_net_frame_dest(sv, path, kept, &faults);
	if (!ndev)
		return NULL;
	if (faults) {
		/* fault injection judges packets: they go as skbs */
		dev_put(ndev);
		return NULL;
	}
	/* as sv_net_alloc_skb(): a ring page, a fragment for a small one */
	f = sv_pktbuf_alloc_bh(size);
	if (!f && size <= SV_NET_FRAG_MAX)
		f = netdev_alloc_frag(size);
	if (!f) {
		dev_put(ndev);
		return NULL;
	}
	f->pkt.frame = true;
	f->ndev = ndev;
	f->len = ib_len;
	f->ref_mr = NULL;
	return f;
}

void sv_net_frame_free(struct sv_net_frame *f)
{
	if (f->ref_mr)
		sv_mr_put(f->ref_mr);
	skb_free_frag(f);
}

/* Drop @f before it was queued: its netdev reference goes with it. */
static void sv_net_frame_drop(struct sv_net_frame *f)
{
	dev_put(f->ndev);
	sv_net_frame_free(f);
}

static int sv_net_frame_xmit(struct sv_dev *sv, const struct sv_path *path,
			     struct sv_net_frame *f, u8 npkts)
{
	unsigned int ib_len = f->len;

	/* nobody reads it; zeros rather than a reused page's old bytes */
	if (!f->ref_mr)
		memset(f->data + ib_len - SV_ICRC_BYTES, 0, SV_ICRC_BYTES);
	f->npkts = npkts;
	f->addr.network_type = path->network_type;
	f->addr.traffic_class = path->traffic_class;
	f->addr.hop_limit = sv_net_local_hops(sv, path);
	f->addr.flow_label = sv_path_is_ipv4(path) ? 0 :
			     path->flow_label & IB_GRH_FLOWLABEL_MASK;
	f->addr.sgid = path->sgid;
	f->addr.dgid = path->dgid;
	if (unlikely(sv_net_loop_enqueue(&f->pkt))) {
		sv_net_frame_drop(f);
		sv_stat_inc(sv, SV_STAT_TX_DROPS);
		return -ENOBUFS;
	}
	if (npkts > 1)
		sv_stat_inc(sv, SV_STAT_TX_LOCAL_BURSTS);
	if (f->ref_mr)
		sv_stat_inc(sv, SV_STAT_TX_LOCAL_BY_REF);
	sv_stat_add(sv, SV_STAT_TX_PKTS, npkts);
	sv_stat_add(sv, SV_STAT_TX_BYTES, ib_len);
	return 0;
}

/* --- packets: a local frame or an skb --- */

static struct sv_net_frame *sv_net_pkt_frame(struct sv_net_pkt *pkt)
{
	return container_of(pkt, struct sv_net_frame, pkt);
}

struct sv_net_pkt *sv_net_pkt_alloc(struct sv_dev *sv,
				    const struct sv_path *path,
				    unsigned int ib_len, unsigned int how,
				    struct sv_net_dest *kept)
{
	struct sv_net_pkt *pkt;
	struct sk_buff *skb;

	if (how & (SV_NET_PKT_FRAME | SV_NET_PKT_FRAME_ONLY)) {
		struct sv_net_frame *f = sv_net_frame_alloc(sv, path, ib_len,
							    kept);

		if (f)
			return &f->pkt;
		if (how & SV_NET_PKT_FRAME_ONLY)
			return NULL;
	}
	skb = sv_net_alloc_skb(sv, path, ib_len, GFP_ATOMIC);
	if (!skb)
		return NULL;
	pkt = &sv_net_loop_cb(skb)->pkt;
	pkt->frame = false;
	return pkt;
}

struct sv_net_pkt *sv_net_pkt_alloc_ref(struct sv_dev *sv,
					const struct sv_path *path,
					unsigned int hdr_len,
					unsigned int ib_len, struct sv_mr *mr,
					u64 iova, struct sv_net_dest *kept)
{
	struct sv_net_frame *f = sv_net_frame_alloc(sv, path, hdr_len, kept);

	if (!f)
		return NULL;
	f->len = ib_len;
	f->ref_mr = mr;
	f->ref_iova = iova;
	return &f->pkt;
}

u8 *sv_net_pkt_data(struct sv_net_pkt *pkt)
{
	return pkt->frame ? sv_net_pkt_frame(pkt)->data :
			    sv_net_pkt_skb(pkt)->data;
}

unsigned int sv_net_pkt_len(struct sv_net_pkt *pkt)
{
	return pkt->frame ? sv_net_pkt_frame(pkt)->len :
			    sv_net_pkt_skb(pkt)->len;
}

void sv_net_pkt_drop(struct sv_net_pkt *pkt)
{
	if (pkt->frame)
		sv_net_frame_drop(sv_net_pkt_frame(pkt));
	else
		kfree_skb(sv_net_pkt_skb(pkt));
}

int sv_net_pkt_xmit(struct sv_dev *sv, const struct sv_path *path,
		    u16 sport, struct sv_net_pkt *pkt, u8 npkts)
{
	if (pkt->frame)
		return sv_net_frame_xmit(sv, path, sv_net_pkt_frame(pkt), npkts);
	return sv_net_xmit(sv, path, sport, sv_net_pkt_skb(pkt));
}

int sv_net_xmit(struct sv_dev *sv, const struct sv_path *path, u16 sport,
		struct sk_buff *skb)
{
	unsigned int ib_len = skb->len;
	int err;

	if (unlikely(!sv_net_src_ok(sv, path))) {
		kfree_skb(skb);
		sv_stat_inc(sv, SV_STAT_TX_DROPS);
		return -EADDRNOTAVAIL;
	}
	if (path->network_type == RDMA_NETWORK_ROCE_V1)
		err = sv_net_xmit_v1(sv, path, skb);
	else if (sv_path_is_ipv4(path))
		err = sv_net_xmit4(sv, path, sport, skb);
	else
		err = sv_net_xmit6(sv, path, sport, skb);
	if (unlikely(err)) {
		sv_stat_inc(sv, SV_STAT_TX_DROPS);
		return err;
	}
	sv_stat_inc(sv, SV_STAT_TX_PKTS);
	if (path->network_type == RDMA_NETWORK_ROCE_V1)
		sv_stat_inc(sv, SV_STAT_TX_V1_PKTS);
	sv_stat_add(sv, SV_STAT_TX_BYTES, ib_len);
	return 0;
}

/* --- receive --------------------------------------------------------------- */

/*
 * The netdev whose device a packet is for.  A packet to an address of
 * this namespace arrives over lo (the route to a local address is local,
 * whatever netdev the sender named), so for lo the netdev that holds the
 * destination address decides, and the packet is dropped there: it is
 * not softverbs', whose local packets never take lo (see the loopback
 * above).
 */
static struct sv_dev *sv_net_find_dev_rcu(struct sk_buff *skb)
{
	struct net_device *ndev = skb->dev;

	if (ndev->flags & IFF_LOOPBACK) {
		if (skb->protocol == htons(ETH_P_IP))
			ndev = __ip_dev_find(dev_net(ndev), ip_hdr(skb)->daddr,
					     false);
		else if (skb->protocol == htons(ETH_P_IPV6))
			ndev = ipv6_dev_find(dev_net(ndev),
					     &ipv6_hdr(skb)->daddr, NULL);
		else
			ndev = NULL;
		if (!ndev)
			return NULL;
	}
	return sv_net_ndev_dev_rcu(ndev);
}

/*
 * Every RoCEv2 packet for this namespace arrives here (UDP encap receive,
 * softirq, under RCU, skb->data at the UDP header).  Packets for no
 * softverbs device are consumed: a port with no QPs drops them.
 */
static int sv_net_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct sv_dev *sv;

	rcu_read_lock();
	sv = sv_net_find_dev_rcu(skb);
	if (sv && (skb->dev->flags & IFF_LOOPBACK)) {
		sv_stat_inc(sv, SV_STAT_RX_DROP_LOOPBACK);
		kfree_skb(skb);
	} else if (sv) {
		sv_recv(sv, skb);
	} else {
		kfree_skb(skb);
	}
	rcu_read_unlock();
	return 0;
}

/*
 * Every RoCE v1 frame of every namespace arrives here (ethertype 0x8915,
 * softirq, under RCU, skb->data at the GRH).  Only what is for this host
 * and comes in on a netdev with a softverbs device, or a VLAN on one in
 * the device's namespace, goes on; over lo nothing does (no device there).
 */
static int sv_net_v1_rcv(struct sk_buff *skb, struct net_device *ndev,
			 struct packet_type *pt, struct net_device *orig_dev)
{
	struct sv_dev *sv;

	if (skb->pkt_type != PACKET_HOST && skb->pkt_type != PACKET_MULTICAST)
		goto drop;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	skb_reset_network_header(skb);

	rcu_read_lock();
	sv = sv_net_ndev_dev_rcu(ndev);
	/*
	 * Not on an L3 netdev (RoCEv2 only), where the protocol of a packet
	 * can be what a process wrote (a tun's packet information header).
	 * sv_net_ndev_dev_rcu() checked the namespace.
	 */
	if (sv && !sv->l3) {
		sv_recv_v1(sv, skb);
		rcu_read_unlock();
		return NET_RX_SUCCESS;
	}
	rcu_read_unlock();
drop:
	kfree_skb(skb);
	return NET_RX_DROP;
}

static struct packet_type sv_net_v1_ptype __read_mostly = {
	.type	= cpu_to_be16(ETH_P_IBOE),
	.func	= sv_net_v1_rcv,
};

/*
 * IP_MULTICAST_LOOP (IPV6_MULTICAST_LOOP) on, through setsockopt: the
 * option is the same on every kernel, the socket fields behind it moved.
 */
static int sv_net_sock_mc_loop(struct socket *sock, bool ipv6)
{
	int one = 1;

	return sock->ops->setsockopt(sock, ipv6 ? SOL_IPV6 : SOL_IP,
				     ipv6 ? IPV6_MULTICAST_LOOP :
					    IP_MULTICAST_LOOP,
				     KERNEL_SOCKPTR(&one), sizeof(one));
}

static struct socket *sv_net_sock_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.encap_type = 1,
		.encap_rcv = sv_net_encap_recv,
	};
	struct udp_port_cfg ucfg = {
		.local_udp_port = htons(SV_ROCE_V2_UDP_PORT),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		ucfg.family = AF_INET6;
		ucfg.local_ip6 = in6addr_any;
		ucfg.ipv6_v6only = 1;
	} else {
		ucfg.family = AF_INET;
		ucfg.local_ip.s_addr = htonl(INADDR_ANY);
	}

	err = udp_sock_create(net, &ucfg, &sock);
	if (err)
		return ERR_PTR(err);
	sv_setup_udp_tunnel_sock(net, sock, &tcfg);
	/*
	 * Multicast loopback back on: setup_udp_tunnel_sock() turns it off
	 * (a tunnel wants none of its own packets), but a UD send to a
	 * group must also reach the QPs of this host attached to it, on the
	 * sending device too, as with Soft-RoCE and RoCE NICs:
	 * ip_mc_output() then gives the stack a copy on the sending netdev,
	 * which comes back through sv_net_encap_recv() to its device's
	 * attached QPs.  The copy is made only where the netdev has joined
	 * the group, which the first attached QP does (sv_mcast.c).
	 */
	err = sv_net_sock_mc_loop(sock, ipv6);
	if (err) {
		sv_udp_tunnel_sock_release(sock);
		return ERR_PTR(err);
	}
	return sock;
}

/* Take a reference on the namespace's sockets, opening them if needed. */
struct sv_net_sock *sv_net_sock_get(struct net *net)
{
	struct sv_net *svn = sv_net(net);
	struct sv_net_sock *ret = &svn->sock;
	struct socket *sock;

	mutex_lock(&svn->lock);
	if (svn->users++)
		goto out_unlock;

	sock = sv_net_sock_open(net, false);
	if (IS_ERR(sock)) {
		if (PTR_ERR(sock) == -EADDRINUSE)
			pr_info("UDP port %u is taken in this network namespace (is rdma_rxe loaded?)\n",
				SV_ROCE_V2_UDP_PORT);
		ret = ERR_CAST(sock);
		goto err_users;
	}
	svn->sock.sk4 = sock;

	sock = sv_net_sock_open(net, true);
	if (IS_ERR(sock)) {
		/* a namespace without IPv6 still carries RoCEv2 over IPv4 */
		if (PTR_ERR(sock) != -EAFNOSUPPORT &&
		    PTR_ERR(sock) != -EPFNOSUPPORT) {
			ret = ERR_CAST(sock);
			goto err_close4;
		}
		sock = NULL;
	}
	svn->sock.sk6 = sock;
	goto out_unlock;

err_close4:
	sv_udp_tunnel_sock_release(svn->sock.sk4);
	svn->sock.sk4 = NULL;
err_users:
	svn->users--;
out_unlock:
	mutex_unlock(&svn->lock);
	return ret;
}

void sv_net_sock_put(struct net *net)
{
	struct sv_net *svn = sv_net(net);

	mutex_lock(&svn->lock);
	if (WARN_ON(!svn->users) || --svn->users)
		goto out_unlock;
	if (svn->sock.sk6)
		sv_udp_tunnel_sock_release(svn->sock.sk6);
	sv_udp_tunnel_sock_release(svn->sock.sk4);
	svn->sock.sk4 = NULL;
	svn->sock.sk6 = NULL;
out_unlock:
	mutex_unlock(&svn->lock);
}

static int __net_init sv_net_init_net(struct net *net)
{
	struct sv_net *svn = sv_net(net);

	mutex_init(&svn->lock);
	svn->users = 0;
	return 0;
}

/*
 * By now the namespace's netdevs are unregistered and their devices'
 * removal is queued on sv_wq; wait for it so the sockets are closed
 * before the namespace is freed.
 */
static void __net_exit sv_net_exit_net(struct net *net)
{
	struct sv_net *svn = sv_net(net);

	flush_workqueue(sv_wq);
	WARN_ON(svn->users);
	mutex_destroy(&svn->lock);
}

static struct pernet_operations sv_net_ops = {
	.init = sv_net_init_net,
	.exit = sv_net_exit_net,
	.id = &sv_net_id,
	.size = sizeof(struct sv_net),
};

int sv_net_init(void)
{
	int err;

	sv_net_loop_init();
	err = register_pernet_subsys(&sv_net_ops);
	if (err)
		return err;
	dev_add_pack(&sv_net_v1_ptype);
	return 0;
}

void sv_net_exit(void)
{
	/* waits for running handlers (synchronize_net()) */
	dev_remove_pack(&sv_net_v1_ptype);
	unregister_pernet_subsys(&sv_net_ops);
	/* no encap_recv call may still be running when the module goes */
	synchronize_net();
	sv_net_loop_exit();
	sv_pktbuf_exit();
}
