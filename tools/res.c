// SPDX-License-Identifier: GPL-2.0
/*
 * svctl res: ib_core's resource tracking (restrack) of softverbs devices.
 * The summary counts whatever object kinds the kernel reports; the QP
 * listing shows each QP with its owner and the driver-specific attributes
 * (RDMA_NLDEV_ATTR_DRIVER) as the driver names them.  More object kinds
 * (cq, mr, pd, ...) are one row in res_cmds and one listing function.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "svctl.h"

void res_usage(FILE *f)
{
	fprintf(f,
		"Usage: svctl res [show] [DEV]\n"
		"       svctl res qp [DEV]\n"
		"       svctl qp [DEV]\n"
		"       svctl res help\n");
}

/* The softverbs devices a command covers: the named one, or all */
static int res_devs(struct svctl *sv, const char *what, struct svctl_dev **devs,
		    size_t *n)
{
	const char *name = sv_next(sv);
	int err, rc;

	if ((rc = sv_no_more_args(sv, what)))
		return rc;
	if (name) {
		*devs = xzalloc(sizeof(**devs));
		*n = 1;
		if ((rc = svctl_dev_find(sv, name, *devs, what)))
			free(*devs);
		return rc;
	}
	err = svctl_dev_list(sv, devs, n);
	if (err)
		return sv_err(sv, err, "%s", what);
	return 0;
}

/* --- summary ------------------------------------------------------------ */

static int summary_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *tb[NLDEV_TB_SIZE], *etb[NLDEV_TB_SIZE];
	const struct nlattr *entry;
	struct jv *row = data;

	if (nldev_parse(nlh, tb))
		return MNL_CB_ERROR;
	if (!tb[RDMA_NLDEV_ATTR_RES_SUMMARY])
		return MNL_CB_OK;
	mnl_attr_for_each_nested(entry, tb[RDMA_NLDEV_ATTR_RES_SUMMARY]) {
		if (nldev_parse_nested(entry, etb)) {
			errno = EPROTO;
			return MNL_CB_ERROR;
		}
		if (!etb[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME] ||
		    !etb[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR])
			continue;
		jv_set(row,
		       mnl_attr_get_str(etb[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME]),
		       jv_u64(mnl_attr_get_u64(
			       etb[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR])));
	}
	return MNL_CB_OK;
}

static int res_show(struct svctl *sv)
{
	struct sv_col *cols = NULL;
	size_t n, i, k, ncols = 2;
	struct svctl_dev *devs;
	struct jv *rows;
	int rc, err;

	if ((rc = res_devs(sv, "res show", &devs, &n)))
		return rc;

	rows = jv_arr();
	for (i = 0; i < n; i++) {
		struct nl *nl = sv_nl(sv);
		struct nlmsghdr *nlh;
		struct jv *row = jv_obj();

		jv_set(row, "ifindex", jv_u64(devs[i].index));
		jv_set(row, "ifname", jv_str(devs[i].name));
		nlh = nldev_req(nl, RDMA_NLDEV_CMD_RES_GET, 0);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, devs[i].index);
		err = nl_run(nl, nlh, summary_cb, row);
		if (err) {
			jv_free(row);
			if (n > 1 && err == -ENODEV)
				continue;	/* deleted meanwhile */
			jv_free(rows);
			rc = sv_err(sv, err, "res show %s", devs[i].name);
			free(devs);
			return rc;
		}
		jv_push(rows, row);
	}

	/* columns: the device, then every kind the kernel counted, in order */
	cols = xzalloc(2 * sizeof(*cols));
	cols[0] = (struct sv_col){ "IDX", "ifindex", SV_COL_RIGHT | SV_COL_DETAIL, NULL };
	cols[1] = (struct sv_col){ "DEV", "ifname", 0, NULL };
	for (i = 0; i < rows->n; i++) {
		const struct jv *row = rows->items[i];

		for (k = 2; k < row->n; k++) {
			size_t c;
			char *head, *p;

			for (c = 2; c < ncols && strcmp(cols[c].key, row->keys[k]); c++)
				;
			if (c < ncols)
				continue;
			head = xstrdup(row->keys[k]);
			for (p = head; *p; p++)
				if (*p >= 'a' && *p <= 'z')
					*p -= 'a' - 'A';
			cols = xrealloc(cols, (ncols + 1) * sizeof(*cols));
			cols[ncols++] = (struct sv_col){
				head, xstrdup(row->keys[k]), SV_COL_RIGHT, NULL
			};
		}
	}
	sv_print(sv, rows, cols, ncols, NULL);
	for (i = 2; i < ncols; i++) {
		free((char *)cols[i].head);
		free((char *)cols[i].key);
	}
	free(cols);
	free(devs);
	return SV_EXIT_OK;
}

/* --- QPs ----------------------------------------------------------------- */

