// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * devinfo — print softverbs devices the way `ibv_devinfo -v` does, as one
 * "key: value" per line.
 *
 * It is an ordinary verbs program: it includes the distro's
 * <infiniband/verbs.h> unchanged and links with -lsoftverbs, so it also
 * proves the inline wrappers (ibv_query_port, ibv_query_device_ex,
 * ibv_query_gid_ex) work against libsoftverbs.
 *
 * Output contract (tests/user compares it with distro `ibv_devinfo -v` on
 * the same device): every key is spelled as ibv_devinfo spells it and every
 * value is formatted as ibv_devinfo formats it, so turning ibv_devinfo's
 * "key:<tabs>value" into "key: value" makes each of our lines appear in its
 * output, in the same order.  Keys repeat per device ("hca_id" starts one)
 * and per port ("port" starts one).  GID lines are "GID[%3d]: <gid>[, type]".
 *
 *   devinfo [-d DEV] [-l]
 *     -d DEV  only this device
 *     -l      list devices without opening them (hca_id, node_guid)
 */
#include <arpa/inet.h>
#include <endian.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

static const char *guid_str(__be64 be, char *buf)
{
	uint64_t g = be64toh(be);

	sprintf(buf, "%04x:%04x:%04x:%04x", (unsigned int)(g >> 48) & 0xffff,
		(unsigned int)(g >> 32) & 0xffff,
		(unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
	return buf;
}

static const char *transport_str(enum ibv_transport_type t)
{
	switch (t) {
	case IBV_TRANSPORT_IB: return "InfiniBand";
	case IBV_TRANSPORT_IWARP: return "iWARP";
	case IBV_TRANSPORT_USNIC: return "usNIC";
	case IBV_TRANSPORT_USNIC_UDP: return "usNIC UDP";
	case IBV_TRANSPORT_UNSPECIFIED: return "unspecified";
	default: return "invalid transport";
	}
}

static const char *port_state_name(enum ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_DOWN: return "PORT_DOWN";
	case IBV_PORT_INIT: return "PORT_INIT";
	case IBV_PORT_ARMED: return "PORT_ARMED";
	case IBV_PORT_ACTIVE: return "PORT_ACTIVE";
	default: return "invalid state";
	}
}

static const char *mtu_name(enum ibv_mtu m)
{
	switch (m) {
	case IBV_MTU_256: return "256";
	case IBV_MTU_512: return "512";
	case IBV_MTU_1024: return "1024";
	case IBV_MTU_2048: return "2048";
	case IBV_MTU_4096: return "4096";
	default: return "invalid MTU";
	}
}

static const char *atomic_name(enum ibv_atomic_cap a)
{
	switch (a) {
	case IBV_ATOMIC_NONE: return "ATOMIC_NONE";
	case IBV_ATOMIC_HCA: return "ATOMIC_HCA";
	case IBV_ATOMIC_GLOB: return "ATOMIC_GLOB";
	default: return "invalid atomic capability";
	}
}

static const char *link_layer_name(uint8_t ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_UNSPECIFIED: return "Unspecified";
	case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
	default: return "Unknown";
	}
}

/* IB encodings of the port attributes (IBTA 14.2.5.6, PortInfo). */
static const char *vl_name(uint8_t v)
{
	static const char *const n[] = { NULL, "1", "2", "4", "8", "15" };

	return v < 6 && n[v] ? n[v] : "invalid value";
}

static const char *width_name(uint8_t w)
{
	switch (w) {
	case 1: return "1";
	case 2: return "4";
	case 4: return "8";
	case 8: return "12";
	case 16: return "2";
	default: return "invalid width";
	}
}

static const char *speed_name(uint8_t s)
{
	switch (s) {
	case 1: return "2.5 Gbps";
	case 2: return "5.0 Gbps";
	case 4:
	case 8: return "10.0 Gbps";
	case 16: return "14.0 Gbps";
	case 32: return "25.0 Gbps";
	case 64: return "50.0 Gbps";
	case 128: return "100.0 Gbps";
	default: return "invalid speed";
	}
}

static const char *phys_state_name(uint8_t p)
{
	static const char *const n[] = {
		NULL, "SLEEP", "POLLING", "DISABLED",
		"PORT_CONFIGURATION TRAINNING", "LINK_UP",
		"LINK_ERROR_RECOVERY", "PHY TEST",
	};

	return p < 8 && n[p] ? n[p] : "invalid physical state";
}

