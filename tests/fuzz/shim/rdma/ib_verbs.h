/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of <rdma/ib_verbs.h> the kmod files built in tests/fuzz use:
 * the numbers exactly as ib_core defines them (shared ones from the
 * system's uapi <rdma/ib_user_verbs.h>, as the kernel does), the objects
 * with only the fields those files touch.  An ib_core with the IBTA 1.5
 * Memory Placement Extensions (6.2+): FLUSH and ATOMIC WRITE numbers.
 */
#ifndef SHIM_RDMA_IB_VERBS_H
#define SHIM_RDMA_IB_VERBS_H

#include <linux/types.h>
#include <linux/byteorder.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/shim_net.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

enum ib_qp_type {
	IB_QPT_SMI,
	IB_QPT_GSI,
	IB_QPT_RC = IB_UVERBS_QPT_RC,
	IB_QPT_UC = IB_UVERBS_QPT_UC,
	IB_QPT_UD = IB_UVERBS_QPT_UD,
	IB_QPT_RAW_IPV6,
	IB_QPT_RAW_ETHERTYPE,
	IB_QPT_RAW_PACKET = IB_UVERBS_QPT_RAW_PACKET,
	IB_QPT_XRC_INI = IB_UVERBS_QPT_XRC_INI,
	IB_QPT_XRC_TGT = IB_UVERBS_QPT_XRC_TGT,
	IB_QPT_MAX,
	IB_QPT_DRIVER = IB_UVERBS_QPT_DRIVER,
};

enum ib_wr_opcode {
	IB_WR_RDMA_WRITE = IB_UVERBS_WR_RDMA_WRITE,
	IB_WR_RDMA_WRITE_WITH_IMM = IB_UVERBS_WR_RDMA_WRITE_WITH_IMM,
	IB_WR_SEND = IB_UVERBS_WR_SEND,
	IB_WR_SEND_WITH_IMM = IB_UVERBS_WR_SEND_WITH_IMM,
	IB_WR_RDMA_READ = IB_UVERBS_WR_RDMA_READ,
	IB_WR_ATOMIC_CMP_AND_SWP = IB_UVERBS_WR_ATOMIC_CMP_AND_SWP,
	IB_WR_ATOMIC_FETCH_AND_ADD = IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
	IB_WR_BIND_MW = IB_UVERBS_WR_BIND_MW,
	IB_WR_LSO = IB_UVERBS_WR_TSO,
	IB_WR_SEND_WITH_INV = IB_UVERBS_WR_SEND_WITH_INV,
	IB_WR_RDMA_READ_WITH_INV = IB_UVERBS_WR_RDMA_READ_WITH_INV,
	IB_WR_LOCAL_INV = IB_UVERBS_WR_LOCAL_INV,
	IB_WR_MASKED_ATOMIC_CMP_AND_SWP =
		IB_UVERBS_WR_MASKED_ATOMIC_CMP_AND_SWP,
	IB_WR_MASKED_ATOMIC_FETCH_AND_ADD =
		IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD,
	IB_WR_FLUSH = 14,		/* IB_UVERBS_WR_FLUSH, 6.2+ */
	IB_WR_ATOMIC_WRITE = 15,	/* IB_UVERBS_WR_ATOMIC_WRITE, 6.2+ */
	IB_WR_REG_MR = 0x20,
	IB_WR_REG_MR_INTEGRITY,
};

enum ib_wc_opcode {
	IB_WC_SEND = IB_UVERBS_WC_SEND,
	IB_WC_RDMA_WRITE = IB_UVERBS_WC_RDMA_WRITE,
	IB_WC_RDMA_READ = IB_UVERBS_WC_RDMA_READ,
	IB_WC_COMP_SWAP = IB_UVERBS_WC_COMP_SWAP,
	IB_WC_FETCH_ADD = IB_UVERBS_WC_FETCH_ADD,
	IB_WC_BIND_MW = IB_UVERBS_WC_BIND_MW,
	IB_WC_LOCAL_INV = IB_UVERBS_WC_LOCAL_INV,
	IB_WC_LSO = IB_UVERBS_WC_TSO,
	IB_WC_ATOMIC_WRITE = 9,		/* IB_UVERBS_WC_ATOMIC_WRITE, 6.2+ */
	IB_WC_REG_MR,
	IB_WC_MASKED_COMP_SWAP,
	IB_WC_MASKED_FETCH_ADD,
	IB_WC_FLUSH = 8,		/* IB_UVERBS_WC_FLUSH, 6.2+ */
	IB_WC_RECV = 1 << 7,
	IB_WC_RECV_RDMA_WITH_IMM
};

/* IBTA 1.5 placement types and selectivity levels (uapi of 6.2+) */
enum ib_placement_type {
	IB_FLUSH_GLOBAL = 1U << 0,
	IB_FLUSH_PERSISTENT = 1U << 1,
};

enum ib_selectivity_level {
	IB_FLUSH_RANGE = 0,
	IB_FLUSH_MR,
};

#define IB_DEVICE_FLUSH_GLOBAL		BIT_ULL(38)
#define IB_DEVICE_FLUSH_PERSISTENT	BIT_ULL(39)
#define IB_DEVICE_ATOMIC_WRITE		BIT_ULL(40)

enum ib_access_flags {
	IB_ACCESS_LOCAL_WRITE = IB_UVERBS_ACCESS_LOCAL_WRITE,
	IB_ACCESS_REMOTE_WRITE = IB_UVERBS_ACCESS_REMOTE_WRITE,
	IB_ACCESS_REMOTE_READ = IB_UVERBS_ACCESS_REMOTE_READ,
	IB_ACCESS_REMOTE_ATOMIC = IB_UVERBS_ACCESS_REMOTE_ATOMIC,
	IB_ACCESS_MW_BIND = IB_UVERBS_ACCESS_MW_BIND,
	IB_ZERO_BASED = IB_UVERBS_ACCESS_ZERO_BASED,
	IB_ACCESS_ON_DEMAND = IB_UVERBS_ACCESS_ON_DEMAND,
	IB_ACCESS_HUGETLB = IB_UVERBS_ACCESS_HUGETLB,
	IB_ACCESS_RELAXED_ORDERING = IB_UVERBS_ACCESS_RELAXED_ORDERING,
	IB_ACCESS_FLUSH_GLOBAL = 1 << 8,
	IB_ACCESS_FLUSH_PERSISTENT = 1 << 9,
};

enum ib_send_flags {
	IB_SEND_FENCE		= 1,
	IB_SEND_SIGNALED	= (1 << 1),
	IB_SEND_SOLICITED	= (1 << 2),
	IB_SEND_INLINE		= (1 << 3),
	IB_SEND_IP_CSUM		= (1 << 4),
};

enum rdma_network_type {
	RDMA_NETWORK_IB,
	RDMA_NETWORK_ROCE_V1,
	RDMA_NETWORK_IPV4,
	RDMA_NETWORK_IPV6
};

enum rdma_link_layer {
	IB_LINK_LAYER_UNSPECIFIED,
	IB_LINK_LAYER_INFINIBAND,
	IB_LINK_LAYER_ETHERNET,
};

enum ib_mtu {
	IB_MTU_256  = 1,
	IB_MTU_512  = 2,
	IB_MTU_1024 = 3,
	IB_MTU_2048 = 4,
	IB_MTU_4096 = 5
};

/* bytes of an MTU code: 256 << (code - 1), -1 for no code */
static inline int ib_mtu_enum_to_int(enum ib_mtu mtu)
{
	return mtu >= IB_MTU_256 && mtu <= IB_MTU_4096 ?
	       256 << (mtu - IB_MTU_256) : -1;
}

enum ib_port_state {
	IB_PORT_NOP		= 0,
	IB_PORT_DOWN		= 1,
	IB_PORT_INIT		= 2,
	IB_PORT_ARMED		= 3,
	IB_PORT_ACTIVE		= 4,
	IB_PORT_ACTIVE_DEFER	= 5
};

enum ib_qp_state {
	IB_QPS_RESET,
	IB_QPS_INIT,
	IB_QPS_RTR,
	IB_QPS_RTS,
	IB_QPS_SQD,
	IB_QPS_SQE,
	IB_QPS_ERR
};

enum ib_mw_type {
	IB_MW_TYPE_1 = 1,
	IB_MW_TYPE_2 = 2
};

enum ib_event_type { IB_EVENT_QP_FATAL = 1 };
enum ib_cq_notify_flags { IB_CQ_SOLICITED = 1 << 0, IB_CQ_NEXT_COMP = 1 << 1 };
enum ib_srq_attr_mask { IB_SRQ_MAX_WR = 1 << 0, IB_SRQ_LIMIT = 1 << 1 };
enum ib_mr_type { IB_MR_TYPE_MEM_REG };

union ib_gid {
	u8	raw[16];
	struct {
		__be64	subnet_prefix;
		__be64	interface_id;
	} global;
};

/* the objects: only the fields kmod code built here reads */
struct ib_device { const char *name; };
struct ib_ucontext { struct ib_device *device; };
struct ib_udata { const void *inbuf; void *outbuf; size_t inlen, outlen; };

/* ib_core's "is this user input all zero" (the shim's inbuf is plain memory) */
static inline bool ib_is_udata_cleared(struct ib_udata *udata, size_t offset,
				       size_t len)
{
	const unsigned char *p = (const unsigned char *)udata->inbuf + offset;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}
struct ib_pd { struct ib_device *device; };
struct ib_xrcd { struct ib_device *device; };
struct ib_cq { struct ib_device *device; void *cq_context; };
struct ib_srq { struct ib_device *device; struct ib_pd *pd; };
struct ib_ah { struct ib_device *device; struct ib_pd *pd; };
struct ib_mr { struct ib_device *device; struct ib_pd *pd; u32 lkey, rkey;
	       u64 iova, length; };
struct ib_mw { struct ib_device *device; struct ib_pd *pd; u32 rkey;
	       enum ib_mw_type type; };
struct rdma_ah_attr { union ib_gid dgid; u8 port_num; };
struct ib_qp_cap { u32 max_send_wr, max_recv_wr, max_send_sge,
		   max_recv_sge, max_inline_data; };
struct ib_qp_attr { enum ib_qp_state qp_state; struct ib_qp_cap cap;
		    u8 max_rd_atomic; enum ib_mtu path_mtu; };
struct ib_qp {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_srq		*srq;
	u32			qp_num;
	enum ib_qp_type		qp_type;
};

struct ib_sge {
	u64	addr;
	u32	length;
	u32	lkey;
};

struct ib_send_wr {
	struct ib_send_wr	*next;
	u64			wr_id;
	struct ib_sge		*sg_list;
	int			num_sge;
	enum ib_wr_opcode	opcode;
	int			send_flags;
	union {
		__be32		imm_data;
		u32		invalidate_rkey;
	} ex;
};

struct ib_rdma_wr {
	struct ib_send_wr	wr;
	u64			remote_addr;
	u32			rkey;
};

struct ib_atomic_wr {
	struct ib_send_wr	wr;
	u64			remote_addr;
	u64			compare_add;
	u64			swap;
	u64			compare_add_mask;
	u64			swap_mask;
	u32			rkey;
};

struct ib_ud_wr {
	struct ib_send_wr	wr;
	struct ib_ah		*ah;
	void			*header;
	int			hlen;
	int			mss;
	u32			remote_qpn;
	u32			remote_qkey;
	u16			pkey_index;
	u32			port_num;
};

struct ib_reg_wr {
	struct ib_send_wr	wr;
	struct ib_mr		*mr;
	u32			key;
	int			access;
};

static inline const struct ib_rdma_wr *rdma_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_rdma_wr, wr);
}

static inline const struct ib_atomic_wr *atomic_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_atomic_wr, wr);
}

static inline const struct ib_ud_wr *ud_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_ud_wr, wr);
}

static inline const struct ib_reg_wr *reg_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_reg_wr, wr);
}

struct ib_recv_wr {
	struct ib_recv_wr	*next;
	u64			wr_id;
	struct ib_sge		*sg_list;
	int			num_sge;
};

/* only pointed to by the prototypes of sv.h, sv_loc.h, sv_xport.h */
struct ib_wc;
struct ib_cq_init_attr;
struct ib_srq_init_attr;
struct ib_srq_attr;
struct ib_qp_init_attr;
struct ib_device_attr;
struct ib_port_attr;
struct ib_port_immutable;
struct ib_gid_attr;
struct ib_umem;
struct rdma_hw_stats;
struct rdma_user_mmap_entry;
struct rdma_ah_init_attr;

u16 rdma_get_udp_sport(u32 fl, u32 lqpn, u32 rqpn);
void ib_mark_name_assigned_by_user(struct ib_device *ibdev);

#endif /* SHIM_RDMA_IB_VERBS_H */
