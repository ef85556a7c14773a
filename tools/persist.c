// SPDX-License-Identifier: GPL-2.0
/*
 * svctl link save | apply | watch: softverbs devices that persist, from a
 * configuration file (default /etc/softverbs/links.conf), one device a line:
 *
 *	# comment
 *	NAME netdev NETDEV [netns NS]
 *
 * NS is a namespace as "ip netns" names it (/run/netns/NS); without it the
 * device belongs in svctl's own namespace.
 *
 * "watch" is the daemon behind softverbs-links.service: it creates each
 * device as soon as its netdev exists in its namespace, and again whenever
 * the netdev comes back (created late, deleted and re-created, moved into
 * the namespace), and deletes them when it is stopped.  It follows
 * rtnetlink's link events in every namespace the file names, and the mount
 * table for namespaces that "ip netns add" creates or "ip netns del"
 * removes later.  udev would not do: a netdev's uevents reach only its own
 * namespace, and a namespace has no udev.
 *
 * A device is created only where none of its name exists: ib_core logs each
 * refused creation, and link events come at every carrier change.  A device
 * of the name already bound elsewhere is usually one on its way out (a
 * netdev moved away: softverbs unregisters its device asynchronously), so
 * the entry is retried with backoff, 250 ms doubling to 8 s, until the name
 * is free or bound to the configured netdev.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>

#include "svctl.h"

#define SV_LINKS_CONF	"/etc/softverbs/links.conf"
#define SV_NETNS_DIR	"/run/netns"
#define SV_NETNS_MAX	255
#define RETRY_MIN_MS	250
#define RETRY_MAX_MS	8000

struct entry {
	char name[SV_DEV_NAME_MAX];
	char netdev[SV_NETDEV_NAME_MAX];
	char netns[SV_NETNS_MAX + 1];	/* "" for svctl's own */
	int line;
	/* watch: */
	int last_err;			/* what was last logged, not to repeat it */
	int retry_ms;			/* 0: none pending */
	struct timespec retry_at;
};

struct conf {
	struct entry *e;
	size_t n;
};

/* --- the file ----------------------------------------------------------- */

static bool name_ok(const char *s, size_t max)
{
	return *s && strlen(s) < max && !strchr(s, '/') && !strchr(s, '%');
}

static bool netns_ok(const char *s)
{
	return *s && strlen(s) <= SV_NETNS_MAX && !strchr(s, '/') &&
	       strcmp(s, ".") && strcmp(s, "..");
}

