// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sysfs attribute reading and the text formats the kernel uses there.
 *
 * Every path is built under $SOFTVERBS_SYSFS_ROOT (default /sys) and device
 * nodes under $SOFTVERBS_DEV_ROOT (default /dev), so the host tests can point
 * the library at a fake tree.  secure_getenv: a setuid program must not be
 * steered to another tree by its caller.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>

#include "ulib.h"

const char *sv_sysfs_root(void)
{
	const char *root = secure_getenv("SOFTVERBS_SYSFS_ROOT");

	return root && *root ? root : "/sys";
}

const char *sv_dev_root(void)
{
	const char *root = secure_getenv("SOFTVERBS_DEV_ROOT");

	return root && *root ? root : "/dev";
}

static ssize_t vread(const char *dir, char *buf, size_t len, const char *fmt,
		     va_list ap)
{
	char rel[IBV_SYSFS_PATH_MAX], path[2 * IBV_SYSFS_PATH_MAX];
	ssize_t n;
	int fd, ret;

	if (!len) {
		errno = EINVAL;
		return -1;
	}
	ret = vsnprintf(rel, sizeof(rel), fmt, ap);
	if (ret < 0 || (size_t)ret >= sizeof(rel)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	ret = snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (ret < 0 || (size_t)ret >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* sysfs returns a whole attribute in one read; errors (e.g. EINVAL for
	 * the type of an empty GID slot) come back from read(), not open().
	 */
	n = read(fd, buf, len - 1);
	ret = errno;
	close(fd);
	if (n < 0) {
		errno = ret;
		return -1;
	}
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n;
}

ssize_t sv_sysfs_read(const char *dir, char *buf, size_t len,
		      const char *fmt, ...)
{
	va_list ap;
	ssize_t n;

	va_start(ap, fmt);
	n = vread(dir, buf, len, fmt, ap);
	va_end(ap);
	return n;
}

int sv_sysfs_read_int(const char *dir, long *val, const char *fmt, ...)
{
	char buf[32], *end;
	va_list ap;
	ssize_t n;
	long v;

	va_start(ap, fmt);
	n = vread(dir, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if (n == 0 || !(isdigit((unsigned char)buf[0]) || buf[0] == '-'))
		goto bad;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || *end)
		goto bad;
	*val = v;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

/* Parse "xxxx:xxxx:..." with exactly ngroups groups of 4 hex digits. */
static int parse_groups(const char *s, uint8_t *out, unsigned int ngroups)
{
	unsigned int g, i;

	for (g = 0; g < ngroups; g++) {
		unsigned int v = 0;

		for (i = 0; i < 4; i++) {
			char c = *s++;

			if (!isxdigit((unsigned char)c))
				return EINVAL;
			v = v << 4 | (unsigned int)(isdigit((unsigned char)c) ?
					c - '0' : tolower((unsigned char)c) - 'a' + 10);
		}
		out[2 * g] = v >> 8;
		out[2 * g + 1] = v & 0xff;
		if (g + 1 < ngroups && *s++ != ':')
			return EINVAL;
	}
	return *s ? EINVAL : 0;
}

int sv_parse_gid(const char *s, union ibv_gid *gid)
{
	union ibv_gid tmp = { .global = { 0 } };
	int ret = parse_groups(s, tmp.raw, 8);

	if (!ret)
		*gid = tmp;
	return ret;
}

int sv_parse_guid(const char *s, __be64 *guid)
{
	uint8_t raw[8];
	int ret = parse_groups(s, raw, 4);

	if (!ret)
		memcpy(guid, raw, sizeof(raw));	/* already network order */
	return ret;
}
