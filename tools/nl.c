// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink plumbing on libmnl: one request at a time, replies fed to a
 * callback, kernel errors returned as negative errno with the extended ACK
 * message kept for the caller to print.
 *
 * RDMA netlink (NETLINK_RDMA, the nldev client) has no family header: the
 * attributes follow the nlmsghdr, and every nldev command shares one
 * attribute space, so one table below validates them all, nested ones
 * included.  Generic netlink (the future softverbs family) shares the
 * request/reply code; only the family lookup is generic-specific.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "svctl.h"

/* replies can be as large as the kernel's dump skb; 64 KiB is ample */
#define NL_RBUF_SIZE	(64 * 1024)

/*
 * The type of every nldev attribute svctl may meet (rdma_netlink.h, through
 * the attributes of the 6.1 kernels).  Anything not listed -- newer
 * attributes -- is passed on unvalidated and unused.
 */
static const enum mnl_attr_data_type nldev_policy[NLDEV_TB_SIZE] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_DEV_NAME]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_PORT_INDEX]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_CAP_FLAGS]		= MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_FW_VERSION]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_NODE_GUID]		= MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID]	= MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_SUBNET_PREFIX]		= MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_LID]			= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_SM_LID]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_LMC]			= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_PORT_STATE]		= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]	= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]		= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_RES_SUMMARY]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY]	= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME] = MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR] = MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_RES_QP]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_QP_ENTRY]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_LQPN]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_RQPN]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_RQ_PSN]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_SQ_PSN]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE]	= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_RES_TYPE]		= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_RES_STATE]		= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_RES_PID]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_KERN_NAME]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_RES_CM_ID]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY]	= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_PS]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_SRC_ADDR]		= MNL_TYPE_BINARY,
	[RDMA_NLDEV_ATTR_RES_DST_ADDR]		= MNL_TYPE_BINARY,
	[RDMA_NLDEV_ATTR_RES_CQ]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_CQ_ENTRY]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_CQE]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_USECNT]		= MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_RES_POLL_CTX]		= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_RES_MR]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_MR_ENTRY]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_RKEY]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_LKEY]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_IOVA]		= MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_RES_MRLEN]		= MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_RES_PD]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_PD_ENTRY]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY]	= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY] = MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_NDEV_INDEX]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_NDEV_NAME]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_DRIVER]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_DRIVER_ENTRY]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_DRIVER_STRING]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE]	= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_DRIVER_S32]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_DRIVER_U32]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_DRIVER_S64]		= MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_DRIVER_U64]		= MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_RES_PDN]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_CQN]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_MRN]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_CM_IDN]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_CTXN]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_LINK_TYPE]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]	= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_DEV_PROTOCOL]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_NET_NS_FD]			= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_CHARDEV_TYPE]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_CHARDEV_NAME]		= MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_CHARDEV_ABI]		= MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_CHARDEV]		= MNL_TYPE_U64,
	/* the header says u64; ib_uverbs puts a u32 (rdma-core reads that) */
	[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID]	= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_STAT_MODE]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_STAT_RES]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK]	= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_STAT_COUNTER]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY]	= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]	= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS]	= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY]	= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] = MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] = MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_DEV_DIM]		= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_RES_RAW]		= MNL_TYPE_BINARY,
	[RDMA_NLDEV_ATTR_RES_CTX]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_CTX_ENTRY]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_SRQ]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_SRQ_ENTRY]		= MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_SRQN]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_MIN_RANGE]		= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_MAX_RANGE]		= MNL_TYPE_U32,
	[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK]	= MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX]	= MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC] = MNL_TYPE_U8,
};

int nl_open(struct nl *nl, int protocol)
{
	int one = 1, err;

	memset(nl, 0, sizeof(*nl));
	nl->sk = mnl_socket_open(protocol);
	if (!nl->sk)
		return -errno;
	if (mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
		mnl_socket_close(nl->sk);
		nl->sk = NULL;
		return err;
	}
	/* best effort: the error text, and no echo of our request in it */
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	nl->portid = mnl_socket_get_portid(nl->sk);
	nl->seq = time(NULL);
	nl->sbuf = xzalloc(MNL_SOCKET_BUFFER_SIZE);
	nl->rbuf_size = NL_RBUF_SIZE;
	nl->rbuf = xzalloc(nl->rbuf_size);
	return 0;
}

void nl_close(struct nl *nl)
{
	if (nl->sk)
		mnl_socket_close(nl->sk);
	free(nl->sbuf);
	free(nl->rbuf);
	memset(nl, 0, sizeof(*nl));
}