/* One line's words (at most 6: a seventh is an error) */
static int split(char *line, char **w, int max)
{
	int n = 0;
	char *tok, *save;

	for (tok = strtok_r(line, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return max + 1;
		w[n++] = tok;
	}
	return n;
}

static int conf_read(struct svctl *sv, const char *path, struct conf *c)
{
	char buf[1024], *w[7], *hash;
	int lineno = 0, n;
	size_t k;
	FILE *f;

	c->e = NULL;
	c->n = 0;
	f = fopen(path, "re");
	if (!f)
		return sv_err(sv, errno, "%s", path);
	while (fgets(buf, sizeof(buf), f)) {
		struct entry e = { .line = ++lineno };

		if (!strchr(buf, '\n') && !feof(f)) {
			fclose(f);
			return sv_fail(sv, "%s:%d: line too long", path, lineno);
		}
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		n = split(buf, w, 6);
		if (!n)
			continue;
		if (n != 3 && n != 5)
			goto bad;
		if (strcmp(w[1], "netdev") || (n == 5 && strcmp(w[3], "netns")))
			goto bad;
		if (!name_ok(w[0], SV_DEV_NAME_MAX))
			goto bad_name;
		if (!name_ok(w[2], SV_NETDEV_NAME_MAX))
			goto bad_name;
		if (n == 5 && !netns_ok(w[4]))
			goto bad_name;
		snprintf(e.name, sizeof(e.name), "%s", w[0]);
		snprintf(e.netdev, sizeof(e.netdev), "%s", w[2]);
		if (n == 5)
			snprintf(e.netns, sizeof(e.netns), "%s", w[4]);
		for (k = 0; k < c->n; k++) {
			if (!strcmp(c->e[k].name, e.name)) {
				fclose(f);
				free(c->e);
				return sv_fail(sv, "%s:%d: %s is also on line %d",
					       path, lineno, e.name, c->e[k].line);
			}
			if (!strcmp(c->e[k].netdev, e.netdev) &&
			    !strcmp(c->e[k].netns, e.netns)) {
				fclose(f);
				free(c->e);
				return sv_fail(sv, "%s:%d: netdev %s has a device on line %d already (one softverbs device per netdev)",
					       path, lineno, e.netdev, c->e[k].line);
			}
		}
		c->e = xrealloc(c->e, (c->n + 1) * sizeof(*c->e));
		c->e[c->n++] = e;
		continue;
bad:
		fclose(f);
		free(c->e);
		return sv_fail(sv, "%s:%d: expected \"NAME netdev NETDEV [netns NS]\"",
			       path, lineno);
bad_name:
		fclose(f);
		free(c->e);
		return sv_fail(sv, "%s:%d: bad name (device names below %d characters, netdev names below %d, no '/' or '%%')",
			       path, lineno, SV_DEV_NAME_MAX, SV_NETDEV_NAME_MAX);
	}
	if (ferror(f)) {
		n = errno;
		fclose(f);
		free(c->e);
		return sv_err(sv, n, "%s", path);
	}
	fclose(f);
	return 0;
}

/* "file FILE" (any order of keywords; only this one so far) */
static int parse_file_arg(struct svctl *sv, const char *what, const char **path)
{
	const char *kw;

	*path = SV_LINKS_CONF;
	while ((kw = sv_next(sv))) {
		if (!sv_is(kw, "file"))
			return sv_usage(sv, "link %s: unknown argument \"%s\"", what, kw);
		*path = sv_next(sv);
		if (!*path || !**path)
			return sv_usage(sv, "link %s: file needs a path", what);
	}
	return 0;
}

/* --- namespaces ---------------------------------------------------------- */

/* Enter the namespace named ns ("": the one in own); -errno */
static int netns_enter(const char *ns, int own)
{
	char path[sizeof(SV_NETNS_DIR) + SV_NETNS_MAX + 2];
	int fd, err = 0;

	if (!*ns)
		return setns(own, CLONE_NEWNET) ? -errno : 0;
	snprintf(path, sizeof(path), SV_NETNS_DIR "/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET))
		err = -errno;
	close(fd);
	return err;
}

/*
 * The inode of a namespace ("": svctl's own), what tells two namespaces
 * apart; 0 if there is none.  "ip netns add" creates an empty file and
 * then mounts the namespace on it: only a file of nsfs, the file system
 * of /proc/self/ns/net, is a namespace.
 */
static ino_t netns_ino(const char *ns)
{
	char path[sizeof(SV_NETNS_DIR) + SV_NETNS_MAX + 2];
	struct stat st, nsfs;

	if (stat("/proc/self/ns/net", &nsfs))
		return 0;
	if (!*ns)
		return nsfs.st_ino;
	snprintf(path, sizeof(path), SV_NETNS_DIR "/%s", ns);
	if (stat(path, &st) || st.st_dev != nsfs.st_dev)
		return 0;
	return st.st_ino;
}

/* --- devices, as seen from one namespace -------------------------------- */

struct rdev {
	uint32_t index;
	char name[SV_DEV_NAME_MAX];
	char netdev[SV_NETDEV_NAME_MAX];	/* "" unless in this namespace */
	bool ours;				/* a softverbs device */
};

struct rdev_list {
	struct rdev *d;
	size_t n;
};

static int rdev_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *tb[NLDEV_TB_SIZE];
	struct rdev_list *l = data;
	struct rdev *d;
	char ver[32];

	if (nldev_parse(nlh, tb))
		return MNL_CB_ERROR;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return MNL_CB_OK;
	l->d = xrealloc(l->d, (l->n + 1) * sizeof(*l->d));
	d = &l->d[l->n++];
	memset(d, 0, sizeof(*d));
	d->index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	snprintf(d->name, sizeof(d->name), "%s",
		 mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_DEV_NAME]));
	d->ours = !sysfs_read(ver, sizeof(ver), SV_SYSFS_IB "/%s/%s", d->name,
			      SV_SYSFS_VERSION_ATTR);
	return MNL_CB_OK;
}

