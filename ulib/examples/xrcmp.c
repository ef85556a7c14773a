// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xrcmp: XRC (IBTA Annex A14) between processes and devices through
 * libsoftverbs, every send opcode with its data checked.
 *
 *   xrcmp [-T DEV -t GIDX] [-I DEV -i GIDX] [-k PROCS] [-m QPS] [-n MSGS]
 *         [-o TIMEOUT] [-e] [-s SECONDS] DIR            traffic
 *   xrcmp -L [-T DEV -t GIDX] [-I DEV -i GIDX] [-o TIMEOUT] [-s SECONDS] DIR
 *                                                       lifetimes
 *
 * The target side (-T, GID index -t) is this process; the initiators
 * (-I, -i) are forked processes, each with its own verbs context.  The
 * GID indices choose IPv4 or IPv6 (default: port 1's IPv4 RoCE v2 GID).
 * -o is the send QPs' local ACK timeout exponent (default 14: 67 ms).
 * DIR holds the files the XRC domains are opened through.  Exit status 0
 * passed, 1 failed, 4 skipped.
 *
 * Traffic: PROCS initiator processes with QPS XRC send QPs each, every
 * one connected to its own XRC receive QP of the target's domain, all
 * naming one XRC SRQ.  Each send QP posts MSGS requests, cycling through
 * SEND, SEND with immediate, RDMA WRITE, RDMA WRITE with immediate, RDMA
 * READ (of what its WRITE put there), Fetch & Add (one word all QPs add
 * to) and Compare & Swap (a word of its own), four in flight; even QPs
 * post with ibv_post_send, odd ones with the ibv_wr_* builders.  The
 * target checks every receive (payload, immediate, the receive QP and
 * the sender's QP number) and that it came exactly once, then the bytes
 * every WRITE left and both atomic words: under injected loss, with
 * duplicates and reordering, each request takes effect once.  -e adds a
 * process whose requests must fail: an SRQ number that does not exist
 * and one of another domain (invalid request), a WRITE with the R_Key of
 * an MR in a PD other than the SRQ's (remote access error), a SEND with
 * Invalidate of an R_Key the target may not invalidate (invalid request;
 * its receive completes in error), and locally refused requests without
 * a valid SRQ number (EINVAL, ibv_post_send and ibv_wr_complete).
 *
 * Lifetimes (-L): a receive QP created by one process, opened by another
 * (ibv_open_qp) and carrying traffic after its creator exited; a domain
 * that cannot be closed while an SRQ or an opened QP is in it; an SRQ
 * destroyed while SENDs stream into it (the sender ends with an invalid
 * request NAK, then flushes); the last handle of the receive QP closed
 * (the QP is gone); a process killed while SENDs stream into its SRQ
 * through its receive QP (the sender ends in error, nothing hangs).
 */
#include <endian.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rs_common.h"

#define MAXQ		8		/* send QPs per initiator process */
#define MAXP		8		/* initiator processes */
#define DEPTH		4		/* requests in flight per send QP */
#define SLOT		3072		/* bytes per message slot */
#define NOPS		7
#define SRQ_WR		256

static long long g_deadline_ms;		/* -s: the whole run */

/*
 * Nothing to do now: give the CPU to the others (a VM's few vCPUs run
 * the kernel's side of every process here), unless time is up.
 */
static void idle(const char *what)
{
	CHECK(now_ms() < g_deadline_ms, "%s: out of time", what);
	usleep(100);
}

/* --- pipes between the processes ---------------------------------------- */

struct msg {
	uint32_t op;
	uint32_t n;
	uint32_t a[2 * MAXQ + 24];
	uint8_t gid[16];
};

enum { M_INFO = 1, M_PEER, M_GO, M_DONE, M_CONNECT, M_SEND, M_RESULT,
       M_EXIT, M_READY };

static void msg_put(int fd, const struct msg *m)
{
	CHECK(write(fd, m, sizeof(*m)) == (ssize_t)sizeof(*m),
	      "pipe write: %s", strerror(errno));
}

/* the next message, whichever it is */
static void msg_any(int fd, struct msg *m)
{
	size_t got = 0;

	while (got < sizeof(*m)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)(g_deadline_ms - now_ms());
		ssize_t r;

		CHECK(left > 0 && poll(&p, 1, left) == 1,
		      "no message from the other process");
		r = read(fd, (char *)m + got, sizeof(*m) - got);
		CHECK(r > 0, "the other process is gone");
		got += (size_t)r;
	}
}

static void msg_get(int fd, struct msg *m, uint32_t op)
{
	msg_any(fd, m);
	CHECK(m->op == op, "message %u where %u was expected", m->op, op);
}

struct link {
	int rd, wr;
	pid_t pid;
};

/* fork a process running @fn(@arg, its link); the parent gets its link */
static struct link spawn(int (*fn)(void *, struct link *), void *arg)
{
	int up[2], down[2];
	struct link l;

	CHECK(!pipe(up) && !pipe(down), "pipe: %s", strerror(errno));
	fflush(stdout);
	l.pid = fork();
	CHECK(l.pid >= 0, "fork: %s", strerror(errno));
	if (!l.pid) {
		struct link c = { .rd = down[0], .wr = up[1] };

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(up[0]);
		close(down[1]);
		_exit(fn(arg, &c));
	}
	close(up[1]);
	close(down[0]);
	l.rd = up[0];
	l.wr = down[1];
	return l;
}

static void reap(struct link *l, const char *who)
{
	int st;

	CHECK(waitpid(l->pid, &st, 0) == l->pid, "waitpid %s", who);
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "%s failed (status %#x)",
	      who, st);
	close(l->rd);
	close(l->wr);
}

/* --- verbs helpers -------------------------------------------------------- */

static const char *st(enum ibv_wc_status s)
{
	return ibv_wc_status_str(s);
}

static struct ibv_xrcd *open_xrcd(struct ibv_context *ctx, const char *path,
				  int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.oflags = oflags,
	};
	struct ibv_xrcd *x;
	int e;

	if (!path) {		/* no file: a domain of this process only */
		a.fd = -1;
		return ibv_open_xrcd(ctx, &a);
	}
	a.fd = open(path, O_RDONLY | O_CREAT, 0600);
	CHECK(a.fd >= 0, "open %s: %s", path, strerror(errno));
	x = ibv_open_xrcd(ctx, &a);
	e = errno;
	close(a.fd);		/* the domain keeps the inode, not the fd */
	errno = e;
	return x;
}

