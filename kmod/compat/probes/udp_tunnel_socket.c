// SPDX-License-Identifier: GPL-2.0
/*
 * setup_udp_tunnel_sock() and udp_tunnel_sock_release() take the struct
 * socket (before they took its struct sock)
 */
#include <net/udp_tunnel.h>

void (*probe_setup)(struct net *, struct socket *,
		    struct udp_tunnel_sock_cfg *) = setup_udp_tunnel_sock;
void (*probe_release)(struct socket *) = udp_tunnel_sock_release;
