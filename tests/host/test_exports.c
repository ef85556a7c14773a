// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The built shared library, as programs see it: exported symbols and their
 * versions, and example programs linked with -lsoftverbs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake.h"
#include "harness.h"

#define LIBIBVERBS "/usr/lib/x86_64-linux-gnu/libibverbs.so.1"

/* Run cmd, collect its stdout; returns the exit status or -1. */
static int run(const char *cmd, char *out, size_t len)
{
	size_t n = 0;
	FILE *p;
	int st;

	out[0] = '\0';
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (n + 1 < len && fgets(out + n, len - n, p))
		n += strlen(out + n);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool exported_name_ok(const char *name)
{
	static const char *const extra[] = {
		"mult_to_ibv_rate", "mbps_to_ibv_rate",
		"_ibv_query_gid_ex", "_ibv_query_gid_table",
		"_ibv_query_comp_cntr_caps",
	};
	size_t i;

	if (!strncmp(name, "ibv_", 4))
		return true;
	/* the documented extensions of include/softverbs.h */
	if (!strcmp(name, "softverbs_post_atomic_write") ||
	    !strcmp(name, "softverbs_post_flush"))
		return true;
	for (i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
		if (!strcmp(name, extra[i]))
			return true;
	return false;
}

TEST(exports_only_ibv_symbols_all_versioned)
{
	static char out[1 << 16], syms65[1 << 14];
	char cmd[PATH_MAX + 128], *line, *save = NULL;
	int nfuncs = 0;

	/* rdma-core 65's private node, as |name@@NODE| */
	snprintf(cmd, sizeof(cmd),
		 "sed -n 's/^\\(.*@@IBVERBS_PRIVATE_65\\)$/|\\1|/p' "
		 "%s/../scripts/ulib-abi-65.syms", sv_test_ulib_dir());
	CHECK_INT(run(cmd, syms65, sizeof(syms65)), 0);
	snprintf(cmd, sizeof(cmd),
		 "nm -D --defined-only --with-symbol-versions %s/libsoftverbs.so.1",
		 sv_test_ulib_dir());
	CHECK_INT(run(cmd, out, sizeof(out)), 0);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char addr[32], type[4], sym[256], *at;

		if (sscanf(line, "%31s %3s %255s", addr, type, sym) != 3) {
			sv_test_fail(__FILE__, __LINE__, "odd nm line: %s", line);
			continue;
		}
		if (!strcmp(type, "A")) {	/* a version node */
			if (strncmp(sym, "IBVERBS_1.", 10) &&
			    strncmp(sym, "IBVERBS_PRIVATE_", 16) &&
			    strcmp(sym, "SOFTVERBS_1.0") &&
			    strcmp(sym, "SOFTVERBS_1.1"))
				sv_test_fail(__FILE__, __LINE__,
					     "version node %s", sym);
			continue;
		}
		/* the provider ABI of provider_abi.c: exactly 65's names */
		if (strstr(sym, "@@IBVERBS_PRIVATE_65")) {
			char key[300];

			snprintf(key, sizeof(key), "|%s|", sym);
			if (!strstr(syms65, key))
				sv_test_fail(__FILE__, __LINE__,
					     "%s: not in rdma-core 65", sym);
			continue;
		}
		at = strstr(sym, "@@IBVERBS_1.");
		/*
		 * the one private function utilities call (compat.c), in
		 * each name libibverbs' private node has had
		 */
		if (!at && (!strcmp(sym, "ibv_query_gid_type@IBVERBS_PRIVATE_34") ||
			    !strcmp(sym, "ibv_query_gid_type@IBVERBS_PRIVATE_57") ||
			    !strcmp(sym, "ibv_query_gid_type@IBVERBS_PRIVATE_59") ||
			    !strcmp(sym, "ibv_query_gid_type@IBVERBS_PRIVATE_64")))
			at = strchr(sym, '@');
		if (!at)
			at = strstr(sym, "@@SOFTVERBS_1.0");
		/* the OFED XRC compatibility functions (xrc_compat.c) */
		if (!at)
			at = strstr(sym, "@@SOFTVERBS_1.1");
		if (!at) {
			sv_test_fail(__FILE__, __LINE__,
				     "%s: no default IBVERBS_1.x version", sym);
			continue;
		}
		*at = '\0';
		if (!exported_name_ok(sym))
			sv_test_fail(__FILE__, __LINE__, "exported: %s", sym);
		if (strcmp(type, "T"))
			sv_test_fail(__FILE__, __LINE__, "%s has type %s", sym,
				     type);
		nfuncs++;
	}
	/* The foundation set alone is 24 functions; all of them are there. */
	CHECK(nfuncs >= 24);
}

/*
 * Each name@@VERSION we export is exported by libibverbs the same way: the
 * distro's library or rdma-core 65's (the list scripts/ulib-abi.sh keeps);
 * in a private node, as either kind of version.
 */
TEST(export_versions_match_libibverbs)
{
	static char ours[1 << 16], theirs[1 << 17];
	char cmd[2 * PATH_MAX + 256], *line, *save = NULL;
	int checked = 0;

	if (access(LIBIBVERBS, R_OK))
		sv_test_skip(LIBIBVERBS " not installed");
	snprintf(cmd, sizeof(cmd),
		 "nm -D --defined-only --with-symbol-versions %s/libsoftverbs.so.1"
		 " | awk '$2 == \"T\" {print $3}'", sv_test_ulib_dir());
	CHECK_INT(run(cmd, ours, sizeof(ours)), 0);
	snprintf(cmd, sizeof(cmd),
		 "{ nm -D --defined-only --with-symbol-versions " LIBIBVERBS
		 " | awk '{print $3}'; grep -v '^#' %s/../scripts/ulib-abi-65.syms; }"
		 " | awk '{print \"|\" $1 \"|\"}'", sv_test_ulib_dir());
	CHECK_INT(run(cmd, theirs, sizeof(theirs)), 0);
	for (line = strtok_r(ours, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char key[300];

		if (strstr(line, "@@SOFTVERBS_1."))
			continue;	/* ours alone (include/softverbs.h) */
		/*
		 * rdma-core 57 to 64's names of the private node: in neither
		 * reference (ulib-abi.sh's table lists them separately)
		 */
		if (!strncmp(line, "ibv_query_gid_type@IBVERBS_PRIVATE_", 35) &&
		    strcmp(line + 35, "34"))
			continue;
		snprintf(key, sizeof(key), "|%s|", line);
		/* a compatibility version matches the node's default there */
		if (!strstr(theirs, key) && strstr(line, "@IBVERBS_PRIVATE_") &&
		    !strstr(line, "@@"))
			snprintf(key, sizeof(key), "|%.*s@%s|",
				 (int)(strchr(line, '@') - line), line,
				 strchr(line, '@'));
		if (!strstr(theirs, key))
			sv_test_fail(__FILE__, __LINE__,
				     "%s: not exported like this by libibverbs",
				     line);
		checked++;
	}
	CHECK(checked >= 24);
}

/*
 * What the dynamic loader gives a program that binds ibv_query_gid_type in
 * the private node of the rdma-core it was linked against (44 to 65): the
 * same function for each; 65's is also what an unversioned lookup finds.
 */
TEST(query_gid_type_in_every_private_node)
{
	static const char *const nodes[] = {
		"IBVERBS_PRIVATE_34", "IBVERBS_PRIVATE_57", "IBVERBS_PRIVATE_59",
		"IBVERBS_PRIVATE_64", "IBVERBS_PRIVATE_65",
	};
	char path[PATH_MAX];
	void *h, *def;
	size_t i;

	snprintf(path, sizeof(path), "%s/libsoftverbs.so.1", sv_test_ulib_dir());
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL);
	if (!h)
		return;
	def = dlsym(h, "ibv_query_gid_type");
	CHECK(def != NULL);
	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		CHECK(dlvsym(h, "ibv_query_gid_type", nodes[i]) == def);
	CHECK(dlvsym(h, "ibv_query_gid_type", "IBVERBS_PRIVATE_66") == NULL);
	dlclose(h);
}

/*
 * A provider library a program links (perftest's libmlx5) registers from
 * its constructor and is ignored; its commands fail without side effects.
 */
TEST(provider_abi_is_inert)
{
	char path[PATH_MAX];
	void (*reg)(const void *);
	int (*cmd)(void *, void *, void *, size_t, void *, size_t);
	void *(*alloc_ctx)(void *, int, size_t, size_t, unsigned int);
	unsigned int (*nattrs)(unsigned int, const void *);
	bool *disassoc;
	void *h;

	snprintf(path, sizeof(path), "%s/libsoftverbs.so.1", sv_test_ulib_dir());
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL);
	if (!h)
		return;
	reg = (void (*)(const void *))dlvsym(h, "verbs_register_driver_65",
					       "IBVERBS_PRIVATE_65");
	cmd = (int (*)(void *, void *, void *, size_t, void *, size_t))
		dlvsym(h, "ibv_cmd_alloc_pd", "IBVERBS_PRIVATE_65");
	alloc_ctx = (void *(*)(void *, int, size_t, size_t, unsigned int))
		dlvsym(h, "_verbs_init_and_alloc_context", "IBVERBS_PRIVATE_65");
	nattrs = (unsigned int (*)(unsigned int, const void *))
		dlvsym(h, "__ioctl_final_num_attrs", "IBVERBS_PRIVATE_65");
	disassoc = dlvsym(h, "verbs_allow_disassociate_destroy",
			  "IBVERBS_PRIVATE_65");
	CHECK(reg && cmd && alloc_ctx && nattrs && disassoc);
	if (reg && cmd && alloc_ctx && nattrs && disassoc) {
		reg(&path);	/* any pointer: never read */
		errno = 0;
		CHECK_INT(cmd(NULL, NULL, NULL, 0, NULL, 0), EOPNOTSUPP);
		CHECK_INT(errno, EOPNOTSUPP);
		errno = 0;
		CHECK(alloc_ctx(NULL, -1, 64, 0, 0) == NULL);
		CHECK_INT(errno, EOPNOTSUPP);
		CHECK_INT(nattrs(4, NULL), 0);
		CHECK(!*disassoc);
	}
	dlclose(h);
}