/* enum ib_qp_type as ib_core exports it; the reserved ones never appear */
static const char *qp_type_str(unsigned int t)
{
	static const char *const names[] = {
		"SMI", "GSI", "RC", "UC", "UD", "RAW_IPV6", "RAW_ETHERTYPE",
		NULL, "RAW_PACKET", "XRC_INI", "XRC_TGT",
	};

	if (t < ARRAY_SIZE(names) && names[t])
		return names[t];
	return t == 0xff ? "DRIVER" : "UNKNOWN";
}

/* enum ib_qp_state */
static const char *qp_state_str(unsigned int s)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return s < ARRAY_SIZE(names) ? names[s] : "UNKNOWN";
}

/* enum ib_mig_state */
static const char *path_mig_str(unsigned int s)
{
	static const char *const names[] = { "MIGRATED", "REARM", "ARMED" };

	return s < ARRAY_SIZE(names) ? names[s] : "UNKNOWN";
}

/*
 * The driver attributes: a flat run of (name, [print type,] value) in the
 * RDMA_NLDEV_ATTR_DRIVER nest, as rdma_nl_put_driver_*() lay them out.
 * Returns NULL when there are none, or an object of name: value.
 */
static struct jv *driver_json(const struct nlattr *nest)
{
	const struct nlattr *a;
	const char *name = NULL;
	uint8_t print = RDMA_NLDEV_PRINT_TYPE_UNSPEC;
	struct jv *o = jv_obj(), *v;

	mnl_attr_for_each_nested(a, nest) {
		uint64_t u;
		int64_t s;

		if (!nldev_attr_ok(a)) {
			name = NULL;	/* lost the pairing: resync */
			continue;
		}
		switch (mnl_attr_get_type(a)) {
		case RDMA_NLDEV_ATTR_DRIVER_STRING:
			if (!name) {
				name = mnl_attr_get_str(a);
				continue;
			}
			v = jv_str(mnl_attr_get_str(a));
			break;
		case RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE:
			print = mnl_attr_get_u8(a);
			continue;
		case RDMA_NLDEV_ATTR_DRIVER_U32:
		case RDMA_NLDEV_ATTR_DRIVER_U64:
			u = mnl_attr_get_type(a) == RDMA_NLDEV_ATTR_DRIVER_U32 ?
			    mnl_attr_get_u32(a) : mnl_attr_get_u64(a);
			v = print == RDMA_NLDEV_PRINT_TYPE_HEX ?
			    jv_strf("0x%" PRIx64, u) : jv_u64(u);
			break;
		case RDMA_NLDEV_ATTR_DRIVER_S32:
		case RDMA_NLDEV_ATTR_DRIVER_S64:
			s = mnl_attr_get_type(a) == RDMA_NLDEV_ATTR_DRIVER_S32 ?
			    (int32_t)mnl_attr_get_u32(a) :
			    (int64_t)mnl_attr_get_u64(a);
			v = print == RDMA_NLDEV_PRINT_TYPE_HEX ?
			    jv_strf("0x%" PRIx64, (uint64_t)s) : jv_s64(s);
			break;
		default:
			continue;	/* a kind we don't know: skip */
		}
		if (name)
			jv_set(o, name, v);
		else
			jv_free(v);
		name = NULL;
		print = RDMA_NLDEV_PRINT_TYPE_UNSPEC;
	}
	if (!o->n) {
		jv_free(o);
		return NULL;
	}
	return o;
}

static void opt_u32(struct jv *o, const char *key, const struct nlattr *a)
{
	if (a)
		jv_set(o, key, jv_u64(mnl_attr_get_u32(a)));
}

static struct jv *qp_json(const struct svctl_dev *dev, struct nlattr **tb)
{
	struct jv *o = jv_obj(), *drv;
	char comm[64];

	jv_set(o, "ifindex", jv_u64(dev->index));
	jv_set(o, "ifname", jv_str(dev->name));
	opt_u32(o, "port", tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	opt_u32(o, "lqpn", tb[RDMA_NLDEV_ATTR_RES_LQPN]);
	if (tb[RDMA_NLDEV_ATTR_RES_TYPE])
		jv_set(o, "type", jv_str(qp_type_str(
			mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_RES_TYPE]))));
	if (tb[RDMA_NLDEV_ATTR_RES_STATE])
		jv_set(o, "state", jv_str(qp_state_str(
			mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_RES_STATE]))));
	/* RC and UC only (IBTA 11.2.5.3) */
	opt_u32(o, "rqpn", tb[RDMA_NLDEV_ATTR_RES_RQPN]);
	opt_u32(o, "rq_psn", tb[RDMA_NLDEV_ATTR_RES_RQ_PSN]);
	opt_u32(o, "sq_psn", tb[RDMA_NLDEV_ATTR_RES_SQ_PSN]);
	if (tb[RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE])
		jv_set(o, "path_mig_state", jv_str(path_mig_str(
			mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE]))));
	opt_u32(o, "pdn", tb[RDMA_NLDEV_ATTR_RES_PDN]);
	/* a user QP has a pid (comm from /proc), a kernel one a name */
	if (tb[RDMA_NLDEV_ATTR_RES_PID]) {
		uint32_t pid = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_RES_PID]);

		jv_set(o, "pid", jv_u64(pid));
		if (!sysfs_read(comm, sizeof(comm), "/proc/%u/comm", pid))
			jv_set(o, "comm", jv_str(comm));
	} else if (tb[RDMA_NLDEV_ATTR_RES_KERN_NAME]) {
		jv_set(o, "comm",
		       jv_str(mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_RES_KERN_NAME])));
	}
	if (tb[RDMA_NLDEV_ATTR_DRIVER] &&
	    (drv = driver_json(tb[RDMA_NLDEV_ATTR_DRIVER])))
		jv_set(o, "driver", drv);
	return o;
}

