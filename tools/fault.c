// SPDX-License-Identifier: GPL-2.0
/*
 * svctl fault: fault injection of a device (FAULT_GET/FAULT_SET of the
 * softverbs generic netlink family), and svctl set, which for now sets the
 * same things: the transport has no tunables yet.
 *
 * A probability P is a fraction ("0.05"), a percentage ("5%") or parts per
 * million ("50000ppm"); the kernel keeps parts per million.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>

#include "svctl.h"

void fault_usage(FILE *f)
{
	fprintf(f,
		"Usage: svctl fault [show] [DEV]\n"
		"       svctl fault DEV [show]\n"
		"       svctl fault DEV [ tx | rx ] SETTING P ... [ seed N ]\n"
		"       svctl fault DEV off\n"
		"       svctl set DEV [ tx | rx ] SETTING P ... [ seed N ]\n"
		"where  SETTING := { drop | dup | reorder | corrupt }\n"
		"       P := { FRACTION | PERCENT%% | Nppm }   (0 to 1)\n"
		"       tx, rx: the direction the following settings apply to\n"
		"               (default: both)\n");
}

static const struct {
	const char *name;	/* command line and JSON (NAME_ppm) */
	uint16_t ppm_attr;
	uint16_t hits_attr;
	const char *hits_name;	/* JSON */
} kinds[] = {
	{ "drop", SV_NL_FAULT_ATTR_DROP, SV_NL_FAULT_ATTR_DROP_HITS, "dropped" },
	{ "dup", SV_NL_FAULT_ATTR_DUP, SV_NL_FAULT_ATTR_DUP_HITS, "duplicated" },
	{ "reorder", SV_NL_FAULT_ATTR_REORDER, SV_NL_FAULT_ATTR_REORDER_HITS, "reordered" },
	{ "corrupt", SV_NL_FAULT_ATTR_CORRUPT, SV_NL_FAULT_ATTR_CORRUPT_HITS, "corrupted" },
};

static const struct {
	const char *name;
	uint16_t attr;
} dirs[] = {
	{ "tx", SV_NL_ATTR_FAULT_TX },
	{ "rx", SV_NL_ATTR_FAULT_RX },
};

/* --- show ----------------------------------------------------------------- */

static struct jv *dir_json(const char *dir, const struct nlattr *nest)
{
	struct jv *o = jv_obj();
	const struct nlattr *a;
	size_t k;

	jv_set(o, "dir", jv_str(dir));
	mnl_attr_for_each_nested(a, nest) {
		uint16_t t = mnl_attr_get_type(a);

		for (k = 0; k < ARRAY_SIZE(kinds); k++) {
			char key[32];

			if (t == kinds[k].ppm_attr &&
			    mnl_attr_validate(a, MNL_TYPE_U32) >= 0) {
				snprintf(key, sizeof(key), "%s_ppm", kinds[k].name);
				jv_set(o, key, jv_u64(mnl_attr_get_u32(a)));
			}
			if (t == kinds[k].hits_attr &&
			    mnl_attr_validate(a, MNL_TYPE_U64) >= 0)
				jv_set(o, kinds[k].hits_name,
				       jv_u64(mnl_attr_get_u64(a)));
		}
		if (t == SV_NL_FAULT_ATTR_PACKETS &&
		    mnl_attr_validate(a, MNL_TYPE_U64) >= 0)
			jv_set(o, "packets", jv_u64(mnl_attr_get_u64(a)));
	}
	return o;
}

