/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libsoftverbs internal declarations, grouped by the file that defines them.
 *
 * libsoftverbs implements the public libibverbs API (the distro's
 * <infiniband/verbs.h>, unchanged) for softverbs devices only, without
 * linking rdma-core.  Layering, like an rdma-core provider:
 *
 *   exported ibv_* entry point (device.c, query.c, async.c, verbs.c)
 *     -> sv_context->ops, one const table per context (struct sv_ops)
 *        -> typed uverbs command/response pair (cmd.c)
 *           -> sv_transport (write(2) on /dev/infiniband/uverbsN)
 *
 * Functions return a positive errno (never a negative one) and the exported
 * wrappers convert to whatever convention the public API has for that call
 * (errno + NULL, errno + -1, or the errno itself as return value).
 */
#ifndef SV_ULIB_H
#define SV_ULIB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pthread.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "queue.h"
#include "verbs65.h"

#define SV_EXPORT __attribute__((visibility("default")))

/*
 * SV_EXPORT_VERSION(fn, tag, "name@@NODE") or (fn, tag, "name@NODE"):
 * export the function fn as name in NODE, as the default version (@@: what
 * new links bind to) or a compatibility one (@: only for binaries linked
 * when libibverbs had name in NODE).  For a name libibverbs has had in
 * several nodes: NODE must be a node of libsoftverbs.map, name is listed in
 * none, and fn is not name (a static link, as the host tests', takes
 * name@@NODE for name).  tag only makes the alias unique.
 */
#define SV_EXPORT_VERSION(fn, tag, versioned)				\
	extern __typeof__(fn) fn##_##tag					\
		__attribute__((alias(#fn), visibility("default")));	\
	__asm__(".symver " #fn "_" #tag ", " versioned)

#define sv_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* The uverbs command ABI we speak (class attribute infiniband_verbs/abi_version). */
#define SV_UVERBS_ABI		IB_USER_VERBS_ABI_VERSION
/* The driver ABI of <rdma/rdma_user_rxe.h> the kmod registers (uverbsN/abi_version). */
#define SV_DRIVER_ABI		2

/* ------------------------------------------------------------------ */
/* Objects                                                             */

/*
 * One discovered device.  ibv_device must stay embedded: programs get a
 * pointer to it and hand it back to ibv_open_device().  Reference counted:
 * each list that contains it and each open context hold one reference, so
 * ibv_free_device_list() on a list does not pull the device from under an
 * open context (the verbs API allows that order).
 */
struct sv_device {
	struct ibv_device ibdev;
	atomic_int refcnt;
	unsigned int uverbs_index;	/* N of uverbsN; sort key */
	int driver_abi;			/* uverbsN/abi_version */
	__be64 node_guid;		/* from sysfs node_guid, network order */
	/*
	 * CQEs carry the kernel's IB_WC_* flag values, not verbs.h's: true
	 * only for Soft-RoCE (the SOFTVERBS_ALLOW_RXE test override).  A
	 * softverbs kernel writes verbs.h's values (uapi/softverbs-abi.h).
	 */
	bool kernel_wc_flags;
	char devnode[IBV_SYSFS_PATH_MAX]; /* /dev/infiniband/uverbsN */
};

static inline struct sv_device *to_sv_device(struct ibv_device *ibdev)
{
	return sv_container_of(ibdev, struct sv_device, ibdev);
}

struct sv_context;

/*
 * The verbs one context implements.  A NULL entry means "not implemented":
 * the exported entry point then fails with EOPNOTSUPP.  New object families
 * (PD, MR, CQ, QP ...) plug in here and in the matching verbs_context/
 * ibv_context_ops slots, see sv_context_init_ops() in verbs.c.
 */
struct sv_mpe_wr;

struct sv_ops {
	int (*query_device_ex)(struct ibv_context *ctx,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr, size_t attr_size);
	int (*query_port)(struct ibv_context *ctx, uint8_t port_num,
			  struct ibv_port_attr *attr, size_t attr_size);
	/* Called for every async event after the element is decoded. */
	void (*async_event)(struct ibv_context *ctx, struct ibv_async_event *ev);

	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t iova, unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	int (*rereg_mr)(struct ibv_mr *mr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *bind);
	struct ibv_comp_channel *(*create_comp_channel)(struct ibv_context *ctx);
	int (*destroy_comp_channel)(struct ibv_comp_channel *channel);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *ctx,
					  struct ibv_cq_init_attr_ex *attr);
	struct ibv_td *(*alloc_td)(struct ibv_context *ctx,
				   struct ibv_td_init_attr *attr);
	int (*dealloc_td)(struct ibv_td *td);
	struct ibv_pd *(*alloc_parent_domain)(struct ibv_context *ctx,
				struct ibv_parent_domain_init_attr *attr);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*poll_cq)(struct ibv_cq *cq, int n, struct ibv_wc *wc);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			  int mask);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *ctx,
					 struct ibv_srq_init_attr_ex *attr);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *ctx,
				      struct ibv_xrcd_init_attr *attr);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	struct ibv_qp *(*open_qp)(struct ibv_context *ctx,
				  struct ibv_qp_open_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *ctx,
				       struct ibv_qp_init_attr_ex *attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
			struct ibv_qp_init_attr *init_attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	/* softverbs.h: FLUSH and ATOMIC WRITE (struct sv_mpe_wr, wqe.c) */
	int (*post_mpe)(struct ibv_qp *qp, const struct sv_mpe_wr *wr);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
};