struct qp_ctx {
	const struct svctl_dev *dev;
	struct jv *rows;
};

static int qp_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *tb[NLDEV_TB_SIZE], *qtb[NLDEV_TB_SIZE];
	const struct nlattr *entry;
	struct qp_ctx *q = data;

	if (nldev_parse(nlh, tb))
		return MNL_CB_ERROR;
	if (!tb[RDMA_NLDEV_ATTR_RES_QP])
		return MNL_CB_OK;
	mnl_attr_for_each_nested(entry, tb[RDMA_NLDEV_ATTR_RES_QP]) {
		if (nldev_parse_nested(entry, qtb)) {
			errno = EPROTO;
			return MNL_CB_ERROR;
		}
		jv_push(q->rows, qp_json(q->dev, qtb));
	}
	return MNL_CB_OK;
}

/* a kernel QP's owner in brackets, as rdma and ps print kernel threads */
static void comm_text(FILE *f, const struct jv *qp, const struct jv *comm)
{
	if (jv_get(qp, "pid"))
		jv_text(f, comm);
	else
		fprintf(f, "[%s]", comm->str);
}

static const struct sv_col qp_cols[] = {
	{ "IDX",	"ifindex",	SV_COL_RIGHT | SV_COL_DETAIL, NULL },
	{ "DEV",	"ifname",	0, NULL },
	{ "PORT",	"port",		SV_COL_RIGHT, NULL },
	{ "LQPN",	"lqpn",		SV_COL_RIGHT, NULL },
	{ "TYPE",	"type",		0, NULL },
	{ "STATE",	"state",	0, NULL },
	{ "RQPN",	"rqpn",		SV_COL_RIGHT | SV_COL_OPT, NULL },
	{ "SQ_PSN",	"sq_psn",	SV_COL_RIGHT, NULL },
	{ "RQ_PSN",	"rq_psn",	SV_COL_RIGHT | SV_COL_OPT, NULL },
	{ "MIG",	"path_mig_state", SV_COL_DETAIL | SV_COL_OPT, NULL },
	{ "PDN",	"pdn",		SV_COL_RIGHT | SV_COL_DETAIL, NULL },
	{ "PID",	"pid",		SV_COL_RIGHT, NULL },
	{ "COMM",	"comm",		0, comm_text },
	{ "DRIVER",	"driver",	SV_COL_OPT, NULL },
};

static int res_qp(struct svctl *sv)
{
	struct svctl_dev *devs;
	struct jv *rows;
	size_t n, i;
	int rc, err;

	if ((rc = res_devs(sv, "qp", &devs, &n)))
		return rc;
	rows = jv_arr();
	for (i = 0; i < n; i++) {
		struct qp_ctx q = { &devs[i], rows };
		struct nl *nl = sv_nl(sv);
		struct nlmsghdr *nlh;

		nlh = nldev_req(nl, RDMA_NLDEV_CMD_RES_QP_GET, NLM_F_DUMP);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, devs[i].index);
		err = nl_run(nl, nlh, qp_cb, &q);
		if (err && !(n > 1 && err == -ENODEV)) {
			jv_free(rows);
			rc = sv_err(sv, err, "qp %s", devs[i].name);
			free(devs);
			return rc;
		}
	}
	sv_print(sv, rows, qp_cols, ARRAY_SIZE(qp_cols), NULL);
	free(devs);
	return SV_EXIT_OK;
}

static int res_help(struct svctl *sv)
{
	(void)sv;
	res_usage(stdout);
	return SV_EXIT_OK;
}

int cmd_res(struct svctl *sv)
{
	static const struct sv_cmd cmds[] = {
		{ "show",	res_show },	/* first: the default */
		{ "list",	res_show },
		{ "qp",		res_qp },
		{ "help",	res_help },
		{ NULL,		NULL },
	};

	return sv_exec(sv, cmds);
}

int cmd_qp(struct svctl *sv)
{
	static const struct sv_cmd cmds[] = {
		{ "show",	res_qp },	/* first: the default */
		{ "list",	res_qp },
		{ "help",	res_help },
		{ NULL,		NULL },
	};

	return sv_exec(sv, cmds);
}