static int port_netdev_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *tb[NLDEV_TB_SIZE];
	struct rdev *d = data;

	if (nldev_parse(nlh, tb))
		return MNL_CB_ERROR;
	/* ib_core names the netdev only to a socket of its namespace */
	if (tb[RDMA_NLDEV_ATTR_NDEV_NAME])
		snprintf(d->netdev, sizeof(d->netdev), "%s",
			 mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_NDEV_NAME]));
	return MNL_CB_OK;
}

/*
 * Every RDMA device the socket's namespace sees, softverbs ones with their
 * netdev when it is in that namespace.  0 or -errno.
 */
static int rdev_dump(struct nl *nl, struct rdev_list *l)
{
	struct nlmsghdr *nlh;
	size_t i;
	int err;

	l->d = NULL;
	l->n = 0;
	err = nl_run(nl, nldev_req(nl, RDMA_NLDEV_CMD_GET, NLM_F_DUMP), rdev_cb, l);
	for (i = 0; !err && i < l->n; i++) {
		if (!l->d[i].ours)
			continue;
		nlh = nldev_req(nl, RDMA_NLDEV_CMD_PORT_GET, 0);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, l->d[i].index);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
		err = nl_run(nl, nlh, port_netdev_cb, &l->d[i]);
		if (err == -ENODEV || err == -EINVAL)
			err = 0;	/* gone meanwhile */
	}
	if (err) {
		free(l->d);
		l->d = NULL;
		l->n = 0;
	}
	return err;
}

static struct rdev *rdev_find(struct rdev_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->d[i].name, name))
			return &l->d[i];
	return NULL;
}

static int rdev_add(struct nl *nl, const struct entry *e)
{
	struct nlmsghdr *nlh = nldev_req(nl, RDMA_NLDEV_CMD_NEWLINK, 0);

	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, e->name);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_LINK_TYPE, "softverbs");
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_NDEV_NAME, e->netdev);
	return nl_run(nl, nlh, NULL, NULL);
}

static int rdev_del(struct nl *nl, uint32_t index)
{
	struct nlmsghdr *nlh = nldev_req(nl, RDMA_NLDEV_CMD_DELLINK, 0);

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	return nl_run(nl, nlh, NULL, NULL);
}

/* Does the socket's namespace have this netdev?  (rtnetlink by name) */
static int netdev_present(struct nl *rt, const char *netdev)
{
	struct nlmsghdr *nlh = nl_req(rt, RTM_GETLINK, 0);
	struct ifinfomsg *ifi;
	int err;

	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, netdev);
	/* the reply is the link; nothing to read in it */
	err = nl_run(rt, nlh, NULL, NULL);
	if (err == -ENODEV)
		return 0;
	return err ? err : 1;
}

/* --- save ------------------------------------------------------------------ */

