/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svctl: the softverbs management tool.  Shared declarations, grouped by the
 * file that defines them.
 *
 * Layout (iproute2 rdma/ is the model): one file per object (dev.c, link.c,
 * res.c), each command level a table of {name, function}; nl.c is the netlink
 * plumbing, json.c the value tree every command fills and out.c prints it,
 * as JSON or as a table.  A new command is one row in a table and one
 * function; a new object (counters, fault injection: the softverbs generic
 * netlink family) is one row in svctl.c's table and one file.
 */
#ifndef SVCTL_H
#define SVCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>

#include "softverbs-nl.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* exit codes */
#define SV_EXIT_OK	0
#define SV_EXIT_FAIL	1	/* the operation failed */
#define SV_EXIT_USAGE	2	/* bad command line */

/* limits of the names the kernel accepts (IB_DEVICE_NAME_MAX, IFNAMSIZ) */
#define SV_DEV_NAME_MAX	64
#define SV_NETDEV_NAME_MAX 16

#define SV_SYSFS_IB	"/sys/class/infiniband"
/* a softverbs ib_device has this attribute; other providers don't */
#define SV_SYSFS_VERSION_ATTR "softverbs_version"

/* --- json.c: a value tree and its JSON writer -------------------------- */

enum jv_type { JV_NULL, JV_BOOL, JV_U64, JV_S64, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type type;
	union {
		bool b;
		uint64_t u;
		int64_t s;
		char *str;
		struct {		/* JV_ARR, JV_OBJ: members in order */
			struct jv **items;
			char **keys;	/* JV_OBJ only */
			size_t n, cap;
		};
	};
};

struct jv *jv_null(void);
struct jv *jv_bool(bool b);
struct jv *jv_u64(uint64_t u);
struct jv *jv_s64(int64_t s);
struct jv *jv_str(const char *s);
struct jv *jv_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct jv *jv_arr(void);
struct jv *jv_obj(void);
/* Append; take ownership of val.  jv_set replaces an existing key. */
struct jv *jv_push(struct jv *arr, struct jv *val);
struct jv *jv_set(struct jv *obj, const char *key, struct jv *val);
const struct jv *jv_get(const struct jv *obj, const char *key);
void jv_free(struct jv *v);
void jv_write(FILE *f, const struct jv *v, bool pretty);
/* a scalar as table text: strings as they are, null as "-" */
void jv_text(FILE *f, const struct jv *v);

