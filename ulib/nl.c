// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMA netlink, the little libsoftverbs asks of it: one request, its
 * replies walked message by message, attributes found by type.  Used for
 * the kernel's copy-on-fork flag (fork.c) and for device indexes
 * (device.c: ibv_get_device_index).  Everything read comes from the
 * kernel, but lengths are still checked before use: a short or odd reply
 * reads as "no answer", never past the buffer.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "ulib.h"

const void *sv_nl_attr(const struct nlmsghdr *nlh, uint16_t type,
		       size_t min_len)
{
	const struct nlattr *a = (const void *)((const char *)nlh +
						 NLMSG_HDRLEN);
	size_t left;

	if (nlh->nlmsg_len < NLMSG_HDRLEN)
		return NULL;
	left = nlh->nlmsg_len - NLMSG_HDRLEN;
	while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= left) {
		if ((a->nla_type & NLA_TYPE_MASK) == type &&
		    a->nla_len >= NLA_HDRLEN + min_len)
			return (const char *)a + NLA_HDRLEN;
		if ((size_t)NLA_ALIGN(a->nla_len) >= left)
			break;
		left -= (size_t)NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	return NULL;
}

int sv_nl_request(uint16_t cmd, bool dump,
		  int (*each)(const struct nlmsghdr *nlh, void *arg), void *arg)
{
	struct nlmsghdr req = {
		.nlmsg_len = sizeof(req),
		.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd),
		.nlmsg_flags = NLM_F_REQUEST | (dump ? NLM_F_DUMP : 0),
		.nlmsg_seq = 1,
	};
	union {
		struct nlmsghdr nlh;
		char buf[8192];
	} resp;
	int fd, ret = -EIO;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd < 0)
		return -errno;
	if (send(fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req)) {
		ret = -errno;
		goto out;
	}
	for (;;) {
		ssize_t n = recv(fd, &resp, sizeof(resp), 0);
		const struct nlmsghdr *nlh = &resp.nlh;
		size_t left;

		if (n < 0) {
			ret = -errno;
			goto out;
		}
		left = (size_t)n;
		for (; NLMSG_OK(nlh, left); nlh = NLMSG_NEXT(nlh, left)) {
			if (nlh->nlmsg_type == NLMSG_DONE) {
				ret = 0;
				goto out;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nlh);

				ret = nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) &&
				      e->error ? e->error : -EIO;
				goto out;
			}
			if (nlh->nlmsg_type != req.nlmsg_type)
				continue;
			ret = each(nlh, arg);
			if (ret <= 0 || !dump) {
				if (ret > 0)
					ret = 0;
				goto out;
			}
		}
		if (!dump || n == 0) {
			ret = -EIO;
			goto out;
		}
	}
out:
	close(fd);
	return ret;
}
