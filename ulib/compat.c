// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The historical libibverbs exports that are not verbs: rdma-core's other
 * libraries and utilities call them, so a program using librdmacm or
 * ibv_devinfo from the distro loads only if we have them too.
 *
 *   - ibv_copy_*_kern: translate between the uverbs/SA kernel structs and
 *     the verbs.h/sa.h ones (librdmacm uses them on rdma_ucm answers).
 *   - ibv_get_sysfs_path, ibv_read_sysfs_file: librdmacm and ibv_devinfo
 *     read device attributes with them.
 *   - ibv_query_gid_type (IBVERBS_PRIVATE_<n>): ibv_devinfo and pyverbs.
 *
 * None of them has a public header; the prototypes are in ulib.h, with the
 * signatures of rdma-core's driver.h and marshall.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/sa.h>
#include <rdma/ib_user_sa.h>

#include "ulib.h"

/* ------------------------------------------------------------------ */
/* Kernel struct translation (uverbs, <rdma/ib_user_sa.h>)             */

SV_EXPORT void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
					  struct ib_uverbs_ah_attr *src)
{
	memcpy(dst->grh.dgid.raw, src->grh.dgid, sizeof(dst->grh.dgid.raw));
	dst->grh.flow_label = src->grh.flow_label;
	dst->grh.sgid_index = src->grh.sgid_index;
	dst->grh.hop_limit = src->grh.hop_limit;
	dst->grh.traffic_class = src->grh.traffic_class;
	dst->dlid = src->dlid;
	dst->sl = src->sl;
	dst->src_path_bits = src->src_path_bits;
	dst->static_rate = src->static_rate;
	dst->is_global = src->is_global;
	dst->port_num = src->port_num;
}

/*
 * qp_state and qp_attr_mask are not copied: the caller (librdmacm's
 * rdma_init_qp_attr) takes the mask from the answer itself and the state
 * it asked for, as with libibverbs.
 */
SV_EXPORT void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
					  struct ib_uverbs_qp_attr *src)
{
	dst->cur_qp_state = src->cur_qp_state;
	dst->path_mtu = src->path_mtu;
	dst->path_mig_state = src->path_mig_state;
	dst->qkey = src->qkey;
	dst->rq_psn = src->rq_psn;
	dst->sq_psn = src->sq_psn;
	dst->dest_qp_num = src->dest_qp_num;
	dst->qp_access_flags = src->qp_access_flags;

	dst->cap.max_send_wr = src->max_send_wr;
	dst->cap.max_recv_wr = src->max_recv_wr;
	dst->cap.max_send_sge = src->max_send_sge;
	dst->cap.max_recv_sge = src->max_recv_sge;
	dst->cap.max_inline_data = src->max_inline_data;

	ibv_copy_ah_attr_from_kern(&dst->ah_attr, &src->ah_attr);
	ibv_copy_ah_attr_from_kern(&dst->alt_ah_attr, &src->alt_ah_attr);

	dst->pkey_index = src->pkey_index;
	dst->alt_pkey_index = src->alt_pkey_index;
	dst->en_sqd_async_notify = src->en_sqd_async_notify;
	dst->sq_draining = src->sq_draining;
	dst->max_rd_atomic = src->max_rd_atomic;
	dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
	dst->min_rnr_timer = src->min_rnr_timer;
	dst->port_num = src->port_num;
	dst->timeout = src->timeout;
	dst->retry_cnt = src->retry_cnt;
	dst->rnr_retry = src->rnr_retry;
	dst->alt_port_num = src->alt_port_num;
	dst->alt_timeout = src->alt_timeout;
}

/*
 * Path records: the same fields in both directions, in a different order
 * and with different widths (sa.h has ints where the kernel has __u32),
 * so field by field.  Values stay in the byte order they arrive in (LIDs,
 * P_Key and flow label are big endian on both sides).
 */
#define PATH_REC_FIELDS(X)					\
	X(dlid) X(slid) X(raw_traffic) X(flow_label)		\
	X(hop_limit) X(traffic_class) X(reversible)		\
	X(numb_path) X(pkey) X(sl) X(mtu_selector) X(mtu)	\
	X(rate_selector) X(rate) X(packet_life_time)		\
	X(preference) X(packet_life_time_selector)
#define COPY_FIELD(f) dst->f = src->f;

SV_EXPORT void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
					   struct ib_user_path_rec *src)
{
	memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid.raw));
	memcpy(dst->sgid.raw, src->sgid, sizeof(dst->sgid.raw));
	PATH_REC_FIELDS(COPY_FIELD)
}

