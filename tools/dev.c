// SPDX-License-Identifier: GPL-2.0
/*
 * svctl dev: the softverbs devices this network namespace can see.
 *
 * RDMA netlink lists every RDMA device visible here (all of them when the
 * RDMA subsystem shares devices between namespaces, the default); a
 * softverbs one has the softverbs_version sysfs attribute.  Per port: state
 * from netlink, the netdev from netlink when it is in this namespace (else
 * the sysfs parent), active MTU and GIDs in use from verbs queries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "svctl.h"

void dev_usage(FILE *f)
{
	fprintf(f,
		"Usage: svctl dev [show] [DEV]\n"
		"       svctl dev help\n");
}

void sv_guid_str(uint64_t guid, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%04x:%04x:%04x",
		 (unsigned int)(guid >> 48) & 0xffff,
		 (unsigned int)(guid >> 32) & 0xffff,
		 (unsigned int)(guid >> 16) & 0xffff,
		 (unsigned int)guid & 0xffff);
}

static const char *node_type_str(int type)
{
	static const char *const names[] = {
		[RDMA_NODE_IB_CA] = "ca",
		[RDMA_NODE_IB_SWITCH] = "switch",
		[RDMA_NODE_IB_ROUTER] = "router",
		[RDMA_NODE_RNIC] = "rnic",
		[RDMA_NODE_USNIC] = "usnic",
		[RDMA_NODE_USNIC_UDP] = "usnic_udp",
		[RDMA_NODE_UNSPECIFIED] = "unspecified",
	};

	if (type >= 0 && (size_t)type < ARRAY_SIZE(names) && names[type])
		return names[type];
	return "unknown";
}

struct dev_list {
	struct svctl_dev *devs;
	size_t n;
};

static int dev_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *tb[NLDEV_TB_SIZE];
	struct dev_list *l = data;
	struct svctl_dev *d;

	if (nldev_parse(nlh, tb))
		return MNL_CB_ERROR;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return MNL_CB_OK;
	l->devs = xrealloc(l->devs, (l->n + 1) * sizeof(*l->devs));
	d = &l->devs[l->n++];
	memset(d, 0, sizeof(*d));
	d->index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	snprintf(d->name, sizeof(d->name), "%s",
		 mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_DEV_NAME]));
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		d->ports = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (tb[RDMA_NLDEV_ATTR_NODE_GUID])
		d->node_guid = mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_NODE_GUID]);
	if (tb[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID])
		d->sys_image_guid =
			mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID]);
	d->node_type = tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE] ?
		       mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]) : -1;
	if (tb[RDMA_NLDEV_ATTR_FW_VERSION])
		snprintf(d->fw, sizeof(d->fw), "%s",
			 mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_FW_VERSION]));
	if (tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL])
		snprintf(d->protocol, sizeof(d->protocol), "%s",
			 mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL]));
	/* a device that vanished meanwhile reads as not ours, and is skipped */
	if (sysfs_read(d->version, sizeof(d->version), SV_SYSFS_IB "/%s/%s",
		       d->name, SV_SYSFS_VERSION_ATTR))
		d->version[0] = '\0';
	return MNL_CB_OK;
}

/* every RDMA device visible here, softverbs or not */
static int dev_dump(struct svctl *sv, struct dev_list *l)
{
	struct nl *nl = sv_nl(sv);
	int err;

	l->devs = NULL;
	l->n = 0;
	err = nl_run(nl, nldev_req(nl, RDMA_NLDEV_CMD_GET, NLM_F_DUMP),
		     dev_list_cb, l);
	if (err) {
		free(l->devs);
		l->devs = NULL;
		l->n = 0;
	}
	return err;
}

int svctl_dev_list(struct svctl *sv, struct svctl_dev **devs, size_t *n)
{
	struct dev_list l;
	size_t i, k = 0;
	int err;

	err = dev_dump(sv, &l);
	if (err)
		return err;
	for (i = 0; i < l.n; i++)
		if (l.devs[i].version[0])
			l.devs[k++] = l.devs[i];
	*devs = l.devs;
	*n = k;
	return 0;
}