static struct ibv_srq *xrc_srq(struct ibv_context *ctx, struct ibv_pd *pd,
			       struct ibv_xrcd *xrcd, struct ibv_cq *cq,
			       uint32_t wr, uint32_t *num)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = wr, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
		.xrcd = xrcd,
		.cq = cq,
	};
	struct ibv_srq *srq = need(ibv_create_srq_ex(ctx, &a), "XRC SRQ");

	need_ok(ibv_get_srq_num(srq, num), "ibv_get_srq_num");
	CHECK(*num && *num < (1U << 24), "SRQ number %u", *num);
	return srq;
}

static struct ibv_qp *recv_qp(struct ibv_context *ctx, struct ibv_xrcd *x)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = x,
	};

	return need(ibv_create_qp_ex(ctx, &a), "XRC receive QP");
}

static struct ibv_qp *send_qp(struct ibv_context *ctx, struct ibv_pd *pd,
			      struct ibv_cq *cq, bool ex)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_XRC_SEND,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
		.send_cq = cq,
		.cap = { .max_send_wr = 64, .max_send_sge = 1 },
	};

	if (ex) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = IBV_QP_EX_WITH_SEND |
				   IBV_QP_EX_WITH_SEND_WITH_IMM |
				   IBV_QP_EX_WITH_SEND_WITH_INV |
				   IBV_QP_EX_WITH_RDMA_WRITE |
				   IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				   IBV_QP_EX_WITH_RDMA_READ |
				   IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	}
	return need(ibv_create_qp_ex(ctx, &a), "XRC send QP");
}

/*
 * INIT -> RTR -> RTS with the attribute masks ib_core wants per type;
 * @timeout and @retry for a send QP (the local ACK timeout exponent and
 * its retry count).
 */
static void connect_qp(struct ibv_qp *qp, int gidx, const uint8_t *dgid,
		       uint32_t dest_qpn, uint8_t timeout, uint8_t retry)
{
	union ibv_gid gid;
	struct ex_path p = ex_path(&gid, gidx, dest_qpn,
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC, IBV_MTU_1024);

	memcpy(gid.raw, dgid, 16);
	p.max_dest_rd_atomic = p.max_rd_atomic = DEPTH;
	p.timeout = timeout;
	p.retry_cnt = retry;
	rs_connect(qp, &p);
}

/* the GID of index *@gidx, or (-1) port 1's IPv4 RoCE v2 one and its index */
static void own_gid(struct ibv_context *ctx, int *gidx, uint8_t *gid)
{
	union ibv_gid g;

	if (*gidx < 0)
		*gidx = rs_pick_gid(ctx, &g);
	else
		need_ok(ibv_query_gid(ctx, 1, *gidx, &g) ? errno : 0,
			"ibv_query_gid");
	memcpy(gid, g.raw, 16);
}

static struct ibv_mr *reg(struct ibv_pd *pd, size_t len, int access,
			  uint8_t **buf)
{
	void *p;

	CHECK(!posix_memalign(&p, 4096, len), "no memory");
	memset(p, 0, len);
	*buf = p;
	return need(ibv_reg_mr(pd, p, len, IBV_ACCESS_LOCAL_WRITE | access),
		    "ibv_reg_mr");
}

static struct ibv_wc poll_one(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc wc;
	int n;

	while (!(n = ibv_poll_cq(cq, 1, &wc)))
		idle(what);
	CHECK(n == 1, "%s: poll_cq %d", what, n);
	return wc;
}

static void post_recv(struct ibv_srq *srq, struct ibv_mr *mr, uint8_t *buf,
		      uint32_t i)
{
	struct ibv_sge sge = { (uintptr_t)(buf + (size_t)i * SLOT), SLOT,
			       mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	need_ok(ibv_post_srq_recv(srq, &wr, &bad), "ibv_post_srq_recv");
}

/* --- what each request carries --------------------------------------------- */

enum { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_FADD,
       OP_CSWP };

static uint32_t tag(uint32_t k, uint32_t j, uint32_t n)
{
	return k << 24 | j << 16 | n;
}

static uint32_t msg_len(uint32_t t)
{
	/* 16 .. 3000 bytes: one to three packets of the 1024-byte MTU */
	return 16 + (uint32_t)(t * 2654435761u >> 12) % 2985;
}

static void fill(uint8_t *p, uint32_t len, uint32_t t)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(t * 131 + i * 7 + (i >> 8) + (t >> 16));
	memcpy(p, &t, sizeof(t));	/* a SEND names itself */
}

static bool same(const uint8_t *p, uint32_t len, uint32_t t)
{
	uint8_t want[SLOT];

	fill(want, len, t);
	return !memcmp(p, want, len);
}

/* what the target publishes; the initiators' side of it */
struct tinfo {
	uint8_t gid[16];
	uint32_t srqn, foreign_srqn, dead_srqn;
	uint64_t win, atom, alien;
	uint32_t win_rkey, alien_rkey;
};

struct opts {
	const char *tdev, *idev, *dir;
	int tgid, igid;
	uint32_t procs, qps, msgs;
	uint8_t timeout;		/* -o: the send QPs' local ACK timeout */
	bool bad, life;
};

static size_t win_off(const struct opts *o, uint32_t k, uint32_t j,
		      uint32_t n)
{
	return (((size_t)k * o->qps + j) * o->msgs + n) * SLOT;
}

/* --- an initiator process -------------------------------------------------- */

struct ini {
	const struct opts *o;
	uint32_t k;
	struct tinfo t;
};

