// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles, building them from received completions, and multicast
 * attachment.
 *
 * CREATE_AH's rxe driver response returns ah_num, the kernel's index of
 * the AH, which UD send WQEs carry (wr.ud.ah_num); the kernel resolves
 * the destination MAC itself.  Kernels from before ah_num (they answered
 * 0 and expected a full address vector in every WQE) predate the range
 * softverbs supports: with them ibv_create_ah fails with EOPNOTSUPP.
 *
 * A UD receive starts with a 40-byte GRH area.  On RoCEv2 over IPv4 it
 * holds the IPv4 header in its last 20 bytes (IBTA Annex A17, RoCEv2),
 * otherwise the IPv6 header / IB GRH (IBTA 8.3).
 * ibv_init_ah_from_wc tells them apart and finds the local GID the packet
 * was sent to in the port's GID table, to answer from the same address.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdlib.h>
#include <string.h>

#include "ulib.h"

/* ------------------------------------------------------------------ */
/* Create and destroy                                                  */

struct ibv_ah *sv_ah_create(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct sv_cmd_create_ah cmd = {};
	struct sv_resp_create_ah resp;
	struct ib_uverbs_ah_attr *a = &cmd.core.attr;
	struct sv_ah *ah;
	int err;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	cmd.core.user_handle = (uintptr_t)&ah->ibah;
	cmd.core.pd_handle = pd->handle;
	memcpy(a->grh.dgid, attr->grh.dgid.raw, sizeof(a->grh.dgid));
	a->grh.flow_label = attr->grh.flow_label;
	a->grh.sgid_index = attr->grh.sgid_index;
	a->grh.hop_limit = attr->grh.hop_limit;
	a->grh.traffic_class = attr->grh.traffic_class;
	a->dlid = attr->dlid;
	a->sl = attr->sl;
	a->src_path_bits = attr->src_path_bits;
	a->static_rate = attr->static_rate;
	a->is_global = attr->is_global;
	a->port_num = attr->port_num;
	err = SV_CMD(pd->context->cmd_fd, CREATE_AH, &cmd, &resp);
	if (err)
		goto err_free;
	if (!resp.drv.ah_num) {
		struct sv_cmd_destroy_ah dcmd = {
			.core.ah_handle = resp.core.ah_handle,
		};

		sv_cmd_write(pd->context->cmd_fd, IB_USER_VERBS_CMD_DESTROY_AH,
			     &dcmd, sizeof(dcmd), NULL, 0);
		err = EOPNOTSUPP;
		goto err_free;
	}
	ah->ibah.context = pd->context;
	ah->ibah.pd = pd;
	ah->ibah.handle = resp.core.ah_handle;
	ah->ah_num = resp.drv.ah_num;
	return &ah->ibah;

err_free:
	free(ah);
	errno = err;
	return NULL;
}

int sv_ah_destroy(struct ibv_ah *ibah)
{
	struct sv_cmd_destroy_ah cmd = { .core.ah_handle = ibah->handle };
	int err;

	err = sv_cmd_write(ibah->context->cmd_fd, IB_USER_VERBS_CMD_DESTROY_AH,
			   &cmd, sizeof(cmd), NULL, 0);
	if (err)
		return err;
	free(to_sv_ah(ibah));
	return 0;
}

/* ------------------------------------------------------------------ */
/* GRH parsing                                                         */

/* IBTA 8.3.1 / RFC 8200: next header 0x1B means an IB BTH (RoCE v1). */
#define SV_NEXT_HDR_IB_BTH	0x1b

static void ipv4_to_gid(union ibv_gid *gid, uint32_t addr_be)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &addr_be, 4);
}

/* RFC 1071 one's complement sum over the 20-byte header, 0 when valid. */
static uint16_t ipv4_csum(const uint8_t *h)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static bool looks_like_ipv4(const uint8_t *h)
{
	/* version 4, no options (RoCEv2 never sends any), valid checksum */
	return h[0] == 0x45 && ipv4_csum(h) == 0;
}