int svctl_dev_find(struct svctl *sv, const char *name, struct svctl_dev *dev,
		   const char *ctx)
{
	struct dev_list l;
	size_t i;
	int err;

	err = dev_dump(sv, &l);
	if (err)
		return sv_err(sv, err, "%s: cannot list RDMA devices", ctx);
	for (i = 0; i < l.n && strcmp(l.devs[i].name, name); i++)
		;
	if (i == l.n) {
		free(l.devs);
		return sv_err(sv, ENODEV, "%s %s", ctx, name);
	}
	*dev = l.devs[i];
	free(l.devs);
	if (!dev->version[0])
		return sv_fail(sv, "%s %s: not a softverbs device", ctx, name);
	return 0;
}

static struct jv *dev_json(struct svctl *sv, const struct svctl_dev *d,
			   int *err)
{
	struct jv *o, *ports;
	char guid[32];

	ports = sv_ports_json(sv, d, err);
	if (!ports)
		return NULL;
	o = jv_obj();
	jv_set(o, "ifindex", jv_u64(d->index));
	jv_set(o, "ifname", jv_str(d->name));
	if (d->node_type >= 0)
		jv_set(o, "node_type", jv_str(node_type_str(d->node_type)));
	if (d->protocol[0])
		jv_set(o, "protocol", jv_str(d->protocol));
	if (d->fw[0])
		jv_set(o, "fw", jv_str(d->fw));
	sv_guid_str(d->node_guid, guid, sizeof(guid));
	jv_set(o, "node_guid", jv_str(guid));
	sv_guid_str(d->sys_image_guid, guid, sizeof(guid));
	jv_set(o, "sys_image_guid", jv_str(guid));
	jv_set(o, "softverbs_version", jv_str(d->version));
	jv_set(o, "ports", ports);
	return o;
}

static const struct sv_col dev_cols[] = {
	{ "IDX",	"ifindex",		SV_COL_RIGHT, NULL },
	{ "NAME",	"ifname",		0, NULL },
	{ "PORT",	"ports.port",		SV_COL_RIGHT, NULL },
	{ "STATE",	"ports.state",		0, NULL },
	{ "PHYS",	"ports.physical_state",	SV_COL_DETAIL, NULL },
	{ "MTU",	"ports.active_mtu",	SV_COL_RIGHT, NULL },
	{ "GIDS",	"ports.gids",		SV_COL_RIGHT, NULL },
	{ "NETDEV",	"ports.netdev",		0, NULL },
	{ "NETNS",	"ports.netdev_netns",	SV_COL_OPT, NULL },
	{ "NODE_GUID",	"node_guid",		0, NULL },
	{ "SYS_IMAGE_GUID", "sys_image_guid",	SV_COL_DETAIL, NULL },
	{ "PROTO",	"protocol",		SV_COL_DETAIL, NULL },
	{ "FW",		"fw",			SV_COL_OPT, NULL },
	{ "VERSION",	"softverbs_version",	0, NULL },
};

static int dev_show(struct svctl *sv)
{
	const char *name = sv_next(sv);
	struct svctl_dev *devs = NULL, one;
	struct jv *rows;
	size_t n, i;
	int err, rc;

	if ((rc = sv_no_more_args(sv, "dev show")))
		return rc;
	if (name) {
		if ((rc = svctl_dev_find(sv, name, &one, "dev show")))
			return rc;
		devs = &one;
		n = 1;
	} else {
		err = svctl_dev_list(sv, &devs, &n);
		if (err)
			return sv_err(sv, err, "dev show");
	}

	rows = jv_arr();
	for (i = 0; i < n; i++) {
		struct jv *o = dev_json(sv, &devs[i], &err);

		if (o) {
			jv_push(rows, o);
		} else if (name || err != -ENODEV) {
			/* gone meanwhile is fine for a listing, not else */
			jv_free(rows);
			rc = sv_err(sv, err, "dev show %s", devs[i].name);
			goto out;
		}
	}
	sv_print(sv, rows, dev_cols, ARRAY_SIZE(dev_cols), "ports");
out:
	if (devs != &one)
		free(devs);
	return rc;
}

static int dev_help(struct svctl *sv)
{
	(void)sv;
	dev_usage(stdout);
	return SV_EXIT_OK;
}

int cmd_dev(struct svctl *sv)
{
	static const struct sv_cmd cmds[] = {
		{ "show",	dev_show },	/* first: the default */
		{ "list",	dev_show },
		{ "help",	dev_help },
		{ NULL,		NULL },
	};

	return sv_exec(sv, cmds);
}