/*
 * One open device.  verbs_context must be the last libibverbs-visible part:
 * the inline wrappers in verbs.h find it from the ibv_context by subtracting
 * offsetof(struct verbs_context, context), and check vctx->sz before using
 * any slot.  Fields after it are ours.
 */
struct sv_context {
	struct verbs_context vctx;
	const struct sv_ops *ops;
	struct sv_device *dev;
	/* Set once the kernel refused EX_QUERY_DEVICE; use the legacy form. */
	atomic_bool no_ex_query_device;
};

static inline struct sv_context *to_sv_context(struct ibv_context *ctx)
{
	return sv_container_of(ctx, struct sv_context, vctx.context);
}

/* ------------------------------------------------------------------ */
/* sysfs.c — reading sysfs attributes under $SOFTVERBS_SYSFS_ROOT       */

const char *sv_sysfs_root(void);
const char *sv_dev_root(void);
/*
 * Read the attribute at dir/<fmt...> into buf (NUL terminated, trailing
 * newlines stripped).  Returns the length, or -1 with errno set.
 */
ssize_t sv_sysfs_read(const char *dir, char *buf, size_t len,
		      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Same, parsed as a decimal integer; -1 with errno EINVAL when malformed. */
int sv_sysfs_read_int(const char *dir, long *val, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "fe80:0000:...:4455" (8 groups) -> raw GID; 0 or EINVAL. */
int sv_parse_gid(const char *s, union ibv_gid *gid);
/* "0011:2233:4455:6677" (4 groups) -> network-order GUID; 0 or EINVAL. */
int sv_parse_guid(const char *s, __be64 *guid);

/* ------------------------------------------------------------------ */
/* device.c — discovery, open/close                                    */

void sv_device_put(struct sv_device *dev);

/* ------------------------------------------------------------------ */
/* cmd.c — uverbs write() command plumbing                             */

/*
 * How commands reach the kernel.  The default opens the char device and
 * write()s to it; host tests install a fake that plays the kernel, writing
 * responses through the response pointer just as uverbs does.
 */
struct sv_transport {
	int (*open)(const char *path);
	ssize_t (*write)(int fd, const void *buf, size_t len);
	/* Optional (NULL = mmap(2)/munmap(2)): map a queue the kernel made. */
	void *(*mmap)(int fd, size_t len, uint64_t offset);
	int (*munmap)(void *addr, size_t len);
	/* Optional (NULL = ioctl(2)): an RDMA_VERBS_IOCTL method call. */
	int (*ioctl)(int fd, unsigned long request, void *arg);
};
extern const struct sv_transport *sv_transport;

/*
 * Typed command structs: the header, then the core request of
 * <rdma/ib_user_verbs.h>, then (later) the driver request of
 * <rdma/rdma_user_rxe.h>.  The response is the core response followed by
 * the driver response.  Legacy commands count words of 4 bytes including
 * the header; extended ones count words of 8 bytes excluding both headers.
 */
struct sv_cmd_get_context {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core;
};
struct sv_resp_get_context {
	struct ib_uverbs_get_context_resp core;
};

struct sv_cmd_query_device {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_device core;
};
struct sv_resp_query_device {
	struct ib_uverbs_query_device_resp core;
};

struct sv_cmd_ex_query_device {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex;
	struct ib_uverbs_ex_query_device core;
};
struct sv_resp_ex_query_device {
	struct ib_uverbs_ex_query_device_resp core;
};

struct sv_cmd_query_port {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_port core;
};
struct sv_resp_query_port {
	struct ib_uverbs_query_port_resp core;
};

/*
 * Issue a legacy command.  cmd starts with struct ib_uverbs_cmd_hdr followed
 * by a request whose first member is the u64 response pointer; cmd_len and
 * resp_len must be multiples of 4.  Returns 0 or a positive errno.
 */
int sv_cmd_write(int fd, uint32_t command, void *cmd, size_t cmd_len,
		 void *resp, size_t resp_len);
/*
 * Issue an extended command: cmd is hdr + ex_hdr + core (+ driver) request.
 * core_in/drv_in and core_out/drv_out are byte lengths, multiples of 8.
 */
int sv_cmd_write_ex(int fd, uint32_t command, void *cmd, size_t core_in,
		    size_t drv_in, void *resp, size_t core_out, size_t drv_out);

#define SV_CMD(fd, cmdname, cmd, resp) \
	sv_cmd_write(fd, IB_USER_VERBS_CMD_##cmdname, cmd, sizeof(*(cmd)), \
		     resp, sizeof(*(resp)))

int sv_cmd_get_context(int fd, struct sv_resp_get_context *resp);
/*
 * ADVISE_MR, which exists only as an ioctl method (UVERBS_METHOD_ADVISE_MR
 * of UVERBS_OBJECT_MR): positive errno.
 */
int sv_cmd_advise_mr(int fd, uint32_t pd_handle, uint32_t advice,
		     uint32_t flags, const struct ibv_sge *sges,
		     uint32_t num_sge);
/* REG_DMABUF_MR, also ioctl only: the new MR's handle and keys */
int sv_cmd_reg_dmabuf_mr(int fd, uint32_t pd_handle, uint64_t offset,
			 uint64_t length, uint64_t iova, int dmabuf_fd,
			 uint32_t access, uint32_t *handle, uint32_t *lkey,
			 uint32_t *rkey);

/*
 * Any ioctl method (drivers/infiniband/core/uverbs_ioctl.c): object and
 * method ids, then @n attributes (at most SV_IOCTL_MAX_ATTRS), given and
 * returned in @attrs (an IDR attribute of a new object comes back with
 * its handle in data).  0 or a positive errno.
 */
#define SV_IOCTL_MAX_ATTRS	8
struct ib_uverbs_attr;
int sv_cmd_ioctl(int fd, uint16_t object, uint16_t method,
		 struct ib_uverbs_attr *attrs, unsigned int n);

/*
 * Map the queue the kernel described in mi (struct sv_mmap_info of a
 * create/resize response) shared read-write, and validate its header.
 * 0 or a positive errno; sv_ring_unmap undoes it (no-op when unmapped).
 */
int sv_ring_map(struct sv_ring *r, int cmd_fd, const struct sv_mmap_info *mi);
void sv_ring_unmap(struct sv_ring *r);

/*
 * Commands of the object verbs.  Each is the header, the core request of
 * <rdma/ib_user_verbs.h> and, where the rxe ABI has one, the driver request
 * of uapi/softverbs-abi.h; responses likewise.  The kernel finds driver
 * data right after the core part (legacy commands: at the core struct's
 * size), which the static asserts in cmd.c pin down.  Commands whose core
 * request has no response pointer are issued with resp NULL.
 */
#define SV_DEFINE_CMD(name, core_t)					\
	struct sv_cmd_##name {						\
		struct ib_uverbs_cmd_hdr hdr;				\
		struct core_t core;					\
	}

SV_DEFINE_CMD(alloc_pd, ib_uverbs_alloc_pd);
SV_DEFINE_CMD(dealloc_pd, ib_uverbs_dealloc_pd);
SV_DEFINE_CMD(reg_mr, ib_uverbs_reg_mr);
SV_DEFINE_CMD(rereg_mr, ib_uverbs_rereg_mr);
SV_DEFINE_CMD(dereg_mr, ib_uverbs_dereg_mr);
SV_DEFINE_CMD(alloc_mw, ib_uverbs_alloc_mw);
SV_DEFINE_CMD(dealloc_mw, ib_uverbs_dealloc_mw);
SV_DEFINE_CMD(create_comp_channel, ib_uverbs_create_comp_channel);
SV_DEFINE_CMD(create_cq, ib_uverbs_create_cq);
SV_DEFINE_CMD(resize_cq, ib_uverbs_resize_cq);
SV_DEFINE_CMD(destroy_cq, ib_uverbs_destroy_cq);
SV_DEFINE_CMD(req_notify_cq, ib_uverbs_req_notify_cq);
SV_DEFINE_CMD(create_srq, ib_uverbs_create_srq);
SV_DEFINE_CMD(query_srq, ib_uverbs_query_srq);
SV_DEFINE_CMD(destroy_srq, ib_uverbs_destroy_srq);
SV_DEFINE_CMD(create_xsrq, ib_uverbs_create_xsrq);
SV_DEFINE_CMD(open_xrcd, ib_uverbs_open_xrcd);
SV_DEFINE_CMD(close_xrcd, ib_uverbs_close_xrcd);
SV_DEFINE_CMD(open_qp, ib_uverbs_open_qp);
SV_DEFINE_CMD(create_qp, ib_uverbs_create_qp);
SV_DEFINE_CMD(modify_qp, ib_uverbs_modify_qp);
SV_DEFINE_CMD(query_qp, ib_uverbs_query_qp);
SV_DEFINE_CMD(destroy_qp, ib_uverbs_destroy_qp);
SV_DEFINE_CMD(post_send, ib_uverbs_post_send);
SV_DEFINE_CMD(create_ah, ib_uverbs_create_ah);
SV_DEFINE_CMD(destroy_ah, ib_uverbs_destroy_ah);
SV_DEFINE_CMD(attach_mcast, ib_uverbs_attach_mcast);
SV_DEFINE_CMD(detach_mcast, ib_uverbs_detach_mcast);

/* modify_srq carries the rxe driver request: where to put the new mmap info */
struct sv_cmd_modify_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_srq core;
	struct sv_modify_srq_cmd drv;
};

