// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * odpfuse: ODP faults that never end, for tests/user/29-odp-fuse.sh.
 *
 *   odpfuse DEV GID_INDEX
 *	serves a FUSE file system from /dev/fuse itself (no libfuse): INIT
 *	(asynchronous reads), LOOKUP, GETATTR, OPEN are answered, READ
 *	never is.  A victim process maps its file, registers an ODP MR over
 *	the mapping and posts a UD SEND gathered from it on each of VICTIM_QPS
 *	QPs: every send's fault waits for the READ for ever.  Then:
 *	(1) a bystander process's UD SEND from an untouched ODP buffer on the
 *	same device completes within BYSTANDER_MS (one user's stuck faults
 *	hold that user's fault thread, not everyone's);
 *	(2) the victim destroys its QPs and deregisters the MR, each within
 *	TEARDOWN_MS, and a second victim, stuck the same way, is gone within
 *	TEARDOWN_MS of SIGKILL.
 *	The daemon then dies (which aborts the connection: whatever still
 *	hangs is released) and the mount goes.
 *
 * Exit 0 all passed, 1 a check failed, 4 skipped (no device, no FUSE).
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/fuse.h>

#include "common.h"

#define VICTIM_QPS	300	/* more than an unbound workqueue runs at once */
#define FILE_BYTES	(1 << 20)
#define BYSTANDER_MS	5000
#define TEARDOWN_MS	10000
#define QKEY		0x11111111u

static const char *dev_name;
static int gid_index;
static char mnt[] = "/tmp/odpfuseXXXXXX";

/* ---- the daemon ------------------------------------------------------ */

static void reply(int fd, uint64_t unique, int error, const void *body,
		  size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header *h = (void *)buf;

	h->len = sizeof(*h) + len;
	h->error = error;
	h->unique = unique;
	if (len)
		memcpy(buf + sizeof(*h), body, len);
	if (write(fd, buf, h->len) < 0 && errno != ENOENT)
		perror("odpfuse daemon: write");
}

static void fill_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0644;
		a->size = FILE_BYTES;
		a->blocks = FILE_BYTES / 512;
	}
}

static void daemon_loop(int fd)
{
	static char buf[FUSE_MIN_READ_BUFFER + (1 << 20)];

	for (;;) {
		struct fuse_in_header *in = (void *)buf;
		void *arg = buf + sizeof(*in);
		ssize_t n = read(fd, buf, sizeof(buf));

		/* EPERM: not mounted yet */
		if (n < 0 && errno == EPERM)
			usleep(1000);
		if (n < 0 && (errno == EINTR || errno == ENOENT ||
			      errno == EPERM))
			continue;
		if (n < (ssize_t)sizeof(*in))
			_exit(0);	/* ENODEV: unmounted or aborted */
		switch (in->opcode) {
		case FUSE_INIT: {
			const struct fuse_init_in *ii = arg;
			struct fuse_init_out o = {
				.major = FUSE_KERNEL_VERSION,
				.minor = ii->minor < 31 ? ii->minor : 31,
				.max_readahead = 128 << 10,
				/* readahead sent in the background */
				.flags = FUSE_ASYNC_READ,
				.max_background = 1000,
				.congestion_threshold = 750,
				.max_write = 128 << 10,
			};

			reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out e = { 0 };

			if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, "f")) {
				reply(fd, in->unique, -ENOENT, NULL, 0);
				break;
			}
			e.nodeid = 2;
			e.generation = 1;
			e.entry_valid = 3600;
			e.attr_valid = 3600;
			fill_attr(&e.attr, 2);
			reply(fd, in->unique, 0, &e, sizeof(e));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out a = { .attr_valid = 3600 };

			fill_attr(&a.attr, in->nodeid);
			reply(fd, in->unique, 0, &a, sizeof(a));
			break;
		}
		case FUSE_OPEN: {
			/* else open invalidates the cache: the locked pages */
			struct fuse_open_out o = {
				.fh = 1, .open_flags = FOPEN_KEEP_CACHE,
			};

			reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_FLUSH:
		case FUSE_RELEASE:
			reply(fd, in->unique, 0, NULL, 0);
			break;
		case FUSE_READ:		/* never answered */
		case FUSE_INTERRUPT:	/* nor is this */
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
			break;
		default:
			reply(fd, in->unique, -ENOSYS, NULL, 0);
		}
	}
}

/* ---- verbs ----------------------------------------------------------- */

struct ud {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_ah *ah;
	union ibv_gid gid;
};

static void ud_open(struct ud *u, int cqe)
{
	struct ibv_ah_attr ah = { 0 };

	u->ctx = ex_open(dev_name, NULL);
	u->pd = ibv_alloc_pd(u->ctx);
	CHECK(u->pd, "alloc_pd: %s", strerror(errno));
	u->cq = ibv_create_cq(u->ctx, cqe, NULL, NULL, 0);
	CHECK(u->cq, "create_cq: %s", strerror(errno));
	CHECK(!ibv_query_gid(u->ctx, 1, gid_index, &u->gid), "query_gid");
	ah.is_global = 1;
	ah.grh.dgid = u->gid;
	ah.grh.sgid_index = (uint8_t)gid_index;
	ah.grh.hop_limit = 64;
	ah.port_num = 1;
	u->ah = ibv_create_ah(u->pd, &ah);
	CHECK(u->ah, "create_ah: %s", strerror(errno));
}

