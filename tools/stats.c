// SPDX-License-Identifier: GPL-2.0
/*
 * svctl stats: a device's counters (STATS_GET of the softverbs generic
 * netlink family; the same values as "rdma statistic show"), and with
 * -w SECONDS how fast each moved over that interval (per second, rounded).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/genetlink.h>

#include "svctl.h"

void stats_usage(FILE *f)
{
	fprintf(f,
		"Usage: svctl stats [show] [DEV] [-w SECONDS]\n"
		"       svctl stats help\n");
}

/* one device's counters, in the kernel's order */
struct stats_dev {
	uint32_t index;
	char name[SV_DEV_NAME_MAX];
	size_t n;
	char **names;
	uint64_t *vals;
};

struct stats_set {
	struct stats_dev *devs;
	size_t n;
};

static void stats_free(struct stats_set *s)
{
	size_t i, k;

	for (i = 0; i < s->n; i++) {
		for (k = 0; k < s->devs[i].n; k++)
			free(s->devs[i].names[k]);
		free(s->devs[i].names);
		free(s->devs[i].vals);
	}
	free(s->devs);
	memset(s, 0, sizeof(*s));
}

static int stat_entry_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type == SV_NL_STAT_ATTR_NAME &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
		return MNL_CB_ERROR;
	if (type == SV_NL_STAT_ATTR_VALUE && mnl_attr_validate(a, MNL_TYPE_U64) < 0)
		return MNL_CB_ERROR;
	if (type <= SV_NL_STAT_ATTR_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	struct stats_set *s = data;
	const struct nlattr *a, *e;
	struct stats_dev d = { 0 };

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(a)) {
		case SV_NL_ATTR_DEV_INDEX:
			if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
				d.index = mnl_attr_get_u32(a);
			break;
		case SV_NL_ATTR_DEV_NAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
				snprintf(d.name, sizeof(d.name), "%s",
					 mnl_attr_get_str(a));
			break;
		case SV_NL_ATTR_STATS:
			mnl_attr_for_each_nested(e, a) {
				const struct nlattr *tb[SV_NL_STAT_ATTR_MAX + 1] = { 0 };

				if (mnl_attr_parse_nested(e, stat_entry_cb, tb) < 0 ||
				    !tb[SV_NL_STAT_ATTR_NAME] ||
				    !tb[SV_NL_STAT_ATTR_VALUE])
					continue;
				d.names = xrealloc(d.names, (d.n + 1) * sizeof(*d.names));
				d.vals = xrealloc(d.vals, (d.n + 1) * sizeof(*d.vals));
				d.names[d.n] = xstrdup(mnl_attr_get_str(tb[SV_NL_STAT_ATTR_NAME]));
				d.vals[d.n] = mnl_attr_get_u64(tb[SV_NL_STAT_ATTR_VALUE]);
				d.n++;
			}
			break;
		default:
			break;
		}
	}
	s->devs = xrealloc(s->devs, (s->n + 1) * sizeof(*s->devs));
	s->devs[s->n++] = d;
	return MNL_CB_OK;
}

/* All devices (name NULL) or one; 0 or a negative errno. */
static int stats_read(struct svctl *sv, const char *name, struct stats_set *s)
{
	struct nlmsghdr *nlh;

	nlh = sv_genl_req(sv, SV_NL_CMD_STATS_GET, name ? 0 : NLM_F_DUMP);
	if (name)
		mnl_attr_put_strz(nlh, SV_NL_ATTR_DEV_NAME, name);
	return nl_run(sv_genl(sv), nlh, stats_cb, s);
}

static const struct stats_dev *stats_find(const struct stats_set *s,
					  uint32_t index)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->devs[i].index == index)
			return &s->devs[i];
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const struct sv_col stats_cols[] = {
	{ "IDX",	"ifindex",		SV_COL_RIGHT | SV_COL_DETAIL, NULL },
	{ "DEV",	"ifname",		0, NULL },
	{ "COUNTER",	"counters.name",	0, NULL },
	{ "VALUE",	"counters.value",	SV_COL_RIGHT, NULL },
	{ "RATE/s",	"counters.rate",	SV_COL_RIGHT | SV_COL_OPT, NULL },
};

static int stats_show(struct svctl *sv)
{
	struct stats_set a = { 0 }, b = { 0 };
	const char *name = NULL, *word;
	double t0 = 0, secs = 0;
	struct jv *rows;
	size_t i, k;
	int err;

	while ((word = sv_next(sv))) {
		if (!strcmp(word, "-w") || !strcmp(word, "--wait")) {
			const char *v = sv_next(sv);
			char *end;

			if (!v)
				return sv_usage(sv, "stats: -w needs SECONDS");
			secs = strtod(v, &end);
			if (*end || !(secs > 0 && secs <= 3600))
				return sv_usage(sv, "stats: bad interval \"%s\" (seconds, 0 < S <= 3600)", v);
		} else if (!name && word[0] != '-') {
			name = word;
		} else {
			return sv_usage(sv, "stats: unexpected argument \"%s\"", word);
		}
	}

	if (secs > 0) {
		t0 = now();
		err = stats_read(sv, name, &a);
		if (err)
			goto fail;
		nanosleep(&(struct timespec){ (time_t)secs,
			  (long)((secs - (time_t)secs) * 1e9) }, NULL);
	}
	err = stats_read(sv, name, &b);
	if (err)
		goto fail;
	if (secs > 0)
		secs = now() - t0;

	rows = jv_arr();
	for (i = 0; i < b.n; i++) {
		const struct stats_dev *d = &b.devs[i];
		const struct stats_dev *p = secs > 0 ? stats_find(&a, d->index) : NULL;
		struct jv *row = jv_obj(), *cs = jv_arr();

		jv_set(row, "ifindex", jv_u64(d->index));
		jv_set(row, "ifname", jv_str(d->name));
		for (k = 0; k < d->n; k++) {
			struct jv *c = jv_obj();

			jv_set(c, "name", jv_str(d->names[k]));
			jv_set(c, "value", jv_u64(d->vals[k]));
			/* a rate needs the same counter in the first sample */
			if (p && k < p->n && !strcmp(p->names[k], d->names[k]))
				jv_set(c, "rate", jv_u64((uint64_t)(
				       (double)(d->vals[k] - p->vals[k]) / secs + 0.5)));
			jv_push(cs, c);
		}
		jv_set(row, "counters", cs);
		jv_push(rows, row);
	}
	sv_print(sv, rows, stats_cols, ARRAY_SIZE(stats_cols), "counters");
	stats_free(&a);
	stats_free(&b);
	return SV_EXIT_OK;

fail:
	stats_free(&a);
	stats_free(&b);
	return name ? sv_err(sv, err, "stats %s", name) : sv_err(sv, err, "stats");
}

static int stats_help(struct svctl *sv)
{
	(void)sv;
	stats_usage(stdout);
	return SV_EXIT_OK;
}

int cmd_stats(struct svctl *sv)
{
	static const struct sv_cmd cmds[] = {
		{ "show",	stats_show },	/* first: the default */
		{ "list",	stats_show },
		{ "help",	stats_help },
		{ NULL,		NULL },
	};

	return sv_exec(sv, cmds);
}