static void post_req(struct ibv_qp *qp, const struct ini *in, uint32_t j,
		     uint32_t n, struct ibv_mr *mr, uint8_t *loc,
		     uint64_t *cswp_cur)
{
	const struct opts *o = in->o;
	uint32_t t = tag(in->k, j, n), len = msg_len(t), op = n % NOPS;
	uint8_t *buf = loc + ((size_t)j * o->msgs + n) * SLOT;
	uint64_t raddr = in->t.win + win_off(o, in->k, j, n);
	uint64_t aword = in->t.atom + 8 * (1 + in->k * o->qps + j);
	uint64_t wr_id = (uint64_t)j << 32 | n;
	uint32_t rkey = in->t.win_rkey;
	__be32 imm = htobe32(t);

	if (op == OP_READ) {		/* what the WRITE before put there */
		raddr = in->t.win + win_off(o, in->k, j, n - 2);
		len = msg_len(tag(in->k, j, n - 2));
	} else if (op == OP_FADD || op == OP_CSWP) {
		len = 8;
		if (op == OP_FADD)
			aword = in->t.atom;
	} else {
		fill(buf, len, t);
	}

	if (j & 1) {			/* the ibv_wr_* builders */
		struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);

		ibv_wr_start(x);
		x->wr_id = wr_id;
		x->wr_flags = IBV_SEND_SIGNALED;
		switch (op) {
		case OP_SEND: ibv_wr_send(x); break;
		case OP_SEND_IMM: ibv_wr_send_imm(x, imm); break;
		case OP_WRITE: ibv_wr_rdma_write(x, rkey, raddr); break;
		case OP_WRITE_IMM:
			ibv_wr_rdma_write_imm(x, rkey, raddr, imm);
			break;
		case OP_READ: ibv_wr_rdma_read(x, rkey, raddr); break;
		case OP_FADD: ibv_wr_atomic_fetch_add(x, rkey, aword, 1); break;
		default:
			ibv_wr_atomic_cmp_swp(x, rkey, aword, *cswp_cur,
					      *cswp_cur + 1);
			break;
		}
		ibv_wr_set_xrc_srqn(x, in->t.srqn);
		ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, len);
		need_ok(ibv_wr_complete(x), "ibv_wr_complete");
	} else {
		struct ibv_sge sge = { (uintptr_t)buf, len, mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.send_flags = IBV_SEND_SIGNALED,
		};
		struct ibv_send_wr *bad;
		static const enum ibv_wr_opcode code[NOPS] = {
			IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
			IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
			IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_CMP_AND_SWP,
		};

		wr.opcode = code[op];
		wr.imm_data = imm;
		wr.qp_type.xrc.remote_srqn = in->t.srqn;
		if (op == OP_FADD || op == OP_CSWP) {
			wr.wr.atomic.remote_addr = aword;
			wr.wr.atomic.rkey = rkey;
			wr.wr.atomic.compare_add = op == OP_FADD ? 1 : *cswp_cur;
			wr.wr.atomic.swap = *cswp_cur + 1;
		} else if (op != OP_SEND && op != OP_SEND_IMM) {
			wr.wr.rdma.remote_addr = raddr;
			wr.wr.rdma.rkey = rkey;
		}
		need_ok(ibv_post_send(qp, &wr, &bad), "ibv_post_send");
	}
	/* compare-and-swap: each one finds what the one before left */
	if (op == OP_CSWP)
		(*cswp_cur)++;
}

/* the requester's check of its own completion */
static void check_req(const struct ini *in, const struct ibv_wc *wc,
		      const uint8_t *loc, uint64_t *cswp_seen)
{
	const struct opts *o = in->o;
	uint32_t j = (uint32_t)(wc->wr_id >> 32), n = (uint32_t)wc->wr_id;
	const uint8_t *buf = loc + ((size_t)j * o->msgs + n) * SLOT;
	uint64_t v;

	CHECK(wc->status == IBV_WC_SUCCESS,
	      "initiator %u QP %u request %u: %s", in->k, j, n,
	      st(wc->status));
	switch (n % NOPS) {
	case OP_READ:
		CHECK(same(buf, msg_len(tag(in->k, j, n - 2)),
			   tag(in->k, j, n - 2)),
		      "initiator %u QP %u: READ %u brought other bytes than "
		      "its WRITE put there", in->k, j, n);
		break;
	case OP_CSWP:
		memcpy(&v, buf, 8);
		CHECK(v == cswp_seen[j], "initiator %u QP %u: compare-and-"
		      "swap %u found %llu, not %llu", in->k, j, n,
		      (unsigned long long)v, (unsigned long long)cswp_seen[j]);
		cswp_seen[j]++;
		break;
	case OP_FADD:
		memcpy(&v, buf, 8);
		CHECK(v < (uint64_t)MAXP * MAXQ * 1000, "fetch-and-add "
		      "returned %llu", (unsigned long long)v);
		break;
	}
}

static int ini_main(void *arg, struct link *l)
{
	struct ini *in = arg;
	const struct opts *o = in->o;
	struct ibv_context *ctx = rs_open(o->idev);
	struct ibv_pd *pd = need(ibv_alloc_pd(ctx), "alloc_pd");
	struct ibv_cq *cq = need(ibv_create_cq(ctx, MAXQ * 64, NULL, NULL, 0),
				 "create_cq");
	uint32_t posted[MAXQ] = { 0 }, busy[MAXQ] = { 0 }, done = 0, j;
	uint64_t cswp_cur[MAXQ] = { 0 }, cswp_seen[MAXQ] = { 0 };
	struct ibv_qp *qp[MAXQ];
	struct ibv_mr *mr;
	uint8_t *loc;
	struct msg m = { .op = M_INFO, .n = o->qps };
	int gidx = o->igid;

	mr = reg(pd, (size_t)o->qps * o->msgs * SLOT, 0, &loc);
	for (j = 0; j < o->qps; j++) {
		qp[j] = send_qp(ctx, pd, cq, j & 1);
		m.a[j] = qp[j]->qp_num;
	}
	own_gid(ctx, &gidx, m.gid);
	msg_put(l->wr, &m);
	msg_get(l->rd, &m, M_PEER);
	memcpy(&in->t, m.a + o->qps, sizeof(in->t));
	for (j = 0; j < o->qps; j++)
		connect_qp(qp[j], gidx, in->t.gid, m.a[j], o->timeout, 7);
	msg_get(l->rd, &m, M_GO);

	while (done < o->qps * o->msgs) {
		struct ibv_wc wc[16];
		int i, got;

		for (j = 0; j < o->qps; j++)
			while (busy[j] < DEPTH && posted[j] < o->msgs) {
				post_req(qp[j], in, j, posted[j]++, mr, loc,
					 &cswp_cur[j]);
				busy[j]++;
			}
		got = ibv_poll_cq(cq, 16, wc);
		CHECK(got >= 0, "poll_cq %d", got);
		if (!got)
			idle("initiator's completions");
		for (i = 0; i < got; i++) {
			check_req(in, &wc[i], loc, cswp_seen);
			busy[wc[i].wr_id >> 32]--;
			done++;
		}
	}
	m.op = M_DONE;
	msg_put(l->wr, &m);
	/* the QPs stay until the target has checked what they did */
	msg_get(l->rd, &m, M_EXIT);
	for (j = 0; j < o->qps; j++)
		need_ok(ibv_destroy_qp(qp[j]), "destroy send QP");
	need_ok(ibv_dereg_mr(mr), "dereg_mr");
	need_ok(ibv_destroy_cq(cq), "destroy_cq");
	need_ok(ibv_dealloc_pd(pd), "dealloc_pd");
	need_ok(ibv_close_device(ctx), "close_device");
	free(loc);
	return 0;
}

/* --- the initiator of requests that must fail (-e) ---------------------- */

