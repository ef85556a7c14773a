// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs write() command plumbing (<rdma/ib_user_verbs.h>).
 *
 * A command is one write() of: struct ib_uverbs_cmd_hdr, then for extended
 * commands struct ib_uverbs_ex_cmd_hdr, then the request.  The kernel copies
 * the response straight into our memory through a pointer in the request
 * (legacy: the request's first u64; extended: ex_hdr.response) and write()
 * returns the full count on success or -1 with errno.  Size rules the kernel
 * checks (drivers/infiniband/core/uverbs_main.c, verify_hdr):
 *  - legacy: in_words * 4 == bytes written (header included), and
 *    out_words * 4 >= the core response size;
 *  - extended: (in_words + provider_in_words) * 8 == bytes after both
 *    headers, out_words * 8 >= the core response size, and the provider
 *    response follows the core response at ex_hdr.response + out_words * 8.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * verbs.h first: its verbs_api.h defines RDMA_UAPI_PTR, which the uapi
 * ib_user_ioctl_verbs.h defines only if unset.  The other order has both
 * define it (a redefinition warning where the headers are not system
 * headers).
 */
#include "ulib.h"

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

static int default_open(const char *path)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* A regular file would swallow our commands and "succeed". */
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode)) {
		close(fd);
		errno = ENODEV;
		return -1;
	}
	return fd;
}

static ssize_t default_write(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len);
}

static const struct sv_transport default_transport = {
	.open = default_open,
	.write = default_write,
};

const struct sv_transport *sv_transport = &default_transport;

