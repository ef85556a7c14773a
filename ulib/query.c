// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device, port, GID and P_Key queries.
 *
 * Device and port attributes come from uverbs commands; GIDs and P_Keys from
 * the ib_device's sysfs directory, which the kernel keeps in sync with its
 * GID cache (ports/N/gids/I, ports/N/gid_attrs/{types,ndevs}/I,
 * ports/N/pkeys/I).
 */
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ulib.h"

/* The verbs.h macro would turn our definition into its inline wrapper. */
#undef ibv_query_port

void sv_format_fw_ver(char *buf, size_t len, uint64_t raw)
{
	/* Same text librxe produces, so ibv_devinfo output matches. */
	snprintf(buf, len, "%u.%u.%u", (unsigned int)(raw >> 32) & 0xffff,
		 (unsigned int)(raw >> 16) & 0xffff, (unsigned int)raw & 0xffff);
}

static void copy_base_attr(struct ibv_device_attr *a,
			   const struct ib_uverbs_query_device_resp *r)
{
	sv_format_fw_ver(a->fw_ver, sizeof(a->fw_ver), r->fw_ver);
	a->node_guid = r->node_guid;
	a->sys_image_guid = r->sys_image_guid;
	a->max_mr_size = r->max_mr_size;
	a->page_size_cap = r->page_size_cap;
	a->vendor_id = r->vendor_id;
	a->vendor_part_id = r->vendor_part_id;
	a->hw_ver = r->hw_ver;
	a->max_qp = r->max_qp;
	a->max_qp_wr = r->max_qp_wr;
	a->device_cap_flags = r->device_cap_flags;
	a->max_sge = r->max_sge;
	a->max_sge_rd = r->max_sge_rd;
	a->max_cq = r->max_cq;
	a->max_cqe = r->max_cqe;
	a->max_mr = r->max_mr;
	a->max_pd = r->max_pd;
	a->max_qp_rd_atom = r->max_qp_rd_atom;
	a->max_ee_rd_atom = r->max_ee_rd_atom;
	a->max_res_rd_atom = r->max_res_rd_atom;
	a->max_qp_init_rd_atom = r->max_qp_init_rd_atom;
	a->max_ee_init_rd_atom = r->max_ee_init_rd_atom;
	a->atomic_cap = (enum ibv_atomic_cap)r->atomic_cap;
	a->max_ee = r->max_ee;
	a->max_rdd = r->max_rdd;
	a->max_mw = r->max_mw;
	a->max_raw_ipv6_qp = r->max_raw_ipv6_qp;
	a->max_raw_ethy_qp = r->max_raw_ethy_qp;
	a->max_mcast_grp = r->max_mcast_grp;
	a->max_mcast_qp_attach = r->max_mcast_qp_attach;
	a->max_total_mcast_qp_attach = r->max_total_mcast_qp_attach;
	a->max_ah = r->max_ah;
	a->max_fmr = r->max_fmr;
	a->max_map_per_fmr = r->max_map_per_fmr;
	a->max_srq = r->max_srq;
	a->max_srq_wr = r->max_srq_wr;
	a->max_srq_sge = r->max_srq_sge;
	a->max_pkeys = r->max_pkeys;
	a->local_ca_ack_delay = r->local_ca_ack_delay;
	a->phys_port_cnt = r->phys_port_cnt;
}

/* True when the kernel's response_length covers field f of the ex resp. */
#define EX_HAS(r, f) \
	((r)->response_length >= offsetof(struct ib_uverbs_ex_query_device_resp, f) + \
	 sizeof((r)->f))