struct sv_resp_create_cq {
	struct ib_uverbs_create_cq_resp core;
	struct sv_create_cq_resp drv;
};

struct sv_resp_resize_cq {
	struct ib_uverbs_resize_cq_resp core;
	struct sv_resize_cq_resp drv;
};

struct sv_resp_create_srq {
	struct ib_uverbs_create_srq_resp core;
	struct sv_create_srq_resp drv;
};

struct sv_resp_create_qp {
	struct ib_uverbs_create_qp_resp core;
	struct sv_create_qp_resp drv;
};

struct sv_resp_create_ah {
	struct ib_uverbs_create_ah_resp core;
	struct sv_create_ah_resp drv;
};

/* ------------------------------------------------------------------ */
/* query.c — device, port, GID and P_Key queries                       */

int sv_query_device_ex(struct ibv_context *ctx,
		       const struct ibv_query_device_ex_input *input,
		       struct ibv_device_attr_ex *attr, size_t attr_size);
int sv_query_port(struct ibv_context *ctx, uint8_t port_num,
		  struct ibv_port_attr *attr, size_t attr_size);
/* Fill an ibv_port_attr from the kernel response (unit-testable). */
void sv_port_attr_from_resp(struct ibv_port_attr *attr,
			    const struct ib_uverbs_query_port_resp *resp);