static void print_gids(struct ibv_context *ctx, uint8_t port,
		       const struct ibv_port_attr *pa)
{
	struct ibv_gid_entry e;
	int i;

	for (i = 0; i < pa->gid_tbl_len; i++) {
		char text[INET6_ADDRSTRLEN], suffix[20] = "";
		const uint8_t *r = e.gid.raw;
		int ret = ibv_query_gid_ex(ctx, port, i, &e, 0);

		if (ret == ENODATA)
			continue;	/* empty slot */
		if (ret) {
			fprintf(stderr, "query GID %u/%d: %s\n", port, i,
				strerror(ret));
			continue;
		}
		if (pa->link_layer == IBV_LINK_LAYER_ETHERNET)
			snprintf(suffix, sizeof(suffix), ", %s",
				 e.gid_type == IBV_GID_TYPE_ROCE_V2 ?
				 "RoCE v2" : "RoCE v1");
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2) {
			inet_ntop(AF_INET6, r, text, sizeof(text));
			printf("GID[%3d]: %s%s\n", i, text, suffix);
		} else {
			printf("GID[%3d]: %02x%02x:%02x%02x:%02x%02x:%02x%02x:"
			       "%02x%02x:%02x%02x:%02x%02x:%02x%02x%s\n", i,
			       r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
			       r[8], r[9], r[10], r[11], r[12], r[13], r[14],
			       r[15], suffix);
		}
	}
}

static int print_port(struct ibv_context *ctx, struct ibv_device *dev,
		      uint8_t port)
{
	struct ibv_port_attr pa;
	int ret;

	ret = ibv_query_port(ctx, port, &pa);
	if (ret) {
		fprintf(stderr, "query port %u: %s\n", port, strerror(ret));
		return 1;
	}
	printf("port: %u\n", port);
	printf("state: %s (%d)\n", port_state_name(pa.state), pa.state);
	printf("max_mtu: %s (%d)\n", mtu_name(pa.max_mtu), pa.max_mtu);
	printf("active_mtu: %s (%d)\n", mtu_name(pa.active_mtu), pa.active_mtu);
	printf("sm_lid: %d\n", pa.sm_lid);
	printf("port_lid: %d\n", pa.lid);
	printf("port_lmc: 0x%02x\n", pa.lmc);
	printf("link_layer: %s\n", link_layer_name(pa.link_layer));
	printf("max_msg_sz: 0x%x\n", pa.max_msg_sz);
	printf("port_cap_flags: 0x%08x\n", pa.port_cap_flags);
	printf("port_cap_flags2: 0x%04x\n", pa.port_cap_flags2);
	printf("max_vl_num: %s (%d)\n", vl_name(pa.max_vl_num), pa.max_vl_num);
	printf("bad_pkey_cntr: 0x%x\n", pa.bad_pkey_cntr);
	printf("qkey_viol_cntr: 0x%x\n", pa.qkey_viol_cntr);
	printf("sm_sl: %d\n", pa.sm_sl);
	printf("pkey_tbl_len: %d\n", pa.pkey_tbl_len);
	printf("gid_tbl_len: %d\n", pa.gid_tbl_len);
	printf("subnet_timeout: %d\n", pa.subnet_timeout);
	printf("init_type_reply: %d\n", pa.init_type_reply);
	printf("active_width: %sX (%d)\n", width_name(pa.active_width),
	       pa.active_width);
	printf("active_speed: %s (%d)\n", speed_name(pa.active_speed),
	       pa.active_speed);
	if (dev->transport_type == IBV_TRANSPORT_IB)
		printf("phys_state: %s (%d)\n", phys_state_name(pa.phys_state),
		       pa.phys_state);
	print_gids(ctx, port, &pa);
	return 0;
}

