/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softverbs device limits and constants, in one place.  Every limit here is
 * enforced where objects are created or modified; query_device reports
 * exactly these values.
 */
#ifndef SV_PARAM_H
#define SV_PARAM_H

#include <rdma/ib_verbs.h>

#define SV_VERSION		"0.1.0"

/* ibv_devinfo vendor_id: no IEEE OUI of our own, so the "unassigned" one */
#define SV_VENDOR_ID		0xffffff
#define SV_VENDOR_PART_ID	0x5356		/* "SV" */
#define SV_HW_VERSION		1

enum sv_port_params {
	SV_PORT_NUM		= 1,		/* one port per device */
	SV_PORT_GID_TBL_LEN	= 1024,		/* RoCE v1 + v2 per address */
	SV_PORT_PKEY_TBL_LEN	= 1,		/* RoCE: default P_Key only */
	SV_PORT_MAX_MSG_SZ	= 1 << 31,	/* IBTA: 2^31 bytes */
};

/* object counts per device */
enum sv_dev_params {
	SV_MAX_PD		= 1 << 16,
};

/* RoCE carries only the default partition (IBTA Annex A16.4.3) */
#define SV_DEFAULT_PKEY		0xffff

/*
 * Largest transport header stack that can precede the payload of one RoCEv2
 * packet: BTH (12) + the largest extension combination, RETH+ImmDt or
 * AtomicETH (28), plus the ICRC (4) that follows it.  IP and UDP come on
 * top (IBTA Annex A17.4.1: the IB path MTU counts only the IB payload).
 */
#define SV_ROCE_MAX_IB_HDRS	(12 + 28 + 4)
#define SV_UDP_HDR_LEN		8

#endif /* SV_PARAM_H */
