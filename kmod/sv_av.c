// SPDX-License-Identifier: GPL-2.0
/*
 * Address vectors: address handles and the primary paths of connected QPs,
 * checked and routed once, when they are created, into a struct sv_path that
 * the transport uses; AH numbers and their lookup (sv_ah_path_rcu()).
 *
 * Documentation/design.md, "Address vectors and QP attributes" and "RoCE v1".
 */
#include <linux/etherdevice.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ip6_fib.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "sv.h"
#include "sv_xport.h"
#include "compat/sv_compat_net.h"

static const struct in6_addr *sv_gid_in6(const union ib_gid *gid)
{
	return (const struct in6_addr *)gid->raw;
}

static bool sv_path_is_multicast(const struct sv_path *path)
{
	return rdma_is_multicast_addr((struct in6_addr *)path->dgid.raw);
}

static bool sv_path_is_v1(const struct sv_path *path)
{
	return path->network_type == RDMA_NETWORK_ROCE_V1;
}

/*
 * The IP family a path's destination is routed and resolved in: its
 * network type for RoCEv2; for RoCE v1, whose GIDs are IP addresses too,
 * IPv4 for an IPv4-mapped destination GID.
 */
static bool sv_path_route_v4(const struct sv_path *path)
{
	if (sv_path_is_v1(path))
		return ipv6_addr_v4mapped(sv_gid_in6(&path->dgid));
	return sv_path_is_ipv4(path);
}

/*
 * Say why an address vector was refused, rate-limited: create_ah and
 * modify_qp return only an errno, and a consumer (or its user) needs the
 * attribute.  One rate limit for all refusals of the module.
 */
static __printf(3, 4) int sv_path_refuse(struct sv_dev *sv, int err,
					 const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	sv_info_dev(sv, "address vector refused (%d): %pV\n", err, &vaf);
	va_end(args);
	return err;
}

/* @path->dgid as the destination of a @path->network_type packet */
static int sv_path_check_dgid(struct sv_dev *sv, const struct sv_path *path,
			      unsigned int flags)
{
	const struct in6_addr *dst = sv_gid_in6(&path->dgid);

	if (sv_path_is_v1(path)) {
		/* any GID but none and the loopback address */
		if (ipv6_addr_any(dst) || ipv6_addr_loopback(dst))
			return sv_path_refuse(sv, -EINVAL,
				"destination GID %pI6 is no RoCE v1 peer", dst);
	} else if (sv_path_is_ipv4(path)) {
		__be32 addr = sv_path_daddr4(path);

		if (!ipv6_addr_v4mapped(dst) || ipv4_is_zeronet(addr) ||
		    ipv4_is_lbcast(addr) || ipv4_is_loopback(addr))
			return sv_path_refuse(sv, -EINVAL,
				"destination GID %pI6 is no IPv4 peer for an IPv4 source GID",
				dst);
	} else {
		if (ipv6_addr_v4mapped(dst) || ipv6_addr_any(dst) ||
		    ipv6_addr_loopback(dst))
			return sv_path_refuse(sv, -EINVAL,
				"destination GID %pI6 is no IPv6 peer for an IPv6 source GID",
				dst);
	}
	/* a connection has one peer: multicast is for UD only */
	if ((flags & SV_PATH_UNICAST) && sv_path_is_multicast(path))
		return sv_path_refuse(sv, -EINVAL,
			"multicast destination GID %pI6 for a connected QP",
			dst);
	return 0;
}

static struct dst_entry *sv_path_dst4(struct sv_dev *sv,
				      const struct sv_path *path)
{
	struct flowi4 fl4 = {
		.flowi4_oif = path->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.daddr = sv_path_daddr4(path),
	};
	struct rtable *rt;

	/* a RoCE v1 source GID need not be of the same family */
	if (ipv6_addr_v4mapped(sv_gid_in6(&path->sgid)))
		fl4.saddr = sv_path_saddr4(path);
	rt = ip_route_output_key(sv->net, &fl4);

	return IS_ERR(rt) ? ERR_CAST(rt) : &rt->dst;
}

