// SPDX-License-Identifier: GPL-2.0
/*
 * svctl link: create and delete softverbs devices (RDMA_NLDEV_CMD_NEWLINK
 * with link type "softverbs", RDMA_NLDEV_CMD_DELLINK), and show their ports.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "svctl.h"

#define SV_LINK_TYPE	"softverbs"

void link_usage(FILE *f)
{
	fprintf(f,
		"Usage: svctl link [show] [DEV[/PORT]]\n"
		"       svctl link add NAME netdev NETDEV\n"
		"       svctl link { del | delete } NAME\n"
		"       svctl link save [ file FILE ]\n"
		"       svctl link apply [ file FILE ]\n"
		"       svctl link watch [ file FILE ]\n"
		"       svctl link help\n"
		"FILE: NAME netdev NETDEV [ netns NS ] lines, default /etc/softverbs/links.conf\n");
}

/* IBTA 14.2.5.6 PortState; rdma prints the same names */
static const char *port_state_str(unsigned int s)
{
	static const char *const names[] = {
		"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
	};

	return s < ARRAY_SIZE(names) ? names[s] : "UNKNOWN";
}

/* IBTA 14.2.5.6 PortPhysicalState */
static const char *phys_state_str(unsigned int s)
{
	static const char *const names[] = {
		"NOP", "SLEEP", "POLLING", "DISABLED", "CONFIG_TRAINING",
		"LINK_UP", "LINK_ERROR_RECOVERY", "PHY_TEST",
	};

	return s < ARRAY_SIZE(names) ? names[s] : "UNKNOWN";
}

/*
 * One port from its PORT_GET reply; with_dev: led by the device's identity.
 * Only what the reply and sysfs say: this runs inside the dump.
 */
static struct jv *port_json(const struct svctl_dev *dev, struct nlattr **tb,
			    bool with_dev)
{
	struct jv *o = jv_obj();
	uint32_t port = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	char parent[SV_NETDEV_NAME_MAX + 1];

	if (with_dev) {
		jv_set(o, "ifindex", jv_u64(dev->index));
		jv_set(o, "ifname", jv_str(dev->name));
	}
	jv_set(o, "port", jv_u64(port));
	if (tb[RDMA_NLDEV_ATTR_PORT_STATE])
		jv_set(o, "state", jv_str(port_state_str(
			mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_PORT_STATE]))));
	if (tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE])
		jv_set(o, "physical_state", jv_str(phys_state_str(
			mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]))));
	/*
	 * ib_core reports the netdev only to its own namespace.  Elsewhere
	 * the name (sysfs "parent") means nothing local: flag it.
	 */
	if (tb[RDMA_NLDEV_ATTR_NDEV_NAME] && tb[RDMA_NLDEV_ATTR_NDEV_INDEX]) {
		jv_set(o, "netdev",
		       jv_str(mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_NDEV_NAME])));
		jv_set(o, "netdev_index",
		       jv_u64(mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX])));
	} else if (!sysfs_read(parent, sizeof(parent), SV_SYSFS_IB "/%s/parent",
			       dev->name)) {
		jv_set(o, "netdev", jv_str(parent));
		jv_set(o, "netdev_netns", jv_str("other"));
	}
	return o;
}

struct ports_ctx {
	const struct svctl_dev *dev;
	uint32_t only;		/* 0: every port */
	bool with_dev;
	struct jv *arr;
};

static int ports_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *tb[NLDEV_TB_SIZE];
	struct ports_ctx *p = data;

	if (nldev_parse(nlh, tb))
		return MNL_CB_ERROR;
	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return MNL_CB_OK;
	if (p->only && mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]) != p->only)
		return MNL_CB_OK;
	jv_push(p->arr, port_json(p->dev, tb, p->with_dev));
	return MNL_CB_OK;
}

/* What needs requests of its own, made once the dump is over */
static void port_extras(struct svctl *sv, const struct svctl_dev *dev,
			struct jv *o)
{
	uint32_t port = jv_get(o, "port")->u;
	struct sv_port_info pi = { .gids = -ENODEV };
	bool mtu_ok;