TEST(devinfo_links_softverbs_not_libibverbs)
{
	char cmd[PATH_MAX + 64], out[4096];

	snprintf(cmd, sizeof(cmd), "readelf -d %s/examples/devinfo",
		 sv_test_ulib_dir());
	CHECK_INT(run(cmd, out, sizeof(out)), 0);
	CHECK(strstr(out, "[libsoftverbs.so.1]") != NULL);
	CHECK(strstr(out, "libibverbs") == NULL);
}

TEST(devinfo_lists_fake_devices)
{
	char cmd[PATH_MAX * 2], out[4096];
	struct fake_tree t;

	fake_tree_init(&t);
	fake_add_device(&t, 3, "sv3", 2, true);
	fake_add_device(&t, 1, "rxe1", 2, false);
	fake_add_device(&t, 0, "sv0", 2, true);
	snprintf(cmd, sizeof(cmd), "%s/examples/devinfo -l", sv_test_ulib_dir());
	CHECK_INT(run(cmd, out, sizeof(out)), 0);
	CHECK_STR(out, "hca_id: sv0\nnode_guid: 0002:c9ff:fe00:0000\n"
		       "hca_id: sv3\nnode_guid: 0002:c9ff:fe00:0003\n");

	snprintf(cmd, sizeof(cmd), "%s/examples/devinfo -l -d rxe1 2>&1",
		 sv_test_ulib_dir());
	CHECK_INT(run(cmd, out, sizeof(out)), 1);
	CHECK_STR(out, "device rxe1 not found\n");

	/* Opening needs a real char device: a clean error, no crash. */
	snprintf(cmd, sizeof(cmd), "%s/examples/devinfo -d sv3 2>&1",
		 sv_test_ulib_dir());
	CHECK_INT(run(cmd, out, sizeof(out)), 1);
	CHECK(strstr(out, "ibv_open_device: No such device") != NULL);
	fake_tree_destroy(&t);
}

/* A program referencing the whole exported API links and runs. */
TEST(linkcheck_program_runs)
{
	char cmd[PATH_MAX + 64], out[4096];

	snprintf(cmd, sizeof(cmd), "%s/linkcheck", getenv("TESTBIN") ?
		 getenv("TESTBIN") : "bin");
	CHECK_INT(run(cmd, out, sizeof(out)), 0);
	CHECK_STR(out, "linkcheck: ok\n");
}

/* Documentation/ulib.md's ABI table matches the libraries (scripts/ulib-abi.sh). */
TEST(abi_table_is_current)
{
	char cmd[PATH_MAX + 128], out[8192];
	int st;

	snprintf(cmd, sizeof(cmd), "%s/../scripts/ulib-abi.sh --check 2>&1",
		 sv_test_ulib_dir());
	st = run(cmd, out, sizeof(out));
	if (st == 4)
		sv_test_skip(LIBIBVERBS " not installed");
	if (st)
		sv_test_fail(__FILE__, __LINE__, "%s", out);
}