/* Format the raw fw_ver u64 as librxe does: major.minor.sub_minor. */
void sv_format_fw_ver(char *buf, size_t len, uint64_t raw);
/*
 * A port's bandwidth in 100 Mb/s units from its active_width and
 * active_speed encodings (IBTA 14.2.5.6); 0 or EINVAL for one we do not know.
 */
int sv_port_speed(uint8_t width, uint16_t speed, uint64_t *speed_100mbps);

/* ------------------------------------------------------------------ */
/* Objects of the data path                                            */

/*
 * A queue we produce into: an SQ, RQ or SRQ.  Locking: lock serialises the
 * posters of this queue (and, for an SRQ, a modify_srq remap against them);
 * it protects ring and the limits below.  The limits are what the kernel
 * granted at creation and bound every WQE we write.
 */
struct sv_wq {
	pthread_spinlock_t lock;
	struct sv_ring ring;
	uint32_t max_sge;
	uint32_t max_inline;		/* SQ only */
};

/*
 * A PD, or a parent domain (ibv_alloc_parent_domain): then parent is the
 * protection domain it stands for (its handle is copied, so every command
 * taking a pd_handle works on either), td the thread domain, and alloc/free
 * the caller's allocator for the memory libsoftverbs allocates for QPs and
 * CQs created under it (pd.c).  users counts the parent domains of a PD
 * and of a thread domain, which may not go away before them.
 */
