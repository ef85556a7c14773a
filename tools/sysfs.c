// SPDX-License-Identifier: GPL-2.0
/*
 * What only sysfs tells: whether a device is softverbs (its
 * softverbs_version attribute), its parent netdev when that lives in
 * another namespace, and the GID table.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "svctl.h"

static int read_path(char *buf, size_t len, const char *path)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int sysfs_read(char *buf, size_t len, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return read_path(buf, len, path);
}

/*
 * ib_core shows every slot of the table; an unused one reads as all zeros
 * (the same rule ibv_query_gid users apply).
 */
int sysfs_gid_count(const char *dev, uint32_t port)
{
	char dir[256], path[512], gid[64];
	struct dirent *de;
	int count = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), SV_SYSFS_IB "/%s/ports/%u/gids", dev, port);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (read_path(gid, sizeof(gid), path))
			continue;
		if (strspn(gid, "0:") != strlen(gid))
			count++;
	}
	closedir(d);
	return count;
}