static struct dst_entry *sv_path_dst6(struct sv_dev *sv,
				      const struct sv_path *path)
{
	struct flowi6 fl6 = {
		.flowi6_oif = path->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.daddr = *sv_gid_in6(&path->dgid),
	};

	if (!ipv6_addr_v4mapped(sv_gid_in6(&path->sgid)))
		fl6.saddr = *sv_gid_in6(&path->sgid);
	/* -EAFNOSUPPORT when IPv6 is disabled (compat.h) */
	return sv_ip6_dst_lookup_flow(sv->net, NULL, &fl6);
}

/* The route from the source to the destination of @path, or ERR_PTR. */
static struct dst_entry *sv_path_dst(struct sv_dev *sv,
				     const struct sv_path *path)
{
	return sv_path_route_v4(path) ? sv_path_dst4(sv, path) :
					sv_path_dst6(sv, path);
}

/* The MAC of @dst's next hop towards @path's destination, if known. */
static int sv_path_neigh(struct dst_entry *dst, struct sv_path *path)
{
	const void *daddr = sv_path_route_v4(path) ?
			    (const void *)&path->dgid.raw[12] :
			    (const void *)path->dgid.raw;
	struct neighbour *n;
	int err = -EHOSTUNREACH;

	n = dst_neigh_lookup(dst, daddr);	/* creates the entry if needed */
	if (!n)
		return err;
	if (READ_ONCE(n->nud_state) & NUD_VALID) {
		neigh_ha_snapshot((char *)path->dmac, n, dst->dev);
		err = 0;
	} else {
		/* start resolving, so that a retry finds the MAC */
		neigh_event_send(n, NULL);
	}
	neigh_release(n);
	return err;
}

/* Does @dst reach its destination through a router? */
static bool sv_path_via_gateway(const struct sv_path *path,
				struct dst_entry *dst)
{
	if (sv_path_route_v4(path))
		return container_of(dst, struct rtable, dst)->rt_uses_gateway;
	return container_of(dst, struct rt6_info, dst)->rt6i_flags &
	       RTF_GATEWAY;
}

static int sv_path_route(struct sv_dev *sv, struct sv_path *path,
			 unsigned int flags)
{
	struct dst_entry *dst;
	int err = 0;

	dst = sv_path_dst(sv, path);
	if (IS_ERR(dst))
		return sv_path_refuse(sv, PTR_ERR(dst),
				      "no route to destination GID %pI6",
				      sv_gid_in6(&path->dgid));

	if (dst->dev->flags & IFF_LOOPBACK) {
		/* an address of this namespace: no wire, no neighbour */
		if (is_zero_ether_addr(path->dmac))
			ether_addr_copy(path->dmac, sv->ndev->dev_addr);
	} else if (dst->dev->ifindex != path->ifindex) {
		/* only an l3mdev (VRF) can route around the output interface */
		err = sv_path_refuse(sv, -ENETUNREACH,
			"destination GID %pI6 is routed out of %s, not the source GID's netdev",
			sv_gid_in6(&path->dgid), dst->dev->name);
	} else if (sv_path_is_v1(path) && !sv_path_is_multicast(path) &&
		   sv_path_via_gateway(path, dst)) {
		/* Annex A16: RoCE v1 frames are not routed (see the top) */
		err = sv_path_refuse(sv, -EHOSTUNREACH,
			"destination GID %pI6 is behind a router, and RoCE v1 (source GID index %u) is L2-only: use a RoCE v2 GID",
			sv_gid_in6(&path->dgid), path->sgid_index);
	} else if (!sv->l3 && !sv_path_is_multicast(path) &&
		   is_zero_ether_addr(path->dmac)) {
		/* an L3 netdev has no next hop MAC: the IP stack sends */
		err = sv_path_neigh(dst, path);
		if (err)
			sv_path_refuse(sv, err,
				"destination GID %pI6: next hop MAC not known yet (resolving)",
				sv_gid_in6(&path->dgid));
	}
	/* a RoCE v2 route to keep (sv_net.c), not to a local destination */
	if (!err && (flags & SV_PATH_CACHE) && !sv_path_is_v1(path) &&
	    !(dst->dev->flags & IFF_LOOPBACK))
		err = dst_cache_init(&path->dst_cache, GFP_KERNEL_ACCOUNT);
	dst_release(dst);
	return err;
}

