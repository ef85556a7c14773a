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
#include <sys/stat.h>
#include <unistd.h>

#include "ulib.h"

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
	    cmd_len < sizeof(*hdr) + sizeof(response) ||
	    cmd_len / 4 > UINT16_MAX || resp_len / 4 > UINT16_MAX)
		return EINVAL;

	hdr->command = command;
	hdr->in_words = cmd_len / 4;
	hdr->out_words = resp_len / 4;
	/* Every request that has a response starts with the u64 pointer. */
	memcpy(hdr + 1, &response, sizeof(response));
	if (resp_len)
		memset(resp, 0, resp_len);

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

int sv_cmd_get_context(int fd, struct sv_resp_get_context *resp)
{
	struct sv_cmd_get_context cmd = {};

	return SV_CMD(fd, GET_CONTEXT, &cmd, resp);
}
