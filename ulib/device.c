// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device discovery and open/close.
 *
 * A uverbs char device shows up as <sysfs>/class/infiniband_verbs/uverbsN
 * with attributes ibdev (the ib_device name) and abi_version (the driver ABI,
 * 2 for the rxe ABI softverbs speaks); the class itself carries abi_version,
 * the uverbs command ABI (6).  We list a device only if its ib_device has the
 * softverbs_version attribute, which the kmod adds and Soft-RoCE lacks: this
 * library speaks softverbs' ring layout and must never drive anything else.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "ulib.h"

static void device_get(struct sv_device *dev)
{
	atomic_fetch_add(&dev->refcnt, 1);
}

void sv_device_put(struct sv_device *dev)
{
	if (atomic_fetch_sub(&dev->refcnt, 1) == 1)
		free(dev);
}

/* "1: CA" -> IBV_NODE_CA; the number is the IB node type. */
static enum ibv_node_type read_node_type(const char *ibdev_path)
{
	long v;

	char buf[32];

	if (sv_sysfs_read(ibdev_path, buf, sizeof(buf), "node_type") <= 0)
		return IBV_NODE_UNKNOWN;
	v = strtol(buf, NULL, 10);
	switch (v) {
	case IBV_NODE_CA:
	case IBV_NODE_SWITCH:
	case IBV_NODE_ROUTER:
	case IBV_NODE_RNIC:
	case IBV_NODE_USNIC:
	case IBV_NODE_USNIC_UDP:
	case IBV_NODE_UNSPECIFIED:
		return (enum ibv_node_type)v;
	default:
		return IBV_NODE_UNKNOWN;
	}
}

static enum ibv_transport_type transport_of(enum ibv_node_type type)
{
	switch (type) {
	case IBV_NODE_CA:
	case IBV_NODE_SWITCH:
	case IBV_NODE_ROUTER:
		return IBV_TRANSPORT_IB;	/* RoCE is the IB transport */
	case IBV_NODE_RNIC:
		return IBV_TRANSPORT_IWARP;
	case IBV_NODE_USNIC:
		return IBV_TRANSPORT_USNIC;
	case IBV_NODE_USNIC_UDP:
		return IBV_TRANSPORT_USNIC_UDP;
	case IBV_NODE_UNSPECIFIED:
		return IBV_TRANSPORT_UNSPECIFIED;
	default:
		return IBV_TRANSPORT_UNKNOWN;
	}
}