/*
 * Fill @path from a source GID and the GRH fields; @dmac may be NULL (not
 * known).  On error @path holds garbage.
 */
static int sv_path_init(struct sv_dev *sv, struct sv_path *path,
			const struct ib_gid_attr *sgid_attr,
			const struct ib_global_route *grh, const u8 *dmac,
			unsigned int flags)
{
	struct net_device *ndev;
	int err;

	if (sgid_attr->device != &sv->ibdev ||
	    sgid_attr->port_num != SV_PORT_NUM)
		return sv_path_refuse(sv, -EINVAL,
				      "source GID of another device or port");
	switch (sgid_attr->gid_type) {
	case IB_GID_TYPE_ROCE_UDP_ENCAP:
	case IB_GID_TYPE_ROCE:		/* RoCE v1: see the top */
		break;
	default:
		return sv_path_refuse(sv, -EINVAL,
				      "source GID index %u of type %d",
				      sgid_attr->index, sgid_attr->gid_type);
	}

	path->network_type = rdma_gid_attr_network_type(sgid_attr);
	path->sgid = sgid_attr->gid;
	path->sgid_index = sgid_attr->index;
	path->dgid = grh->dgid;
	err = sv_path_check_dgid(sv, path, flags);
	if (err)
		return err;
	/*
	 * The flow label is a 20-bit field (IBTA 8.3.1); the verbs carry 32
	 * bits.  Consumers such as UCX pass ~0 on RoCE, and Soft-RoCE and
	 * RoCE NICs use the low 20 bits: so do we.
	 */
	path->flow_label = grh->flow_label & IB_GRH_FLOWLABEL_MASK;
	path->hop_limit = grh->hop_limit;
	path->traffic_class = grh->traffic_class;

	/* our netdev, or a VLAN on it that ib_core found GIDs on */
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	if (IS_ERR(ndev))
		err = PTR_ERR(ndev);
	else if (!net_eq(dev_net(ndev), sv->net))
		err = -ENETUNREACH;	/* our sockets live in sv->net */
	else
		path->ifindex = ndev->ifindex;
	rcu_read_unlock();
	if (err)
		return sv_path_refuse(sv, err,
			"source GID index %u has no netdev in the device's namespace",
			sgid_attr->index);

	if (sv_path_is_multicast(path)) {
		/*
		 * The group's MAC, whatever the caller passed: as ib_core
		 * maps it (ib_resolve_eth_dmac()) and as sv_mcast.c joins
		 * it, for RoCE v1 too (an MGID outside ::ffff:0:0/96 gives
		 * 33:33 and its low 32 bits).
		 */
		if (sv_path_route_v4(path))
			ip_eth_mc_map(sv_path_daddr4(path), (char *)path->dmac);
		else
			ipv6_eth_mc_map(sv_gid_in6(&path->dgid),
					(char *)path->dmac);
	} else if (dmac) {
		ether_addr_copy(path->dmac, dmac);
	}

	if (flags & SV_PATH_ROUTE)
		return sv_path_route(sv, path, flags);
	if (!sv->l3 && !sv_path_is_multicast(path) &&
	    is_zero_ether_addr(path->dmac))
		/* atomic callers pass resolved AVs (an L3 netdev has no MACs) */
		return sv_path_refuse(sv, -EHOSTUNREACH,
			"destination GID %pI6 without a MAC (atomic context)",
			sv_gid_in6(&path->dgid));
	return 0;
}