enum { B_DEAD, B_FOREIGN, B_PD, B_INV, NBAD };

static void bad_local(struct ibv_qp *qp, struct ibv_qp *qpx,
		      struct ibv_mr *mr, uint8_t *buf)
{
	struct ibv_sge sge = { (uintptr_t)buf, 16, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 99, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qpx);

	/* an XRC request names a 24-bit SRQ number, 0 never used */
	CHECK(ibv_post_send(qp, &wr, &bad) == EINVAL && bad == &wr,
	      "SEND without a remote SRQ was not refused");
	wr.qp_type.xrc.remote_srqn = 1U << 24;
	CHECK(ibv_post_send(qp, &wr, &bad) == EINVAL && bad == &wr,
	      "SEND naming SRQ 2^24 was not refused");
	ibv_wr_start(x);
	x->wr_id = 98;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf, 16);
	CHECK(ibv_wr_complete(x) == EINVAL,
	      "ibv_wr_send without ibv_wr_set_xrc_srqn was not refused");
	printf("XRC requests without a valid SRQ number refused (EINVAL): "
	       "ok\n");
}

static int bad_main(void *arg, struct link *l)
{
	struct ini *in = arg;
	const struct opts *o = in->o;
	struct ibv_context *ctx = rs_open(o->idev);
	struct ibv_pd *pd = need(ibv_alloc_pd(ctx), "alloc_pd");
	struct ibv_cq *cq = need(ibv_create_cq(ctx, 64, NULL, NULL, 0),
				 "create_cq");
	static const enum ibv_wc_status want[NBAD] = {
		IBV_WC_REM_INV_REQ_ERR, IBV_WC_REM_INV_REQ_ERR,
		IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_INV_REQ_ERR,
	};
	static const char *const what[NBAD] = {
		"SEND to an SRQ number that does not exist",
		"SEND to an SRQ of another domain",
		"WRITE with the R_Key of an MR in another PD",
		"SEND with Invalidate of an R_Key the target cannot invalidate",
	};
	struct msg m = { .op = M_INFO, .n = NBAD };
	struct ibv_qp *qp[NBAD], *qpx;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint32_t j;
	int gidx = o->igid;

	mr = reg(pd, 4096, 0, &buf);
	for (j = 0; j < NBAD; j++) {
		qp[j] = send_qp(ctx, pd, cq, false);
		m.a[j] = qp[j]->qp_num;
	}
	qpx = send_qp(ctx, pd, cq, true);
	own_gid(ctx, &gidx, m.gid);
	msg_put(l->wr, &m);
	msg_get(l->rd, &m, M_PEER);
	memcpy(&in->t, m.a + NBAD, sizeof(in->t));
	for (j = 0; j < NBAD; j++)
		connect_qp(qp[j], gidx, in->t.gid, m.a[j], o->timeout, 7);
	msg_get(l->rd, &m, M_GO);
	bad_local(qp[0], qpx, mr, buf);

	for (j = 0; j < NBAD; j++) {
		struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = j, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		};
		struct ibv_send_wr *bad;
		struct ibv_wc wc;

		wr.qp_type.xrc.remote_srqn = in->t.srqn;
		if (j == B_DEAD)
			wr.qp_type.xrc.remote_srqn = in->t.dead_srqn;
		else if (j == B_FOREIGN)
			wr.qp_type.xrc.remote_srqn = in->t.foreign_srqn;
		else if (j == B_PD) {
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = in->t.alien;
			wr.wr.rdma.rkey = in->t.alien_rkey;
		} else {
			wr.opcode = IBV_WR_SEND_WITH_INV;
			wr.invalidate_rkey = in->t.win_rkey;
		}
		need_ok(ibv_post_send(qp[j], &wr, &bad), what[j]);
		wc = poll_one(cq, what[j]);
		CHECK(wc.wr_id == j && wc.status == want[j], "%s: %s, not %s",
		      what[j], st(wc.status), st(want[j]));
		printf("%s: %s: ok\n", what[j], st(wc.status));
	}
	m.op = M_DONE;
	msg_put(l->wr, &m);
	msg_get(l->rd, &m, M_EXIT);
	for (j = 0; j < NBAD; j++)
		need_ok(ibv_destroy_qp(qp[j]), "destroy send QP");
	need_ok(ibv_destroy_qp(qpx), "destroy send QP");
	need_ok(ibv_dereg_mr(mr), "dereg_mr");
	need_ok(ibv_destroy_cq(cq), "destroy_cq");
	need_ok(ibv_dealloc_pd(pd), "dealloc_pd");
	need_ok(ibv_close_device(ctx), "close_device");
	free(buf);
	return 0;
}

/* --- the target: this process ------------------------------------------- */

struct tgt {
	const struct opts *o;
	struct ibv_context *ctx;
	struct ibv_xrcd *xrcd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_mr *rmr, *wmr;
	uint8_t *rbuf, *win;
	uint32_t tqpn[MAXP + 1][MAXQ], iqpn[MAXP + 1][MAXQ];
	uint8_t *seen;			/* [k][j][n] */
	uint32_t got, want, inv_errs;
};

/* one receive completion of the shared SRQ */
static void check_recv(struct tgt *tg, const struct ibv_wc *wc)
{
	const struct opts *o = tg->o;
	const uint8_t *p = tg->rbuf + wc->wr_id * SLOT;
	uint32_t t, k, j, n, op;

	/* the request that must fail: its receive completes in error */
	if (o->bad && wc->qp_num == tg->tqpn[o->procs][B_INV]) {
		CHECK(wc->status == IBV_WC_REM_INV_REQ_ERR && !tg->inv_errs++,
		      "receive of the failed SEND with Invalidate: %s",
		      st(wc->status));
		return;
	}
	CHECK(wc->status == IBV_WC_SUCCESS, "receive on QP %u: %s",
	      wc->qp_num, st(wc->status));
	if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
		CHECK(wc->wc_flags & IBV_WC_WITH_IMM, "WRITE without imm");
		t = be32toh(wc->imm_data);
	} else {
		CHECK(wc->opcode == IBV_WC_RECV, "receive opcode %d",
		      wc->opcode);
		memcpy(&t, p, sizeof(t));
	}
	k = t >> 24;
	j = t >> 16 & 0xff;
	n = t & 0xffff;
	op = n % NOPS;
	CHECK(k < o->procs && j < o->qps && n < o->msgs &&
	      (op == OP_SEND || op == OP_SEND_IMM || op == OP_WRITE_IMM),
	      "receive names no request: %#x (opcode %d)", t, wc->opcode);
	/* the receive QP connected to that sender, and the sender's QP */
	CHECK(wc->qp_num == tg->tqpn[k][j] && wc->src_qp == tg->iqpn[k][j],
	      "request %#x came through QP %u from %u, not %u from %u", t,
	      wc->qp_num, wc->src_qp, tg->tqpn[k][j], tg->iqpn[k][j]);
	CHECK(wc->byte_len == msg_len(t), "request %#x: %u bytes, not %u",
	      t, wc->byte_len, msg_len(t));
	if (op == OP_WRITE_IMM) {
		CHECK(same(tg->win + win_off(o, k, j, n), msg_len(t), t),
		      "WRITE with immediate %#x: other bytes", t);
	} else {
		CHECK(same(p, msg_len(t), t), "SEND %#x: other bytes", t);
		CHECK(op == OP_SEND_IMM ?
		      (wc->wc_flags & IBV_WC_WITH_IMM) &&
		      be32toh(wc->imm_data) == t :
		      !(wc->wc_flags & IBV_WC_WITH_IMM),
		      "SEND %#x: immediate %d %#x", t,
		      !!(wc->wc_flags & IBV_WC_WITH_IMM),
		      be32toh(wc->imm_data));
	}
	CHECK(!tg->seen[((size_t)k * o->qps + j) * o->msgs + n]++,
	      "request %#x received twice", t);
	tg->got++;
}

