// SPDX-License-Identifier: GPL-2.0
/*
 * svctl: manage softverbs devices.  Global options, the object table, the
 * dispatcher every command level uses, and error reporting.
 *
 * Exit status: 0 success, 1 the operation failed, 2 bad command line.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "svctl.h"

#ifndef SV_VERSION
#define SV_VERSION "unknown"
#endif


static void main_usage(FILE *f)
{
	fprintf(f,
		"Usage: svctl [OPTIONS] OBJECT [COMMAND [ARGS]]\n"
		"       svctl help [OBJECT]\n"
		"       svctl -V\n"
		"where  OBJECT := { dev | link | res | qp | stats | fault | set }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -d[etails] | -n[etns] NAME |\n"
		"                    -V[ersion] | -h[elp] }\n");
}

static int cmd_help(struct svctl *sv);

static const struct sv_cmd objects[] = {
	{ "help",	cmd_help },	/* first: unknown objects land here */
	{ "dev",	cmd_dev },
	{ "link",	cmd_link },
	{ "res",	cmd_res },
	{ "resource",	cmd_res },
	{ "qp",		cmd_qp },
	{ "stats",	cmd_stats },
	{ "statistics",	cmd_stats },
	{ "fault",	cmd_fault },
	{ "set",	cmd_set },
	{ NULL,		NULL },
};

static const struct {
	const char *name;
	void (*usage)(FILE *f);
} helps[] = {
	{ "dev",	dev_usage },
	{ "link",	link_usage },
	{ "res",	res_usage },
	{ "resource",	res_usage },
	{ "qp",		res_usage },
	{ "stats",	stats_usage },
	{ "statistics",	stats_usage },
	{ "fault",	fault_usage },
	{ "set",	fault_usage },
};

/* "svctl help [OBJECT]"; also where "svctl NOSUCHOBJECT" ends up */
static int cmd_help(struct svctl *sv)
{
	const char *word = sv_arg(sv);
	size_t i;

	if (!word) {
		main_usage(stdout);
		for (i = 0; i < ARRAY_SIZE(helps); i++)
			if (!i || helps[i].usage != helps[i - 1].usage)
				helps[i].usage(stdout);
		return SV_EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(helps); i++) {
		if (sv_is(word, helps[i].name)) {
			sv_next(sv);
			if (sv_no_more_args(sv, "help"))
				return SV_EXIT_USAGE;
			helps[i].usage(stdout);
			return SV_EXIT_OK;
		}
	}
	return sv_usage(sv, "unknown object \"%s\"", word);
}

bool sv_is(const char *word, const char *keyword)
{
	size_t n = strlen(word);

	return n && !strncmp(word, keyword, n);
}

int sv_exec(struct svctl *sv, const struct sv_cmd *cmds)
{
	const char *word = sv_arg(sv);
	const struct sv_cmd *hit = NULL, *c;

	if (!word)
		return cmds[0].fn(sv);
	/*
	 * An exact name wins; otherwise the first row the word abbreviates,
	 * in table order, as iproute2 does ("link a" is "link add", not
	 * "link apply"): the tables list the common command first.
	 */
	for (c = cmds; c->name; c++) {
		if (!strcmp(word, c->name)) {
			hit = c;
			break;
		}
		if (!hit && sv_is(word, c->name))
			hit = c;
	}
	if (!hit)
		return cmds[0].fn(sv);
	sv_next(sv);
	return hit->fn(sv);
}

struct nl *sv_nl(struct svctl *sv)
{
	int err;

	if (sv->nl.sk)
		return &sv->nl;
	err = nl_open(&sv->nl, NETLINK_RDMA);
	if (err) {
		/* no way on without the kernel: report and stop here */
		sv_err(sv, err, "cannot open RDMA netlink socket");
		if (err == -EPROTONOSUPPORT)
			fputs("svctl: is ib_core loaded?\n", stderr);
		exit(SV_EXIT_FAIL);
	}
	return &sv->nl;
}

struct nl *sv_genl(struct svctl *sv)
{
	int err;

	if (sv->gnl.sk)
		return &sv->gnl;
	err = nl_open(&sv->gnl, NETLINK_GENERIC);
	if (!err)
		err = genl_family_id(&sv->gnl, SV_GENL_NAME, &sv->gfamily);
	if (err) {
		sv_err(sv, err, "generic netlink family \"%s\"", SV_GENL_NAME);
		if (err == -ENOENT)
			fputs("svctl: is the softverbs module loaded (modprobe softverbs)?\n",
			      stderr);
		exit(SV_EXIT_FAIL);
	}
	return &sv->gnl;
}

struct nlmsghdr *sv_genl_req(struct svctl *sv, uint8_t cmd, uint16_t flags)
{
	struct nl *nl = sv_genl(sv);
	struct nlmsghdr *nlh = nl_req(nl, sv->gfamily, flags);
	struct genlmsghdr *g;

	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = SV_GENL_VERSION;
	return nlh;
}