/* The lines for the softverbs devices whose netdev is in this namespace */
static int save_ns(FILE *out, const char *ns)
{
	struct rdev_list l;
	struct nl nl;
	size_t i;
	int err;

	err = nl_open(&nl, NETLINK_RDMA);
	if (err)
		return err;
	err = rdev_dump(&nl, &l);
	nl_close(&nl);
	if (err)
		return err;
	for (i = 0; i < l.n; i++) {
		if (!l.d[i].ours || !l.d[i].netdev[0])
			continue;
		fprintf(out, "%s netdev %s%s%s\n", l.d[i].name, l.d[i].netdev,
			*ns ? " netns " : "", ns);
	}
	free(l.d);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * svctl link save [file FILE]: the softverbs devices of svctl's namespace
 * and of every named one (ip netns), written as the configuration ("-":
 * standard output).  The file is replaced whole (a new file renamed over
 * it), so the daemon never reads half of it.
 */
int link_save(struct svctl *sv)
{
	char tmp[4096], **names = NULL;
	const char *path;
	ino_t own_ino, *seen = NULL;
	size_t nnames = 0, nseen = 0, i, k;
	struct dirent *de;
	int own, rc, err, fd;
	FILE *out;
	DIR *dir;

	if ((rc = parse_file_arg(sv, "save", &path)))
		return rc;
	own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (own < 0)
		return sv_err(sv, errno, "link save: /proc/self/ns/net");
	own_ino = netns_ino("");

	if (!strcmp(path, "-")) {
		out = sv->out;
	} else {
		snprintf(tmp, sizeof(tmp), "%s.svctl-new", path);
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			rc = sv_err(sv, errno, "link save: %s", tmp);
			if (fd >= 0)
				close(fd);
			close(own);
			return rc;
		}
	}
	fprintf(out, "# softverbs devices (svctl link save): NAME netdev NETDEV [netns NS]\n");
	err = save_ns(out, "");

	/* the named namespaces, in name order, each once */
	dir = opendir(SV_NETNS_DIR);
	while (!err && dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.' || !netns_ok(de->d_name))
			continue;
		names = xrealloc(names, (nnames + 1) * sizeof(*names));
		names[nnames++] = xstrdup(de->d_name);
	}
	if (dir)
		closedir(dir);
	if (nnames)
		qsort(names, nnames, sizeof(*names), cmp_str);
	for (i = 0; !err && i < nnames; i++) {
		ino_t ino = netns_ino(names[i]);

		if (!ino || ino == own_ino)
			continue;
		for (k = 0; k < nseen && seen[k] != ino; k++)
			;
		if (k < nseen)
			continue;
		seen = xrealloc(seen, (nseen + 1) * sizeof(*seen));
		seen[nseen++] = ino;
		err = netns_enter(names[i], own);
		if (!err)
			err = save_ns(out, names[i]);
		if (netns_enter("", own))
			err = err ? err : -errno;
	}
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	free(seen);
	close(own);

	if (out != sv->out) {
		if (fflush(out) || fsync(fileno(out)))
			err = err ? err : -errno;
		if (fclose(out))
			err = err ? err : -errno;
		if (!err && rename(tmp, path))
			err = -errno;
		if (err)
			unlink(tmp);
	}
	if (err)
		return sv_err(sv, err, "link save %s", path);
	return SV_EXIT_OK;
}

/* --- apply and watch --------------------------------------------------- */

