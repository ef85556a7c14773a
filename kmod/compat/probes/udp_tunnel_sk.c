// SPDX-License-Identifier: GPL-2.0
/*
 * setup_udp_tunnel_sock() and udp_tunnel_sock_release() take the struct
 * sock, not the struct socket
 */
#include <net/udp_tunnel.h>

void (*probe_setup)(struct net *, struct sock *,
		    struct udp_tunnel_sock_cfg *) = setup_udp_tunnel_sock;
void (*probe_release)(struct sock *) = udp_tunnel_sock_release;