int sv_grh_parse(const struct ibv_grh *grh, struct sv_grh_info *info)
{
	const uint8_t *raw = (const uint8_t *)grh;
	const uint8_t *ip4 = raw + 20;
	uint32_t vtf = be32toh(grh->version_tclass_flow);

	memset(info, 0, sizeof(*info));
	/*
	 * An IPv4 packet leaves the first 20 bytes to the driver (zero on
	 * rxe), so a version other than 6 there means IPv4.  With 6 it is
	 * IPv6 unless a well-formed IPv4 header sits in the last 20 bytes,
	 * which the tail of an IPv6 header (the GIDs) practically never is.
	 */
	if ((vtf >> 28) != 6 || looks_like_ipv4(ip4)) {
		uint32_t saddr, daddr;

		if ((ip4[0] >> 4) != 4 || (ip4[0] & 0xf) != 5)
			return EPROTONOSUPPORT;
		memcpy(&saddr, ip4 + 12, 4);
		memcpy(&daddr, ip4 + 16, 4);
		/* a multicast destination is in no GID table */
		if (IN_MULTICAST(be32toh(daddr)))
			return EINVAL;
		info->ip_version = 4;
		ipv4_to_gid(&info->sgid, saddr);
		ipv4_to_gid(&info->dgid, daddr);
		info->traffic_class = ip4[1];	/* TOS */
		info->hop_limit = ip4[8];	/* TTL */
		info->flow_label = 0;
		info->gid_type = IBV_GID_TYPE_ROCE_V2;
		return 0;
	}

	if (grh->dgid.raw[0] == 0xff)
		return EINVAL;
	if (grh->next_hdr == IPPROTO_UDP)
		info->gid_type = IBV_GID_TYPE_ROCE_V2;
	else if (grh->next_hdr == SV_NEXT_HDR_IB_BTH)
		info->gid_type = IBV_GID_TYPE_IB;	/* or RoCE v1 */
	else
		return EPROTONOSUPPORT;
	info->ip_version = 6;
	info->sgid = grh->sgid;
	info->dgid = grh->dgid;
	info->traffic_class = (vtf >> 20) & 0xff;
	info->flow_label = vtf & 0xfffff;
	info->hop_limit = grh->hop_limit;
	return 0;
}

/*
 * Index of gid in the port's table with a matching type; IB and RoCE v1
 * GIDs share the one "IB/RoCE v1" kind.  Positive errno when absent.
 */
static int find_gid_index(struct ibv_context *ctx, uint8_t port,
			  const union ibv_gid *gid, enum ibv_gid_type type,
			  uint8_t *index)
{
	struct ibv_port_attr pattr;
	struct ibv_gid_entry e;
	int i, err;

	err = ibv_query_port(ctx, port, &pattr);
	if (err)
		return err;
	for (i = 0; i < pattr.gid_tbl_len && i <= UINT8_MAX; i++) {
		if (_ibv_query_gid_ex(ctx, port, (uint32_t)i, &e, 0, sizeof(e)))
			continue;	/* empty slot */
		if (memcmp(&e.gid, gid, sizeof(*gid)))
			continue;
		if (type == IBV_GID_TYPE_ROCE_V2 ?
		    e.gid_type != IBV_GID_TYPE_ROCE_V2 :
		    e.gid_type == IBV_GID_TYPE_ROCE_V2)
			continue;
		*index = (uint8_t)i;
		return 0;
	}
	return ENOENT;
}

SV_EXPORT int ibv_init_ah_from_wc(struct ibv_context *context,
				  uint8_t port_num, struct ibv_wc *wc,
				  struct ibv_grh *grh,
				  struct ibv_ah_attr *ah_attr)
{
	struct sv_grh_info info;
	int err;

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;

	err = sv_grh_parse(grh, &info);
	if (err)
		goto fail;
	/* Answer from the address the request came to ... */
	err = find_gid_index(context, port_num, &info.dgid, info.gid_type,
			     &ah_attr->grh.sgid_index);
	if (err)
		goto fail;
	/* ... to the address it came from. */
	ah_attr->is_global = 1;
	ah_attr->grh.dgid = info.sgid;
	ah_attr->grh.flow_label = info.flow_label;
	ah_attr->grh.hop_limit = info.hop_limit;
	ah_attr->grh.traffic_class = info.traffic_class;
	return 0;

fail:
	errno = err;
	return -1;
}

SV_EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd,
					       struct ibv_wc *wc,
					       struct ibv_grh *grh,
					       uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr))
		return NULL;
	return ibv_create_ah(pd, &attr);
}

/* ------------------------------------------------------------------ */
/* Multicast                                                           */

int sv_mcast_attach(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	struct sv_cmd_attach_mcast cmd = {
		.core.qp_handle = qp->handle,
		.core.mlid = lid,
	};

	memcpy(cmd.core.gid, gid->raw, sizeof(cmd.core.gid));
	return sv_cmd_write(qp->context->cmd_fd, IB_USER_VERBS_CMD_ATTACH_MCAST,
			    &cmd, sizeof(cmd), NULL, 0);
}

int sv_mcast_detach(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	struct sv_cmd_detach_mcast cmd = {
		.core.qp_handle = qp->handle,
		.core.mlid = lid,
	};

	memcpy(cmd.core.gid, gid->raw, sizeof(cmd.core.gid));
	return sv_cmd_write(qp->context->cmd_fd, IB_USER_VERBS_CMD_DETACH_MCAST,
			    &cmd, sizeof(cmd), NULL, 0);
}