/* One namespace the configuration names, and its sockets while it exists */
struct nsctx {
	char netns[SV_NETNS_MAX + 1];
	ino_t ino;		/* 0: not there (not yet, or no more) */
	struct nl rdma;		/* requests */
	struct nl rt;		/* rtnetlink requests */
	struct mnl_socket *ev;	/* rtnetlink link events */
	struct entry **e;
	size_t n;
};

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static void wlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void wlog(const char *fmt, ...)
{
	va_list ap;

	fputs("svctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *where(const struct nsctx *x)
{
	return x->netns[0] ? x->netns : "(own namespace)";
}

static void ns_close(struct nsctx *x)
{
	if (!x->ino)
		return;
	nl_close(&x->rdma);
	nl_close(&x->rt);
	if (x->ev)
		mnl_socket_close(x->ev);
	x->ev = NULL;
	x->ino = 0;
}

/*
 * Open the namespace's sockets if it exists now; close them if it went
 * away or was replaced (a socket pins its namespace: "ip netns del" must
 * really free it).  Returns true when it is open.
 */
static bool ns_sync(struct nsctx *x, int own)
{
	ino_t ino = netns_ino(x->netns);
	int err;

	if (x->ino && x->ino == ino)
		return true;
	if (x->ino) {
		wlog("netns %s is gone", where(x));
		ns_close(x);
	}
	if (!ino)
		return false;
	err = netns_enter(x->netns, own);
	if (err) {
		wlog("netns %s: %s", where(x), strerror(-err));
		return false;
	}
	err = nl_open(&x->rdma, NETLINK_RDMA);
	if (!err) {
		err = nl_open(&x->rt, NETLINK_ROUTE);
		if (err)
			nl_close(&x->rdma);
	}
	if (!err) {
		x->ev = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (!x->ev || mnl_socket_bind(x->ev, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0) {
			err = -errno;
			if (x->ev)
				mnl_socket_close(x->ev);
			x->ev = NULL;
			nl_close(&x->rdma);
			nl_close(&x->rt);
		}
	}
	if (netns_enter("", own) && !err)
		err = -errno;
	if (err) {
		wlog("netns %s: cannot open netlink sockets: %s", where(x), strerror(-err));
		return false;
	}
	x->ino = ino;
	return true;
}

static long ms_until(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (t->tv_sec - now.tv_sec) * 1000 + (t->tv_nsec - now.tv_nsec) / 1000000;
}

static void retry_later(struct entry *e)
{
	e->retry_ms = e->retry_ms ? e->retry_ms * 2 : RETRY_MIN_MS;
	if (e->retry_ms > RETRY_MAX_MS)
		e->retry_ms = RETRY_MAX_MS;
	clock_gettime(CLOCK_MONOTONIC, &e->retry_at);
	e->retry_at.tv_sec += e->retry_ms / 1000;
	e->retry_at.tv_nsec += (e->retry_ms % 1000) * 1000000L;
	if (e->retry_at.tv_nsec >= 1000000000L) {
		e->retry_at.tv_sec++;
		e->retry_at.tv_nsec -= 1000000000L;
	}
}

/* Log err for e unless it is what was logged last */
static void entry_err(struct entry *e, const struct nsctx *x, int err,
		      const char *what)
{
	if (e->last_err == err)
		return;
	e->last_err = err;
	wlog("%s %s on %s in %s: %s%s%s%s", what, e->name, e->netdev, where(x),
	     strerror(-err), x->rdma.ext_msg[0] ? " (kernel: " : "",
	     x->rdma.ext_msg, x->rdma.ext_msg[0] ? ")" : "");
}

/*
 * Bring the namespace's entries to what the file says: create each device
 * whose netdev is here and whose name is free.  Returns the number of
 * entries that failed for a reason other than a missing netdev.
 */
static int ns_apply(struct nsctx *x)
{
	struct rdev_list l;
	struct rdev *d;
	int err, bad = 0;
	size_t i;

	err = rdev_dump(&x->rdma, &l);
	if (err) {
		wlog("netns %s: cannot list RDMA devices: %s", where(x), strerror(-err));
		return (int)x->n;
	}
	for (i = 0; i < x->n; i++) {
		struct entry *e = x->e[i];

		d = rdev_find(&l, e->name);
		if (d && d->ours && !strcmp(d->netdev, e->netdev)) {
			e->retry_ms = 0;
			e->last_err = 0;
			continue;	/* there, as configured */
		}
		err = netdev_present(&x->rt, e->netdev);
		if (err <= 0) {
			e->retry_ms = 0;
			if (err < 0) {
				entry_err(e, x, err, "cannot look up the netdev of");
				bad++;
			}
			continue;	/* comes with the netdev's link event */
		}
		if (d) {
			/* most likely going away; else a clash to report */
			if (e->retry_ms == RETRY_MAX_MS)
				entry_err(e, x, -EEXIST, "waiting for the name of");
			retry_later(e);
			continue;
		}
		err = rdev_add(&x->rdma, e);
		if (!err) {
			wlog("created %s on %s in %s", e->name, e->netdev, where(x));
			e->retry_ms = 0;
			e->last_err = 0;
			continue;
		}
		entry_err(e, x, err, "cannot create");
		bad++;
		/* a race with the netdev or with another device's teardown */
		if (err == -ENODEV || err == -EEXIST)
			retry_later(e);
	}
	free(l.d);
	return bad;
}

/* Delete the namespace's configured devices that are bound as configured */
static void ns_remove(struct nsctx *x)
{
	struct rdev_list l;
	struct rdev *d;
	size_t i;
	int err;

	if (!x->ino || rdev_dump(&x->rdma, &l))
		return;
	for (i = 0; i < x->n; i++) {
		d = rdev_find(&l, x->e[i]->name);
		if (!d || !d->ours || strcmp(d->netdev, x->e[i]->netdev))
			continue;
		err = rdev_del(&x->rdma, d->index);
		if (err && err != -ENODEV)
			wlog("cannot delete %s: %s", d->name, strerror(-err));
		else
			wlog("deleted %s", d->name);
	}
	free(l.d);
}

/* Drain the namespace's link events; true if one may matter */
static bool ns_events(struct nsctx *x)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	const struct nlmsghdr *nlh;
	bool any = false;
	ssize_t n;
	int len;

	for (;;) {
		n = mnl_socket_recvfrom(x->ev, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				return any;
			/* ENOBUFS: events were lost; look at everything */
			return true;
		}
		/*
		 * Any RTM_NEWLINK: a name, a namespace move or a new link
		 * may each make a configured netdev appear.  ns_apply()
		 * checks the names itself.
		 */
		len = (int)n;
		for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len))
			if (nlh->nlmsg_type == RTM_NEWLINK)
				any = true;
	}
}

