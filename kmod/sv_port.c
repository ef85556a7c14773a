// SPDX-License-Identifier: GPL-2.0
/*
 * Device and port attributes.  The single port is a RoCE port whose state
 * and MTU follow the netdev; ib_core's RoCE GID management fills the GID
 * table from the netdev's addresses (it finds the netdev through
 * sv_port_get_netdev()).
 */
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "sv.h"
#include "sv_eth.h"

/* raw fw_ver as librxe decodes it: major << 32 | minor << 16 | sub-minor */
#define SV_FW_VER	((0ULL << 32) | (1ULL << 16) | 0ULL)

int sv_port_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
			 struct ib_udata *udata)
{
	struct sv_dev *sv = to_sv_dev(ibdev);

	/* no driver-specific query_device input or output is defined */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = SV_FW_VER;
	attr->sys_image_guid = sv->ibdev.node_guid;
	attr->vendor_id = SV_VENDOR_ID;
	attr->vendor_part_id = SV_VENDOR_PART_ID;
	attr->hw_ver = SV_HW_VERSION;
	attr->page_size_cap = SV_PAGE_SIZE_CAP;
	attr->max_pd = SV_MAX_PD;
	attr->max_cq = SV_MAX_CQ;
	attr->max_cqe = SV_MAX_CQE;
	attr->max_srq = SV_MAX_SRQ;
	attr->max_srq_wr = SV_MAX_SRQ_WR;
	attr->max_srq_sge = SV_MAX_SRQ_SGE;
	attr->device_cap_flags |= IB_DEVICE_SRQ_RESIZE;
	/*
	 * XRC (IBTA Annex A14): domains (sv_xrcd.c), XRC SRQs (sv_srq.c),
	 * target QPs and user initiator QPs (sv_qp.c, sv_resp.c).  A kernel
	 * initiator is -EOPNOTSUPP: ib_send_wr has no remote SRQ number.
	 */
	attr->device_cap_flags |= IB_DEVICE_XRC;
	/*
	 * MRs and MWs.  The requester executes REG_MR and LOCAL_INV
	 * (sv_mr_fast_reg, sv_mr_invalidate) and BIND_MW of type 1 and 2B
	 * windows (sv_mw_bind); the responder SEND with Invalidate.
	 */
	attr->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS |
				  IB_DEVICE_MEM_WINDOW |
				  IB_DEVICE_MEM_WINDOW_TYPE_2B;
	attr->max_mr = SV_MAX_MR;
	attr->max_mr_size = SV_MAX_MR_SIZE;
	attr->max_mw = SV_MAX_MW;
	attr->max_fast_reg_page_list_len = SV_MAX_FAST_REG_PAGES;
	/* QPs, AHs and multicast (sv_qp.c, sv_av.c, sv_mcast.c) */
	attr->max_qp = SV_MAX_QP;
	attr->max_qp_wr = SV_MAX_QP_WR;
	attr->max_send_sge = SV_MAX_QP_SGE;
	attr->max_recv_sge = SV_MAX_QP_SGE;
	attr->max_sge_rd = SV_MAX_SGE_RD;
	attr->max_qp_rd_atom = SV_MAX_QP_RD_ATOM;
	attr->max_qp_init_rd_atom = SV_MAX_QP_INIT_RD_ATOM;
	attr->max_res_rd_atom = SV_MAX_RES_RD_ATOM;
	attr->max_ah = SV_MAX_AH;
	attr->max_mcast_grp = SV_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SV_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SV_MAX_TOTAL_MCAST_QP_ATTACH;
	attr->local_ca_ack_delay = SV_LOCAL_CA_ACK_DELAY;
	/*
	 * What modify_qp and the AVs enforce: IB_QP_CUR_STATE is checked
	 * against the real state, an AV must name our port.  (sys_image_guid
	 * is set above.)  The responder sends RNR NAKs, and the requester
	 * honours them (rnr_retry).
	 */
	attr->device_cap_flags |= IB_DEVICE_SYS_IMAGE_GUID |
				  IB_DEVICE_CURR_QP_STATE_MOD |
				  IB_DEVICE_UD_AV_PORT_ENFORCE |
				  IB_DEVICE_RC_RNR_NAK_GEN;
	/*
	 * Compare & Swap and Fetch & Add (sv_mr_atomic): atomic among all
	 * softverbs QPs of the host (IBTA 11.2.1.2, ATOMIC_HCA).
	 */
	attr->atomic_cap = IB_ATOMIC_HCA;
	/*
	 * IBTA 1.5 ATOMIC WRITE and FLUSH with global visibility (sv_req.c,
	 * sv_resp.c), where ib_core can carry them (compat.h; 0 on 6.1).
	 * Not FLUSH_PERSISTENT: nothing here makes memory persistent.
	 */
	attr->device_cap_flags |= SV_DEVICE_MPE_CAPS;
	attr->max_pkeys = SV_PORT_PKEY_TBL_LEN;
	/* "rdma link delete" may remove the device */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	/*
	 * On-demand paging (sv_mr.c, sv_odp.c): explicit ODP MRs and
	 * implicit ones (the whole address space, in chunks).  RC: every access waits for its fault (RNR NAK, or
	 * the response or request held back).  UC and UD can only drop a
	 * message whose receive or R_Key target page is absent, so for them
	 * only the requester's gather is advertised, as HCAs do.  FLUSH and
	 * ATOMIC WRITE on RC where ib_core has their bits (compat.h).
	 */
	if (IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)) {
		attr->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
		attr->odp_caps.general_caps = IB_ODP_SUPPORT |
					      IB_ODP_SUPPORT_IMPLICIT;
		attr->odp_caps.per_transport_caps.rc_odp_caps =
			IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
			IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
			IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV |
			SV_ODP_SUPPORT_MPE;
		attr->odp_caps.per_transport_caps.uc_odp_caps =
			IB_ODP_SUPPORT_SEND;
		attr->odp_caps.per_transport_caps.ud_odp_caps =
			IB_ODP_SUPPORT_SEND;
	}
	return 0;
}