static int submit(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do {
		n = sv_transport->write(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno ? errno : EIO;
	if ((size_t)n != len)
		return EIO;
	return 0;
}

int sv_cmd_write(int fd, uint32_t command, void *cmd, size_t cmd_len,
		 void *resp, size_t resp_len)
{
	struct ib_uverbs_cmd_hdr *hdr = cmd;
	uint64_t response = (uintptr_t)resp;

	if (cmd_len % 4 || resp_len % 4 ||
	    cmd_len < sizeof(*hdr) + (resp_len ? sizeof(response) : 4) ||
	    cmd_len / 4 > UINT16_MAX || resp_len / 4 > UINT16_MAX)
		return EINVAL;

	hdr->command = command;
	hdr->in_words = cmd_len / 4;
	hdr->out_words = resp_len / 4;
	/*
	 * Every request that has a response starts with the u64 pointer;
	 * those without one (dealloc, dereg, modify, notify, mcast ...) start
	 * with a handle, which must stay as the caller wrote it.
	 */
	if (resp_len) {
		memcpy(hdr + 1, &response, sizeof(response));
		memset(resp, 0, resp_len);
	}

	return submit(fd, cmd, cmd_len);
}

int sv_cmd_write_ex(int fd, uint32_t command, void *cmd, size_t core_in,
		    size_t drv_in, void *resp, size_t core_out, size_t drv_out)
{
	struct ib_uverbs_cmd_hdr *hdr = cmd;
	struct ib_uverbs_ex_cmd_hdr *ex = (void *)(hdr + 1);

	if (core_in % 8 || drv_in % 8 || core_out % 8 || drv_out % 8 ||
	    core_in / 8 > UINT16_MAX || drv_in / 8 > UINT16_MAX ||
	    core_out / 8 > UINT16_MAX || drv_out / 8 > UINT16_MAX)
		return EINVAL;

	hdr->command = IB_USER_VERBS_CMD_FLAG_EXTENDED | command;
	hdr->in_words = core_in / 8;
	hdr->out_words = core_out / 8;
	ex->response = (core_out + drv_out) ? (uintptr_t)resp : 0;
	ex->provider_in_words = drv_in / 8;
	ex->provider_out_words = drv_out / 8;
	ex->cmd_hdr_reserved = 0;
	if (core_out + drv_out)
		memset(resp, 0, core_out + drv_out);

	return submit(fd, cmd, sizeof(*hdr) + sizeof(*ex) + core_in + drv_in);
}

static int sv_ioctl(int fd, void *cmd)
{
	int ret;

	do {
		if (sv_transport->ioctl)
			ret = sv_transport->ioctl(fd, RDMA_VERBS_IOCTL, cmd);
		else
			ret = ioctl(fd, RDMA_VERBS_IOCTL, cmd);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? (errno ? errno : EIO) : 0;
}

/* an inline input attribute of up to 8 bytes */
static void sv_attr_in(struct ib_uverbs_attr *a, uint16_t id, uint16_t len,
		       uint64_t value)
{
	a->attr_id = id;
	a->flags = UVERBS_ATTR_F_MANDATORY;
	a->len = len;
	a->data = value;
}

/*
 * An ioctl method call (drivers/infiniband/core/uverbs_ioctl.c): a header
 * naming object and method, then attributes.  IDR attributes carry the
 * handle in data with len 0; inline inputs of up to 8 bytes carry the
 * value in data; longer inputs a pointer to it.  driver_id must be the
 * device's: softverbs registers as RDMA_DRIVER_RXE (for librxe).
 */
int sv_cmd_advise_mr(int fd, uint32_t pd_handle, uint32_t advice,
		     uint32_t flags, const struct ibv_sge *sges,
		     uint32_t num_sge)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[4];
	} cmd;
	struct ib_uverbs_sge *list;
	uint32_t i;
	int ret;

	/* the attribute length is 16 bits; an empty list is refused too */
	if (!num_sge || num_sge > UINT16_MAX / sizeof(*list))
		return EINVAL;
	list = calloc(num_sge, sizeof(*list));
	if (!list)
		return ENOMEM;
	for (i = 0; i < num_sge; i++) {
		list[i].addr = sges[i].addr;
		list[i].length = sges[i].length;
		list[i].lkey = sges[i].lkey;
	}

	memset(&cmd, 0, sizeof(cmd));
	cmd.hdr.length = sizeof(cmd);
	cmd.hdr.object_id = UVERBS_OBJECT_MR;
	cmd.hdr.method_id = UVERBS_METHOD_ADVISE_MR;
	cmd.hdr.num_attrs = 4;
	cmd.hdr.driver_id = RDMA_DRIVER_RXE;
	cmd.attrs[0].attr_id = UVERBS_ATTR_ADVISE_MR_PD_HANDLE;
	cmd.attrs[0].flags = UVERBS_ATTR_F_MANDATORY;
	cmd.attrs[0].data = pd_handle;
	cmd.attrs[1].attr_id = UVERBS_ATTR_ADVISE_MR_ADVICE;
	cmd.attrs[1].flags = UVERBS_ATTR_F_MANDATORY;
	cmd.attrs[1].len = sizeof(uint64_t);
	cmd.attrs[1].data = advice;
	cmd.attrs[2].attr_id = UVERBS_ATTR_ADVISE_MR_FLAGS;
	cmd.attrs[2].flags = UVERBS_ATTR_F_MANDATORY;
	cmd.attrs[2].len = sizeof(uint32_t);
	cmd.attrs[2].data = flags;
	cmd.attrs[3].attr_id = UVERBS_ATTR_ADVISE_MR_SGE_LIST;
	cmd.attrs[3].flags = UVERBS_ATTR_F_MANDATORY;
	cmd.attrs[3].len = num_sge * sizeof(*list);
	cmd.attrs[3].data = (uintptr_t)list;

	ret = sv_ioctl(fd, &cmd);
	free(list);
	return ret;
}

int sv_cmd_reg_dmabuf_mr(int fd, uint32_t pd_handle, uint64_t offset,
			 uint64_t length, uint64_t iova, int dmabuf_fd,
			 uint32_t access, uint32_t *handle, uint32_t *lkey,
			 uint32_t *rkey)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[9];
	} cmd;
	int err;

	memset(&cmd, 0, sizeof(cmd));
	cmd.hdr.length = sizeof(cmd);
	cmd.hdr.object_id = UVERBS_OBJECT_MR;
	cmd.hdr.method_id = UVERBS_METHOD_REG_DMABUF_MR;
	cmd.hdr.num_attrs = 9;
	cmd.hdr.driver_id = RDMA_DRIVER_RXE;
	/* IDR attributes: len 0; the kernel writes the new handle back */
	sv_attr_in(&cmd.attrs[0], UVERBS_ATTR_REG_DMABUF_MR_HANDLE, 0, 0);
	sv_attr_in(&cmd.attrs[1], UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, 0,
		   pd_handle);
	sv_attr_in(&cmd.attrs[2], UVERBS_ATTR_REG_DMABUF_MR_OFFSET, 8, offset);
	sv_attr_in(&cmd.attrs[3], UVERBS_ATTR_REG_DMABUF_MR_LENGTH, 8, length);
	sv_attr_in(&cmd.attrs[4], UVERBS_ATTR_REG_DMABUF_MR_IOVA, 8, iova);
	sv_attr_in(&cmd.attrs[5], UVERBS_ATTR_REG_DMABUF_MR_FD, 4,
		   (uint32_t)dmabuf_fd);
	sv_attr_in(&cmd.attrs[6], UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, 4,
		   access);
	/* outputs: a pointer to where the kernel writes */
	sv_attr_in(&cmd.attrs[7], UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, 4,
		   (uintptr_t)lkey);
	sv_attr_in(&cmd.attrs[8], UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, 4,
		   (uintptr_t)rkey);

	err = sv_ioctl(fd, &cmd);
	if (!err)
		*handle = (uint32_t)cmd.attrs[0].data;
	return err;
}