/* systemd's readiness protocol (sd_notify(3)), without libsystemd */
static void notify(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') ||
	    strlen(path) >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, path, strlen(path));
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';	/* abstract */
	len = offsetof(struct sockaddr_un, sun_path) + strlen(path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa, len) < 0)
		wlog("notify %s: %s", path, strerror(errno));
	close(fd);
}

/* The configuration's namespaces, each with its entries */
static struct nsctx *ns_group(struct conf *c, size_t *nns)
{
	struct nsctx *xs = NULL;
	size_t i, k, n = 0;

	for (i = 0; i < c->n; i++) {
		for (k = 0; k < n && strcmp(xs[k].netns, c->e[i].netns); k++)
			;
		if (k == n) {
			xs = xrealloc(xs, (n + 1) * sizeof(*xs));
			memset(&xs[n], 0, sizeof(xs[n]));
			snprintf(xs[n].netns, sizeof(xs[n].netns), "%s", c->e[i].netns);
			n++;
		}
		xs[k].e = xrealloc(xs[k].e, (xs[k].n + 1) * sizeof(*xs[k].e));
		xs[k].e[xs[k].n++] = &c->e[i];
	}
	*nns = n;
	return xs;
}

static void ns_free(struct nsctx *xs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		ns_close(&xs[i]);
		free(xs[i].e);
	}
	free(xs);
}

/*
 * svctl link apply [file FILE]: create, once, each configured device whose
 * netdev exists now and whose name is free.  Fails if one could not be
 * created for another reason than its netdev's absence.
 */
int link_apply(struct svctl *sv)
{
	struct nsctx *xs;
	struct conf c;
	const char *path;
	size_t nns, i;
	int own, rc, bad = 0;

	if ((rc = parse_file_arg(sv, "apply", &path)) || (rc = conf_read(sv, path, &c)))
		return rc;
	own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (own < 0) {
		free(c.e);
		return sv_err(sv, errno, "link apply: /proc/self/ns/net");
	}
	xs = ns_group(&c, &nns);
	for (i = 0; i < nns; i++)
		if (ns_sync(&xs[i], own))
			bad += ns_apply(&xs[i]);
	ns_free(xs, nns);
	close(own);
	free(c.e);
	return bad ? SV_EXIT_FAIL : SV_EXIT_OK;
}

