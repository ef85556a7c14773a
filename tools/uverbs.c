// SPDX-License-Identifier: GPL-2.0
/*
 * The port properties RDMA netlink does not carry: the active MTU and the
 * number of GIDs in use.  They are what ibv_query_port() and
 * ibv_query_gid_table() return, so ask the same way, through the device's
 * uverbs character device: open a verbs context, query, close.  Netlink
 * names the character device (RDMA_NLDEV_CMD_GET_CHARDEV), so no /dev or
 * sysfs naming rules are guessed here.
 *
 * The GID table query is one ioctl for the whole table; the sysfs
 * alternative reads one file per slot (1024 for a softverbs port), which
 * is what made "svctl dev" take seconds on a debug kernel.
 *
 * The softverbs generic netlink family should report the MTU (see the
 * attribute proposal in the report); this file then goes away.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "svctl.h"

struct chardev {
	char name[64];
	uint64_t dev;		/* huge_encode_dev() of the dev_t */
};

static int chardev_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *tb[NLDEV_TB_SIZE];
	struct chardev *cd = data;

	if (nldev_parse(nlh, tb))
		return MNL_CB_ERROR;
	if (!tb[RDMA_NLDEV_ATTR_CHARDEV_NAME] || !tb[RDMA_NLDEV_ATTR_CHARDEV])
		return MNL_CB_OK;
	snprintf(cd->name, sizeof(cd->name), "%s",
		 mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_CHARDEV_NAME]));
	cd->dev = mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_CHARDEV]);
	return MNL_CB_OK;
}

static int uverbs_open(struct svctl *sv, uint32_t dev_index)
{
	struct nl *nl = sv_nl(sv);
	struct chardev cd = { .name = "" };
	struct nlmsghdr *nlh;
	char path[128];
	struct stat st;
	int fd, err;

	nlh = nldev_req(nl, RDMA_NLDEV_CMD_GET_CHARDEV, 0);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs");
	err = nl_run(nl, nlh, chardev_cb, &cd);
	if (err)
		return err;
	if (!cd.name[0] || strchr(cd.name, '/'))
		return -ENODEV;
	snprintf(path, sizeof(path), "/dev/infiniband/%s", cd.name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* the node must be the one the kernel named (new_encode_dev layout) */
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode) ||
	    major(st.st_rdev) != ((cd.dev & 0xfff00) >> 8) ||
	    minor(st.st_rdev) != ((cd.dev & 0xff) | ((cd.dev >> 12) & 0xfff00))) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

/* one legacy write() command: header, command, response pointer inside */
static int uverbs_cmd(int fd, uint32_t command, void *cmd, size_t cmd_len,
		      size_t resp_len)
{
	struct ib_uverbs_cmd_hdr *hdr = cmd;
	ssize_t n;

	hdr->command = command;
	hdr->in_words = cmd_len / 4;
	hdr->out_words = resp_len / 4;
	n = write(fd, cmd, cmd_len);
	if (n < 0)
		return -errno;
	return (size_t)n == cmd_len ? 0 : -EIO;
}

/*
 * UVERBS_METHOD_QUERY_GID_TABLE (Linux 5.9+): the valid entries of every
 * port.  RESP_ENTRIES's length is a __u16, which bounds the buffer; a table
 * with more valid entries than fit fails with EINVAL rather than being cut.
 */
static int uverbs_gid_count(int fd, uint32_t port)
{
	enum { NATTRS = 3, MAX_ENTRIES = 0xffff / sizeof(struct ib_uverbs_gid_entry) };
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[NATTRS];
	} req = {
		.hdr = {
			.length = sizeof(req),
			.object_id = UVERBS_OBJECT_DEVICE,
			.method_id = UVERBS_METHOD_QUERY_GID_TABLE,
			.num_attrs = NATTRS,
		},
	};
	struct ib_uverbs_gid_entry *e;
	uint64_t n = 0, i;
	int count = 0;

	e = calloc(MAX_ENTRIES, sizeof(*e));
	if (!e)
		return -ENOMEM;
	/* a const-in u64 travels inline; pointer attributes carry addresses */
	req.attrs[0] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE,
		.len = sizeof(uint64_t),
		.data = sizeof(*e),
	};
	req.attrs[1] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES,
		.len = MAX_ENTRIES * sizeof(*e),
		.data = (uintptr_t)e,
	};
	req.attrs[2] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES,
		.len = sizeof(n),
		.data = (uintptr_t)&n,
	};
	if (ioctl(fd, RDMA_VERBS_IOCTL, &req)) {
		count = -errno;
		goto out;
	}
	if (n > MAX_ENTRIES) {
		count = -EOVERFLOW;
		goto out;
	}
	for (i = 0; i < n; i++)
		if (e[i].port_num == port)
			count++;
out:
	free(e);
	return count;
}

int uverbs_port_info(struct svctl *sv, uint32_t dev_index, uint32_t port,
		     struct sv_port_info *pi)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_get_context cmd;
	} ctx_req = { 0 };
	struct ib_uverbs_get_context_resp ctx_resp = { 0 };
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_query_port cmd;
	} port_req = { 0 };
	struct ib_uverbs_query_port_resp port_resp = { 0 };
	int fd, err;

	fd = uverbs_open(sv, dev_index);
	if (fd < 0)
		return fd;
	ctx_req.cmd.response = (uintptr_t)&ctx_resp;
	err = uverbs_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &ctx_req,
			 sizeof(ctx_req), sizeof(ctx_resp));
	if (err)
		goto out;
	close(ctx_resp.async_fd);

	port_req.cmd.response = (uintptr_t)&port_resp;
	port_req.cmd.port_num = port;
	err = uverbs_cmd(fd, IB_USER_VERBS_CMD_QUERY_PORT, &port_req,
			 sizeof(port_req), sizeof(port_resp));
	if (err)
		goto out;
	/* enum ib_mtu: IB_MTU_256 = 1 .. IB_MTU_4096 = 5 */
	if (port_resp.active_mtu < 1 || port_resp.active_mtu > 5) {
		err = -ERANGE;
		goto out;
	}
	pi->active_mtu = 128u << port_resp.active_mtu;
	pi->gids = uverbs_gid_count(fd, port);
out:
	close(fd);	/* destroys the context */
	return err;
}