static int traffic(const struct opts *o)
{
	struct ini in[MAXP + 1];
	struct link l[MAXP + 1];
	struct tgt tg = { .o = o };
	struct ibv_pd *pd, *pd2;
	struct ibv_xrcd *xrcd2;
	struct ibv_srq *foreign, *dead;
	struct ibv_mr *amr;
	struct ibv_qp *tqp[MAXP + 1][MAXQ];
	uint8_t *alien;
	struct tinfo ti = { 0 };
	uint32_t np = o->procs + o->bad, k, j, n, fadds = 0, i;
	int gidx = o->tgid;
	uint64_t *atom;
	char path[4096];
	struct msg m;

	/* the initiators first: nothing of ours is registered yet to fork */
	for (k = 0; k < np; k++) {
		in[k] = (struct ini){ .o = o, .k = k };
		l[k] = spawn(k < o->procs ? ini_main : bad_main, &in[k]);
	}

	tg.ctx = rs_open(o->tdev);
	pd = need(ibv_alloc_pd(tg.ctx), "alloc_pd");
	pd2 = need(ibv_alloc_pd(tg.ctx), "alloc_pd 2");
	tg.cq = need(ibv_create_cq(tg.ctx, SRQ_WR * 2, NULL, NULL, 0),
		     "create_cq");
	snprintf(path, sizeof(path), "%s/domain", o->dir);
	tg.xrcd = need(open_xrcd(tg.ctx, path, O_CREAT), "open_xrcd");
	tg.srq = xrc_srq(tg.ctx, pd, tg.xrcd, tg.cq, SRQ_WR, &ti.srqn);
	xrcd2 = need(open_xrcd(tg.ctx, NULL, O_CREAT), "private open_xrcd");
	foreign = xrc_srq(tg.ctx, pd, xrcd2, tg.cq, 4, &ti.foreign_srqn);
	/* a number that was an SRQ's and is not any more */
	dead = xrc_srq(tg.ctx, pd, tg.xrcd, tg.cq, 4, &ti.dead_srqn);
	need_ok(ibv_destroy_srq(dead), "destroy_srq");
	tg.rmr = reg(pd, (size_t)SRQ_WR * SLOT, 0, &tg.rbuf);
	tg.wmr = reg(pd, win_off(o, o->procs, 0, 0) + 4096,
		     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		     IBV_ACCESS_REMOTE_ATOMIC, &tg.win);
	amr = reg(pd2, 4096, IBV_ACCESS_REMOTE_WRITE, &alien);
	atom = (uint64_t *)(tg.win + win_off(o, o->procs, 0, 0));
	ti.win = (uintptr_t)tg.win;
	ti.win_rkey = tg.wmr->rkey;
	ti.atom = (uintptr_t)atom;
	ti.alien = (uintptr_t)alien;
	ti.alien_rkey = amr->rkey;
	own_gid(tg.ctx, &gidx, ti.gid);
	for (i = 0; i < SRQ_WR; i++)
		post_recv(tg.srq, tg.rmr, tg.rbuf, i);
	tg.seen = calloc((size_t)o->procs * o->qps * o->msgs, 1);
	CHECK(tg.seen, "no memory");

	/* a receive QP for each send QP, connected both ways */
	for (k = 0; k < np; k++) {
		msg_get(l[k].rd, &m, M_INFO);
		for (j = 0; j < m.n; j++) {
			tqp[k][j] = recv_qp(tg.ctx, tg.xrcd);
			tg.tqpn[k][j] = tqp[k][j]->qp_num;
			tg.iqpn[k][j] = m.a[j];
			connect_qp(tqp[k][j], gidx, m.gid, m.a[j], o->timeout, 7);
		}
		m.op = M_PEER;
		for (j = 0; j < m.n; j++)
			m.a[j] = tg.tqpn[k][j];
		memcpy(m.a + m.n, &ti, sizeof(ti));
		msg_put(l[k].wr, &m);
	}
	for (k = 0; k < o->procs; k++)
		for (n = 0; n < o->msgs; n++)
			if (n % NOPS == OP_SEND || n % NOPS == OP_SEND_IMM ||
			    n % NOPS == OP_WRITE_IMM)
				tg.want += o->qps;
	printf("target: SRQ %u, %u receive QPs; %u initiator processes x %u "
	       "send QPs x %u requests\n", ti.srqn, o->procs * o->qps,
	       o->procs, o->qps, o->msgs);
	m.op = M_GO;
	for (k = 0; k < np; k++)
		msg_put(l[k].wr, &m);

	/* the SRQ's receives, each reposted once checked */
	while (tg.got < tg.want || (o->bad && !tg.inv_errs)) {
		struct ibv_wc wc[16];
		int got = ibv_poll_cq(tg.cq, 16, wc), x;

		CHECK(got >= 0, "poll_cq %d", got);
		if (!got)
			idle("target's receives");
		for (x = 0; x < got; x++) {
			check_recv(&tg, &wc[x]);
			post_recv(tg.srq, tg.rmr, tg.rbuf,
				  (uint32_t)wc[x].wr_id);
		}
	}
	for (k = 0; k < np; k++)
		msg_get(l[k].rd, &m, M_DONE);
	/* every WRITE's bytes, and each atomic done once */
	for (k = 0; k < o->procs; k++)
		for (j = 0; j < o->qps; j++)
			for (n = 0; n < o->msgs; n++) {
				uint32_t t = tag(k, j, n);

				if (n % NOPS == OP_FADD)
					fadds++;
				if (n % NOPS != OP_WRITE)
					continue;
				CHECK(same(tg.win + win_off(o, k, j, n),
					   msg_len(t), t),
				      "WRITE %#x: other bytes there", t);
			}
	CHECK(atom[0] == fadds, "fetch-and-add word %llu after %u adds",
	      (unsigned long long)atom[0], fadds);
	for (k = 0; k < o->procs; k++)
		for (j = 0; j < o->qps; j++) {
			uint64_t want = (o->msgs + NOPS - 1 - OP_CSWP) / NOPS;

			CHECK(atom[1 + k * o->qps + j] == want,
			      "compare-and-swap word of %u/%u: %llu, not %llu",
			      k, j, (unsigned long long)atom[1 + k * o->qps + j],
			      (unsigned long long)want);
		}
	{
		struct ibv_wc wc;

		CHECK(!ibv_poll_cq(tg.cq, 1, &wc),
		      "a receive more than was sent (QP %u)", wc.qp_num);
	}
	printf("XRC SEND, SEND with immediate, RDMA WRITE, WRITE with "
	       "immediate, READ, Fetch & Add, Compare & Swap from %u "
	       "processes x %u send QPs into SRQ %u, each once: ok\n",
	       o->procs, o->qps, ti.srqn);

	m.op = M_EXIT;
	for (k = 0; k < np; k++) {
		msg_put(l[k].wr, &m);
		reap(&l[k], k < o->procs ? "an initiator" : "the failing one");
	}
	for (k = 0; k < np; k++)
		for (j = 0; j < (k < o->procs ? o->qps : NBAD); j++)
			need_ok(ibv_destroy_qp(tqp[k][j]), "destroy receive QP");
	need_ok(ibv_destroy_srq(tg.srq), "destroy_srq");
	need_ok(ibv_destroy_srq(foreign), "destroy_srq foreign");
	need_ok(ibv_close_xrcd(xrcd2), "close_xrcd 2");
	need_ok(ibv_close_xrcd(tg.xrcd), "close_xrcd");
	need_ok(ibv_dereg_mr(amr), "dereg alien");
	need_ok(ibv_dereg_mr(tg.wmr), "dereg window");
	need_ok(ibv_dereg_mr(tg.rmr), "dereg receive buffers");
	need_ok(ibv_destroy_cq(tg.cq), "destroy_cq");
	need_ok(ibv_dealloc_pd(pd2), "dealloc_pd 2");
	need_ok(ibv_dealloc_pd(pd), "dealloc_pd");
	need_ok(ibv_close_device(tg.ctx), "close_device");
	free(tg.seen);
	free(tg.win);
	free(tg.rbuf);
	free(alien);
	return 0;
}