struct sv_pd {
	struct ibv_pd ibpd;
	atomic_int users;
	struct sv_pd *parent;		/* NULL for a protection domain */
	struct ibv_td *td;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

struct sv_td {
	struct ibv_td ibtd;
	atomic_int users;
};

static inline struct sv_pd *to_sv_pd(struct ibv_pd *pd)
{
	return sv_container_of(pd, struct sv_pd, ibpd);
}

/*
 * A CQ.  ibv_cq_ex begins with the fields of ibv_cq (verbs.h casts between
 * them), so one union serves both creation paths.  Locking: lock serialises
 * pollers, protects ring, cur and cqe, and is held by resize_cq across the
 * command and the remap (the kernel copies the ring meanwhile).
 */
struct sv_cq {
	union {
		struct ibv_cq ibcq;
		struct ibv_cq_ex ibcq_ex;
	};
	pthread_spinlock_t lock;
	struct sv_ring ring;
	bool is_ex;
	bool kernel_wc_flags;		/* copy of sv_device's */
	/* ibv_cq_ex polling: held between start_poll and end_poll */
	uint32_t cur;			/* consumer index of cqe */
	const struct ib_uverbs_wc *cqe;	/* the entry read_*() report on */
	struct ibv_pd *alloc_pd;	/* parent domain whose allocator made us */
};

/*
 * rdma-core 45 appended wr_flush to struct ibv_qp_ex (and
 * IBV_QP_EX_WITH_FLUSH = 1 << 11).  Built against a verbs.h that has it
 * (SV_HAVE_VERBS_WR_FLUSH, rdma-core 45+), the builder goes in that
 * member; against rdma-core 44's, whose ibv_qp_ex ends at
 * wr_atomic_write, struct sv_qp has a slot right after the embedded
 * ibv_qp_ex, where 45's header looks for it.  SV_QP_WR_FLUSH names
 * whichever it is: the same place either way, so programs built against
 * either header find it (softverbs_wr_flush() too).
 */
typedef void (*sv_wr_flush_fn)(struct ibv_qp_ex *qp, uint32_t rkey,
			       uint64_t remote_addr, size_t len, uint8_t type,
			       uint8_t level);
#define SV_QP_EX_WITH_FLUSH	(1ULL << 11)
#ifdef SV_HAVE_VERBS_WR_FLUSH
#define SV_QP_WR_FLUSH		ibqp_ex.wr_flush
#else
#define SV_QP_WR_FLUSH		wr_flush
#endif

struct sv_wr_batch;

/*
 * A QP.  ibv_qp_ex begins with the ibv_qp (verbs.h's ibv_qp_to_qp_ex and
 * the qp_base member), so one union serves both.  sq.lock also protects
 * ssn and, from wr_start to wr_complete/wr_abort, batch (qp_ex.c).
 */
struct sv_qp {
	union {
		struct ibv_qp ibqp;
		struct ibv_qp_ex ibqp_ex;
	};
#ifndef SV_HAVE_VERBS_WR_FLUSH
	sv_wr_flush_fn wr_flush;	/* must follow ibqp_ex, see above */
#endif
	struct sv_wq sq;
	struct sv_wq rq;		/* unmapped when the QP uses an SRQ */
	uint32_t ssn;			/* send sequence number of the next WQE */
	struct sv_wr_batch *batch;	/* ibv_qp_ex state; NULL: not extended */
	struct ibv_pd *alloc_pd;	/* parent domain whose allocator made us */
};

struct sv_srq {
	struct ibv_srq ibsrq;
	struct sv_wq rq;
	uint32_t srq_num;
	/* XRC SRQs: the domain and the CQ (NULL for a basic SRQ) */
	struct ibv_xrcd *xrcd;
	struct ibv_cq *cq;
};

/* An XRC domain: the kernel's handle (verbs.h's ibv_xrcd has none). */
struct sv_xrcd {
	struct ibv_xrcd ibxrcd;
	uint32_t handle;
};

static inline struct sv_xrcd *to_sv_xrcd(struct ibv_xrcd *xrcd)
{
	return sv_container_of(xrcd, struct sv_xrcd, ibxrcd);
}

/* An address handle: the kernel's AH index goes into every UD send WQE. */
struct sv_ah {
	struct ibv_ah ibah;
	uint32_t ah_num;
};

static inline struct sv_cq *to_sv_cq(struct ibv_cq *cq)
{
	return sv_container_of(cq, struct sv_cq, ibcq);
}

static inline struct sv_qp *to_sv_qp(struct ibv_qp *qp)
{
	return sv_container_of(qp, struct sv_qp, ibqp);
}

static inline struct sv_srq *to_sv_srq(struct ibv_srq *srq)
{
	return sv_container_of(srq, struct sv_srq, ibsrq);
}

static inline struct sv_ah *to_sv_ah(struct ibv_ah *ah)
{
	return sv_container_of(ah, struct sv_ah, ibah);
}

/* ------------------------------------------------------------------ */
/* wqe.c — WQE encoding and CQE decoding (pure; no locks, no syscalls)  */

/* What a send WQE must fit: the QP type and the kernel-granted limits. */
struct sv_sq_limits {
	enum ibv_qp_type qp_type;
	uint32_t max_sge;
	uint32_t max_inline;
	size_t slot_size;		/* bytes of one SQ slot */
};

/*
 * Validate wr against lim and write it as a struct sv_send_wqe into slot
 * (which has lim->slot_size bytes).  0 or a positive errno (EINVAL for a
 * malformed request); the slot may be partly written on error, which is
 * harmless as long as the producer index is not advanced past it.
 */
int sv_wqe_encode_send(void *slot, const struct sv_sq_limits *lim,
		       const struct ibv_send_wr *wr, uint32_t ssn);
/*
 * A work request of the IBTA 1.5 Memory Placement Extensions (softverbs.h):
 * opcode SV_WR_FLUSH (length, type, level) or IBV_WR_ATOMIC_WRITE (value).
 */
#define SV_WR_FLUSH		14	/* IBV_WR_FLUSH of rdma-core 45+ */
struct sv_mpe_wr {
	uint64_t wr_id;
	unsigned int opcode;
	unsigned int send_flags;
	uint32_t rkey;
	uint64_t remote_addr;
	uint32_t length;
	uint8_t type;
	uint8_t level;
	uint8_t value[8];
};
/* May a QP of type post opcode (IBV_WR_*, SV_WR_FLUSH included)? */
bool sv_wqe_op_allowed(unsigned int opcode, enum ibv_qp_type type);
/* Like sv_wqe_encode_send(), for such a request (RC only). */
int sv_wqe_encode_mpe(void *slot, const struct sv_sq_limits *lim,
		      const struct sv_mpe_wr *wr, uint32_t ssn);
/* Same for a receive WQE (struct sv_recv_wqe) of an RQ or SRQ. */
int sv_wqe_encode_recv(void *slot, size_t slot_size, uint32_t max_sge,
		       const struct ibv_recv_wr *wr);
/* Kernel completion flags (IB_WC_*) -> verbs.h completion flags (IBV_WC_*). */
unsigned int sv_wc_flags_decode(uint32_t flags, bool kernel_values);
/* Decode one CQE of the ring into a work completion. */
void sv_cqe_decode(struct ibv_wc *wc, const struct ib_uverbs_wc *cqe,
		   bool kernel_wc_flags);

/* ------------------------------------------------------------------ */
/* ah.c — address handles, GRH parsing, multicast                      */

/* The addressing information a received GRH area carries. */
struct sv_grh_info {
	int ip_version;			/* 4 (RoCEv2 over IPv4) or 6 */
	union ibv_gid sgid;		/* sender (IPv4 as ::ffff:a.b.c.d) */
	union ibv_gid dgid;		/* receiver, i.e. our GID */
	uint32_t flow_label;
	uint8_t hop_limit;
	uint8_t traffic_class;
	enum ibv_gid_type gid_type;	/* IBV_GID_TYPE_IB or _ROCE_V2 */
};

/*
 * Parse the 40-byte GRH area a UD receive starts with: an IPv6/IB GRH, or
 * (RoCEv2 over IPv4) an IPv4 header in its last 20 bytes.  0, or EINVAL /
 * EPROTONOSUPPORT when it is neither.
 */
int sv_grh_parse(const struct ibv_grh *grh, struct sv_grh_info *info);

/* ------------------------------------------------------------------ */
/* pd.c, xrcd.c, cq.c, srq.c, qp.c — the ops of each object family     */

struct ibv_pd *sv_pd_alloc(struct ibv_context *ctx);
int sv_pd_dealloc(struct ibv_pd *pd);
struct ibv_td *sv_td_alloc(struct ibv_context *ctx,
			   struct ibv_td_init_attr *attr);
int sv_td_dealloc(struct ibv_td *td);
struct ibv_pd *sv_parent_domain_alloc(struct ibv_context *ctx,
				      struct ibv_parent_domain_init_attr *attr);
/*
 * Zeroed memory for an object created under pd: from a parent domain's
 * allocator when it has one (*owner = pd), else calloc (*owner = NULL, also
 * when the allocator answers IBV_ALLOCATOR_USE_DEFAULT); NULL with errno
 * set.  sv_obj_free(owner, ...) gives it back to where it came from.
 */
void *sv_obj_alloc(struct ibv_pd *pd, size_t size, uint64_t res_type,
		   struct ibv_pd **owner);
void sv_obj_free(struct ibv_pd *owner, void *obj, uint64_t res_type);
/*
 * An MR as libsoftverbs allocates it (pd.c).  fork_range: fork.c protects
 * its range (ibv_dontfork_range) while it exists; not for an ODP MR,
 * which pins nothing (the kernel follows fork's COW through MMU
 * notifiers; an implicit one has no range), nor for a dma-buf MR, whose
 * addr is an offset in the buffer.  As libibverbs.
 */
struct sv_umr {
	struct ibv_mr	ibv;	/* first: free() of the ibv_mr frees it */
	bool		fork_range;
};

static inline struct sv_umr *to_sv_umr(struct ibv_mr *mr)
{
	return (struct sv_umr *)mr;
}

struct ibv_mr *sv_mr_reg(struct ibv_pd *pd, void *addr, size_t length,
			 uint64_t iova, unsigned int access);
struct ibv_mr *sv_mr_reg_dmabuf(struct ibv_pd *pd, uint64_t offset,
				size_t length, uint64_t iova, int fd,
				int access);
int sv_mr_rereg(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		size_t length, int access);
int sv_mr_dereg(struct ibv_mr *mr);
struct ibv_xrcd *sv_xrcd_open(struct ibv_context *ctx,
			      struct ibv_xrcd_init_attr *attr);
int sv_xrcd_close(struct ibv_xrcd *xrcd);
struct ibv_mw *sv_mw_alloc(struct ibv_pd *pd, enum ibv_mw_type type);
int sv_mw_dealloc(struct ibv_mw *mw);
int sv_mw_bind(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind);

struct ibv_comp_channel *sv_comp_channel_create(struct ibv_context *ctx);
int sv_comp_channel_destroy(struct ibv_comp_channel *channel);
struct ibv_cq *sv_cq_create(struct ibv_context *ctx, int cqe,
			    struct ibv_comp_channel *channel, int comp_vector);
struct ibv_cq_ex *sv_cq_create_ex(struct ibv_context *ctx,
				  struct ibv_cq_init_attr_ex *attr);
int sv_cq_resize(struct ibv_cq *cq, int cqe);
int sv_cq_destroy(struct ibv_cq *cq);
int sv_cq_poll(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int sv_cq_req_notify(struct ibv_cq *cq, int solicited_only);
/* Drop QP @qpn's completions waiting in @cq (the QP went to RESET). */
void sv_cq_clean(struct ibv_cq *cq, uint32_t qpn);

struct ibv_srq *sv_srq_create(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
struct ibv_srq *sv_srq_create_ex(struct ibv_context *ctx,
				 struct ibv_srq_init_attr_ex *attr);
int sv_srq_modify(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask);
int sv_srq_query(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int sv_srq_destroy(struct ibv_srq *srq);
int sv_srq_get_num(struct ibv_srq *srq, uint32_t *srq_num);
struct ibv_qp *sv_qp_create_xrc_recv(struct ibv_context *ctx,
				     struct ibv_qp_init_attr_ex *attr);
struct ibv_qp *sv_qp_open(struct ibv_context *ctx,
			  struct ibv_qp_open_attr *attr);
int sv_srq_post_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad_wr);

struct ibv_qp *sv_qp_create(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
/* ibv_create_qp() under a PD or parent domain; qp_ex.c extends it. */
struct sv_qp *sv_qp_create_common(struct ibv_pd *pd,
				  struct ibv_qp_init_attr *attr);
int sv_qp_ring_doorbell(struct ibv_qp *qp);

/* qp_ex.c — extended QPs: ibv_create_qp_ex, the ibv_wr_* builders */
struct ibv_qp *sv_qp_create_ex(struct ibv_context *ctx,
			       struct ibv_qp_init_attr_ex *attr);
void sv_qp_ex_free(struct sv_qp *qp);
int sv_qp_query(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		struct ibv_qp_init_attr *init_attr);
int sv_qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
int sv_qp_destroy(struct ibv_qp *qp);
int sv_qp_post_mpe(struct ibv_qp *qp, const struct sv_mpe_wr *wr);
int sv_qp_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int sv_qp_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
/* Post n receive WRs into wq (caller holds nothing); shared by RQ and SRQ. */
int sv_wq_post_recv(struct sv_wq *wq, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);

struct ibv_ah *sv_ah_create(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int sv_ah_destroy(struct ibv_ah *ah);
int sv_mcast_attach(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);
int sv_mcast_detach(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid);

/* ------------------------------------------------------------------ */
/* buf.c — ibv_alloc_buf buffers                                        */

/*
 * What ibv_alloc_buf hands out (opaque in verbs.h): page-aligned memory of
 * the process.  dmabuf_fd is -1: softverbs has no device memory a buffer
 * could come from, so there is never a dma-buf behind one.
 */
struct ibv_buf {
	void *addr;
	size_t size;
	struct ibv_pd *pd;
	int dmabuf_fd;
};

/* ------------------------------------------------------------------ */
/* verbs.c — dispatch of the object verbs, ops tables                  */

extern const struct sv_ops sv_softverbs_ops;
/* Fill the ibv_context_ops and verbs_context slots from ctx->ops. */
void sv_context_init_ops(struct sv_context *ctx);

/* ------------------------------------------------------------------ */
/* compat.c — historical non-verbs exports (no public header has them)  */

struct ib_user_path_rec;	/* <rdma/ib_user_sa.h> */
struct ibv_sa_path_rec;		/* <infiniband/sa.h> */

/* rdma-core's enum ibv_gid_type_sysfs (driver.h), same values */
enum sv_gid_type_sysfs {
	SV_GID_TYPE_SYSFS_IB_ROCE_V1,
	SV_GID_TYPE_SYSFS_ROCE_V2,
};

void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				struct ib_uverbs_ah_attr *src);
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				struct ib_uverbs_qp_attr *src);
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 struct ib_user_path_rec *src);
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       struct ibv_sa_path_rec *src);
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size);
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum sv_gid_type_sysfs *type);
/* str.c; rdma-core 65's verbs.h declares it too */
const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode);