	mtu_ok = !uverbs_port_info(sv, dev->index, port, &pi);
	jv_set(o, "active_mtu", mtu_ok ? jv_u64(pi.active_mtu) : jv_null());
	/* kernels before 5.9 have no GID table query; sysfs has the table */
	if (pi.gids < 0)
		pi.gids = sysfs_gid_count(dev->name, port);
	jv_set(o, "gids", pi.gids < 0 ? jv_null() : jv_u64(pi.gids));
}

static struct jv *ports_json(struct svctl *sv, const struct svctl_dev *dev,
			     uint32_t only, bool with_dev, int *err)
{
	struct ports_ctx p = { dev, only, with_dev, jv_arr() };
	struct nl *nl = sv_nl(sv);
	struct nlmsghdr *nlh;
	size_t i;

	nlh = nldev_req(nl, RDMA_NLDEV_CMD_PORT_GET, NLM_F_DUMP);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev->index);
	*err = nl_run(nl, nlh, ports_cb, &p);
	if (*err) {
		jv_free(p.arr);
		return NULL;
	}
	for (i = 0; i < p.arr->n; i++)
		port_extras(sv, dev, p.arr->items[i]);
	return p.arr;
}

struct jv *sv_ports_json(struct svctl *sv, const struct svctl_dev *dev,
			 int *err)
{
	return ports_json(sv, dev, 0, false, err);
}

static const struct sv_col link_cols[] = {
	{ "IDX",	"ifindex",		SV_COL_RIGHT | SV_COL_DETAIL, NULL },
	{ "DEV",	"ifname",		0, NULL },
	{ "PORT",	"port",			SV_COL_RIGHT, NULL },
	{ "STATE",	"state",		0, NULL },
	{ "PHYS",	"physical_state",	0, NULL },
	{ "MTU",	"active_mtu",		SV_COL_RIGHT, NULL },
	{ "GIDS",	"gids",			SV_COL_RIGHT | SV_COL_DETAIL, NULL },
	{ "NETDEV",	"netdev",		0, NULL },
	{ "NETDEV_IDX",	"netdev_index",		SV_COL_RIGHT | SV_COL_DETAIL, NULL },
	{ "NETNS",	"netdev_netns",		SV_COL_OPT, NULL },
};

/* "DEV" or "DEV/PORT" */
static int parse_link(struct svctl *sv, const char *arg, char *name,
		      uint32_t *port)
{
	const char *slash = strchr(arg, '/');
	size_t len = slash ? (size_t)(slash - arg) : strlen(arg);
	unsigned long p;
	char *end;

	*port = 0;
	if (!len || len >= SV_DEV_NAME_MAX)
		return sv_usage(sv, "link show: bad device name \"%s\"", arg);
	memcpy(name, arg, len);
	name[len] = '\0';
	if (slash) {
		errno = 0;
		p = strtoul(slash + 1, &end, 10);

		if (errno || *end || end == slash + 1 || !p || p > UINT32_MAX)
			return sv_usage(sv, "link show: bad port in \"%s\"", arg);
		*port = p;
	}
	return 0;
}

static int link_show(struct svctl *sv)
{
	const char *arg = sv_next(sv);
	char name[SV_DEV_NAME_MAX];
	struct svctl_dev *devs = NULL, one;
	uint32_t port = 0;
	struct jv *rows;
	size_t n, i, k;
	int err, rc;

	if ((rc = sv_no_more_args(sv, "link show")))
		return rc;
	if (arg) {
		if ((rc = parse_link(sv, arg, name, &port)) ||
		    (rc = svctl_dev_find(sv, name, &one, "link show")))
			return rc;
		devs = &one;
		n = 1;
	} else {
		err = svctl_dev_list(sv, &devs, &n);
		if (err)
			return sv_err(sv, err, "link show");
	}

	rows = jv_arr();
	for (i = 0; i < n; i++) {
		struct jv *ports = ports_json(sv, &devs[i], port, true, &err);

		if (!ports) {
			if (!arg && err == -ENODEV)
				continue;	/* deleted meanwhile */
			jv_free(rows);
			rc = sv_err(sv, err, "link show %s", devs[i].name);
			goto out;
		}
		for (k = 0; k < ports->n; k++)
			jv_push(rows, ports->items[k]);
		ports->n = 0;
		jv_free(ports);
	}
	if (port && !rows->n) {
		jv_free(rows);
		rc = sv_err(sv, ENODEV, "link show %s", arg);
		goto out;
	}
	sv_print(sv, rows, link_cols, ARRAY_SIZE(link_cols), NULL);
out:
	if (devs != &one)
		free(devs);
	return rc;
}

