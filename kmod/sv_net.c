// SPDX-License-Identifier: GPL-2.0
/*
 * The wire: building RoCEv2 packets into IPv4/IPv6 UDP datagrams and
 * receiving them (sv_recv.c takes over from the encap hook).
 *
 * RoCEv2 UDP sockets, one pair (IPv4, IPv6) per network namespace that has
 * softverbs devices, shared by those devices.  A device uses the sockets of
 * its netdev's namespace, so softverbs works in any namespace, not only in
 * init_net.
 *
 * Lifetime: created by the first device of a namespace, released by the
 * last one.  A namespace cannot go away with sockets still open: its
 * netdevs are unregistered first, which removes their devices; the pernet
 * exit hook waits for that removal to finish.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/mutex.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "sv.h"
#include "sv_icrc.h"
#include "sv_xport.h"

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

static struct sv_net *sv_net(struct net *net)
{
	return net_generic(net, sv_net_id);
}

/* --- transmit ------------------------------------------------------------- */

/* room for the link header (a VLAN tag too), IPv6 (the larger) and UDP */
static unsigned int sv_net_headroom(const struct sv_dev *sv)
{
	return LL_RESERVED_SPACE(sv->ndev) + VLAN_HLEN +
	       sizeof(struct ipv6hdr) + sizeof(struct udphdr);
}

struct sk_buff *sv_net_alloc_skb(struct sv_dev *sv, const struct sv_path *path,
				 unsigned int ib_len, gfp_t gfp)
{
	unsigned int headroom = sv_net_headroom(sv);
	struct sk_buff *skb;

	skb = alloc_skb(headroom + ib_len, gfp);
	if (unlikely(!skb))
		return NULL;
	skb_reserve(skb, headroom);
	skb_put(skb, ib_len);
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

static int sv_net_xmit4(struct sv_dev *sv, const struct sv_path *path,
			u16 sport, struct sk_buff *skb)
{
	struct flowi4 fl4 = {
		.flowi4_oif = path->ifindex,
		.flowi4_tos = path->traffic_class & IPTOS_TOS_MASK,
		.flowi4_proto = IPPROTO_UDP,
		.daddr = sv_path_daddr4(path),
		.saddr = sv_path_saddr4(path),
		.fl4_sport = htons(sport),
		.fl4_dport = htons(SV_ROCE_V2_UDP_PORT),
	};
	struct rtable *rt;
	struct iphdr *iph;
	int err;

	rt = ip_route_output_key(sv->net, &fl4);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	skb_dst_set(skb, &rt->dst);

	sv_net_push_udp(skb, sport);
	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = path->traffic_class;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = path->hop_limit ?: ip4_dst_hoplimit(&rt->dst);
	iph->protocol = IPPROTO_UDP;
	iph->saddr = fl4.saddr;
	iph->daddr = fl4.daddr;
	iph->check = 0;
	/* before the ICRC: the identification is not a masked field */
	ip_select_ident(sv->net, skb, NULL);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));

	err = sv_icrc_set_skb(skb, 0, skb->len);
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
	struct socket *sock = sv->sock->sk6;
	struct dst_entry *dst;
	struct ipv6hdr *ip6h;
	int err;

	if (!sock) {
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
	dst = ipv6_stub->ipv6_dst_lookup_flow(sv->net, sock->sk, &fl6, NULL);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	skb_dst_set(skb, dst);

	sv_net_push_udp(skb, sport);
	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, path->traffic_class,
		     htonl(path->flow_label & IB_GRH_FLOWLABEL_MASK));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = path->hop_limit ?: ip6_dst_hoplimit(dst);
	ip6h->saddr = fl6.saddr;
	ip6h->daddr = fl6.daddr;
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));

	err = sv_icrc_set_skb(skb, 0, skb->len);
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

int sv_net_xmit(struct sv_dev *sv, const struct sv_path *path, u16 sport,
		struct sk_buff *skb)
{
	unsigned int ib_len = skb->len;
	int err;

	if (sv_path_is_ipv4(path))
		err = sv_net_xmit4(sv, path, sport, skb);
	else
		err = sv_net_xmit6(sv, path, sport, skb);
	if (unlikely(err)) {
		sv_stat_inc(sv, SV_STAT_TX_DROPS);
		return err;
	}
	sv_stat_inc(sv, SV_STAT_TX_PKTS);
	sv_stat_add(sv, SV_STAT_TX_BYTES, ib_len);
	return 0;
}

/* --- receive --------------------------------------------------------------- */

/*
 * The netdev whose device a packet is for.  A packet to an address of
 * this namespace arrives over lo (the route to a local address is local,
 * whatever netdev the sender named), so for lo the netdev that holds the
 * destination address decides.  A VLAN netdev belongs to the device of
 * its real netdev (ib_core puts the VLAN's GIDs into that device's table).
 */
static struct sv_dev *sv_net_find_dev_rcu(struct sk_buff *skb)
{
	struct net_device *ndev = skb->dev;
	struct sv_dev *sv;

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
	sv = sv_dev_find_rcu(ndev);
	if (!sv && is_vlan_dev(ndev))
		sv = sv_dev_find_rcu(vlan_dev_real_dev(ndev));
	return sv;
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
	if (sv)
		sv_recv(sv, skb);
	else
		kfree_skb(skb);
	rcu_read_unlock();
	return 0;
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
	setup_udp_tunnel_sock(net, sock, &tcfg);
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
	udp_tunnel_sock_release(svn->sock.sk4);
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
		udp_tunnel_sock_release(svn->sock.sk6);
	udp_tunnel_sock_release(svn->sock.sk4);
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
	return register_pernet_subsys(&sv_net_ops);
}

void sv_net_exit(void)
{
	unregister_pernet_subsys(&sv_net_ops);
	/* no encap_recv call may still be running when the module goes */
	synchronize_net();
}