static enum ib_port_phys_state sv_port_phys_state(struct sv_dev *sv,
						  enum ib_port_state state)
{
	if (state == IB_PORT_ACTIVE)
		return IB_PORT_PHYS_STATE_LINK_UP;
	if (READ_ONCE(sv->ndev->flags) & IFF_UP)
		return IB_PORT_PHYS_STATE_POLLING;
	return IB_PORT_PHYS_STATE_DISABLED;
}

/* ib_core zeroes *attr before calling */
int sv_port_query(struct ib_device *ibdev, u32 port_num,
		  struct ib_port_attr *attr)
{
	struct sv_dev *sv = to_sv_dev(ibdev);

	attr->state = READ_ONCE(sv->port_state);
	attr->phys_state = sv_port_phys_state(sv, attr->state);
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = READ_ONCE(sv->active_mtu);
	attr->gid_tbl_len = SV_PORT_GID_TBL_LEN;
	attr->pkey_tbl_len = SV_PORT_PKEY_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;	/* rdma_cm works over us */
	attr->max_msg_sz = SV_PORT_MAX_MSG_SZ;
	attr->max_vl_num = 1;

	/*
	 * Sleeps (takes RTNL): query_port is always called in process
	 * context.  Fails while the netdev is being unregistered; the port
	 * is going away then and a nominal speed will do.
	 */
	if (ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			     &attr->active_width)) {
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}
	return 0;
}

int sv_port_immutable(struct ib_device *ibdev, u32 port_num,
		      struct ib_port_immutable *immutable)
{
	struct sv_dev *sv = to_sv_dev(ibdev);

