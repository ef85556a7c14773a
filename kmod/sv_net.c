// SPDX-License-Identifier: GPL-2.0
/*
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

#include <linux/mutex.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "sv.h"

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

/*
 * Every RoCEv2 packet for this namespace arrives here (UDP encap receive,
 * softirq, under RCU).  The transport engine is not part of this module
 * yet: packets are consumed without being processed, exactly as a port
 * with no QPs must treat them.
 */
static int sv_net_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	kfree_skb(skb);
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