int sv_cmd_ioctl(int fd, uint16_t object, uint16_t method,
		 struct ib_uverbs_attr *attrs, unsigned int n)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[SV_IOCTL_MAX_ATTRS];
	} cmd;
	int err;

	if (n > SV_IOCTL_MAX_ATTRS)
		return EINVAL;
	memset(&cmd, 0, sizeof(cmd));
	cmd.hdr.length = sizeof(cmd.hdr) + n * sizeof(*attrs);
	cmd.hdr.object_id = object;
	cmd.hdr.method_id = method;
	cmd.hdr.num_attrs = n;
	cmd.hdr.driver_id = RDMA_DRIVER_RXE;
	memcpy(cmd.attrs, attrs, n * sizeof(*attrs));
	err = sv_ioctl(fd, &cmd);
	memcpy(attrs, cmd.attrs, n * sizeof(*attrs));
	return err;
}

int sv_cmd_get_context(int fd, struct sv_resp_get_context *resp)
{
	struct sv_cmd_get_context cmd = {};

	return SV_CMD(fd, GET_CONTEXT, &cmd, resp);
}

/* ------------------------------------------------------------------ */
/* Driver data placement and queue mapping                             */

/*
 * ib_uverbs finds a legacy command's driver request at the end of the
 * core request and writes the driver response right after the core
 * response (at the core struct's size); our structs must agree.
 */
#define SV_DRV_RIGHT_AFTER(type, core_t)				\
	_Static_assert(offsetof(struct type, drv) == sizeof(struct core_t), \
		       #type ": driver part not right after the core part")
SV_DRV_RIGHT_AFTER(sv_resp_create_cq, ib_uverbs_create_cq_resp);
SV_DRV_RIGHT_AFTER(sv_resp_resize_cq, ib_uverbs_resize_cq_resp);
SV_DRV_RIGHT_AFTER(sv_resp_create_srq, ib_uverbs_create_srq_resp);
SV_DRV_RIGHT_AFTER(sv_resp_create_qp, ib_uverbs_create_qp_resp);
SV_DRV_RIGHT_AFTER(sv_resp_create_ah, ib_uverbs_create_ah_resp);
_Static_assert(offsetof(struct sv_cmd_modify_srq, drv) ==
	       sizeof(struct ib_uverbs_cmd_hdr) +
	       sizeof(struct ib_uverbs_modify_srq),
	       "modify_srq driver request not right after the core request");

int sv_ring_init(struct sv_ring *r, void *buf, size_t map_size)
{
	const struct sv_queue_buf *q = buf;
	uint32_t mask, log2;
	size_t slots_bytes;

	if (map_size < sizeof(*q))
		return EINVAL;
	mask = q->index_mask;
	log2 = q->log2_elem_size;
	/* 2^n slots, n >= 1 (one slot always stays free) */
	if (!mask || (mask & (mask + 1)) || mask == UINT32_MAX)
		return EINVAL;
	if (log2 < 3 || log2 > 20)	/* slots of 8 bytes .. 1 MiB */
		return EINVAL;
	slots_bytes = (size_t)(mask + 1) << log2;
	if (slots_bytes / (mask + 1) != (size_t)1 << log2 ||
	    slots_bytes > map_size - sizeof(*q))
		return EINVAL;

	r->buf = buf;
	r->map_size = map_size;
	r->mask = mask;
	r->log2_elem = log2;
	return 0;
}

int sv_ring_map(struct sv_ring *r, int cmd_fd, const struct sv_mmap_info *mi)
{
	void *buf;
	int err;

	memset(r, 0, sizeof(*r));
	if (!mi->size)
		return EINVAL;
	if (sv_transport->mmap) {
		buf = sv_transport->mmap(cmd_fd, mi->size, mi->offset);
	} else {
		buf = mmap(NULL, mi->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   cmd_fd, (off_t)mi->offset);
	}
	if (buf == MAP_FAILED)
		return errno ? errno : ENOMEM;

	err = sv_ring_init(r, buf, mi->size);
	if (err) {
		if (sv_transport->munmap)
			sv_transport->munmap(buf, mi->size);
		else
			munmap(buf, mi->size);
		memset(r, 0, sizeof(*r));
	}
	return err;
}

void sv_ring_unmap(struct sv_ring *r)
{
	if (!r->buf)
		return;
	if (sv_transport->munmap)
		sv_transport->munmap(r->buf, r->map_size);
	else
		munmap(r->buf, r->map_size);
	memset(r, 0, sizeof(*r));
}