static void copy_ex_attr(struct ibv_device_attr_ex *a,
			 const struct ib_uverbs_ex_query_device_resp *r)
{
	copy_base_attr(&a->orig_attr, &r->base);
	if (EX_HAS(r, odp_caps)) {
		a->odp_caps.general_caps = r->odp_caps.general_caps;
		a->odp_caps.per_transport_caps.rc_odp_caps =
			r->odp_caps.per_transport_caps.rc_odp_caps;
		a->odp_caps.per_transport_caps.uc_odp_caps =
			r->odp_caps.per_transport_caps.uc_odp_caps;
		a->odp_caps.per_transport_caps.ud_odp_caps =
			r->odp_caps.per_transport_caps.ud_odp_caps;
	}
	if (EX_HAS(r, timestamp_mask))
		a->completion_timestamp_mask = r->timestamp_mask;
	if (EX_HAS(r, hca_core_clock))
		a->hca_core_clock = r->hca_core_clock;
	if (EX_HAS(r, device_cap_flags_ex))
		a->device_cap_flags_ex = r->device_cap_flags_ex;
	if (EX_HAS(r, rss_caps)) {
		a->rss_caps.supported_qpts = r->rss_caps.supported_qpts;
		a->rss_caps.max_rwq_indirection_tables =
			r->rss_caps.max_rwq_indirection_tables;
		a->rss_caps.max_rwq_indirection_table_size =
			r->rss_caps.max_rwq_indirection_table_size;
	}
	if (EX_HAS(r, max_wq_type_rq))
		a->max_wq_type_rq = r->max_wq_type_rq;
	if (EX_HAS(r, raw_packet_caps))
		a->raw_packet_caps = r->raw_packet_caps;
	if (EX_HAS(r, tm_caps)) {
		a->tm_caps.max_rndv_hdr_size = r->tm_caps.max_rndv_hdr_size;
		a->tm_caps.max_num_tags = r->tm_caps.max_num_tags;
		a->tm_caps.flags = r->tm_caps.flags;
		a->tm_caps.max_ops = r->tm_caps.max_ops;
		a->tm_caps.max_sge = r->tm_caps.max_sge;
	}
	if (EX_HAS(r, cq_moderation_caps)) {
		a->cq_mod_caps.max_cq_count =
			r->cq_moderation_caps.max_cq_moderation_count;
		a->cq_mod_caps.max_cq_period =
			r->cq_moderation_caps.max_cq_moderation_period;
	}
	if (EX_HAS(r, max_dm_size))
		a->max_dm_size = r->max_dm_size;
	if (EX_HAS(r, xrc_odp_caps))
		a->xrc_odp_caps = r->xrc_odp_caps;
}

static bool not_supported(int err)
{
	return err == ENOSYS || err == EOPNOTSUPP || err == EPROTONOSUPPORT;
}

/*
 * Extended QUERY_DEVICE first; if the kernel refuses the command itself,
 * remember that and use the legacy one from then on (detect, don't trust
 * version numbers).
 */
static int query_device_full(struct sv_context *ctx,
			     struct ibv_device_attr_ex *attr)
{
	int fd = ctx->vctx.context.cmd_fd;
	int err;

	memset(attr, 0, sizeof(*attr));
	if (!atomic_load(&ctx->no_ex_query_device)) {
		struct sv_cmd_ex_query_device cmd = {};
		struct sv_resp_ex_query_device resp;

		err = sv_cmd_write_ex(fd, IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
				      &cmd, sizeof(cmd.core), 0, &resp,
				      sizeof(resp.core), 0);
		if (!err) {
			copy_ex_attr(attr, &resp.core);
			goto out;
		}
		if (!not_supported(err))
			return err;
		atomic_store(&ctx->no_ex_query_device, true);
	}

	{
		struct sv_cmd_query_device cmd = {};
		struct sv_resp_query_device resp;

		err = SV_CMD(fd, QUERY_DEVICE, &cmd, &resp);
		if (err)
			return err;
		copy_base_attr(&attr->orig_attr, &resp.core);
	}
out:
	attr->phys_port_cnt_ex = attr->orig_attr.phys_port_cnt;
	return 0;
}

int sv_query_device_ex(struct ibv_context *context,
		       const struct ibv_query_device_ex_input *input,
		       struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex full;
	int err;

	if (input && input->comp_mask)
		return EINVAL;
	if (attr_size < sizeof(attr->orig_attr))
		return EINVAL;

	err = query_device_full(to_sv_context(context), &full);
	if (err)
		return err;
	/* A program built against older headers passes a smaller struct. */
	if (attr_size > sizeof(full)) {
		memset((char *)attr + sizeof(full), 0, attr_size - sizeof(full));
		attr_size = sizeof(full);
	}
	memcpy(attr, &full, attr_size);
	return 0;
}

SV_EXPORT int ibv_query_device(struct ibv_context *context,
			       struct ibv_device_attr *device_attr)
{
	struct sv_context *ctx = to_sv_context(context);
	struct ibv_device_attr_ex full;
	int err;