static int link_add(struct svctl *sv)
{
	const char *name = sv_next(sv), *netdev = NULL, *kw;
	struct nlmsghdr *nlh;
	struct nl *nl;
	char loaded[8];
	int err, rc;

	if (!name)
		return sv_usage(sv, "link add: missing device NAME");
	if (!*name || strlen(name) >= SV_DEV_NAME_MAX || strchr(name, '/') ||
	    strchr(name, '%'))
		return sv_usage(sv, "link add: bad device name \"%s\"", name);
	while ((kw = sv_next(sv))) {
		if (sv_is(kw, "netdev")) {
			netdev = sv_next(sv);
			if (!netdev)
				return sv_usage(sv, "link add %s: netdev needs a value",
						name);
		} else {
			return sv_usage(sv, "link add %s: unknown argument \"%s\"",
					name, kw);
		}
	}
	if (!netdev)
		return sv_usage(sv, "link add %s: missing \"netdev NETDEV\"", name);
	if (!*netdev || strlen(netdev) >= SV_NETDEV_NAME_MAX)
		return sv_usage(sv, "link add %s: bad netdev name \"%s\"", name,
				netdev);

	nl = sv_nl(sv);
	nlh = nldev_req(nl, RDMA_NLDEV_CMD_NEWLINK, 0);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_LINK_TYPE, SV_LINK_TYPE);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_NDEV_NAME, netdev);
	err = nl_run(nl, nlh, NULL, NULL);
	if (!err)
		return SV_EXIT_OK;
	rc = sv_err(sv, err, "link add %s", name);
	/* an unknown link type is all ib_core says when we are not loaded */
	if (err == -EINVAL &&
	    sysfs_read(loaded, sizeof(loaded), "/sys/module/softverbs/initstate"))
		fprintf(stderr, "svctl: is the softverbs module loaded?\n");
	return rc;
}

static int link_del(struct svctl *sv)
{
	const char *name = sv_next(sv);
	struct nlmsghdr *nlh;
	struct svctl_dev dev;
	struct nl *nl;
	int err, rc;

	if (!name)
		return sv_usage(sv, "link del: missing device NAME");
	if ((rc = sv_no_more_args(sv, "link del")))
		return rc;
	if ((rc = svctl_dev_find(sv, name, &dev, "link del")))
		return rc;
	nl = sv_nl(sv);
	nlh = nldev_req(nl, RDMA_NLDEV_CMD_DELLINK, 0);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev.index);
	err = nl_run(nl, nlh, NULL, NULL);
	if (err)
		return sv_err(sv, err, "link del %s", name);
	return SV_EXIT_OK;
}

static int link_help(struct svctl *sv)
{
	(void)sv;
	link_usage(stdout);
	return SV_EXIT_OK;
}

int cmd_link(struct svctl *sv)
{
	static const struct sv_cmd cmds[] = {
		{ "show",	link_show },	/* first: the default */
		{ "list",	link_show },
		{ "add",	link_add },
		{ "del",	link_del },
		{ "delete",	link_del },
		{ "save",	link_save },
		{ "apply",	link_apply },
		{ "watch",	link_watch },
		{ "help",	link_help },
		{ NULL,		NULL },
	};

	return sv_exec(sv, cmds);
}