/* Copy with a truncation check; names and paths must fit ibv_device. */
static int copy_str(char *dst, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int copy_str(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(dst, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? ENAMETOOLONG : 0;
}

/*
 * Test-only override: SOFTVERBS_ALLOW_RXE=1 also lists Soft-RoCE devices.
 * Their kernel ABI is the one softverbs implements, so the whole library
 * can be tested end to end against rdma_rxe (tests/user/30-ulib-*.sh)
 * while softverbs objects are still being written.  Read with
 * secure_getenv, like the other SOFTVERBS_* variables.
 */
static bool allow_rxe(void)
{
	const char *v = secure_getenv("SOFTVERBS_ALLOW_RXE");

	return v && !strcmp(v, "1");
}

/*
 * A Soft-RoCE ib_device: driver ABI 2 (checked by the caller) and rxe's
 * own "parent" attribute naming the netdev it is bound to.  Other drivers
 * with ABI 2 lack that attribute.
 */
static bool is_rxe(const char *ibdev_path)
{
	char buf[64];

	return sv_sysfs_read(ibdev_path, buf, sizeof(buf), "parent") > 0;
}

/*
 * Build the device for class/infiniband_verbs/<name>, or return NULL when it
 * is not a usable softverbs device.  Reasons are silent: a host may have any
 * number of other RDMA devices, and listing is not an error path.
 */
static struct sv_device *probe_one(const char *class_dir, const char *name,
				   unsigned int index)
{
	char ibdev[IBV_SYSFS_NAME_MAX], buf[64];
	struct sv_device *dev;
	long abi;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	atomic_init(&dev->refcnt, 1);
	dev->uverbs_index = index;

	if (copy_str(dev->ibdev.dev_name, sizeof(dev->ibdev.dev_name), "%s",
		     name) ||
	    copy_str(dev->ibdev.dev_path, sizeof(dev->ibdev.dev_path), "%s/%s",
		     class_dir, name))
		goto skip;

	if (sv_sysfs_read(dev->ibdev.dev_path, ibdev, sizeof(ibdev),
			  "ibdev") <= 0 || strchr(ibdev, '/'))
		goto skip;
	if (sv_sysfs_read_int(dev->ibdev.dev_path, &abi, "abi_version") ||
	    abi != SV_DRIVER_ABI)
		goto skip;
	dev->driver_abi = abi;

	if (copy_str(dev->ibdev.name, sizeof(dev->ibdev.name), "%s", ibdev) ||
	    copy_str(dev->ibdev.ibdev_path, sizeof(dev->ibdev.ibdev_path),
		     "%s/class/infiniband/%s", sv_sysfs_root(), ibdev) ||
	    copy_str(dev->devnode, sizeof(dev->devnode), "%s/infiniband/%s",
		     sv_dev_root(), name))
		goto skip;

	/* The marker: only softverbs ib_devices carry this attribute. */
	if (sv_sysfs_read(dev->ibdev.ibdev_path, buf, sizeof(buf),
			  "softverbs_version") <= 0) {
		if (!(allow_rxe() && is_rxe(dev->ibdev.ibdev_path)))
			goto skip;
		dev->kernel_wc_flags = true;
	}

	dev->ibdev.node_type = read_node_type(dev->ibdev.ibdev_path);
	dev->ibdev.transport_type = transport_of(dev->ibdev.node_type);
	if (sv_sysfs_read(dev->ibdev.ibdev_path, buf, sizeof(buf),
			  "node_guid") <= 0 ||
	    sv_parse_guid(buf, &dev->node_guid))
		dev->node_guid = 0;
	return dev;

skip:
	free(dev);
	return NULL;
}

static int cmp_index(const void *a, const void *b)
{
	const struct sv_device *da = *(struct sv_device *const *)a;
	const struct sv_device *db = *(struct sv_device *const *)b;

	return (da->uverbs_index > db->uverbs_index) -
	       (da->uverbs_index < db->uverbs_index);
}

/* "uverbs12" -> 12; anything else is not a uverbs device entry. */
static int uverbs_index(const char *name, unsigned int *index)
{
	char *end;
	unsigned long v;

	if (strncmp(name, "uverbs", 6) || name[6] < '0' || name[6] > '9')
		return -1;
	v = strtoul(name + 6, &end, 10);
	if (*end || v > 0xffffff)
		return -1;
	*index = v;
	return 0;
}

/* libibverbs reads its fork environment when devices are first listed. */
static pthread_once_t fork_env_once = PTHREAD_ONCE_INIT;

#undef ibv_get_device_list
SV_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct sv_device **devs = NULL, **tmp;
	char class_dir[IBV_SYSFS_PATH_MAX];
	struct ibv_device **list;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *dir;
	long abi;
	int err;

	if (num_devices)
		*num_devices = 0;
	pthread_once(&fork_env_once, sv_fork_env_init);
	if (copy_str(class_dir, sizeof(class_dir), "%s/class/infiniband_verbs",
		     sv_sysfs_root())) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	/* Like libibverbs: no readable uverbs ABI means no verbs at all. */
	if (sv_sysfs_read_int(class_dir, &abi, "abi_version") ||
	    abi != SV_UVERBS_ABI) {
		errno = ENOSYS;
		return NULL;
	}

	dir = opendir(class_dir);
	if (!dir)
		return NULL;
	while ((de = readdir(dir))) {
		struct sv_device *dev;
		unsigned int index;

		if (uverbs_index(de->d_name, &index))
			continue;
		dev = probe_one(class_dir, de->d_name, index);
		if (!dev)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 4;
			tmp = realloc(devs, cap * sizeof(*devs));
			if (!tmp) {
				sv_device_put(dev);
				err = ENOMEM;
				goto err_free;
			}
			devs = tmp;
		}
		devs[n++] = dev;
	}
	closedir(dir);
	dir = NULL;

	if (n)
		qsort(devs, n, sizeof(*devs), cmp_index);
	list = calloc(n + 1, sizeof(*list));
	if (!list) {
		err = ENOMEM;
		goto err_free;
	}
	for (i = 0; i < n; i++)
		list[i] = &devs[i]->ibdev;	/* the list owns the reference */
	free(devs);
	if (num_devices)
		*num_devices = n;
	return list;

err_free:
	if (dir)
		closedir(dir);
	for (i = 0; i < n; i++)
		sv_device_put(devs[i]);
	free(devs);
	errno = err;
	return NULL;
}