static void vmsg(const char *fmt, va_list ap)
{
	fputs("svctl: ", stderr);
	vfprintf(stderr, fmt, ap);
}

int sv_err(struct svctl *sv, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s", strerror(err < 0 ? -err : err));
	if (sv->nl.sk && sv->nl.ext_msg[0])
		fprintf(stderr, " (kernel: %s)", sv->nl.ext_msg);
	else if (sv->gnl.sk && sv->gnl.ext_msg[0])
		fprintf(stderr, " (kernel: %s)", sv->gnl.ext_msg);
	fputc('\n', stderr);
	return SV_EXIT_FAIL;
}

int sv_fail(struct svctl *sv, const char *fmt, ...)
{
	va_list ap;

	(void)sv;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return SV_EXIT_FAIL;
}

int sv_usage(struct svctl *sv, const char *fmt, ...)
{
	va_list ap;

	(void)sv;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fputs("; see \"svctl help\"\n", stderr);
	return SV_EXIT_USAGE;
}

int sv_no_more_args(struct svctl *sv, const char *what)
{
	if (sv_no_args(sv))
		return 0;
	return sv_usage(sv, "%s: unexpected argument \"%s\"", what, sv_arg(sv));
}

/* -n NAME: run in a named network namespace (ip netns) or one given by path */
static int enter_netns(const char *name)
{
	char path[512];
	int fd, err = 0;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0)
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err) {
		fprintf(stderr, "svctl: netns %s: %s\n", name, strerror(err));
		return SV_EXIT_FAIL;
	}
	return 0;
}

/* -V: our version, and what the loaded module offers */
static int print_version(void)
{
	char ver[64];
	struct nl g;
	uint16_t id;
	int err;

	printf("svctl %s\n", SV_VERSION);
	if (sysfs_read(ver, sizeof(ver), "/sys/module/softverbs/version")) {
		printf("softverbs module: not loaded\n");
		return SV_EXIT_OK;
	}
	err = nl_open(&g, NETLINK_GENERIC);
	if (!err) {
		err = genl_family_id(&g, SV_GENL_NAME, &id);
		nl_close(&g);
	}
	printf("softverbs module %s, generic netlink family \"%s\": %s\n", ver,
	       SV_GENL_NAME, !err ? "present" : err == -ENOENT ? "absent" :
	       strerror(-err));
	return SV_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",	no_argument,		NULL, 'j' },
		{ "pretty",	no_argument,		NULL, 'p' },
		{ "details",	no_argument,		NULL, 'd' },
		{ "netns",	required_argument,	NULL, 'n' },
		{ "version",	no_argument,		NULL, 'V' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 },
	};
	struct svctl sv = { 0 };
	const char *netns = NULL;
	int opt, rc;

	/* "+": options end at the object, so "link add x netdev -y" stays ours;
	 * ":": we word the errors ourselves */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:jpdn:Vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			sv.json = true;
			break;
		case 'p':
			sv.json = sv.pretty = true;
			break;
		case 'd':
			sv.details = true;
			break;
		case 'n':
			netns = optarg;
			break;
		case 'V':
			return print_version();
		case 'h':
			main_usage(stdout);
			return SV_EXIT_OK;
		case ':':
			fprintf(stderr, "svctl: option %s needs a value\n",
				argv[optind - 1]);
			main_usage(stderr);
			return SV_EXIT_USAGE;
		default:
			if (optopt)
				fprintf(stderr, "svctl: unknown option -%c\n", optopt);
			else
				fprintf(stderr, "svctl: unknown option %s\n",
					argv[optind - 1]);
			main_usage(stderr);
			return SV_EXIT_USAGE;
		}
	}
	sv.argc = argc - optind;
	sv.argv = argv + optind;
	if (sv_no_args(&sv)) {
		main_usage(stderr);
		return SV_EXIT_USAGE;
	}
	if (netns && (rc = enter_netns(netns)))
		return rc;

	sv.out = open_memstream(&sv.outbuf, &sv.outlen);
	if (!sv.out) {
		perror("svctl");
		return SV_EXIT_FAIL;
	}
	rc = sv_exec(&sv, objects);
	fclose(sv.out);
	/* output only from a command that succeeded: never half a document */
	if (rc == SV_EXIT_OK && sv.outlen &&
	    (fwrite(sv.outbuf, 1, sv.outlen, stdout) != sv.outlen ||
	     fflush(stdout))) {
		perror("svctl: stdout");
		rc = SV_EXIT_FAIL;
	}
	free(sv.outbuf);
	nl_close(&sv.nl);
	nl_close(&sv.gnl);
	return rc;
}