	if (!ctx->ops->query_device_ex)
		return EOPNOTSUPP;
	err = ctx->ops->query_device_ex(context, NULL, &full, sizeof(full));
	if (err)
		return err;
	*device_attr = full.orig_attr;
	return 0;
}

void sv_port_attr_from_resp(struct ibv_port_attr *a,
			    const struct ib_uverbs_query_port_resp *r)
{
	memset(a, 0, sizeof(*a));
	a->state = (enum ibv_port_state)r->state;
	a->max_mtu = (enum ibv_mtu)r->max_mtu;
	a->active_mtu = (enum ibv_mtu)r->active_mtu;
	a->gid_tbl_len = r->gid_tbl_len;
	a->port_cap_flags = r->port_cap_flags;
	a->max_msg_sz = r->max_msg_sz;
	a->bad_pkey_cntr = r->bad_pkey_cntr;
	a->qkey_viol_cntr = r->qkey_viol_cntr;
	a->pkey_tbl_len = r->pkey_tbl_len;
	a->lid = r->lid;
	a->sm_lid = r->sm_lid;
	a->lmc = r->lmc;
	a->max_vl_num = r->max_vl_num;
	a->sm_sl = r->sm_sl;
	a->subnet_timeout = r->subnet_timeout;
	a->init_type_reply = r->init_type_reply;
	a->active_width = r->active_width;
	a->active_speed = r->active_speed;
	a->phys_state = r->phys_state;
	a->link_layer = r->link_layer;
	a->flags = r->flags;
	/* port_cap_flags2 only travels over the ioctl QUERY_PORT method. */
}

int sv_query_port(struct ibv_context *context, uint8_t port_num,
		  struct ibv_port_attr *attr, size_t attr_size)
{
	struct sv_cmd_query_port cmd = { .core.port_num = port_num };
	struct sv_resp_query_port resp;
	struct ibv_port_attr full;
	int err;

	err = SV_CMD(context->cmd_fd, QUERY_PORT, &cmd, &resp);
	if (err)
		return err;
	sv_port_attr_from_resp(&full, &resp.core);
	if (attr_size > sizeof(full)) {
		memset((char *)attr + sizeof(full), 0, attr_size - sizeof(full));
		attr_size = sizeof(full);
	}
	memcpy(attr, &full, attr_size);
	return 0;
}

/* The layout programs built before port_cap_flags2 existed pass in. */
struct _compat_ibv_port_attr;

SV_EXPORT int ibv_query_port(struct ibv_context *context, uint8_t port_num,
			     struct _compat_ibv_port_attr *port_attr)
{
	struct sv_context *ctx = to_sv_context(context);

	if (!ctx->ops->query_port)
		return EOPNOTSUPP;
	/* Old layout = the current one up to and including 'flags'. */
	return ctx->ops->query_port(context, port_num,
				    (struct ibv_port_attr *)port_attr,
				    offsetof(struct ibv_port_attr, flags) +
				    sizeof(uint8_t));
}

/*
 * Lanes per active_width and Gb/s per lane (in 100 Mb/s) per active_speed,
 * IBTA 14.2.5.6 PortInfo; the nominal lane rates ibv_devinfo prints (FDR10
 * is 10 Gb/s like QDR).  ib_core reports an Ethernet port's netdev speed
 * in these terms too (ib_get_eth_speed).
 */
int sv_port_speed(uint8_t width, uint16_t speed, uint64_t *speed_100mbps)
{
	static const struct { uint16_t code, rate; } rates[] = {
		{ 1, 25 },	/* SDR */
		{ 2, 50 },	/* DDR */
		{ 4, 100 },	/* QDR */
		{ 8, 100 },	/* FDR10 */
		{ 16, 140 },	/* FDR */
		{ 32, 250 },	/* EDR */
		{ 64, 500 },	/* HDR */
		{ 128, 1000 },	/* NDR */
		{ 256, 2000 },	/* XDR (active_speed_ex only) */
	};
	unsigned int lanes, i;

	switch (width) {
	case 1: lanes = 1; break;
	case 2: lanes = 4; break;
	case 4: lanes = 8; break;
	case 8: lanes = 12; break;
	case 16: lanes = 2; break;
	default: return EINVAL;
	}
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		if (rates[i].code == speed) {
			*speed_100mbps = (uint64_t)lanes * rates[i].rate;
			return 0;
		}
	}
	return EINVAL;
}