/* ------------------------------------------------------------------ */
/* fork.c — ibv_fork_init and the MADV_DONTFORK range counts           */

/* exported; verbs.h does not declare them (rdma-core's driver.h does) */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);
/* Tracking on without asking the kernel; 0 or EINVAL (too late). */
int sv_fork_track_start(void);
/* ibv_fork_init() if RDMAV_FORK_SAFE or IBV_FORK_SAFE is set. */
void sv_fork_env_init(void);
/* How many ranges cover the page holding addr (tests). */
unsigned long sv_fork_count(const void *addr);

/* ------------------------------------------------------------------ */
/* nl.c — RDMA netlink requests (fork.c, device.c)                      */

struct nlmsghdr;
/*
 * The payload of @nlh's first top-level attribute of @type that is at
 * least @min_len bytes long, or NULL.
 */
const void *sv_nl_attr(const struct nlmsghdr *nlh, uint16_t type,
		       size_t min_len);
/*
 * Send RDMA_NLDEV command @cmd (a dump when @dump) with no attributes and
 * call @each for every reply message: it returns 1 to go on, 0 to stop, or
 * a negative errno.  0 when @each stopped or the replies ended; a negative
 * errno for a failed socket, an error reply or a negative @each.
 */
int sv_nl_request(uint16_t cmd, bool dump,
		  int (*each)(const struct nlmsghdr *nlh, void *arg), void *arg);

#endif /* SV_ULIB_H */
