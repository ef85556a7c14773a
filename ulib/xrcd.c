// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * XRC domains (IBTA Annex A14).  OPEN_XRCD names a file by descriptor:
 * processes that open the same file share one domain, and the kernel
 * (ib_uverbs) counts them; without a file (fd -1) the domain is private.
 * oflags is O_CREAT and/or O_EXCL, with open(2)'s meaning: create the
 * domain of the file if it has none, fail if it exists already.
 */
#include <errno.h>
#include <stdlib.h>

#include "ulib.h"

struct ibv_xrcd *sv_xrcd_open(struct ibv_context *ctx,
			      struct ibv_xrcd_init_attr *attr)
{
	struct sv_cmd_open_xrcd cmd = {};
	struct ib_uverbs_open_xrcd_resp resp;
	struct sv_xrcd *xrcd;
	int err;

	/* fields of a newer libibverbs we do not know */
	if (attr->comp_mask >= IBV_XRCD_INIT_ATTR_RESERVED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* fd and flags say which domain: both needed, the kernel judges them */
	if (!(attr->comp_mask & IBV_XRCD_INIT_ATTR_FD) ||
	    !(attr->comp_mask & IBV_XRCD_INIT_ATTR_OFLAGS)) {
		errno = EINVAL;
		return NULL;
	}
	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd) {
		errno = ENOMEM;
		return NULL;
	}
	cmd.core.fd = (uint32_t)attr->fd;
	cmd.core.oflags = (uint32_t)attr->oflags;
	err = SV_CMD(ctx->cmd_fd, OPEN_XRCD, &cmd, &resp);
	if (err) {
		free(xrcd);
		errno = err;
		return NULL;
	}
	xrcd->ibxrcd.context = ctx;
	xrcd->handle = resp.xrcd_handle;
	return &xrcd->ibxrcd;
}

/*
 * EBUSY while this process has SRQs or QPs in the domain; the domain itself
 * lives on while other processes have it open.
 */
int sv_xrcd_close(struct ibv_xrcd *ibxrcd)
{
	struct sv_xrcd *xrcd = to_sv_xrcd(ibxrcd);
	struct sv_cmd_close_xrcd cmd = { .core.xrcd_handle = xrcd->handle };
	int err;

	err = sv_cmd_write(ibxrcd->context->cmd_fd, IB_USER_VERBS_CMD_CLOSE_XRCD,
			   &cmd, sizeof(cmd), NULL, 0);
	if (err)
		return err;
	free(xrcd);
	return 0;
}