struct sv_path *sv_path_create(struct sv_dev *sv,
			       const struct rdma_ah_attr *attr,
			       unsigned int flags, gfp_t gfp)
{
	const struct ib_global_route *grh;
	struct sv_path *path;
	int err;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    rdma_ah_get_port_num(attr) != SV_PORT_NUM)
		return ERR_PTR(sv_path_refuse(sv, -EINVAL,
				"type %d, port %u: a RoCE AV on port %u expected",
				attr->type, rdma_ah_get_port_num(attr),
				SV_PORT_NUM));
	/* a 4-bit service level; static_rate is recorded, not enforced */
	if (rdma_ah_get_sl(attr) > 15)
		return ERR_PTR(sv_path_refuse(sv, -EINVAL, "service level %u > 15",
					      rdma_ah_get_sl(attr)));
	/* RoCE GIDs are the addresses (IBTA A16/A17): no AV without a GRH */
	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return ERR_PTR(sv_path_refuse(sv, -EINVAL,
				"no GRH (is_global 0) in a RoCE AV"));
	grh = rdma_ah_read_grh(attr);
	/* ib_core looks the source GID up before calling any driver */
	if (!grh->sgid_attr || grh->sgid_attr->index != grh->sgid_index)
		return ERR_PTR(sv_path_refuse(sv, -EINVAL,
				"source GID index %u not resolved",
				grh->sgid_index));

	path = kzalloc(sizeof(*path), gfp);
	if (!path)
		return ERR_PTR(-ENOMEM);
	err = sv_path_init(sv, path, grh->sgid_attr, grh, attr->roce.dmac,
			   flags);
	if (err) {
		kfree(path);
		return ERR_PTR(err);
	}
	return path;
}

/* a path never published; process context */
void sv_path_free(struct sv_path *path)
{
	dst_cache_destroy(&path->dst_cache);	/* no-op without a cache */
	kfree(path);
}

static void sv_path_free_cb(struct rcu_head *head)
{
	sv_path_free(container_of(head, struct sv_path, rcu));
}

/*
 * A published path, once readers under rcu_read_lock() are done with it;
 * any context.  The module's exit waits for these (rcu_barrier()).
 */
void sv_path_free_rcu(struct sv_path *path)
{
	if (path->dst_cache.cache)
		call_rcu(&path->rcu, sv_path_free_cb);
	else
		kfree_rcu(path, rcu);
}

int sv_path_from_user_av(struct sv_dev *sv, const struct sv_av *uav,
			 struct sv_path *path)
{
	const struct ib_gid_attr *sgid_attr;
	struct ib_global_route grh = {};
	u8 network_type;
	int err;

	if (uav->port_num != SV_PORT_NUM)
		return -EINVAL;
	switch (uav->network_type) {
	case SV_NETWORK_TYPE_IPV4:
		network_type = RDMA_NETWORK_IPV4;
		break;
	case SV_NETWORK_TYPE_IPV6:
		network_type = RDMA_NETWORK_IPV6;
		break;
	default:
		return -EINVAL;
	}

	sgid_attr = rdma_get_gid_attr(&sv->ibdev, SV_PORT_NUM,
				      uav->grh.sgid_index);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);

	memset(path, 0, sizeof(*path));
	memcpy(grh.dgid.raw, uav->grh.dgid.raw, sizeof(grh.dgid.raw));
	grh.flow_label = uav->grh.flow_label;
	grh.hop_limit = uav->grh.hop_limit;
	grh.traffic_class = uav->grh.traffic_class;
	/* no dmac: what user space wrote there is not trusted */
	err = sv_path_init(sv, path, sgid_attr, &grh, NULL, SV_PATH_ROUTE);
	/* librxe sets a v1 AV's type from its destination GID's family */
	if (!err && sv_path_is_v1(path))
		network_type = path->network_type;
	if (!err && path->network_type != network_type)
		err = sv_path_refuse(sv, -EINVAL,
			"network type %u of a UD WQE's AV does not match source GID index %u",
			uav->network_type, uav->grh.sgid_index);
	rdma_put_gid_attr(sgid_attr);
	return err;
}

/* --- address handles -------------------------------------------------------- */

const struct sv_path *sv_ah_path_rcu(struct sv_dev *sv, u32 ah_num,
				     const struct ib_pd *pd)
{
	const struct sv_path *path;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "AH path lookup outside RCU");
	path = xa_load(&sv->ah_xa, ah_num);
	/* an AH of another PD (e.g. another process's) is no AH for us */
	return path && path->pd == pd ? path : NULL;
}