SV_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	struct ibv_device **p;

	if (!list)
		return;
	for (p = list; *p; p++)
		sv_device_put(to_sv_device(*p));
	free(list);
}

SV_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

SV_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
	return to_sv_device(device)->node_guid;
}

struct index_lookup {
	const char *name;
	int index;
};

static int index_reply(const struct nlmsghdr *nlh, void *arg)
{
	struct index_lookup *l = arg;
	size_t len = strlen(l->name) + 1;	/* the name and its NUL */
	const char *name = sv_nl_attr(nlh, RDMA_NLDEV_ATTR_DEV_NAME, len);
	const uint32_t *idx = sv_nl_attr(nlh, RDMA_NLDEV_ATTR_DEV_INDEX,
					 sizeof(*idx));

	if (!name || !idx || memcmp(name, l->name, len))
		return 1;
	if (*idx > INT32_MAX)
		return -ERANGE;
	l->index = (int)*idx;
	return 0;
}

/*
 * The kernel's index of the device (what rdma_cm and RDMA netlink name it
 * by), from an RDMA_NLDEV_CMD_GET dump matched by name: librdmacm matches
 * its devices by it.  -1, as ibv_get_device_index(3) documents, when the
 * kernel does not answer or lists no device of that name (renamed since
 * the list was read, or in another network namespace).
 */
SV_EXPORT int ibv_get_device_index(struct ibv_device *device)
{
	struct index_lookup l = { .name = device->name, .index = -1 };

	if (sv_nl_request(RDMA_NLDEV_CMD_GET, true, index_reply, &l))
		return -1;
	return l.index;
}

SV_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct sv_device *dev = to_sv_device(device);
	struct sv_resp_get_context resp;
	struct sv_context *ctx;
	int cmd_fd, err;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		errno = ENOMEM;
		return NULL;
	}

	cmd_fd = sv_transport->open(dev->devnode);
	if (cmd_fd < 0) {
		err = errno;
		goto err_free;
	}
	/* First command on a uverbs file: creates the ucontext and the async
	 * event file whose fd comes back in the response.
	 */
	err = sv_cmd_get_context(cmd_fd, &resp);
	if (err)
		goto err_close;

	ctx->vctx.context.device = device;
	ctx->vctx.context.cmd_fd = cmd_fd;
	ctx->vctx.context.async_fd = resp.core.async_fd;
	ctx->vctx.context.num_comp_vectors = resp.core.num_comp_vectors;
	ctx->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->vctx.sz = sizeof(ctx->vctx);
	pthread_mutex_init(&ctx->vctx.context.mutex, NULL);
	ctx->ops = &sv_softverbs_ops;
	ctx->dev = dev;
	atomic_init(&ctx->no_ex_query_device, false);
	sv_context_init_ops(ctx);

	device_get(dev);
	return &ctx->vctx.context;

err_close:
	close(cmd_fd);
err_free:
	free(ctx);
	errno = err;
	return NULL;
}

SV_EXPORT int ibv_close_device(struct ibv_context *context)
{
	struct sv_context *ctx = to_sv_context(context);

	/* Closing cmd_fd destroys the ucontext and every object in it. */
	close(context->async_fd);
	close(context->cmd_fd);
	pthread_mutex_destroy(&context->mutex);
	sv_device_put(ctx->dev);
	free(ctx);
	return 0;
}