void *xzalloc(size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

/* --- out.c: printing a command's result -------------------------------- */

/*
 * A table column: header, and the key it shows.  "port.state" reads key
 * "state" of each element of the row's "ports" array: a row with such
 * elements becomes one line per element (the device's own columns repeat).
 */
struct sv_col {
	const char *head;
	const char *key;
	unsigned int flags;
	/* optional: the cell's text from the object holding key, when the
	 * table says more than the bare value ("[ib_core]" for a kernel QP) */
	void (*text)(FILE *f, const struct jv *obj, const struct jv *val);
};
#define SV_COL_DETAIL	0x1	/* only with -d */
#define SV_COL_OPT	0x2	/* hidden when no line has a value */
#define SV_COL_RIGHT	0x4	/* numbers: right-aligned */

struct svctl;
/*
 * Print rows (an array of objects): JSON (-j) as one document, else as a
 * table of cols; "explode" names the array key of per-element lines (NULL:
 * one line per row).  Takes ownership of rows.
 */
void sv_print(struct svctl *sv, struct jv *rows, const struct sv_col *cols,
	      size_t ncols, const char *explode);

/* --- nl.c: netlink plumbing -------------------------------------------- */

struct nl {
	struct mnl_socket *sk;
	unsigned int portid;
	unsigned int seq;
	char *sbuf, *rbuf;
	size_t rbuf_size;
	char ext_msg[256];	/* the kernel's extack message for the last error */
};

typedef int (*nl_data_cb)(const struct nlmsghdr *nlh, void *data);

int nl_open(struct nl *nl, int protocol);
void nl_close(struct nl *nl);
struct nlmsghdr *nl_req(struct nl *nl, uint16_t type, uint16_t flags);
/*
 * Send req, feed every reply to cb (may be NULL) until the dump is done or
 * the ACK arrives.  Returns 0 or a negative errno (the kernel's, or cb's
 * when cb returns MNL_CB_ERROR with errno set); nl->ext_msg holds the
 * kernel's extended ACK message, if it sent one.
 */
int nl_run(struct nl *nl, struct nlmsghdr *req, nl_data_cb cb, void *data);

/* RDMA netlink, the nldev client: one attribute space for all commands */
#define NLDEV_TB_SIZE	RDMA_NLDEV_ATTR_MAX
struct nlmsghdr *nldev_req(struct nl *nl, unsigned int cmd, uint16_t flags);
/*
 * Parse a message's or a nest's attributes into tb[NLDEV_TB_SIZE], each
 * checked against the attribute table; a malformed one is left out (and
 * named on stderr, once).  0 or a negative errno.
 */
int nldev_parse(const struct nlmsghdr *nlh, struct nlattr **tb);
int nldev_parse_nested(const struct nlattr *nest, struct nlattr **tb);
/* One attribute of a nest walked by hand: unknown or well-formed?  (A
 * malformed one is named on stderr, once.) */
bool nldev_attr_ok(const struct nlattr *attr);

/* generic netlink: family id by name; -ENOENT when no such family */
int genl_family_id(struct nl *nl, const char *name, uint16_t *id);

/* --- svctl.c: command line, dispatch, errors --------------------------- */

struct svctl {
	int argc;
	char **argv;
	bool json, pretty, details;
	struct nl nl;		/* RDMA netlink, opened on first use */
	struct nl gnl;		/* generic netlink (softverbs family), ditto */
	uint16_t gfamily;	/* its family id */
	/* output is collected and printed only when the command succeeds */
	FILE *out;
	char *outbuf;
	size_t outlen;
};

struct sv_cmd {
	const char *name;
	int (*fn)(struct svctl *sv);
};

/*
 * Run the row of cmds (ended by a NULL name) named by the next word, exact
 * or else the first row (in table order) it is a prefix of, with the word
 * consumed.  No word, or a word that names
 * no row, runs the first row with the arguments untouched: the first row is
 * the default, and "dev sv0" is "dev show sv0".
 */
int sv_exec(struct svctl *sv, const struct sv_cmd *cmds);

static inline bool sv_no_args(const struct svctl *sv)
{
	return sv->argc <= 0;
}
static inline const char *sv_arg(const struct svctl *sv)
{
	return sv->argc > 0 ? sv->argv[0] : NULL;
}
static inline const char *sv_next(struct svctl *sv)
{
	const char *a = sv_arg(sv);

	if (a) {
		sv->argc--;
		sv->argv++;
	}
	return a;
}
/* word is keyword or a non-empty prefix of it ("net" for "netdev") */
bool sv_is(const char *word, const char *keyword);

struct nl *sv_nl(struct svctl *sv);
/* "svctl: CTX: strerror(err) (kernel: extack)"; returns SV_EXIT_FAIL */
int sv_err(struct svctl *sv, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "svctl: MESSAGE" and a hint; returns SV_EXIT_USAGE */
int sv_usage(struct svctl *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "svctl: MESSAGE"; returns SV_EXIT_FAIL */
int sv_fail(struct svctl *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Extra words after a complete command: usage error, or 0 if none. */
int sv_no_more_args(struct svctl *sv, const char *what);

/*
 * The softverbs generic netlink family (uapi/softverbs-nl.h): the socket,
 * opened on first use (exits with a message when the module is not loaded),
 * and a request for one of its commands.
 */
struct nl *sv_genl(struct svctl *sv);
struct nlmsghdr *sv_genl_req(struct svctl *sv, uint8_t cmd, uint16_t flags);

/* --- sysfs.c ------------------------------------------------------------ */

/* Read a one-line sysfs file into buf, newline stripped; 0 or -errno. */
int sysfs_read(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Non-zero entries of a port's GID table; -errno if it cannot be read. */
int sysfs_gid_count(const char *dev, uint32_t port);

/* --- uverbs.c: what only the verbs interface tells ---------------------- */

struct sv_port_info {
	unsigned int active_mtu;	/* bytes */
	int gids;			/* valid GID entries, or -errno */
};

/*
 * A port's active MTU (verbs port query) and GIDs in use (verbs GID table
 * query, else sysfs); 0 or -errno when the MTU cannot be had.
 */
int uverbs_port_info(struct svctl *sv, uint32_t dev_index, uint32_t port,
		     struct sv_port_info *pi);

/* --- dev.c --------------------------------------------------------------- */

/* one "svctl dev" row, as RDMA netlink lists it (not kmod's struct sv_dev) */
struct svctl_dev {
	uint32_t index;
	char name[SV_DEV_NAME_MAX];
	uint32_t ports;
	uint64_t node_guid, sys_image_guid;
	int node_type;		/* RDMA_NODE_*; -1 when not reported */
	char fw[64];		/* "" when not reported */
	char protocol[16];	/* "" when not reported */
	char version[32];	/* softverbs_version; "" for other providers */
};

/*
 * The softverbs devices this namespace can see, in index order.  Returns 0
 * (*devs to free) or a negative errno.
 */
int svctl_dev_list(struct svctl *sv, struct svctl_dev **devs, size_t *n);
/*
 * Resolve a device name given on the command line: 0, or an exit code after
 * printing why (no such device; not a softverbs device).
 */
int svctl_dev_find(struct svctl *sv, const char *name, struct svctl_dev *dev,
		   const char *ctx);
/* "0211:22ff:fe33:4455", as sysfs and rdma print a GUID */
void sv_guid_str(uint64_t guid, char *buf, size_t len);

int cmd_dev(struct svctl *sv);
void dev_usage(FILE *f);

/* --- link.c -------------------------------------------------------------- */

/*
 * The device's ports, an array of objects: port, state, physical_state,
 * netdev, netdev_index or netdev_netns, active_mtu, gids.  NULL on error,
 * *err set.
 */
struct jv *sv_ports_json(struct svctl *sv, const struct svctl_dev *dev,
			 int *err);

int cmd_link(struct svctl *sv);
void link_usage(FILE *f);

/* --- persist.c: the configuration file and its daemon -------------------- */

int link_save(struct svctl *sv);
int link_apply(struct svctl *sv);
int link_watch(struct svctl *sv);

/* --- res.c --------------------------------------------------------------- */

int cmd_res(struct svctl *sv);
int cmd_qp(struct svctl *sv);
void res_usage(FILE *f);

/* --- stats.c: counters (STATS_GET) ------------------------------------- */

int cmd_stats(struct svctl *sv);
void stats_usage(FILE *f);

/* --- fault.c: fault injection (FAULT_GET/FAULT_SET), and "set" ---------- */

int cmd_fault(struct svctl *sv);
int cmd_set(struct svctl *sv);
void fault_usage(FILE *f);

#endif /* SVCTL_H */