/*
 * ibv_query_port_speed (libibverbs 1.16): the port's bandwidth in
 * 100 Mb/s.  libibverbs asks the kernel's QUERY_PORT_SPEED ioctl method,
 * which ib_core has after 6.12 and only for drivers with a
 * query_port_speed op; softverbs has neither, and its port's speed is
 * exactly what QUERY_PORT reports, so it is computed from that.  Returns
 * the errno (ibv_query_port_speed(3)).
 */
SV_EXPORT int ibv_query_port_speed(struct ibv_context *context,
				   uint32_t port_num, uint64_t *port_speed)
{
	struct ibv_port_attr attr;
	struct sv_context *ctx;
	int err;

	if (!context || !port_speed || !port_num || port_num > UINT8_MAX) {
		errno = EINVAL;
		return EINVAL;
	}
	ctx = to_sv_context(context);
	if (!ctx->ops->query_port) {
		errno = EOPNOTSUPP;
		return EOPNOTSUPP;
	}
	err = ctx->ops->query_port(context, (uint8_t)port_num, &attr,
				   sizeof(attr));
	if (!err)
		err = sv_port_speed(attr.active_width, attr.active_speed,
				    port_speed);
	if (err)
		errno = err;
	return err;
}

/* ------------------------------------------------------------------ */
/* GIDs                                                                */

static bool gid_is_zero(const union ibv_gid *gid)
{
	static const union ibv_gid zero;

	return !memcmp(gid, &zero, sizeof(zero));
}

static int read_gid(struct ibv_context *context, uint32_t port,
		    uint32_t index, union ibv_gid *gid)
{
	char buf[64];

	/* No file: no such port or index. */
	if (sv_sysfs_read(context->device->ibdev_path, buf, sizeof(buf),
			  "ports/%u/gids/%u", port, index) < 0)
		return errno == ENOENT || !errno ? EINVAL : errno;
	return sv_parse_gid(buf, gid);
}

static int port_link_layer(struct ibv_context *context, uint32_t port,
			   struct ibv_port_attr *attr)
{
	struct sv_context *ctx = to_sv_context(context);

	if (port > UINT8_MAX)
		return EINVAL;
	if (!ctx->ops->query_port)
		return EOPNOTSUPP;
	return ctx->ops->query_port(context, port, attr, sizeof(*attr));
}

/*
 * GID type text as the kernel prints it.  An unpopulated slot fails the
 * read with EINVAL; a populated slot without the attribute (an IB port) is
 * v1.  "IB/RoCE v1" means IB on an IB port and RoCE v1 on Ethernet, so only
 * then is the link layer needed: link_layer < 0 means "ask the port".
 */
static int read_gid_type(struct ibv_context *context, uint32_t port,
			 uint32_t index, int link_layer, uint32_t *type)
{
	struct ibv_port_attr pattr;
	char buf[32];
	int err;

	if (sv_sysfs_read(context->device->ibdev_path, buf, sizeof(buf),
			  "ports/%u/gid_attrs/types/%u", port, index) < 0) {
		if (errno != EINVAL && errno != ENOENT)
			return errno;
		strcpy(buf, "IB/RoCE v1");
	}
	if (!strcmp(buf, "RoCE v2"))
		*type = IBV_GID_TYPE_ROCE_V2;
	else if (strcmp(buf, "IB/RoCE v1"))
		return EINVAL;
	else {
		if (link_layer < 0) {
			err = port_link_layer(context, port, &pattr);
			if (err)
				return err;
			link_layer = pattr.link_layer;
		}
		*type = link_layer == IBV_LINK_LAYER_ETHERNET ?
			IBV_GID_TYPE_ROCE_V1 : IBV_GID_TYPE_IB;
	}
	return 0;
}

/*
 * The netdev is looked up in the caller's namespace; when it lives in
 * another one (a softverbs device on a veth moved away) the index is 0
 * rather than an error, so the GID itself stays readable.
 */