/* --- lifetimes (-L) ---------------------------------------------------- */

/*
 * The sender of the lifetime cases: two send QPs, connected on request;
 * M_SEND a[0]=QP a[1]=SRQ a[2]=count: that many SENDs (sixteen in
 * flight), each carrying its sequence number; the answer M_RESULT has
 * a[0] successes, a[1] the first error's status, a[2] flushed after it.
 */
static int life_sender(void *arg, struct link *l)
{
	const struct opts *o = arg;
	struct ibv_context *ctx = rs_open(o->idev);
	struct ibv_pd *pd = need(ibv_alloc_pd(ctx), "alloc_pd");
	struct ibv_cq *cq = need(ibv_create_cq(ctx, 128, NULL, NULL, 0),
				 "create_cq");
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;
	uint8_t *buf;
	struct msg m = { .op = M_INFO, .n = 2 };
	int gidx = o->igid;

	mr = reg(pd, 4096, 0, &buf);
	qp[0] = send_qp(ctx, pd, cq, false);
	qp[1] = send_qp(ctx, pd, cq, false);
	m.a[0] = qp[0]->qp_num;
	m.a[1] = qp[1]->qp_num;
	own_gid(ctx, &gidx, m.gid);
	msg_put(l->wr, &m);
	for (;;) {
		uint32_t q, posted = 0, done = 0, ok = 0, flushed = 0, count;
		uint32_t first = IBV_WC_SUCCESS;
		bool stop = false;

		msg_any(l->rd, &m);
		if (m.op == M_EXIT)
			break;
		q = m.a[0] & 1;
		if (m.op == M_CONNECT) {
			/* a[1] the receive QP, a[2] timeout, a[3] retries */
			connect_qp(qp[q], gidx, m.gid, m.a[1],
				   (uint8_t)m.a[2], (uint8_t)m.a[3]);
			m.op = M_READY;
			msg_put(l->wr, &m);
			continue;
		}
		CHECK(m.op == M_SEND, "command %u", m.op);
		count = m.a[2];
		for (;;) {
			struct ibv_wc wc;
			int got;

			/* nothing more once one failed: the rest flushes */
			while (!stop && first == IBV_WC_SUCCESS &&
			       posted < count && posted - done < 16) {
				uint8_t *p = buf + (posted % 16) * 64;
				struct ibv_sge sge = { (uintptr_t)p, 64,
						       mr->lkey };
				struct ibv_send_wr wr = {
					.wr_id = posted, .sg_list = &sge,
					.num_sge = 1, .opcode = IBV_WR_SEND,
					.send_flags = IBV_SEND_SIGNALED,
				};
				struct ibv_send_wr *bad;

				memcpy(p, &posted, 4);
				wr.qp_type.xrc.remote_srqn = m.a[1];
				if (ibv_post_send(qp[q], &wr, &bad))
					stop = true;
				else
					posted++;
			}
			if (done == posted &&
			    (stop || posted == count || first != IBV_WC_SUCCESS))
				break;
			got = ibv_poll_cq(cq, 1, &wc);
			CHECK(got >= 0, "poll_cq");
			if (!got) {
				idle("sender's completions");
				continue;
			}
			done++;
			if (wc.status == IBV_WC_SUCCESS &&
			    first == IBV_WC_SUCCESS)
				ok++;
			else if (first == IBV_WC_SUCCESS)
				first = wc.status;
			else if (wc.status == IBV_WC_WR_FLUSH_ERR)
				flushed++;
			else
				die(1, "sender: %s after %s", st(wc.status),
				    st(first));
		}
		m.op = M_RESULT;
		m.a[0] = ok;
		m.a[1] = first;
		m.a[2] = flushed;
		m.a[3] = posted;
		msg_put(l->wr, &m);
	}
	need_ok(ibv_destroy_qp(qp[0]), "destroy send QP");
	need_ok(ibv_destroy_qp(qp[1]), "destroy send QP");
	need_ok(ibv_dereg_mr(mr), "dereg_mr");
	need_ok(ibv_destroy_cq(cq), "destroy_cq");
	need_ok(ibv_dealloc_pd(pd), "dealloc_pd");
	need_ok(ibv_close_device(ctx), "close_device");
	return 0;
}