struct nlmsghdr *nl_req(struct nl *nl, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh;

	memset(nl->sbuf, 0, MNL_SOCKET_BUFFER_SIZE);
	nlh = mnl_nlmsg_put_header(nl->sbuf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	return nlh;
}

struct run_ctx {
	struct nl *nl;
	nl_data_cb cb;
	void *data;
	int err;	/* positive errno once something failed */
};

static int extack_attr_cb(const struct nlattr *attr, void *data)
{
	struct nl *nl = data;

	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
		snprintf(nl->ext_msg, sizeof(nl->ext_msg), "%s",
			 mnl_attr_get_str(attr));
	return MNL_CB_OK;
}

/* The TLVs (NETLINK_EXT_ACK) after an error or a DONE at payload offset off */
static void parse_extack(struct nl *nl, const struct nlmsghdr *nlh, size_t off)
{
	size_t plen = mnl_nlmsg_get_payload_len(nlh);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= plen)
		return;
	mnl_attr_parse_payload((const char *)mnl_nlmsg_get_payload(nlh) + off,
			       plen - off, extack_attr_cb, nl);
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	struct run_ctx *ctx = data;
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		ctx->err = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!e->error)
		return MNL_CB_STOP;	/* the ACK */
	ctx->err = -e->error;
	/* without NETLINK_CAP_ACK the request comes back before the TLVs */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	parse_extack(ctx->nl, nlh, off);
	return MNL_CB_ERROR;
}

/* the end of a dump may carry the error that cut it short */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct run_ctx *ctx = data;
	int err;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(int))
		return MNL_CB_STOP;
	memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err >= 0)
		return MNL_CB_STOP;
	ctx->err = -err;
	parse_extack(ctx->nl, nlh, sizeof(int));
	return MNL_CB_ERROR;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct run_ctx *ctx = data;
	int ret;

	if (!ctx->cb)
		return MNL_CB_OK;
	errno = 0;
	ret = ctx->cb(nlh, ctx->data);
	if (ret == MNL_CB_ERROR)
		ctx->err = errno ? errno : EPROTO;
	return ret;
}

int nl_run(struct nl *nl, struct nlmsghdr *req, nl_data_cb cb, void *data)
{
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb,
		[NLMSG_DONE] = done_cb,
	};
	struct run_ctx ctx = { .nl = nl, .cb = cb, .data = data };
	ssize_t n;
	int ret;

	nl->ext_msg[0] = '\0';
	if (mnl_socket_sendto(nl->sk, req, req->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl->sk, nl->rbuf, nl->rbuf_size);
		if (n < 0)
			return -errno;
		ret = mnl_cb_run2(nl->rbuf, n, req->nlmsg_seq, nl->portid,
				  data_cb, &ctx, ctl, ARRAY_SIZE(ctl));
	} while (ret > MNL_CB_STOP);
	if (ret < 0)
		return -(ctx.err ? ctx.err : errno ? errno : EPROTO);
	return 0;
}

struct nlmsghdr *nldev_req(struct nl *nl, unsigned int cmd, uint16_t flags)
{
	return nl_req(nl, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), flags);
}

/*
 * A malformed attribute is dropped, as if the kernel had not sent it, and
 * named once on stderr: one odd attribute must not hide everything else.
 */
static void malformed(const struct nlattr *attr)
{
	static bool told[NLDEV_TB_SIZE];
	uint16_t type = mnl_attr_get_type(attr);

	if (told[type])
		return;
	told[type] = true;
	fprintf(stderr, "svctl: warning: ignoring malformed RDMA netlink "
		"attribute %u (%u bytes)\n", type,
		(unsigned int)mnl_attr_get_payload_len(attr));
}

bool nldev_attr_ok(const struct nlattr *attr)
{
	uint16_t type = mnl_attr_get_type(attr);

	if (type >= NLDEV_TB_SIZE || nldev_policy[type] == MNL_TYPE_UNSPEC)
		return true;	/* unknown: unused, so harmless */
	if (mnl_attr_validate(attr, nldev_policy[type]) >= 0)
		return true;
	malformed(attr);
	return false;
}

static int nldev_attr_cb(const struct nlattr *attr, void *data)
{
	struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type == RDMA_NLDEV_ATTR_PAD || type >= NLDEV_TB_SIZE)
		return MNL_CB_OK;
	if (!nldev_attr_ok(attr))
		return MNL_CB_OK;
	tb[type] = (struct nlattr *)attr;
	return MNL_CB_OK;
}

int nldev_parse(const struct nlmsghdr *nlh, struct nlattr **tb)
{
	memset(tb, 0, NLDEV_TB_SIZE * sizeof(*tb));
	if (mnl_attr_parse(nlh, 0, nldev_attr_cb, tb) < 0)
		return -EPROTO;
	return 0;
}

int nldev_parse_nested(const struct nlattr *nest, struct nlattr **tb)
{
	memset(tb, 0, NLDEV_TB_SIZE * sizeof(*tb));
	if (mnl_attr_parse_nested(nest, nldev_attr_cb, tb) < 0)
		return -EPROTO;
	return 0;
}

/* --- generic netlink ------------------------------------------------------ */

static int family_id_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
		    mnl_attr_validate(attr, MNL_TYPE_U16) >= 0)
			*(uint16_t *)data = mnl_attr_get_u16(attr);
	}
	return MNL_CB_OK;
}

int genl_family_id(struct nl *nl, const char *name, uint16_t *id)
{
	struct nlmsghdr *nlh = nl_req(nl, GENL_ID_CTRL, 0);
	struct genlmsghdr *g;
	int err;

	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	*id = 0;
	err = nl_run(nl, nlh, family_id_cb, id);
	if (!err && !*id)
		err = -ENOENT;
	return err;
}
