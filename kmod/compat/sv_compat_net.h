/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Routing and UDP tunnel sockets: the kernel interfaces of sv_net.c and
 * sv_av.c that changed.  Included by those two files.
 */
#ifndef SV_COMPAT_NET_H
#define SV_COMPAT_NET_H

#include <linux/ip.h>
#include <net/flow.h>
#include <net/udp_tunnel.h>

#include "compat.h"

#ifdef SV_HAVE_IPV6_STUBS
#include <net/ipv6_stubs.h>
#else
#include <net/ipv6.h>
#endif
#ifdef SV_HAVE_FLOWI4_DSCP
#include <net/inet_dscp.h>
#endif

/*
 * An IPv6 route.  Where IPv6 may be a module, through ipv6_stub (which
 * says -EAFNOSUPPORT while IPv6 is not loaded) so that softverbs never
 * depends on ipv6.ko; where the stubs are gone IPv6 is built in or absent,
 * and <net/ipv6.h> says -EAFNOSUPPORT for the latter.
 */
static inline struct dst_entry *sv_ip6_dst_lookup_flow(struct net *net,
						       const struct sock *sk,
						       struct flowi6 *fl6)
{
#ifdef SV_HAVE_IPV6_STUBS
	return ipv6_stub->ipv6_dst_lookup_flow(net, sk, fl6, NULL);
#else
	return ip6_dst_lookup_flow(net, sk, fl6, NULL);
#endif
}

/*
 * The IPv4 route lookup's type of service, from the traffic class: the
 * TOS bits until the flow key kept the DSCP instead (what routing rules
 * match on either way).
 */
static inline void sv_flowi4_set_tclass(struct flowi4 *fl4, u8 tclass)
{
#ifdef SV_HAVE_FLOWI4_DSCP
	fl4->flowi4_dscp = inet_dsfield_to_dscp(tclass);
#else
	fl4->flowi4_tos = tclass & IPTOS_TOS_MASK;
#endif
}

/*
 * Encapsulation sockets: setup_udp_tunnel_sock() and
 * udp_tunnel_sock_release() took the struct socket, later its struct sock.
 */
static inline void sv_setup_udp_tunnel_sock(struct net *net,
					    struct socket *sock,
					    struct udp_tunnel_sock_cfg *cfg)
{
#ifdef SV_HAVE_UDP_TUNNEL_SK
	setup_udp_tunnel_sock(net, sock->sk, cfg);
#else
	setup_udp_tunnel_sock(net, sock, cfg);
#endif
}

static inline void sv_udp_tunnel_sock_release(struct socket *sock)
{
#ifdef SV_HAVE_UDP_TUNNEL_SK
	udp_tunnel_sock_release(sock->sk);
#else
	udp_tunnel_sock_release(sock);
#endif
}

#endif /* SV_COMPAT_NET_H */