/*
 * svctl link watch [file FILE]: link apply, then again at every link event
 * in a configured namespace and every change of the mount table (ip netns
 * add/del), until SIGTERM or SIGINT; then delete the configured devices.
 * Tells systemd (Type=notify) when the first pass is done.
 */
int link_watch(struct svctl *sv)
{
	struct pollfd *pfd;
	struct nsctx *xs;
	struct conf c;
	struct sigaction sa = { .sa_handler = on_stop };
	const char *path;
	size_t nns, i;
	int own, mnt, rc;
	long timeout, t;

	if ((rc = parse_file_arg(sv, "watch", &path)) || (rc = conf_read(sv, path, &c)))
		return rc;
	own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (own < 0) {
		free(c.e);
		return sv_err(sv, errno, "link watch: /proc/self/ns/net");
	}
	/* POLLPRI on mountinfo: the mount table changed (proc(5)) */
	mnt = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (mnt < 0) {
		close(own);
		free(c.e);
		return sv_err(sv, errno, "link watch: /proc/self/mountinfo");
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	xs = ns_group(&c, &nns);
	pfd = xzalloc((nns + 1) * sizeof(*pfd));
	wlog("watching %zu device%s of %s in %zu namespace%s", c.n,
	     c.n == 1 ? "" : "s", path, nns, nns == 1 ? "" : "s");
	for (i = 0; i < nns; i++)
		if (ns_sync(&xs[i], own))
			ns_apply(&xs[i]);
	notify("READY=1");

	while (!stop_sig) {
		timeout = -1;
		for (i = 0; i < nns; i++) {
			pfd[i].fd = xs[i].ev ? mnl_socket_get_fd(xs[i].ev) : -1;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
			for (size_t k = 0; xs[i].ino && k < xs[i].n; k++) {
				if (!xs[i].e[k]->retry_ms)
					continue;
				t = ms_until(&xs[i].e[k]->retry_at);
				t = t < 0 ? 0 : t;
				if (timeout < 0 || t < timeout)
					timeout = t;
			}
		}
		pfd[nns].fd = mnt;
		pfd[nns].events = POLLPRI;
		pfd[nns].revents = 0;
		if (poll(pfd, nns + 1, (int)timeout) < 0) {
			if (errno == EINTR)
				continue;
			rc = sv_err(sv, errno, "link watch: poll");
			break;
		}
		if (pfd[nns].revents) {
			/* re-read from the start, or POLLPRI stays raised */
			char b[4096];

			lseek(mnt, 0, SEEK_SET);
			while (read(mnt, b, sizeof(b)) > 0)
				;
		}
		for (i = 0; i < nns; i++) {
			bool due = false, was = xs[i].ino != 0;

			if (pfd[nns].revents && !ns_sync(&xs[i], own))
				continue;
			if (!xs[i].ino)
				continue;
			if (!was)
				due = true;	/* the namespace appeared */
			if (pfd[i].revents && ns_events(&xs[i]))
				due = true;
			for (size_t k = 0; k < xs[i].n; k++)
				if (xs[i].e[k]->retry_ms && ms_until(&xs[i].e[k]->retry_at) <= 0)
					due = true;
			if (due)
				ns_apply(&xs[i]);
		}
	}
	if (stop_sig) {
		notify("STOPPING=1");
		wlog("stopping (signal %d): deleting the configured devices", (int)stop_sig);
		for (i = 0; i < nns; i++)
			ns_remove(&xs[i]);
	}
	ns_free(xs, nns);
	free(pfd);
	close(mnt);
	close(own);
	free(c.e);
	return rc;
}