/*
 * The creator: opens the domain of DIR/life, makes a receive QP there
 * connected to the sender's QP (M_PEER a[0], gid), answers its number,
 * and on M_EXIT exits without destroying anything.
 */
static int life_creator(void *arg, struct link *l)
{
	const struct opts *o = arg;
	struct ibv_context *ctx = rs_open(o->tdev);
	struct ibv_xrcd *x;
	struct ibv_qp *qp;
	char path[4096];
	struct msg m;
	int gidx = o->tgid;

	own_gid(ctx, &gidx, m.gid);
	snprintf(path, sizeof(path), "%s/life", o->dir);
	/* the holder made the domain: found, not made */
	x = need(open_xrcd(ctx, path, 0), "creator: open the domain");
	msg_get(l->rd, &m, M_PEER);
	qp = recv_qp(ctx, x);
	connect_qp(qp, gidx, m.gid, m.a[0], o->timeout, 7);
	m.op = M_READY;
	m.a[0] = qp->qp_num;
	msg_put(l->wr, &m);
	msg_get(l->rd, &m, M_EXIT);
	return 0;		/* uverbs cleans up: the QP is still opened */
}

/*
 * The victim: its own domain (DIR/kill), SRQ and receive QP connected to
 * the sender's second QP; consumes and reposts receives until killed.
 */
static int life_victim(void *arg, struct link *l)
{
	const struct opts *o = arg;
	struct ibv_context *ctx = rs_open(o->tdev);
	struct ibv_pd *pd = need(ibv_alloc_pd(ctx), "alloc_pd");
	struct ibv_cq *cq = need(ibv_create_cq(ctx, 128, NULL, NULL, 0),
				 "create_cq");
	struct ibv_xrcd *x;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	char path[4096];
	uint32_t srqn, i, got = 0;
	struct msg m;
	int gidx = o->tgid;

	own_gid(ctx, &gidx, m.gid);
	snprintf(path, sizeof(path), "%s/kill", o->dir);
	x = need(open_xrcd(ctx, path, O_CREAT), "victim: open_xrcd");
	srq = xrc_srq(ctx, pd, x, cq, 64, &srqn);
	mr = reg(pd, 64 * SLOT, 0, &buf);
	for (i = 0; i < 64; i++)
		post_recv(srq, mr, buf, i);
	msg_get(l->rd, &m, M_PEER);
	qp = recv_qp(ctx, x);
	connect_qp(qp, gidx, m.gid, m.a[0], o->timeout, 7);
	m.op = M_READY;
	m.a[0] = qp->qp_num;
	m.a[1] = srqn;
	msg_put(l->wr, &m);
	for (;;) {
		struct ibv_wc wc;

		if (ibv_poll_cq(cq, 1, &wc) != 1) {
			usleep(100);
			continue;
		}
		CHECK(wc.status == IBV_WC_SUCCESS, "victim: %s",
		      st(wc.status));
		post_recv(srq, mr, buf, (uint32_t)wc.wr_id);
		if (++got == 10) {	/* traffic flows: kill me now */
			m.op = M_DONE;
			msg_put(l->wr, &m);
		}
	}
}

static void sender_cmd(struct link *s, uint32_t op, uint32_t a0, uint32_t a1,
		       uint32_t a2, uint32_t a3, const uint8_t *gid)
{
	struct msg m = { .op = op, .a = { a0, a1, a2, a3 } };

	if (gid)
		memcpy(m.gid, gid, 16);
	msg_put(s->wr, &m);
}

