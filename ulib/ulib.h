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

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#define SV_EXPORT __attribute__((visibility("default")))

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
	struct ibv_comp_channel *(*create_comp_channel)(struct ibv_context *ctx);
	int (*destroy_comp_channel)(struct ibv_comp_channel *channel);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*destroy_cq)(struct ibv_cq *cq);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			  int mask);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
	int (*destroy_srq)(struct ibv_srq *srq);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
			struct ibv_qp_init_attr *init_attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
	int (*destroy_qp)(struct ibv_qp *qp);
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

/* ------------------------------------------------------------------ */
/* verbs.c — dispatch of the object verbs, ops tables                  */

extern const struct sv_ops sv_softverbs_ops;
/* Fill the ibv_context_ops and verbs_context slots from ctx->ops. */
void sv_context_init_ops(struct sv_context *ctx);

#endif /* SV_ULIB_H */