static int fault_cb(const struct nlmsghdr *nlh, void *data)
{
	struct jv *rows = data, *row = jv_obj(), *ds = jv_arr();
	const struct nlattr *a;
	size_t i;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		uint16_t t = mnl_attr_get_type(a);

		if (t == SV_NL_ATTR_DEV_INDEX && mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			jv_set(row, "ifindex", jv_u64(mnl_attr_get_u32(a)));
		if (t == SV_NL_ATTR_DEV_NAME &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			jv_set(row, "ifname", jv_str(mnl_attr_get_str(a)));
		if (t == SV_NL_ATTR_FAULT_SEED && mnl_attr_validate(a, MNL_TYPE_U64) >= 0)
			jv_set(row, "seed", jv_u64(mnl_attr_get_u64(a)));
		for (i = 0; i < ARRAY_SIZE(dirs); i++)
			if (t == dirs[i].attr)
				jv_push(ds, dir_json(dirs[i].name, a));
	}
	jv_set(row, "dirs", ds);
	jv_push(rows, row);
	return MNL_CB_OK;
}

/* a probability in ppm as a table shows it: a percentage */
static void pct_text(FILE *f, const struct jv *obj, const struct jv *v)
{
	(void)obj;
	if (v->type != JV_U64)
		return;
	if (v->u % 10000 == 0)
		fprintf(f, "%" PRIu64 "%%", v->u / 10000);
	else
		fprintf(f, "%.4g%%", v->u / 10000.0);
}

static const struct sv_col fault_cols[] = {
	{ "IDX",	"ifindex",		SV_COL_RIGHT | SV_COL_DETAIL, NULL },
	{ "DEV",	"ifname",		0, NULL },
	{ "DIR",	"dirs.dir",		0, NULL },
	{ "DROP",	"dirs.drop_ppm",	SV_COL_RIGHT, pct_text },
	{ "DUP",	"dirs.dup_ppm",		SV_COL_RIGHT, pct_text },
	{ "REORDER",	"dirs.reorder_ppm",	SV_COL_RIGHT, pct_text },
	{ "CORRUPT",	"dirs.corrupt_ppm",	SV_COL_RIGHT, pct_text },
	{ "PACKETS",	"dirs.packets",		SV_COL_RIGHT, NULL },
	{ "DROPPED",	"dirs.dropped",		SV_COL_RIGHT, NULL },
	{ "DUPED",	"dirs.duplicated",	SV_COL_RIGHT, NULL },
	{ "REORDERED",	"dirs.reordered",	SV_COL_RIGHT, NULL },
	{ "CORRUPTED",	"dirs.corrupted",	SV_COL_RIGHT, NULL },
	{ "SEED",	"seed",			SV_COL_RIGHT | SV_COL_OPT, NULL },
};

static int fault_show_dev(struct svctl *sv, const char *name)
{
	struct jv *rows = jv_arr();
	struct nlmsghdr *nlh;
	int err;

	nlh = sv_genl_req(sv, SV_NL_CMD_FAULT_GET, name ? 0 : NLM_F_DUMP);
	if (name)
		mnl_attr_put_strz(nlh, SV_NL_ATTR_DEV_NAME, name);
	err = nl_run(sv_genl(sv), nlh, fault_cb, rows);
	if (err) {
		jv_free(rows);
		return name ? sv_err(sv, err, "fault %s", name) :
			      sv_err(sv, err, "fault");
	}
	sv_print(sv, rows, fault_cols, ARRAY_SIZE(fault_cols), "dirs");
	return SV_EXIT_OK;
}

/* --- set ------------------------------------------------------------------ */

/* "0.05", "5%", "50000ppm" -> ppm; -1 if malformed or outside [0, 1] */
static long parse_prob(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return -1;
	if (!strcmp(end, "%"))
		v *= 10000;
	else if (!strcmp(end, "ppm"))
		;
	else if (!*end)
		v *= 1000000;
	else
		return -1;
	if (!(v >= 0 && v <= SV_NL_FAULT_PPM_MAX))
		return -1;
	return (long)(v + 0.5);
}

static int fault_set_args(struct svctl *sv, const char *name, const char *ctx)
{
	long ppm[ARRAY_SIZE(dirs)][ARRAY_SIZE(kinds)];
	bool dir_on[ARRAY_SIZE(dirs)] = { true, true };
	bool any = false, seeded = false;
	unsigned long long seed = 0;
	struct nlmsghdr *nlh;
	const char *word;
	size_t d, k;
	int err;

	memset(ppm, 0xff, sizeof(ppm));		/* -1: not given */
	while ((word = sv_next(sv))) {
		if (!strcmp(word, "tx") || !strcmp(word, "rx")) {
			for (d = 0; d < ARRAY_SIZE(dirs); d++)
				dir_on[d] = !strcmp(word, dirs[d].name);
			continue;
		}
		if (!strcmp(word, "seed")) {
			const char *v = sv_next(sv);
			char *end;

			if (!v)
				return sv_usage(sv, "%s %s: seed needs a number", ctx, name);
			errno = 0;
			seed = strtoull(v, &end, 0);
			if (errno || *end || !*v || *v == '-')
				return sv_usage(sv, "%s %s: bad seed \"%s\" (0 to 2^64-1)",
						ctx, name, v);
			seeded = any = true;
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(kinds) && strcmp(word, kinds[k].name); k++)
			;
		if (k == ARRAY_SIZE(kinds))
			return sv_usage(sv, "%s %s: unknown setting \"%s\" (drop, dup, reorder, corrupt, seed, tx, rx)",
					ctx, name, word);
		{
			const char *v = sv_next(sv);
			long p;

			if (!v)
				return sv_usage(sv, "%s %s: %s needs a probability",
						ctx, name, word);
			p = parse_prob(v);
			if (p < 0)
				return sv_usage(sv, "%s %s: bad probability \"%s\" for %s (0..1, N%% or Nppm)",
						ctx, name, v, word);
			for (d = 0; d < ARRAY_SIZE(dirs); d++)
				if (dir_on[d])
					ppm[d][k] = p;
			any = true;
		}
	}
	if (!any)
		return sv_usage(sv, "%s %s: nothing to set", ctx, name);

	nlh = sv_genl_req(sv, SV_NL_CMD_FAULT_SET, 0);
	mnl_attr_put_strz(nlh, SV_NL_ATTR_DEV_NAME, name);
	for (d = 0; d < ARRAY_SIZE(dirs); d++) {
		struct nlattr *nest = NULL;

		for (k = 0; k < ARRAY_SIZE(kinds); k++) {
			if (ppm[d][k] < 0)
				continue;
			if (!nest)
				nest = mnl_attr_nest_start(nlh, dirs[d].attr);
			mnl_attr_put_u32(nlh, kinds[k].ppm_attr, ppm[d][k]);
		}
		if (nest)
			mnl_attr_nest_end(nlh, nest);
	}
	if (seeded)
		mnl_attr_put_u64(nlh, SV_NL_ATTR_FAULT_SEED, seed);
	err = nl_run(sv_genl(sv), nlh, NULL, NULL);
	if (err) {
		sv_err(sv, err, "%s %s", ctx, name);
		if (err == -EPERM)
			fputs("svctl: changing fault injection needs CAP_NET_ADMIN in the device's network namespace\n",
			      stderr);
		return SV_EXIT_FAIL;
	}
	return SV_EXIT_OK;
}

static int fault_off(struct svctl *sv, const char *name)
{
	struct nlmsghdr *nlh;
	int err, rc;

	if ((rc = sv_no_more_args(sv, "fault off")))
		return rc;
	nlh = sv_genl_req(sv, SV_NL_CMD_FAULT_SET, 0);
	mnl_attr_put_strz(nlh, SV_NL_ATTR_DEV_NAME, name);
	mnl_attr_put(nlh, SV_NL_ATTR_FAULT_OFF, 0, NULL);
	err = nl_run(sv_genl(sv), nlh, NULL, NULL);
	if (err) {
		sv_err(sv, err, "fault %s off", name);
		if (err == -EPERM)
			fputs("svctl: changing fault injection needs CAP_NET_ADMIN in the device's network namespace\n",
			      stderr);
		return SV_EXIT_FAIL;
	}
	return SV_EXIT_OK;
}

static int bad_name(struct svctl *sv, const char *name)
{
	if (strlen(name) >= SV_NL_DEV_NAME_MAX)
		return sv_usage(sv, "bad device name \"%s\" (at most %d characters)",
				name, SV_NL_DEV_NAME_MAX - 1);
	return 0;
}

/* "svctl fault [show] [DEV]", "svctl fault DEV [show|off|SETTINGS]" */
int cmd_fault(struct svctl *sv)
{
	const char *word = sv_next(sv), *name;
	int rc;

	if (!word)
		return fault_show_dev(sv, NULL);
	if (!strcmp(word, "help")) {
		if ((rc = sv_no_more_args(sv, "fault help")))
			return rc;
		fault_usage(stdout);
		return SV_EXIT_OK;
	}
	if (!strcmp(word, "show") || !strcmp(word, "list")) {
		name = sv_next(sv);
		if ((rc = sv_no_more_args(sv, "fault show")))
			return rc;
		if (name && (rc = bad_name(sv, name)))
			return rc;
		return fault_show_dev(sv, name);
	}
	name = word;
	if ((rc = bad_name(sv, name)))
		return rc;
	word = sv_arg(sv);
	if (!word || !strcmp(word, "show")) {
		sv_next(sv);
		if ((rc = sv_no_more_args(sv, "fault show")))
			return rc;
		return fault_show_dev(sv, name);
	}
	if (!strcmp(word, "off")) {
		sv_next(sv);
		return fault_off(sv, name);
	}
	return fault_set_args(sv, name, "fault");
}

/*
 * "svctl set DEV [fault] SETTINGS": the device's settings.  The transport
 * has no tunables yet, so these are the fault injection settings.
 */
int cmd_set(struct svctl *sv)
{
	const char *name = sv_next(sv);
	int rc;

	if (!name)
		return sv_usage(sv, "set: missing DEV");
	if (!strcmp(name, "help")) {
		fault_usage(stdout);
		return SV_EXIT_OK;
	}
	if ((rc = bad_name(sv, name)))
		return rc;
	if (sv_arg(sv) && !strcmp(sv_arg(sv), "fault"))
		sv_next(sv);
	return fault_set_args(sv, name, "set");
}