SV_EXPORT void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
					 struct ibv_sa_path_rec *src)
{
	memcpy(dst->dgid, src->dgid.raw, sizeof(dst->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(dst->sgid));
	PATH_REC_FIELDS(COPY_FIELD)
}

/* ------------------------------------------------------------------ */
/* sysfs                                                               */

/*
 * The root every device path of ours is under ($SOFTVERBS_SYSFS_ROOT, not
 * libibverbs' $SYSFS_PATH): librdmacm joins it with class/infiniband/<dev>,
 * which must name the same device we listed.  Trailing slashes go, as
 * callers append "/...".  Computed once, kept for the process.
 */
static char sysfs_path[IBV_SYSFS_PATH_MAX];

static void sysfs_path_init(void)
{
	size_t n;

	snprintf(sysfs_path, sizeof(sysfs_path), "%s", sv_sysfs_root());
	n = strlen(sysfs_path);
	while (n > 1 && sysfs_path[n - 1] == '/')
		sysfs_path[--n] = '\0';
}

SV_EXPORT const char *ibv_get_sysfs_path(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, sysfs_path_init);
	return sysfs_path;
}

/*
 * libibverbs' contract: the length read, the trailing newline dropped and
 * the text NUL-terminated; -1 with errno when the file cannot be read, and
 * -1 as well when the contents do not fit with their terminator (rather
 * than hand back a truncated string).
 */
SV_EXPORT int ibv_read_sysfs_file(const char *dir, const char *file,
				  char *buf, size_t size)
{
	char path[2 * IBV_SYSFS_PATH_MAX];
	ssize_t len;
	int fd, err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >=
	    (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, size);
	err = errno;
	close(fd);
	if (len < 0) {
		errno = err;
		return -1;
	}
	if (len > 0) {
		if (buf[len - 1] == '\n')
			buf[--len] = '\0';
		else if ((size_t)len < size)
			buf[len] = '\0';
		else {
			errno = EOVERFLOW;
			return -1;
		}
	}
	return (int)len;
}

/* ------------------------------------------------------------------ */
/* ibv_query_gid_type (IBVERBS_PRIVATE_<n>)                            */

/*
 * libibverbs' answers, which ibv_devinfo relies on: a slot whose type file
 * reads EINVAL (unpopulated, or an IB port) or a kernel without gid_attrs
 * is IB/RoCE v1; a missing type file under an existing gid_attrs is EFAULT;
 * unknown text is ENOTSUP.  0, or -1 with errno.
 */
static int query_gid_type(struct ibv_context *context, uint8_t port_num,
			  unsigned int index, enum sv_gid_type_sysfs *type)
{
	const char *ibdev = context->device->ibdev_path;
	char buf[32], dir[IBV_SYSFS_PATH_MAX + 64];

	if (sv_sysfs_read(ibdev, buf, sizeof(buf),
			  "ports/%u/gid_attrs/types/%u", port_num, index) < 0) {
		if (errno == EINVAL) {
			*type = SV_GID_TYPE_SYSFS_IB_ROCE_V1;
			return 0;
		}
		if (errno != ENOENT)
			return -1;
		/* Absent: an old kernel has no gid_attrs at all. */
		snprintf(dir, sizeof(dir), "%s/ports/%u/gid_attrs", ibdev,
			 port_num);
		if (access(dir, F_OK) && errno == ENOENT) {
			*type = SV_GID_TYPE_SYSFS_IB_ROCE_V1;
			return 0;
		}
		errno = EFAULT;
		return -1;
	}
	if (!strcmp(buf, "IB/RoCE v1"))
		*type = SV_GID_TYPE_SYSFS_IB_ROCE_V1;
	else if (!strcmp(buf, "RoCE v2"))
		*type = SV_GID_TYPE_SYSFS_ROCE_V2;
	else {
		errno = ENOTSUP;
		return -1;
	}
	return 0;
}

/*
 * libibverbs renames its private node whenever the provider ABI changes
 * (IBVERBS_PABI_VERSION), and a program binds the node of the rdma-core it
 * was linked against: 34 for rdma-core 25 to 56 (Debian 12's 44, Debian
 * 13's 56), then 57 (57, 58), 59 (59 to 63), 64 and 65, the default.
 */
SV_EXPORT_VERSION(query_gid_type, pabi34,
		  "ibv_query_gid_type@IBVERBS_PRIVATE_34");
SV_EXPORT_VERSION(query_gid_type, pabi57,
		  "ibv_query_gid_type@IBVERBS_PRIVATE_57");
SV_EXPORT_VERSION(query_gid_type, pabi59,
		  "ibv_query_gid_type@IBVERBS_PRIVATE_59");
SV_EXPORT_VERSION(query_gid_type, pabi64,
		  "ibv_query_gid_type@IBVERBS_PRIVATE_64");
SV_EXPORT_VERSION(query_gid_type, pabi65,
		  "ibv_query_gid_type@@IBVERBS_PRIVATE_65");