	/*
	 * RoCE v1 (Annex A16) and RoCEv2 (Annex A17), as RoCE NICs: ib_core
	 * lists a GID of each type for every address of the netdev, the v1
	 * one first (GID index 0 is the v1 link-local GID), and every GID in
	 * the table carries traffic (the source GID's type picks the
	 * framing, sv_av.c).  On an L3 netdev (no link header) RoCEv2 only:
	 * ib_core then never makes a v1 GID, so nothing can ask for v1
	 * framing there, and rdma_cm refuses the v1 mode for the device.
	 */
	if (sv->l3)
		immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	else
		immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE |
					    RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->gid_tbl_len = SV_PORT_GID_TBL_LEN;
	immutable->pkey_tbl_len = SV_PORT_PKEY_TBL_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

/*
 * Is the address of @gid (IPv4-mapped or IPv6) an address of @ndev?  Any
 * context; a hash lookup for IPv6, a walk of the netdev's few addresses
 * for IPv4.
 */
bool sv_port_gid_is_addr_of(const union ib_gid *gid, struct net_device *ndev)
{
	const struct in6_addr *a6 = (const struct in6_addr *)gid->raw;
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	bool found = false;

	if (!ipv6_addr_v4mapped(a6))
		return ipv6_chk_addr_and_flags(dev_net(ndev), a6, ndev, false,
					       1, 0);
	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (ifa->ifa_local == a6->s6_addr32[3]) {
				found = true;
				break;
			}
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * ib_core's add_gid callback, for devices on L3 netdevs only
 * (sv_dev_l3_ops).  The table takes only GIDs that are addresses of the
 * netdev.  That keeps out the default GID, which ib_core derives from a
 * MAC (fe80::/64 and the EUI-64 of dev_addr, roce_gid_mgmt.c) and which on
 * a netdev without a MAC is fe80:: with a zero interface ID, an address
 * nobody has; and, for a point-to-point IPv4 address ("peer"), the GID
 * ib_core makes from the peer's address (it lists ifa_address, which is
 * the peer's there).  ib_core logs each refusal ("GID add failed").
 */
int sv_port_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct sv_dev *sv = to_sv_dev(attr->device);

	if (attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP ||
	    !sv_port_gid_is_addr_of(&attr->gid, sv->ndev)) {
		sv_dbg_dev(sv, "GID %pI6 refused: not an address of %s\n",
			   attr->gid.raw, netdev_name(sv->ndev));
		return -EADDRNOTAVAIL;
	}
	return 0;
}

int sv_port_del_gid(const struct ib_gid_attr *attr, void **context)
{
	return 0;	/* no per-GID state */
}

int sv_port_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		       u16 *pkey)
{
	if (index >= SV_PORT_PKEY_TBL_LEN)
		return -EINVAL;
	*pkey = SV_DEFAULT_PKEY;
	return 0;
}

enum rdma_link_layer sv_port_link_layer(struct ib_device *ibdev, u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

/* ib_core drops the reference we return */
struct net_device *sv_port_get_netdev(struct ib_device *ibdev, u32 port_num)
{
	struct sv_dev *sv = to_sv_dev(ibdev);

	dev_hold(sv->ndev);
	return sv->ndev;
}

void sv_port_get_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "%llu.%llu.%llu",
		 SV_FW_VER >> 32, (SV_FW_VER >> 16) & 0xffff,
		 SV_FW_VER & 0xffff);
}

/*
 * Recompute port state and MTU from the netdev and tell ib_core's
 * consumers when the state changed.  A netdev whose MTU cannot carry a
 * RoCE packet keeps the port down.
 */
void sv_port_update(struct sv_dev *sv)
{
	struct net_device *ndev = sv->ndev;
	enum ib_port_state state = IB_PORT_DOWN;
	enum ib_mtu mtu = sv_eth_mtu_to_ib_mtu(ndev->mtu);
	struct ib_event event = {
		.device = &sv->ibdev,
		.element.port_num = SV_PORT_NUM,
	};

	ASSERT_RTNL();

	if (mtu) {
		WRITE_ONCE(sv->active_mtu, mtu);
		if (netif_running(ndev) && netif_oper_up(ndev))
			state = IB_PORT_ACTIVE;
	}
	if (state == sv->port_state)
		return;
	WRITE_ONCE(sv->port_state, state);

	event.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
						IB_EVENT_PORT_ERR;
	ib_dispatch_event(&event);
	sv_dbg_dev(sv, "port %s\n", state == IB_PORT_ACTIVE ? "active" : "down");
}

static ssize_t parent_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct sv_dev *sv = rdma_device_to_drv_device(device, struct sv_dev,
						      ibdev);

	return sysfs_emit(buf, "%s\n", netdev_name(sv->ndev));
}
static DEVICE_ATTR_RO(parent);

/* marks the device as softverbs for libsoftverbs (SV_SYSFS_VERSION_ATTR) */
static ssize_t softverbs_version_show(struct device *device,
				      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", SV_VERSION);
}
static DEVICE_ATTR_RO(softverbs_version);

static struct attribute *sv_port_dev_attrs[] = {
	&dev_attr_parent.attr,
	&dev_attr_softverbs_version.attr,
	NULL,
};

const struct attribute_group sv_port_dev_attr_group = {
	.attrs = sv_port_dev_attrs,
};