static int print_device(struct ibv_device *dev)
{
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr *a = &ax.orig_attr;
	struct ibv_context *ctx;
	char buf[32];
	int ret, rc = 0;
	uint8_t port;

	ctx = ibv_open_device(dev);
	if (!ctx) {
		perror("ibv_open_device");
		return 1;
	}
	ret = ibv_query_device_ex(ctx, NULL, &ax);
	if (ret) {
		fprintf(stderr, "ibv_query_device_ex: %s\n", strerror(ret));
		ibv_close_device(ctx);
		return 1;
	}

	printf("hca_id: %s\n", ibv_get_device_name(dev));
	printf("transport: %s (%d)\n", transport_str(dev->transport_type),
	       dev->transport_type);
	if (a->fw_ver[0])
		printf("fw_ver: %s\n", a->fw_ver);
	printf("node_guid: %s\n", guid_str(a->node_guid, buf));
	printf("sys_image_guid: %s\n", guid_str(a->sys_image_guid, buf));
	printf("vendor_id: 0x%04x\n", a->vendor_id);
	printf("vendor_part_id: %d\n", a->vendor_part_id);
	printf("hw_ver: 0x%X\n", a->hw_ver);
	printf("phys_port_cnt: %d\n", a->phys_port_cnt);
	printf("max_mr_size: 0x%llx\n", (unsigned long long)a->max_mr_size);
	printf("page_size_cap: 0x%llx\n", (unsigned long long)a->page_size_cap);
	printf("max_qp: %d\n", a->max_qp);
	printf("max_qp_wr: %d\n", a->max_qp_wr);
	printf("device_cap_flags: 0x%08x\n", a->device_cap_flags);
	printf("max_sge: %d\n", a->max_sge);
	printf("max_sge_rd: %d\n", a->max_sge_rd);
	printf("max_cq: %d\n", a->max_cq);
	printf("max_cqe: %d\n", a->max_cqe);
	printf("max_mr: %d\n", a->max_mr);
	printf("max_pd: %d\n", a->max_pd);
	printf("max_qp_rd_atom: %d\n", a->max_qp_rd_atom);
	printf("max_ee_rd_atom: %d\n", a->max_ee_rd_atom);
	printf("max_res_rd_atom: %d\n", a->max_res_rd_atom);
	printf("max_qp_init_rd_atom: %d\n", a->max_qp_init_rd_atom);
	printf("max_ee_init_rd_atom: %d\n", a->max_ee_init_rd_atom);
	printf("atomic_cap: %s (%d)\n", atomic_name(a->atomic_cap),
	       a->atomic_cap);
	printf("max_ee: %d\n", a->max_ee);
	printf("max_rdd: %d\n", a->max_rdd);
	printf("max_mw: %d\n", a->max_mw);
	printf("max_raw_ipv6_qp: %d\n", a->max_raw_ipv6_qp);
	printf("max_raw_ethy_qp: %d\n", a->max_raw_ethy_qp);
	printf("max_mcast_grp: %d\n", a->max_mcast_grp);
	printf("max_mcast_qp_attach: %d\n", a->max_mcast_qp_attach);
	printf("max_total_mcast_qp_attach: %d\n", a->max_total_mcast_qp_attach);
	printf("max_ah: %d\n", a->max_ah);
	printf("max_fmr: %d\n", a->max_fmr);
	if (a->max_fmr)
		printf("max_map_per_fmr: %d\n", a->max_map_per_fmr);
	printf("max_srq: %d\n", a->max_srq);
	if (a->max_srq) {
		printf("max_srq_wr: %d\n", a->max_srq_wr);
		printf("max_srq_sge: %d\n", a->max_srq_sge);
	}
	printf("max_pkeys: %d\n", a->max_pkeys);
	printf("local_ca_ack_delay: %d\n", a->local_ca_ack_delay);
	printf("device_cap_flags_ex: 0x%" PRIX64 "\n", ax.device_cap_flags_ex);
	printf("max_wq_type_rq: %u\n", ax.max_wq_type_rq);
	printf("num_comp_vectors: %d\n", ctx->num_comp_vectors);

	for (port = 1; port <= a->phys_port_cnt; port++)
		rc |= print_port(ctx, dev, port);

	ibv_close_device(ctx);
	return rc;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	const char *only = NULL;
	int list_only = 0, n, i, rc = 0, found = 0, opt;
	char buf[32];

	while ((opt = getopt(argc, argv, "d:l")) != -1) {
		switch (opt) {
		case 'd':
			only = optarg;
			break;
		case 'l':
			list_only = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-l]\n", argv[0]);
			return 2;
		}
	}

	list = ibv_get_device_list(&n);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (only && strcmp(only, ibv_get_device_name(list[i])))
			continue;
		found++;
		if (list_only) {
			printf("hca_id: %s\n", ibv_get_device_name(list[i]));
			printf("node_guid: %s\n",
			       guid_str(ibv_get_device_guid(list[i]), buf));
			continue;
		}
		rc |= print_device(list[i]);
	}
	ibv_free_device_list(list);
	if (!found) {
		fprintf(stderr, only ? "device %s not found\n" :
			"no softverbs devices found\n", only);
		return 1;
	}
	return rc;
}