static int lifetimes(const struct opts *o)
{
	struct ibv_qp_open_attr oa = { 0 };
	struct link snd, cr, vi;
	struct ibv_context *ctx;
	struct ibv_xrcd *x;
	struct ibv_srq *srq;
	struct ibv_qp *opened;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	uint8_t *buf, sgid[16], tgid[16];
	uint32_t sqpn[2], tqpn, srqn, i, got = 0, seen[20] = { 0 };
	char path[4096];
	struct msg m;
	int status, gidx = o->tgid;

	snd = spawn(life_sender, (void *)o);
	msg_get(snd.rd, &m, M_INFO);
	memcpy(sgid, m.gid, 16);
	sqpn[0] = m.a[0];
	sqpn[1] = m.a[1];

	/* the holder: domain, SRQ; the creator finds the domain by file */
	ctx = rs_open(o->tdev);
	own_gid(ctx, &gidx, tgid);
	pd = need(ibv_alloc_pd(ctx), "alloc_pd");
	cq = need(ibv_create_cq(ctx, 512, NULL, NULL, 0), "create_cq");
	snprintf(path, sizeof(path), "%s/life", o->dir);
	x = need(open_xrcd(ctx, path, O_CREAT), "open_xrcd");
	srq = xrc_srq(ctx, pd, x, cq, 512, &srqn);
	mr = reg(pd, (size_t)512 * SLOT, 0, &buf);
	for (i = 0; i < 512; i++)
		post_recv(srq, mr, buf, i);

	cr = spawn(life_creator, (void *)o);
	m = (struct msg){ .op = M_PEER, .a = { sqpn[0] } };
	memcpy(m.gid, sgid, 16);
	msg_put(cr.wr, &m);
	msg_get(cr.rd, &m, M_READY);
	tqpn = m.a[0];
	oa.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
		       IBV_QP_OPEN_ATTR_TYPE;
	oa.qp_num = tqpn;
	oa.xrcd = x;
	oa.qp_type = IBV_QPT_XRC_RECV;
	opened = need(ibv_open_qp(ctx, &oa), "ibv_open_qp");
	CHECK(ibv_close_xrcd(x) == EBUSY,
	      "close_xrcd with an SRQ and an opened QP in it");
	sender_cmd(&snd, M_CONNECT, 0, tqpn, o->timeout, 7, tgid);
	msg_get(snd.rd, &m, M_READY);
	/* the creator goes without destroying its QP */
	sender_cmd(&cr, M_EXIT, 0, 0, 0, 0, NULL);
	reap(&cr, "the creator");

	sender_cmd(&snd, M_SEND, 0, srqn, 20, 0, NULL);
	msg_get(snd.rd, &m, M_RESULT);
	CHECK(m.a[0] == 20, "20 SENDs after the creator exited: %u ok, then %s",
	      m.a[0], st(m.a[1]));
	for (i = 0; i < 20; i++) {
		struct ibv_wc wc = poll_one(cq, "receive after the creator");
		uint32_t s;

		CHECK(wc.status == IBV_WC_SUCCESS && wc.qp_num == tqpn &&
		      wc.src_qp == sqpn[0], "receive: %s on QP %u from %u",
		      st(wc.status), wc.qp_num, wc.src_qp);
		memcpy(&s, buf + wc.wr_id * SLOT, 4);
		CHECK(s < 20 && !seen[s]++, "SEND %u twice or unknown", s);
		post_recv(srq, mr, buf, (uint32_t)wc.wr_id);
	}
	printf("receive QP of an exited creator, opened by another process, "
	       "carries 20 SENDs: ok\n");

	/* the SRQ destroyed while SENDs stream into it */
	sender_cmd(&snd, M_SEND, 0, srqn, 400, 0, NULL);
	while (got < 30) {
		struct ibv_wc wc = poll_one(cq, "streamed receive");

		CHECK(wc.status == IBV_WC_SUCCESS, "streamed receive: %s",
		      st(wc.status));
		got++;
	}
	need_ok(ibv_destroy_srq(srq), "destroy_srq with traffic");
	/* completions it had posted stay in the CQ; count them */
	{
		struct ibv_wc wc;

		while (ibv_poll_cq(cq, 1, &wc) == 1)
			got++;
	}
	msg_get(snd.rd, &m, M_RESULT);
	CHECK(m.a[0] >= got && m.a[0] < 400 &&
	      m.a[1] == IBV_WC_REM_INV_REQ_ERR && m.a[0] + 1 + m.a[2] == m.a[3],
	      "SRQ destroyed under traffic: sender %u ok then %s (%u "
	      "flushed of %u posted), %u received", m.a[0], st(m.a[1]),
	      m.a[2], m.a[3], got);
	printf("SRQ destroyed under traffic: %u SENDs completed (%u "
	       "received), then %s, %u flushed: ok\n", m.a[0], got,
	       st(m.a[1]), m.a[2]);

	/* the last handle of the receive QP: the QP goes with it */
	CHECK(ibv_close_xrcd(x) == EBUSY, "close_xrcd with an opened QP in it");
	need_ok(ibv_destroy_qp(opened), "destroy the opened QP");
	errno = 0;
	CHECK(!ibv_open_qp(ctx, &oa), "the receive QP outlived its last "
	      "handle");
	need_ok(ibv_close_xrcd(x), "close_xrcd");
	errno = 0;
	CHECK(!open_xrcd(ctx, path, 0) && errno == EAGAIN,
	      "the domain outlived its last opener: errno %d", errno);
	printf("last handle closed: receive QP and domain gone: ok\n");

	/* a process killed while SENDs stream into its SRQ */
	vi = spawn(life_victim, (void *)o);
	m = (struct msg){ .op = M_PEER, .a = { sqpn[1] } };
	memcpy(m.gid, sgid, 16);
	msg_put(vi.wr, &m);
	msg_get(vi.rd, &m, M_READY);
	/* two retries: after the kill the sender gives up soon */
	sender_cmd(&snd, M_CONNECT, 1, m.a[0], o->timeout, 2, tgid);
	srqn = m.a[1];
	msg_get(snd.rd, &m, M_READY);
	sender_cmd(&snd, M_SEND, 1, srqn, 100000, 0, NULL);
	msg_get(vi.rd, &m, M_DONE);
	kill(vi.pid, SIGKILL);
	CHECK(waitpid(vi.pid, &status, 0) == vi.pid && WIFSIGNALED(status),
	      "the victim did not die");
	close(vi.rd);
	close(vi.wr);
	msg_get(snd.rd, &m, M_RESULT);
	CHECK(m.a[0] >= 10 && m.a[0] < 100000 && m.a[1] != IBV_WC_SUCCESS,
	      "SENDs into a killed process: %u ok, then %s", m.a[0],
	      st(m.a[1]));
	snprintf(path, sizeof(path), "%s/kill", o->dir);
	errno = 0;
	CHECK(!open_xrcd(ctx, path, 0) && errno == EAGAIN,
	      "the killed process's domain is still there: errno %d", errno);
	printf("process killed under traffic: sender %u ok, then %s; its "
	       "domain gone: ok\n", m.a[0], st(m.a[1]));

	sender_cmd(&snd, M_EXIT, 0, 0, 0, 0, NULL);
	reap(&snd, "the sender");
	need_ok(ibv_dereg_mr(mr), "dereg_mr");
	need_ok(ibv_destroy_cq(cq), "destroy_cq");
	need_ok(ibv_dealloc_pd(pd), "dealloc_pd");
	need_ok(ibv_close_device(ctx), "close_device");
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .procs = 3, .qps = 4, .msgs = 70, .tgid = -1,
			  .igid = -1, .timeout = 14 };
	long secs = 120;
	int opt;

	while ((opt = getopt(argc, argv, "T:t:I:i:k:m:n:o:es:L")) != -1) {
		switch (opt) {
		case 'T': o.tdev = optarg; break;
		case 't': o.tgid = atoi(optarg); break;
		case 'I': o.idev = optarg; break;
		case 'i': o.igid = atoi(optarg); break;
		case 'k': o.procs = (uint32_t)atoi(optarg); break;
		case 'm': o.qps = (uint32_t)atoi(optarg); break;
		case 'n': o.msgs = (uint32_t)atoi(optarg); break;
		case 'o': o.timeout = (uint8_t)atoi(optarg); break;
		case 'e': o.bad = true; break;
		case 's': secs = atol(optarg); break;
		case 'L': o.life = true; break;
		default: die(2, "usage: see the comment at the top of xrcmp.c");
		}
	}
	if (optind != argc - 1 || !o.procs || o.procs > MAXP || !o.qps ||
	    o.qps > MAXQ || o.msgs < NOPS || o.msgs > 1000 || secs <= 0)
		die(2, "usage: xrcmp [-T DEV -t GIDX] [-I DEV -i GIDX] [-k 1-%d] "
		    "[-m 1-%d] [-n %d-1000] [-o TIMEOUT] [-e] [-L] "
		    "[-s SECONDS] DIR",
		    MAXP, MAXQ, NOPS);
	o.dir = argv[optind];
	if (!o.idev)
		o.idev = o.tdev;
	g_deadline_ms = now_ms() + secs * 1000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	return o.life ? lifetimes(&o) : traffic(&o);
}