static struct ibv_qp *ud_qp(struct ud *u)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = u->cq,
		.recv_cq = u->cq,
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { 0 };
	struct ibv_qp *qp = ibv_create_qp(u->pd, &ia);

	CHECK(qp, "create_qp: %s", strerror(errno));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = QKEY;
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_QKEY), "to INIT");
	a.qp_state = IBV_QPS_RTR;
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE), "to RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN), "to RTS");
	return qp;
}

static void ud_send(struct ud *u, struct ibv_qp *qp, uint32_t dqpn,
		    void *addr, uint32_t lkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = 64, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = u->ah, .remote_qpn = dqpn,
			   .remote_qkey = QKEY },
	}, *bad;

	CHECK(!ibv_post_send(qp, &wr, &bad), "post_send: %s",
	      strerror(errno));
}

/* ---- the processes --------------------------------------------------- */

static void say(int fd, const char *s)
{
	CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s), "pipe: %s",
	      strerror(errno));
}

/* a line from @fd within @ms; NULL on timeout or EOF */
static char *hear(int fd, long ms, char *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long long deadline = now_ms() + ms;
	size_t got = 0;

	while (got < len - 1) {
		long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) <= 0)
			return NULL;
		n = read(fd, buf + got, 1);
		if (n <= 0)
			return NULL;
		if (buf[got] == '\n')
			break;
		got++;
	}
	buf[got] = 0;
	return buf;
}

/*
 * Map the FUSE file, register it ODP and have VICTIM_QPS sends fault in
 * it; say "stuck", then on "teardown" destroy the QPs and dereg the MR,
 * saying how long each took.
 */
static void victim(int to, int from)
{
	static struct ibv_qp *qps[VICTIM_QPS];
	char path[64], line[32];
	struct ibv_mr *mr;
	struct ud u;
	long long t;
	char *map;
	int fd, i;

	step = "victim";
	snprintf(path, sizeof(path), "%s/f", mnt);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	map = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(map != MAP_FAILED, "mmap: %s", strerror(errno));
	ud_open(&u, 2 * VICTIM_QPS + 4);
	/* ODP registration maps nothing: no fault yet */
	mr = ibv_reg_mr(u.pd, map, FILE_BYTES, IBV_ACCESS_ON_DEMAND);
	CHECK(mr, "reg_mr ODP over the FUSE mapping: %s", strerror(errno));
	for (i = 0; i < VICTIM_QPS; i++) {
		qps[i] = ud_qp(&u);
		ud_send(&u, qps[i], qps[i]->qp_num,
			map + (size_t)(i % (FILE_BYTES / 4096)) * 4096,
			mr->lkey);
	}
	say(to, "stuck\n");
	CHECK(hear(from, 600000, line, sizeof(line)), "no command");
	t = now_ms();
	for (i = 0; i < VICTIM_QPS; i++)
		CHECK(!ibv_destroy_qp(qps[i]), "destroy_qp: %s",
		      strerror(errno));
	dprintf(to, "destroyed %lld\n", now_ms() - t);
	t = now_ms();
	CHECK(!ibv_dereg_mr(mr), "dereg_mr: %s", strerror(errno));
	dprintf(to, "deregistered %lld\n", now_ms() - t);
	exit(0);
}

/* a UD SEND from an untouched ODP buffer must complete */
static void bystander(void)
{
	size_t len = 1 << 16;
	struct ibv_recv_wr rwr, *bad;
	struct ibv_sge rsge;
	struct ibv_mr *mr, *rmr;
	struct ibv_wc wc;
	struct ibv_qp *qp;
	struct ud u;
	char *buf, *rbuf;
	int got;

	step = "bystander";
	ud_open(&u, 8);
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(buf != MAP_FAILED, "mmap: %s", strerror(errno));
	mr = ibv_reg_mr(u.pd, buf, len,
			IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr, "reg_mr ODP: %s", strerror(errno));
	rbuf = calloc(1, 4096);
	CHECK(rbuf, "calloc");
	rmr = ibv_reg_mr(u.pd, rbuf, 4096, IBV_ACCESS_LOCAL_WRITE);
	CHECK(rmr, "reg_mr: %s", strerror(errno));
	qp = ud_qp(&u);
	rsge = (struct ibv_sge){ .addr = (uintptr_t)rbuf, .length = 4096,
				 .lkey = rmr->lkey };
	rwr = (struct ibv_recv_wr){ .sg_list = &rsge, .num_sge = 1 };
	CHECK(!ibv_post_recv(qp, &rwr, &bad), "post_recv");
	/* the page is not mapped: the send faults on our thread */
	ud_send(&u, qp, qp->qp_num, buf + 4096, mr->lkey);
	for (got = 0; got < 2;) {
		wc = ex_poll_one(u.cq, "bystander's UD SEND and receive");
		CHECK(wc.status == IBV_WC_SUCCESS, "completion: %s",
		      ibv_wc_status_str(wc.status));
		got++;
	}
	exit(0);
}