static uint32_t read_gid_ifindex(struct ibv_context *context, uint32_t port,
				 uint32_t index)
{
	char buf[IF_NAMESIZE + 2];

	if (sv_sysfs_read(context->device->ibdev_path, buf, sizeof(buf),
			  "ports/%u/gid_attrs/ndevs/%u", port, index) <= 0)
		return 0;
	return if_nametoindex(buf);
}

/* Fill entry; ENODATA for an empty slot. */
static int query_gid_entry(struct ibv_context *context, uint32_t port,
			   uint32_t index, int link_layer,
			   struct ibv_gid_entry *entry)
{
	int err;

	memset(entry, 0, sizeof(*entry));
	err = read_gid(context, port, index, &entry->gid);
	if (err)
		return err;
	if (gid_is_zero(&entry->gid))
		return ENODATA;
	entry->gid_index = index;
	entry->port_num = port;
	err = read_gid_type(context, port, index, link_layer, &entry->gid_type);
	if (err)
		return err;
	entry->ndev_ifindex = read_gid_ifindex(context, port, index);
	return 0;
}

SV_EXPORT int ibv_query_gid(struct ibv_context *context, uint8_t port_num,
			    int index, union ibv_gid *gid)
{
	int err;

	if (index < 0) {
		errno = EINVAL;
		return -1;
	}
	/* An empty slot reads as the zero GID, which the API returns as is. */
	err = read_gid(context, port_num, index, gid);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

SV_EXPORT int _ibv_query_gid_ex(struct ibv_context *context,
				uint32_t port_num, uint32_t gid_index,
				struct ibv_gid_entry *entry, uint32_t flags,
				size_t entry_size)
{
	struct ibv_gid_entry tmp;
	int err;

	if (flags || entry_size < sizeof(tmp))
		return EINVAL;
	err = query_gid_entry(context, port_num, gid_index, -1, &tmp);
	if (err)
		return err;
	memset(entry, 0, entry_size);
	memcpy(entry, &tmp, sizeof(tmp));
	return 0;
}

SV_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context,
				       struct ibv_gid_entry *entries,
				       size_t max_entries, uint32_t flags,
				       size_t entry_size)
{
	struct ibv_device_attr dattr;
	struct ibv_port_attr pattr;
	struct ibv_gid_entry tmp;
	size_t n = 0;
	uint32_t port;
	int err, i;

	if (flags || entry_size < sizeof(tmp))
		return -EINVAL;
	err = ibv_query_device(context, &dattr);
	if (err)
		return -err;

	for (port = 1; port <= dattr.phys_port_cnt; port++) {
		err = port_link_layer(context, port, &pattr);
		if (err)
			return -err;
		for (i = 0; i < pattr.gid_tbl_len; i++) {
			err = query_gid_entry(context, port, i,
					      pattr.link_layer, &tmp);
			if (err == ENODATA)
				continue;
			if (err)
				return -err;
			if (n == max_entries)
				return -EINVAL;	/* caller's array too small */
			memset((char *)entries + n * entry_size, 0, entry_size);
			memcpy((char *)entries + n * entry_size, &tmp,
			       sizeof(tmp));
			n++;
		}
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* P_Keys                                                              */

SV_EXPORT int ibv_query_pkey(struct ibv_context *context, uint8_t port_num,
			     int index, __be16 *pkey)
{
	char buf[16], *end;
	unsigned long v;

	if (index < 0) {
		errno = EINVAL;
		return -1;
	}
	if (sv_sysfs_read(context->device->ibdev_path, buf, sizeof(buf),
			  "ports/%u/pkeys/%d", port_num, index) <= 0)
		return -1;
	errno = 0;
	v = strtoul(buf, &end, 16);	/* "0xffff" */
	if (errno || *end || v > 0xffff) {
		errno = EINVAL;
		return -1;
	}
	*pkey = htobe16((uint16_t)v);
	return 0;
}

SV_EXPORT int ibv_get_pkey_index(struct ibv_context *context,
				 uint8_t port_num, __be16 pkey)
{
	__be16 cur;
	int i;

	/* Stops at the first index sysfs doesn't have. */
	for (i = 0; i <= UINT16_MAX; i++) {
		if (ibv_query_pkey(context, port_num, i, &cur))
			return -1;
		if (cur == pkey)
			return i;
	}
	return -1;
}