/* Give @ah a number mapping to its path; any context, see the top. */
static int sv_ah_publish(struct sv_dev *sv, struct sv_ah *ah, bool sleepable)
{
	struct xa_limit limit = XA_LIMIT(1, SV_MAX_AH);	/* 0: "no ah_num" */
	unsigned long flags;
	int err;

	if (sleepable) {
		err = xa_alloc_cyclic_irq(&sv->ah_xa, &ah->ah_num, ah->path,
					  limit, &sv->ah_num_next, GFP_KERNEL);
	} else {
		/* a GFP_ATOMIC allocation never drops the lock */
		xa_lock_irqsave(&sv->ah_xa, flags);
		err = __xa_alloc_cyclic(&sv->ah_xa, &ah->ah_num, ah->path,
					limit, &sv->ah_num_next, GFP_ATOMIC);
		xa_unlock_irqrestore(&sv->ah_xa, flags);
	}
	if (err == -EBUSY)
		err = -ENOMEM;
	return err < 0 ? err : 0;
}

static void sv_ah_unpublish(struct sv_dev *sv, struct sv_ah *ah)
{
	unsigned long flags;

	xa_lock_irqsave(&sv->ah_xa, flags);
	__xa_erase(&sv->ah_xa, ah->ah_num);
	xa_unlock_irqrestore(&sv->ah_xa, flags);
}

/* create_ah and create_user_ah (@udata set, always sleepable) */
int sv_ah_create(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		 struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibah->device);
	bool sleepable = init->flags & RDMA_CREATE_AH_SLEEPABLE;
	struct rdma_ah_attr *attr = init->ah_attr;
	struct sv_ah *ah = to_sv_ah(ibah);
	struct sv_create_ah_resp resp = {};
	struct sv_path *path;
	int err;

	err = sv_dev_check_udata(udata, 0);
	if (err)
		return err;
	if (!sv_dev_count_get(&sv->num_ah, SV_MAX_AH)) {
		sv_dbg_dev(sv, "no more than %u AHs\n", SV_MAX_AH);
		return -ENOMEM;
	}

	path = sv_path_create(sv, attr, sleepable ? SV_PATH_ROUTE : 0,
			      sleepable ? GFP_KERNEL : GFP_ATOMIC);
	if (IS_ERR(path)) {
		err = PTR_ERR(path);
		sv_dbg_dev(sv, "address vector refused: %d\n", err);
		goto err_put_count;
	}
	path->pd = ibah->pd;
	ah->path = path;
	ah->attr = *attr;
	ah->attr.grh.sgid_attr = NULL;	/* ib_core keeps ibah->sgid_attr */
	ah->attr.grh.flow_label = path->flow_label;	/* what is used */

	err = sv_ah_publish(sv, ah, sleepable);
	if (err)
		goto err_free_path;

	/* librxe before ah_num existed passes no room; it builds the AV itself */
	if (udata && udata->outlen >= sizeof(resp)) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_unpublish;
	}
	return 0;

err_unpublish:
	sv_ah_unpublish(sv, ah);
	sv_path_free_rcu(path);
	goto err_put_count;
err_free_path:
	sv_path_free(path);
err_put_count:
	sv_dev_count_put(&sv->num_ah);
	return err;
}

int sv_ah_query(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = to_sv_ah(ibah)->attr;
	return 0;
}

/* any context, like create_ah: see the top */
int sv_ah_destroy(struct ib_ah *ibah, u32 flags)
{
	struct sv_dev *sv = to_sv_dev(ibah->device);
	struct sv_ah *ah = to_sv_ah(ibah);

	/* sends rung in before this find their AH (not from atomic context) */
	if (flags & RDMA_DESTROY_AH_SLEEPABLE)
		sv_req_ah_linger(ibah->pd);
	sv_ah_unpublish(sv, ah);
	/* a lookup may still read it until a grace period has passed */
	sv_path_free_rcu(ah->path);
	sv_dev_count_put(&sv->num_ah);
	return 0;
}