/* wait for @pid for @ms at most; -1 if it is still there */
static int reap(pid_t pid, long ms)
{
	long long deadline = now_ms() + ms;
	int status;

	do {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) :
						   128 + WTERMSIG(status);
		usleep(20000);
	} while (now_ms() < deadline);
	return -1;
}

static pid_t spawn_victim(int *to, int *from)
{
	int up[2], down[2];
	pid_t pid;

	CHECK(!pipe(up) && !pipe(down), "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		close(up[0]);
		close(down[1]);
		victim(up[1], down[0]);
	}
	close(up[1]);
	close(down[0]);
	*from = up[0];
	*to = down[1];
	return pid;
}

int main(int argc, char **argv)
{
	pid_t daemon_pid, v1, v2 = -1, by;
	int fd, to, from, to2, from2, rc = 0, st;
	char opts[128], line[64];
	long long t;

	if (argc != 3)
		die(2, "usage: odpfuse DEV GID_INDEX");
	dev_name = argv[1];
	gid_index = atoi(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);

	step = "mount";
	fd = open("/dev/fuse", O_RDWR);
	if (fd < 0)
		die(EXIT_SKIP, "/dev/fuse: %s", strerror(errno));
	CHECK(mkdtemp(mnt), "mkdtemp: %s", strerror(errno));
	fflush(NULL);
	daemon_pid = fork();
	CHECK(daemon_pid >= 0, "fork: %s", strerror(errno));
	if (!daemon_pid)
		daemon_loop(fd);
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("odpfuse", mnt, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		kill(daemon_pid, SIGKILL);
		die(EXIT_SKIP, "mount fuse: %s", strerror(errno));
	}
	close(fd);

	step = "stuck";
	v1 = spawn_victim(&to, &from);
	CHECK(hear(from, 60000, line, sizeof(line)) && !strcmp(line, "stuck"),
	      "victim did not get stuck");
	/* let the faults start and block */
	sleep(1);
	printf("victim %d: %d sends faulting in a FUSE file never read\n",
	       v1, VICTIM_QPS);

	step = "isolation";
	fflush(NULL);
	by = fork();
	CHECK(by >= 0, "fork: %s", strerror(errno));
	if (!by)
		bystander();
	t = now_ms();
	st = reap(by, BYSTANDER_MS + 2000);
	if (st) {
		printf("FAIL: another process's ODP SEND did not complete (%s)\n",
		       st < 0 ? "hangs" : "failed");
		rc = 1;
	} else {
		printf("ok: another process's ODP SEND completed in %lld ms\n",
		       now_ms() - t);
	}

	step = "teardown";
	say(to, "teardown\n");
	if (!hear(from, TEARDOWN_MS, line, sizeof(line))) {
		printf("FAIL: destroying the stuck QPs took over %d ms\n",
		       TEARDOWN_MS);
		rc = 1;
		goto out;
	}
	printf("ok: %s ms (QPs)\n", line);
	if (!hear(from, TEARDOWN_MS, line, sizeof(line))) {
		printf("FAIL: deregistering the stuck MR took over %d ms\n",
		       TEARDOWN_MS);
		rc = 1;
		goto out;
	}
	printf("ok: %s ms (MR)\n", line);
	if (reap(v1, TEARDOWN_MS)) {
		printf("FAIL: the victim did not exit cleanly\n");
		rc = 1;
		goto out;
	}
	v1 = -1;

	step = "kill";
	v2 = spawn_victim(&to2, &from2);
	CHECK(hear(from2, 60000, line, sizeof(line)) &&
	      !strcmp(line, "stuck"), "second victim did not get stuck");
	sleep(1);
	kill(v2, SIGKILL);
	t = now_ms();
	if (reap(v2, TEARDOWN_MS) < 0) {
		printf("FAIL: a stuck victim was not gone %d ms after SIGKILL\n",
		       TEARDOWN_MS);
		rc = 1;
	} else {
		printf("ok: a stuck victim was reaped %lld ms after SIGKILL\n",
		       now_ms() - t);
		v2 = -1;
	}

out:
	/* the daemon's death aborts the connection: what hangs is released */
	kill(daemon_pid, SIGKILL);
	if (reap(daemon_pid, 10000) < 0)
		printf("FAIL: the FUSE daemon is not gone\n"), rc = 1;
	if (v1 > 0) {
		kill(v1, SIGKILL);
		if (reap(v1, 20000) < 0)
			printf("FAIL: victim %d still there\n", v1), rc = 1;
	}
	if (v2 > 0 && reap(v2, 20000) < 0)
		printf("FAIL: victim %d still there\n", v2), rc = 1;
	if (umount2(mnt, MNT_DETACH))
		printf("umount %s: %s\n", mnt, strerror(errno));
	rmdir(mnt);
	return rc;
}
