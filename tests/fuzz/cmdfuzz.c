// SPDX-License-Identifier: GPL-2.0
/*
 * Command fuzzer: malformed uverbs commands (write() and ioctl() ABIs) and
 * netlink messages (NETLINK_RDMA, the softverbs generic netlink family)
 * against live softverbs devices.  Not a libFuzzer target: the test
 * tests/user/70-cmdfuzz.sh builds and runs it in the VM.
 *
 *   cmdfuzz -n NETNS -d DEV:NETDEV -g GID_INDEX -v VICTIM:NETDEV
 *           -t SECONDS -s SEED [-H HANG] [-V]
 *
 * Runs in network namespace NETNS (setns), where DEV and the netdev of the
 * victim device live.  The parent only supervises: everything that talks
 * to the kernel runs in a child, so a system call that never returns shows
 * up as a child that outlives its deadline (and SIGKILL) by HANG seconds:
 * the parent then prints the stacks of every process of the run and fails.
 *
 * Children, for SECONDS:
 *   uverbs workers (two at a time, two threads each, 1-5 s each): open
 *     DEV's (or the victim's) uverbs device twice and send, over both fds,
 *     valid commands (so that handles really exist) mixed with malformed
 *     ones: write() with boundary and random in/out sizes, unknown and
 *     extended commands, handles that are live, destroyed, of another fd
 *     or of another type, out-of-range sizes, flags and ring sizes, driver
 *     udata (the rxe ABI's responses) too short, too long or non-zero,
 *     response and command buffers that fault part way; ioctl() with
 *     random and real object/method/attribute ids, attribute lengths,
 *     flags, duplicates, faulting pointers, read-only attribute arrays.
 *     They map rings, close an fd with everything on it, fork children
 *     that use the inherited fds and exit, and are SIGKILLed by the
 *     parent at random moments (mid-command).  About an eighth of their
 *     commands are the newer verbs: REG_MR with IB_ACCESS_ON_DEMAND over
 *     live mappings (RACE, below) and implicit (start 0, length SIZE_MAX),
 *     pinned MRs over RACE, ADVISE_MR (PREFETCH, PREFETCH_WRITE,
 *     PREFETCH_NO_FAULT, with and without FLUSH, on the L_Keys of live
 *     and dead MRs, ranges inside, across, before, wrapping, at the top of
 *     the address space), REG_DMABUF_MR on a udmabuf (where the kernel has
 *     /dev/udmabuf) and on fds that are no dma-buf, OPEN_XRCD (no inode
 *     or a memfd's, O_CREAT, O_EXCL) and CLOSE_XRCD, XRC SRQs, XRC_INI
 *     and XRC_TGT QPs, the targets taken towards RTS.  In most workers a
 *     racer thread meanwhile munmap()s, mremap()s (MREMAP_DONTUNMAP or
 *     not), madvise()s (DONTNEED, FREE, REMOVE), mprotect()s, touches and
 *     replaces (MAP_FIXED) pages of RACE under those MRs, and forks
 *     children that write to it (copy on write under live MRs) and exit.
 *   a netlink worker (2-6 s each): RDMA_NLDEV_CMD_* (and the other RDMA
 *     netlink clients) with random and wrong-typed, wrong-length,
 *     truncated, nested and duplicated attributes, unknown device, port
 *     and object numbers, link add/del with bogus netdevs and types; every
 *     command of the softverbs family with missing, oversized, wrong-type,
 *     reply-only and unknown attributes, unknown devices and fault
 *     settings out of range.  Messages that would delete, rename or move
 *     DEV, or switch the RDMA subsystem's namespace mode, are defused
 *     (nl_defuse()); the victim may be renamed.
 *   a cycler (every 6-12 s): deletes the victim device under the workers
 *     (ib_uverbs disassociates their contexts) and creates it again.
 *
 * Every worker first runs a probe on DEV: a fresh context, PD, CQs, an
 * SRQ, RC and UD QPs (RC taken to RTS), MR, MW, AH, an ODP MR and its
 * synchronous prefetch, an XRCD with an XRC SRQ and an XRC_TGT QP taken
 * to RTR, through both ABIs,
 * all of which must succeed; so does a final probe at the end.  At the
 * end the parent also turns fault injection off, restores the RDMA
 * subsystem settings, checks that no device was created by the fuzzing
 * and deletes the victim.  Iterations per category and the seed go to
 * stdout.  Exit status 0 when nothing failed.
 *
 * Layouts come from the system's <rdma/ib_user_verbs.h>,
 * <rdma/rdma_user_ioctl.h>, <rdma/ib_user_ioctl_cmds.h> and
 * <rdma/rdma_netlink.h>, and from uapi/ (the rxe driver ABI, the family).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/udmabuf.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/rdma_user_ioctl.h>

#include "softverbs-abi.h"
#include "softverbs-nl.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * modify_qp's attribute mask bits, QP states and MTUs: the uverbs ABI
 * carries the IBTA values that the kernel's ib_verbs.h and libibverbs'
 * verbs.h both define; no uapi header has them.
 */
enum {
	IB_QP_STATE = 1 << 0, IB_QP_CUR_STATE = 1 << 1,
	IB_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2, IB_QP_ACCESS_FLAGS = 1 << 3,
	IB_QP_PKEY_INDEX = 1 << 4, IB_QP_PORT = 1 << 5, IB_QP_QKEY = 1 << 6,
	IB_QP_AV = 1 << 7, IB_QP_PATH_MTU = 1 << 8, IB_QP_TIMEOUT = 1 << 9,
	IB_QP_RETRY_CNT = 1 << 10, IB_QP_RNR_RETRY = 1 << 11,
	IB_QP_RQ_PSN = 1 << 12, IB_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	IB_QP_ALT_PATH = 1 << 14, IB_QP_MIN_RNR_TIMER = 1 << 15,
	IB_QP_SQ_PSN = 1 << 16, IB_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	IB_QP_PATH_MIG_STATE = 1 << 18, IB_QP_CAP = 1 << 19,
	IB_QP_DEST_QPN = 1 << 20,
};
enum { IB_QPS_RESET, IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS, IB_QPS_SQD,
       IB_QPS_SQE, IB_QPS_ERR };
enum { IB_MTU_1024 = 3 };
#define PAGE 4096UL

/* --- randomness ------------------------------------------------------------ */

static __thread uint64_t rs;	/* splitmix64 state, one per thread */

static uint64_t rnd64(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rnd(uint32_t n)
{
	return n ? rnd64() % n : 0;
}

static bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

/* values that sit on boundaries of the ABI and of softverbs' limits */
static const uint64_t magic[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 63, 64, 127, 128, 129, 255,
	256, 511, 512, 513, 1023, 1024, 4095, 4096, 4097, 0x7fff, 0x8000,
	0xffff, 0x10000, 0x3ffff, 0x40000, 0xffffff, 0x1000000, 0x7fffffff,
	0x80000000, 0xfffffffe, 0xffffffff, 0x100000000ULL, 1ULL << 39,
	(1ULL << 39) + 1, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
	~0ULL,
};

static uint64_t fz64(void)
{
	switch (rnd(4)) {
	case 0:
	case 1:
		return magic[rnd(ARRAY_SIZE(magic))];
	case 2:
		return magic[rnd(ARRAY_SIZE(magic))] + rnd(3) - 1;
	default:
		return rnd64() >> rnd(64);
	}
}

static uint32_t fz32(void)
{
	return (uint32_t)fz64();
}

static uint8_t fz8(void)
{
	return chance(50) ? (uint8_t)fz64() : (uint8_t)rnd(16);
}

/* @good with probability @pct, else a boundary or random value */
#define PICK(pct, good, bad) (chance(pct) ? (good) : (bad))

/*
 * How much of a fuzzed command stays valid: each field with this
 * probability, chosen anew per command, so that most commands differ from
 * a valid one in one or two fields and get past the first check.
 */
static __thread unsigned int keep = 85;

/* --- shared state and failures ---------------------------------------------- */

enum {
	C_WRITE, C_WRITE_OK, C_IOCTL, C_IOCTL_OK, C_RDMANL, C_GENL, C_NL_OK,
	C_CREATED, C_DESTROYED, C_PROBES, C_CLOSES, C_FORKS, C_MMAPS,
	C_WORKERS, C_KILLED, C_OVERRUN, C_CYCLES, C_ORPHANS,
	C_ODP, C_ADVISE, C_DMABUF, C_XRC, C_RACES, C_RACE_FORKS, C_NUM
};

static const char *const cname[C_NUM] = {
	"write", "write_ok", "ioctl", "ioctl_ok", "rdma_nl", "genl", "nl_ok",
	"created", "destroyed", "probes", "fd_closes", "forks", "mmaps",
	"workers", "killed", "overruns", "victim_cycles", "orphans",
	"odp_mrs", "advise", "dmabuf_mrs", "xrc", "mem_races", "race_forks",
};

/* what came back, per command: -v prints it (for tuning the fuzzer) */
static const int err_bucket[] = { 0, EINVAL, EFAULT, EOPNOTSUPP, ENOSPC,
				  ENOENT, EPROTONOSUPPORT, ENOMEM, EIO, EBADF };
#define NBUCKET (ARRAY_SIZE(err_bucket) + 1)
#define NWCMD 128	/* write: command & 63, +64 for extended */
#define NMETH 40	/* ioctl: methods[] index, the last one for random */

struct shared {
	uint64_t count[C_NUM];
	uint64_t werr[NWCMD][NBUCKET];
	uint64_t ierr[NMETH][NBUCKET];
	uint32_t main_idx;
	uint32_t victim_idx;		/* ~0: no victim right now */
	int failed;
	char failure[1024];
};

static struct shared *sh;
static const char *main_dev;
static const char *main_netdev;
static const char *victim_name, *victim_netdev;
static int main_gid_idx;
static uint8_t main_gid[16];

static void count(int c)
{
	__atomic_add_fetch(&sh->count[c], 1, __ATOMIC_RELAXED);
}

static void count_err(uint64_t *row, int err)
{
	size_t b;

	for (b = 0; b < ARRAY_SIZE(err_bucket) && err_bucket[b] != -err; b++)
		;
	__atomic_add_fetch(&row[b], 1, __ATOMIC_RELAXED);
}

static void fail(const char *fmt, ...)
{
	char msg[sizeof(sh->failure)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "FAIL [%d]: %s\n", getpid(), msg);
	if (!__atomic_exchange_n(&sh->failed, 1, __ATOMIC_SEQ_CST))
		memcpy(sh->failure, msg, sizeof(msg));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- memory the kernel is pointed at ---------------------------------------- */

/*
 * Each thread has a zone for its commands, attribute arrays and what they
 * point at (the first 64 KiB) and for responses (RESP, after that).  A
 * length can say up to 64 KiB (an attribute) or 512 KiB (a response, which
 * ib_uverbs zero-fills to the length given), so the zone reaches well
 * past both: the kernel never writes outside it through a good pointer.
 * Each thread also has a read-only page, a page that faults (PROT_NONE,
 * never unmapped, so nothing else can be mapped there) and a writable page
 * before it (EDGE: copies that cross into the faulting page fail part
 * way).  MRs register one shared buffer.
 */
#define ZONE_SIZE (2048 * 1024)
#define RESP (zone + 64 * 1024)
static __thread uint8_t *zone, *ro_page, *none_page;
static uint8_t *mr_buf;
#define MR_BUF_SIZE (256 * 1024)

static void *map_anon(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

static void zone_init(void)
{
	uint8_t *p = map_anon(3 * PAGE, PROT_READ | PROT_WRITE);

	zone = map_anon(ZONE_SIZE, PROT_READ | PROT_WRITE);
	ro_page = p;
	memset(ro_page, 0xa5, PAGE);
	mprotect(ro_page, PAGE, PROT_READ);
	none_page = p + 2 * PAGE;	/* p + PAGE: the edge before it */
	mprotect(none_page, PAGE, PROT_NONE);
	if (!mr_buf) {
		mr_buf = map_anon(MR_BUF_SIZE, PROT_READ | PROT_WRITE);
		memset(mr_buf, 0x5a, MR_BUF_SIZE);
	}
}

/* a user pointer that cannot be used (whole or part way) */
static uint64_t bad_ptr(void)
{
	switch (rnd(8)) {
	case 0:
		return 0;
	case 1:
		return (uint64_t)(uintptr_t)(none_page + rnd(PAGE));
	case 2:
		return 0xffff888000000000ULL + (rnd64() & 0x3fffffff);
	case 3:
		return 0x8000000000000000ULL + rnd(PAGE);
	case 4:		/* fine to read, not to write */
		return (uint64_t)(uintptr_t)(ro_page + rnd(256));
	case 5:		/* the end crosses into the faulting page */
	case 6:
		return (uint64_t)(uintptr_t)(none_page - 1 - rnd(96));
	default:
		return ~0ULL - rnd(PAGE);
	}
}

/* --- uverbs contexts and handles -------------------------------------------- */

enum { O_PD, O_CQ, O_QP, O_SRQ, O_MR, O_MW, O_AH, O_XRCD, O_NUM };

#define MAXH 24
struct hset {
	uint32_t h[MAXH];
	int n;
};

struct uctx {
	int fd;
	bool on_main;		/* DEV, where every valid command must work */
	struct hset live[O_NUM], dead[O_NUM];
	uint32_t qpn[MAXH];	/* of live[O_QP], same order */
	uint8_t qpt[MAXH];	/* QP types, same order */
	int chan[4];		/* completion channel fds */
	int async_fd;
	struct {
		uint64_t off;
		uint32_t size;
	} ring[16];
	int nring;
	uint8_t gid[16];	/* a RoCE v2 GID of the device, and its index */
	int gid_idx;
};

static int nl_dev_name(uint32_t idx, char *name, size_t len);

#define NCTX 2
static struct uctx U[NCTX];
static pthread_mutex_t hl = PTHREAD_MUTEX_INITIALIZER;	/* guards U[] sets */
static int stray_fds[8];	/* other fds to hand the kernel */

static void hs_add(struct hset *s, uint32_t h)
{
	if (s->n < MAXH)
		s->h[s->n++] = h;
	else
		s->h[rnd(MAXH)] = h;
}

static int hs_find(struct hset *s, uint32_t h)
{
	for (int i = 0; i < s->n && i < MAXH; i++)
		if (s->h[i] == h)
			return i;
	return -1;
}

static void obj_add(struct uctx *c, int t, uint32_t h, uint32_t qpn, int qpt)
{
	pthread_mutex_lock(&hl);
	if (t == O_QP) {
		int i = c->live[t].n < MAXH ? c->live[t].n : (int)rnd(MAXH);

		c->live[t].h[i] = h;
		c->qpn[i] = qpn;
		c->qpt[i] = qpt;
		if (c->live[t].n < MAXH)
			c->live[t].n++;
	} else {
		hs_add(&c->live[t], h);
	}
	int d = hs_find(&c->dead[t], h);

	if (d >= 0)
		c->dead[t].h[d] = c->dead[t].h[--c->dead[t].n];
	pthread_mutex_unlock(&hl);
	count(C_CREATED);
}

static void obj_gone(struct uctx *c, int t, uint32_t h)
{
	pthread_mutex_lock(&hl);
	int i = hs_find(&c->live[t], h);

	if (i >= 0) {
		int last = --c->live[t].n;

		c->live[t].h[i] = c->live[t].h[last];
		c->qpn[i] = c->qpn[last];
		c->qpt[i] = c->qpt[last];
	}
	hs_add(&c->dead[t], h);
	pthread_mutex_unlock(&hl);
	count(C_DESTROYED);
}

/* a live handle of type @t in @c, or ~0 if there is none */
static uint32_t live_handle(struct uctx *c, int t)
{
	uint32_t h = ~0U;

	pthread_mutex_lock(&hl);
	if (c->live[t].n > 0)
		h = c->live[t].h[rnd(c->live[t].n)];
	pthread_mutex_unlock(&hl);
	return h;
}

/* a handle for a field of type @t: live mostly, else stale, foreign, wrong */
static uint32_t pick_handle(struct uctx *c, int t, int pct_live)
{
	struct uctx *other = &U[rnd(NCTX)];
	uint32_t h = ~0U;

	if (chance(pct_live)) {
		h = live_handle(c, t);
		if (h != ~0U)
			return h;
	}
	pthread_mutex_lock(&hl);
	switch (rnd(6)) {
	case 0:		/* destroyed */
		if (c->dead[t].n)
			h = c->dead[t].h[rnd(c->dead[t].n)];
		break;
	case 1:		/* another fd's */
		if (other->live[t].n)
			h = other->live[t].h[rnd(other->live[t].n)];
		break;
	case 2: {	/* another type's */
		int t2 = rnd(O_NUM);

		if (c->live[t2].n)
			h = c->live[t2].h[rnd(c->live[t2].n)];
		break;
	}
	default:
		break;
	}
	pthread_mutex_unlock(&hl);
	if (h == ~0U)
		h = chance(50) ? rnd(40) : fz32();
	return h;
}

static int pick_fd(struct uctx *c, bool chan)
{
	if (chance(70)) {
		if (chan) {
			int fd = c->chan[rnd(4)];

			if (fd >= 0)
				return fd;
		} else if (c->async_fd >= 0) {
			return c->async_fd;
		}
	}
	switch (rnd(5)) {
	case 0:
		return -1;
	case 1:
		return c->fd;
	case 2:
		return stray_fds[rnd(ARRAY_SIZE(stray_fds))];
	default:
		return (int)fz32();
	}
}

/* --- the write() ABI --------------------------------------------------------- */

/*
 * One command: @core is the core request (for a legacy command with a
 * response, starting with its response pointer, which this sets), followed
 * by @drv_in bytes of driver data; @resp_core and @drv_out bytes of
 * response go to @resp.  Returns 0 or -errno.  With @mangle the header and
 * the call get boundary and random sizes.
 */
struct wreq {
	uint32_t cmd;
	bool ex;
	bool has_resp;
	uint8_t core[512];
	size_t core_len;
	size_t drv_in;
	bool drv_in_junk;
	size_t resp_core;
	size_t drv_out;
	uint64_t resp;
};

static int wsend(struct uctx *c, struct wreq *r, bool mangle)
{
	uint8_t *buf = zone + 8192;	/* 8 KiB..24 KiB: the command */
	struct ib_uverbs_cmd_hdr *hdr = (void *)buf;
	struct ib_uverbs_ex_cmd_hdr *ex = (void *)(buf + sizeof(*hdr));
	size_t off = sizeof(*hdr) + (r->ex ? sizeof(*ex) : 0);
	size_t len;
	ssize_t n;

	if (r->drv_in > 4096)
		r->drv_in = 4096;
	if (!r->ex && r->has_resp)
		memcpy(r->core, &r->resp, sizeof(r->resp));
	memcpy(buf + off, r->core, r->core_len);
	off += r->core_len;
	if (r->drv_in_junk)
		for (size_t i = 0; i < r->drv_in; i++)
			buf[off + i] = rnd(256);
	else
		memset(buf + off, 0, r->drv_in);
	len = off + r->drv_in;

	if (r->ex) {
		hdr->command = IB_USER_VERBS_CMD_FLAG_EXTENDED | r->cmd;
		hdr->in_words = r->core_len / 8;
		hdr->out_words = r->resp_core / 8;
		ex->response = r->resp;
		ex->provider_in_words = r->drv_in / 8;
		ex->provider_out_words = r->drv_out / 8;
		ex->cmd_hdr_reserved = 0;
		if (!r->resp_core && !r->drv_out)
			ex->response = 0;
	} else {
		hdr->command = r->cmd;
		hdr->in_words = len / 4;
		hdr->out_words = (r->resp_core + r->drv_out) / 4;
	}

	void *p = buf;

	if (mangle) {
		switch (rnd(14)) {
		case 0:
			hdr->in_words = fz32();
			break;
		case 1:
			hdr->out_words = fz32();
			break;
		case 2:
			hdr->in_words += rnd(3) - 1;
			break;
		case 3:
			hdr->command ^= IB_USER_VERBS_CMD_FLAG_EXTENDED;
			break;
		case 4:
			hdr->command = chance(50) ? rnd(64) : fz32();
			break;
		case 5:
			len = rnd(len + 16);
			break;
		case 6:
			if (r->ex)
				ex->cmd_hdr_reserved = fz32();
			break;
		case 7:
			if (r->ex) {
				ex->provider_in_words = fz32();
				ex->provider_out_words = fz32();
			}
			break;
		case 8:		/* the command itself faults part way */
			if (len >= 2 && len < PAGE) {
				size_t k = 1 + rnd(len - 1);

				memcpy(none_page - k, buf, k);
				p = none_page - k;
			}
			break;
		case 9:
			p = (void *)(uintptr_t)bad_ptr();
			break;
		case 10:	/* read-only is fine for a command */
			if (len <= 256) {
				mprotect(ro_page, PAGE, PROT_READ | PROT_WRITE);
				memcpy(ro_page, buf, len);
				mprotect(ro_page, PAGE, PROT_READ);
				p = ro_page;
			}
			break;
		default:
			if (r->ex)
				ex->response = bad_ptr();
			break;
		}
	}
	count(C_WRITE);
	n = write(c->fd, p, len);
	count_err(sh->werr[(r->cmd & 63) + (r->ex ? 64 : 0)], n < 0 ? -errno : 0);
	if (n < 0)
		return -errno;
	count(C_WRITE_OK);
	return 0;
}

/* a response buffer: good in zone, or (with @pct) one that faults */
static uint64_t resp_ptr(int pct_bad)
{
	if (chance(pct_bad))
		return bad_ptr();
	memset(RESP, 0, 1024);
	return (uint64_t)(uintptr_t)RESP;
}

static bool resp_good(uint64_t p)
{
	return p == (uint64_t)(uintptr_t)RESP;
}

/* driver response sizes: exact mostly, else short, long, none */
static size_t drv_size(size_t want, bool valid)
{
	if (valid || chance(55))
		return want;
	switch (rnd(4)) {
	case 0:
		return 0;
	case 1:
		return want >= 8 ? want - 8 : 0;
	case 2:
		return want + 8 * (1 + rnd(8));
	default:
		return rnd(64) & ~7U;
	}
}

/* --- uverbs: building blocks used by the probe and by fuzzing ----------------- */

static int uv_get_context(struct uctx *c, bool valid)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_GET_CONTEXT, .has_resp = true,
			  .core_len = sizeof(struct ib_uverbs_get_context),
			  .resp_core = sizeof(struct ib_uverbs_get_context_resp) };
	int err;

	r.resp = resp_ptr(valid ? 0 : 15);
	if (!valid) {
		r.drv_in = drv_size(0, false);
		r.drv_in_junk = chance(30);
		r.drv_out = drv_size(0, false);
	}
	err = wsend(c, &r, !valid && chance(15));
	if (!err && resp_good(r.resp)) {
		struct ib_uverbs_get_context_resp *resp = (void *)RESP;

		if (c->async_fd >= 0)
			close(c->async_fd);
		c->async_fd = resp->async_fd;
	}
	return err;
}

static int uv_alloc_pd(struct uctx *c, bool valid, uint32_t *h)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_ALLOC_PD, .has_resp = true,
			  .core_len = sizeof(struct ib_uverbs_alloc_pd),
			  .resp_core = sizeof(struct ib_uverbs_alloc_pd_resp) };
	int err;

	r.resp = resp_ptr(valid ? 0 : 15);
	if (!valid) {
		r.drv_in = drv_size(0, false);
		r.drv_in_junk = chance(30);
		r.drv_out = drv_size(0, false);
	}
	err = wsend(c, &r, !valid && chance(15));
	if (!err && resp_good(r.resp)) {
		*h = ((struct ib_uverbs_alloc_pd_resp *)RESP)->pd_handle;
		obj_add(c, O_PD, *h, 0, 0);
	}
	return err;
}

static void add_ring(struct uctx *c, const struct sv_mmap_info *mi)
{
	pthread_mutex_lock(&hl);
	if (mi->size) {
		int i = c->nring < 16 ? c->nring++ : (int)rnd(16);

		c->ring[i].off = mi->offset;
		c->ring[i].size = mi->size;
	}
	pthread_mutex_unlock(&hl);
}

static int uv_create_cq(struct uctx *c, bool valid, bool ex, uint32_t *h)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_CREATE_CQ, .ex = ex,
			  .has_resp = !ex };
	size_t want = sizeof(struct sv_create_cq_resp);
	uint32_t cqe = PICK(valid ? 100 : keep, 1 + rnd(256), fz32());
	uint32_t vec = PICK(valid ? 100 : keep, 0, fz32());
	int32_t chan = valid ? -1 : (chance(50) ? -1 : pick_fd(c, true));
	int err;

	if (ex) {
		struct ib_uverbs_ex_create_cq *cmd = (void *)r.core;

		memset(cmd, 0, sizeof(*cmd));
		cmd->user_handle = rnd64();
		cmd->cqe = cqe;
		cmd->comp_vector = vec;
		cmd->comp_channel = chan;
		cmd->comp_mask = PICK(valid ? 100 : keep, 0, fz32());
		cmd->flags = PICK(valid ? 100 : keep, 0, fz32());
		cmd->reserved = PICK(valid ? 100 : keep, 0, fz32());
		r.core_len = sizeof(*cmd);
		r.resp_core = sizeof(struct ib_uverbs_ex_create_cq_resp);
	} else {
		struct ib_uverbs_create_cq *cmd = (void *)r.core;

		memset(cmd, 0, sizeof(*cmd));
		cmd->user_handle = rnd64();
		cmd->cqe = cqe;
		cmd->comp_vector = vec;
		cmd->comp_channel = chan;
		cmd->reserved = PICK(valid ? 100 : keep, 0, fz32());
		r.core_len = sizeof(*cmd);
		r.resp_core = sizeof(struct ib_uverbs_create_cq_resp);
	}
	r.resp = resp_ptr(valid ? 0 : 12);
	r.drv_out = drv_size(want, valid);
	if (!valid) {
		r.drv_in = drv_size(0, false);
		r.drv_in_junk = chance(40);
	}
	err = wsend(c, &r, !valid && chance(12));
	if (!err && resp_good(r.resp)) {
		*h = ((struct ib_uverbs_create_cq_resp *)RESP)->cq_handle;
		obj_add(c, O_CQ, *h, 0, 0);
		if (r.drv_out >= want)
			add_ring(c, (void *)(RESP + r.resp_core));
	}
	return err;
}

static int uv_create_srq(struct uctx *c, bool valid, uint32_t pd, uint32_t *h)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_CREATE_SRQ, .has_resp = true };
	struct ib_uverbs_create_srq *cmd = (void *)r.core;
	size_t want = sizeof(struct sv_create_srq_resp);
	int err;

	memset(cmd, 0, sizeof(*cmd));
	cmd->user_handle = rnd64();
	cmd->pd_handle = valid ? pd : pick_handle(c, O_PD, keep);
	cmd->max_wr = PICK(valid ? 100 : keep, 1 + rnd(128), fz32());
	cmd->max_sge = PICK(valid ? 100 : keep, 1 + rnd(4), fz32());
	cmd->srq_limit = PICK(valid ? 100 : keep, 0, fz32());
	r.core_len = sizeof(*cmd);
	r.resp_core = sizeof(struct ib_uverbs_create_srq_resp);
	r.resp = resp_ptr(valid ? 0 : 12);
	r.drv_out = drv_size(want, valid);
	if (!valid) {
		r.drv_in = drv_size(0, false);
		r.drv_in_junk = chance(40);
	}
	err = wsend(c, &r, !valid && chance(12));
	if (!err && resp_good(r.resp)) {
		*h = ((struct ib_uverbs_create_srq_resp *)RESP)->srq_handle;
		obj_add(c, O_SRQ, *h, 0, 0);
		if (r.drv_out >= want)
			add_ring(c, (void *)(RESP + r.resp_core));
	}
	return err;
}

static const uint8_t qp_types[] = { IB_UVERBS_QPT_RC, IB_UVERBS_QPT_UC,
				    IB_UVERBS_QPT_UD };

static int uv_create_qp(struct uctx *c, bool valid, bool ex, int qpt,
			uint32_t pd, uint32_t scq, uint32_t rcq, uint32_t srq,
			uint32_t *h, uint32_t *qpn)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_CREATE_QP, .ex = ex,
			  .has_resp = !ex };
	size_t want = sizeof(struct sv_create_qp_resp);
	struct ib_uverbs_create_qp *lc = (void *)r.core;
	struct ib_uverbs_ex_create_qp *xc = (void *)r.core;
	int err;

	memset(r.core, 0, sizeof(r.core));
#define QP_FIELDS(cmd)								\
	do {									\
		(cmd)->user_handle = rnd64();					\
		(cmd)->pd_handle = valid ? pd : pick_handle(c, O_PD, keep);	\
		(cmd)->send_cq_handle = valid ? scq : pick_handle(c, O_CQ, keep);	\
		(cmd)->recv_cq_handle = valid ? rcq : pick_handle(c, O_CQ, keep);	\
		(cmd)->srq_handle = valid ? srq : pick_handle(c, O_SRQ, keep);	\
		(cmd)->is_srq = valid ? srq != ~0U : PICK(60, 0, fz8());	\
		(cmd)->max_send_wr = PICK(valid ? 100 : keep, rnd(64), fz32());	\
		(cmd)->max_recv_wr = PICK(valid ? 100 : keep, rnd(64), fz32());	\
		(cmd)->max_send_sge = PICK(valid ? 100 : keep, rnd(4), fz32());	\
		(cmd)->max_recv_sge = PICK(valid ? 100 : keep, rnd(4), fz32());	\
		(cmd)->max_inline_data = PICK(valid ? 100 : keep, rnd(64), fz32());\
		(cmd)->sq_sig_all = PICK(valid ? 100 : keep, rnd(2), fz8());	\
		(cmd)->qp_type = PICK(valid ? 100 : keep, qpt, fz8());		\
		(cmd)->reserved = PICK(valid ? 100 : keep, 0, fz8());		\
	} while (0)
	if (ex) {
		QP_FIELDS(xc);
		xc->comp_mask = PICK(valid ? 100 : keep, 0, fz32());
		xc->create_flags = PICK(valid ? 100 : keep, 0, fz32());
		xc->rwq_ind_tbl_handle = PICK(valid ? 100 : keep, 0, fz32());
		xc->source_qpn = PICK(valid ? 100 : keep, 0, fz32());
		r.core_len = sizeof(*xc);
		r.resp_core = sizeof(struct ib_uverbs_ex_create_qp_resp);
	} else {
		QP_FIELDS(lc);
		r.core_len = sizeof(*lc);
		r.resp_core = sizeof(struct ib_uverbs_create_qp_resp);
	}
#undef QP_FIELDS
	r.resp = resp_ptr(valid ? 0 : 12);
	r.drv_out = drv_size(want, valid);
	if (!valid) {
		r.drv_in = drv_size(0, false);
		r.drv_in_junk = chance(40);
	}
	err = wsend(c, &r, !valid && chance(12));
	if (!err && resp_good(r.resp)) {
		struct ib_uverbs_create_qp_resp *resp = (void *)RESP;

		*h = resp->qp_handle;
		if (qpn)
			*qpn = resp->qpn;
		obj_add(c, O_QP, *h, resp->qpn,
			ex ? xc->qp_type : lc->qp_type);
		if (r.drv_out >= want) {
			struct sv_create_qp_resp *d = (void *)(RESP + r.resp_core);

			add_ring(c, &d->rq_mi);
			add_ring(c, &d->sq_mi);
		}
	}
	return err;
}

/* MR access: remote write and atomic need local write (IBTA 10.6.3.1) */
static uint32_t mr_access(void)
{
	uint32_t a = rnd(16) | (chance(20) ? IB_UVERBS_ACCESS_MW_BIND : 0);

	return a & (IB_UVERBS_ACCESS_REMOTE_WRITE | IB_UVERBS_ACCESS_REMOTE_ATOMIC) ?
		a | IB_UVERBS_ACCESS_LOCAL_WRITE : a;
}

static int uv_reg_mr(struct uctx *c, bool valid, uint32_t pd, uint32_t *h)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_REG_MR, .has_resp = true };
	struct ib_uverbs_reg_mr *cmd = (void *)r.core;
	uint64_t off = rnd(MR_BUF_SIZE / 2);
	uint64_t start = (uint64_t)(uintptr_t)mr_buf + off;
	uint64_t len = 1 + rnd(MR_BUF_SIZE / 2);
	int err;

	memset(cmd, 0, sizeof(*cmd));
	cmd->start = PICK(valid ? 100 : keep, start,
			  chance(50) ? bad_ptr() : fz64());
	cmd->length = PICK(valid ? 100 : keep, len, fz64());
	/* ib_core wants the start's offset in the page in the IOVA too */
	cmd->hca_va = PICK(valid ? 100 : keep, chance(50) ? start :
			   ((rnd64() >> 4) & ~(PAGE - 1)) | (start & (PAGE - 1)),
			   fz64());
	cmd->pd_handle = valid ? pd : pick_handle(c, O_PD, keep);
	cmd->access_flags = PICK(valid ? 100 : keep, mr_access(), fz32());
	if (!valid && chance(10))	/* read-only pages, writable access */
		cmd->start = (uint64_t)(uintptr_t)ro_page;
	r.core_len = sizeof(*cmd);
	r.resp_core = sizeof(struct ib_uverbs_reg_mr_resp);
	r.resp = resp_ptr(valid ? 0 : 12);
	if (!valid) {
		r.drv_in = drv_size(0, false);
		r.drv_in_junk = chance(30);
		r.drv_out = drv_size(0, false);
	}
	err = wsend(c, &r, !valid && chance(12));
	if (!err && resp_good(r.resp)) {
		*h = ((struct ib_uverbs_reg_mr_resp *)RESP)->mr_handle;
		obj_add(c, O_MR, *h, 0, 0);
	}
	return err;
}

static int uv_alloc_mw(struct uctx *c, bool valid, uint32_t pd, uint32_t *h)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_ALLOC_MW, .has_resp = true };
	struct ib_uverbs_alloc_mw *cmd = (void *)r.core;
	int err;

	memset(cmd, 0, sizeof(*cmd));
	cmd->pd_handle = valid ? pd : pick_handle(c, O_PD, keep);
	cmd->mw_type = PICK(valid ? 100 : keep, 1 + rnd(2), fz8());
	r.core_len = sizeof(*cmd);
	r.resp_core = sizeof(struct ib_uverbs_alloc_mw_resp);
	r.resp = resp_ptr(valid ? 0 : 12);
	if (!valid) {
		r.drv_in = drv_size(0, false);
		r.drv_in_junk = chance(30);
		r.drv_out = drv_size(0, false);
	}
	err = wsend(c, &r, !valid && chance(12));
	if (!err && resp_good(r.resp)) {
		*h = ((struct ib_uverbs_alloc_mw_resp *)RESP)->mw_handle;
		obj_add(c, O_MW, *h, 0, 0);
	}
	return err;
}

static void fill_gid(struct uctx *c, uint8_t *dgid, bool valid)
{
	if (valid || chance(60)) {
		memcpy(dgid, c->gid, 16);
		return;
	}
	switch (rnd(4)) {
	case 0:		/* multicast */
		memset(dgid, 0, 16);
		dgid[0] = 0xff;
		dgid[1] = 0x0e;
		dgid[15] = rnd(256);
		break;
	case 1:		/* link-local, resolved without neighbours */
		memset(dgid, 0, 16);
		dgid[0] = 0xfe;
		dgid[1] = 0x80;
		for (int i = 8; i < 16; i++)
			dgid[i] = rnd(256);
		break;
	case 2:
		memset(dgid, 0, 16);
		break;
	default:
		/* anything: may wait for ARP/ND (1 s), so rarely */
		if (chance(10)) {
			for (int i = 0; i < 16; i++)
				dgid[i] = rnd(256);
		} else {
			memcpy(dgid, c->gid, 16);
			dgid[15] ^= 1 + rnd(2);
		}
		break;
	}
}

static int uv_create_ah(struct uctx *c, bool valid, uint32_t pd, uint32_t *h)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_CREATE_AH, .has_resp = true };
	struct ib_uverbs_create_ah *cmd = (void *)r.core;
	size_t want = sizeof(struct sv_create_ah_resp);
	int err;

	memset(cmd, 0, sizeof(*cmd));
	cmd->user_handle = rnd64();
	cmd->pd_handle = valid ? pd : pick_handle(c, O_PD, keep);
	cmd->reserved = PICK(valid ? 100 : keep, 0, fz32());
	fill_gid(c, cmd->attr.grh.dgid, valid);
	cmd->attr.grh.flow_label = PICK(valid ? 100 : keep, rnd(1 << 20), fz32());
	cmd->attr.grh.sgid_index = PICK(valid ? 100 : keep, c->gid_idx, fz8());
	cmd->attr.grh.hop_limit = PICK(valid ? 100 : keep, 64, fz8());
	cmd->attr.grh.traffic_class = PICK(valid ? 100 : keep, 0, fz8());
	cmd->attr.dlid = PICK(valid ? 100 : keep, 0, fz32());
	cmd->attr.sl = PICK(valid ? 100 : keep, 0, fz8());
	cmd->attr.src_path_bits = PICK(valid ? 100 : keep, 0, fz8());
	cmd->attr.static_rate = PICK(valid ? 100 : keep, 0, fz8());
	cmd->attr.is_global = PICK(valid ? 100 : keep, 1, fz8());
	cmd->attr.port_num = PICK(valid ? 100 : keep, 1, fz8());
	r.core_len = sizeof(*cmd);
	r.resp_core = sizeof(struct ib_uverbs_create_ah_resp);
	r.resp = resp_ptr(valid ? 0 : 12);
	r.drv_out = drv_size(want, valid);
	if (!valid) {
		r.drv_in = drv_size(0, false);
		r.drv_in_junk = chance(40);
	}
	err = wsend(c, &r, !valid && chance(12));
	if (!err && resp_good(r.resp)) {
		*h = ((struct ib_uverbs_create_ah_resp *)RESP)->ah_handle;
		obj_add(c, O_AH, *h, 0, 0);
	}
	return err;
}

static void fill_dest(struct uctx *c, struct ib_uverbs_qp_dest *d, bool valid)
{
	fill_gid(c, d->dgid, valid);
	d->flow_label = PICK(valid ? 100 : keep, rnd(1 << 20), fz32());
	d->dlid = PICK(valid ? 100 : keep, 0, fz32());
	d->sgid_index = PICK(valid ? 100 : keep, c->gid_idx, fz8());
	d->hop_limit = PICK(valid ? 100 : keep, 64, fz8());
	d->traffic_class = PICK(valid ? 100 : keep, 0, fz8());
	d->sl = PICK(valid ? 100 : keep, 0, fz8());
	d->src_path_bits = PICK(valid ? 100 : keep, 0, fz8());
	d->static_rate = PICK(valid ? 100 : keep, 0, fz8());
	d->is_global = PICK(valid ? 100 : keep, 1, fz8());
	d->port_num = PICK(valid ? 100 : keep, 1, fz8());
}

/*
 * modify_qp to @state with the attributes IBTA 11.2.4.2 requires for the
 * usual transition into it (valid), or fuzzed attributes and masks.
 */
static int uv_modify_qp(struct uctx *c, bool valid, bool ex, uint32_t h,
			uint32_t dqpn, int qpt, int state)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_MODIFY_QP, .ex = ex };
	struct ib_uverbs_ex_modify_qp *xc = (void *)r.core;
	struct ib_uverbs_modify_qp *m = &xc->base;
	uint32_t mask = IB_QP_STATE;
	bool ud = qpt == IB_UVERBS_QPT_UD;
	bool ini = qpt == IB_UVERBS_QPT_XRC_INI, tgt = qpt == IB_UVERBS_QPT_XRC_TGT;

	memset(r.core, 0, sizeof(r.core));
	m->qp_handle = h;
	m->qp_state = state;
	switch (state) {
	case IB_QPS_INIT:
		mask |= IB_QP_PKEY_INDEX | IB_QP_PORT |
			(ud ? IB_QP_QKEY : IB_QP_ACCESS_FLAGS);
		break;
	case IB_QPS_RTR:
		if (!ud) {
			mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
				IB_QP_RQ_PSN;
			if (qpt == IB_UVERBS_QPT_RC || tgt)
				mask |= IB_QP_MAX_DEST_RD_ATOMIC |
					IB_QP_MIN_RNR_TIMER;
		}
		break;
	case IB_QPS_RTS:
		mask |= IB_QP_SQ_PSN;
		if (qpt == IB_UVERBS_QPT_RC || ini)
			mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
				IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC;
		else if (tgt)	/* IBTA 9.5.1.2: no requester side */
			mask |= IB_QP_TIMEOUT;
		break;
	default:
		break;
	}
	fill_dest(c, &m->dest, valid);
	m->qkey = PICK(valid ? 100 : keep, 0x1234, fz32());
	m->rq_psn = PICK(valid ? 100 : keep, rnd(1 << 24), fz32());
	m->sq_psn = PICK(valid ? 100 : keep, rnd(1 << 24), fz32());
	m->dest_qp_num = PICK(valid ? 100 : keep, dqpn, fz32());
	m->qp_access_flags = PICK(valid ? 100 : keep, rnd(16), fz32());
	m->path_mtu = PICK(valid ? 100 : keep, IB_MTU_1024, fz8());
	m->path_mig_state = PICK(valid ? 100 : keep, 0, fz8());
	m->max_rd_atomic = PICK(valid ? 100 : keep, rnd(8), fz8());
	m->max_dest_rd_atomic = PICK(valid ? 100 : keep, rnd(8), fz8());
	m->min_rnr_timer = PICK(valid ? 100 : keep, 12, fz8());
	m->port_num = PICK(valid ? 100 : keep, 1, fz8());
	m->timeout = PICK(valid ? 100 : keep, 14, fz8());
	m->retry_cnt = PICK(valid ? 100 : keep, 7, fz8());
	m->rnr_retry = PICK(valid ? 100 : keep, 7, fz8());
	m->pkey_index = PICK(valid ? 100 : keep, 0, fz32());
	if (!valid) {
		m->cur_qp_state = fz8();
		m->en_sqd_async_notify = fz8();
		m->alt_port_num = fz8();
		m->alt_timeout = fz8();
		m->alt_pkey_index = fz32();
		fill_dest(c, &m->alt_dest, false);
		if (chance(40))
			m->qp_state = rnd(8);
		if (chance(50))
			mask = chance(50) ? (uint32_t)rnd64() & 0x3fffff : fz32();
		else if (chance(40))
			mask ^= 1U << rnd(24);
		if (chance(30))
			m->reserved[rnd(2)] = fz8();
	}
	m->attr_mask = mask;
	if (ex) {
		xc->rate_limit = PICK(valid ? 100 : keep, 0, fz32());
		xc->reserved = PICK(valid ? 100 : keep, 0, fz32());
		r.core_len = sizeof(*xc);
		r.resp_core = valid || chance(50) ?
			sizeof(struct ib_uverbs_ex_modify_qp_resp) : 0;
		r.resp = resp_ptr(valid ? 0 : 12);
	} else {
		r.core_len = sizeof(*m);
	}
	if (!valid) {
		r.drv_in = drv_size(0, false);
		r.drv_in_junk = chance(40);
	}
	return wsend(c, &r, !valid && chance(12));
}

/* destroy: the core struct has the handle first or after the response */
static int uv_destroy(struct uctx *c, int t, uint32_t h, bool valid)
{
	struct wreq r = { 0 };
	int err;

	memset(r.core, 0, sizeof(r.core));
	switch (t) {
	case O_PD:
		r.cmd = IB_USER_VERBS_CMD_DEALLOC_PD;
		((struct ib_uverbs_dealloc_pd *)r.core)->pd_handle = h;
		r.core_len = sizeof(struct ib_uverbs_dealloc_pd);
		break;
	case O_MR:
		r.cmd = IB_USER_VERBS_CMD_DEREG_MR;
		((struct ib_uverbs_dereg_mr *)r.core)->mr_handle = h;
		r.core_len = sizeof(struct ib_uverbs_dereg_mr);
		break;
	case O_MW:
		r.cmd = IB_USER_VERBS_CMD_DEALLOC_MW;
		((struct ib_uverbs_dealloc_mw *)r.core)->mw_handle = h;
		r.core_len = sizeof(struct ib_uverbs_dealloc_mw);
		break;
	case O_AH:
		r.cmd = IB_USER_VERBS_CMD_DESTROY_AH;
		((struct ib_uverbs_destroy_ah *)r.core)->ah_handle = h;
		r.core_len = sizeof(struct ib_uverbs_destroy_ah);
		break;
	case O_CQ:
		r.cmd = IB_USER_VERBS_CMD_DESTROY_CQ;
		r.has_resp = true;
		((struct ib_uverbs_destroy_cq *)r.core)->cq_handle = h;
		r.core_len = sizeof(struct ib_uverbs_destroy_cq);
		r.resp_core = sizeof(struct ib_uverbs_destroy_cq_resp);
		break;
	case O_QP:
		r.cmd = IB_USER_VERBS_CMD_DESTROY_QP;
		r.has_resp = true;
		((struct ib_uverbs_destroy_qp *)r.core)->qp_handle = h;
		r.core_len = sizeof(struct ib_uverbs_destroy_qp);
		r.resp_core = sizeof(struct ib_uverbs_destroy_qp_resp);
		break;
	case O_XRCD:
		r.cmd = IB_USER_VERBS_CMD_CLOSE_XRCD;
		((struct ib_uverbs_close_xrcd *)r.core)->xrcd_handle = h;
		r.core_len = sizeof(struct ib_uverbs_close_xrcd);
		break;
	case O_SRQ:
		r.cmd = IB_USER_VERBS_CMD_DESTROY_SRQ;
		r.has_resp = true;
		((struct ib_uverbs_destroy_srq *)r.core)->srq_handle = h;
		r.core_len = sizeof(struct ib_uverbs_destroy_srq);
		r.resp_core = sizeof(struct ib_uverbs_destroy_srq_resp);
		break;
	}
	r.resp = resp_ptr(valid ? 0 : 12);
	if (!valid && chance(30)) {
		r.drv_in = 8 * rnd(4);
		r.drv_in_junk = chance(50);
	}
	if (!valid && chance(20))	/* the legacy 16-byte DESTROY_CQ */
		r.core_len -= r.core_len > 8 ? 8 : 0;
	err = wsend(c, &r, !valid && chance(10));
	if (!err)
		obj_gone(c, t, h);
	return err;
}

/* --- uverbs: the ioctl() ABI ------------------------------------------------ */

enum { K_IDR_NEW = 1, K_IDR, K_IDR_DESTROY, K_FD_NEW, K_FD_CHAN, K_FD_ASYNC,
       K_IN, K_OUT, K_FLAGS, K_UHW_IN, K_UHW_OUT };
enum { V_ANY, V_CQE, V_VEC, V_WR, V_SGE, V_ZERO, V_QPTYPE, V_PORT, V_GIDIDX,
       V_OBJ, V_WRCMD, V_QPCAP, V_ESIZE, V_ONE };

/* the sizes are the kernel's: a CONST_IN is 8 bytes, a FLAGS_IN 4 or 8 */
struct aspec {
	uint16_t id;
	uint8_t kind;
	int8_t otype;
	uint16_t size;		/* K_IN, K_OUT, K_FLAGS, K_UHW_OUT */
	uint8_t vk;		/* K_IN: what a valid value is */
	uint8_t opt;		/* optional; OPT_FUZZ: and never valid here */
};

#define OPT_FUZZ 2

struct mspec {
	const char *name;
	uint16_t obj, meth;
	int8_t creates;		/* object type or -1 */
	int8_t destroys;
	struct aspec a[20];
};

#define A(id, kind, ot, size, vk, opt) { id, kind, ot, size, vk, opt }
#define UHW(out) A(UVERBS_ATTR_UHW_IN, K_UHW_IN, -1, 0, V_ZERO, true),	\
		 A(UVERBS_ATTR_UHW_OUT, K_UHW_OUT, -1, out, V_ANY, out == 0)
#define DESTROY(o, m, t, attr) { "destroy_" #t, o, m, -1, t,		\
	{ A(attr, K_IDR_DESTROY, t, 0, V_ANY, false) } }

static const struct mspec methods[] = {
	{ "cq_create", UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, O_CQ, -1, {
		A(UVERBS_ATTR_CREATE_CQ_HANDLE, K_IDR_NEW, O_CQ, 0, V_ANY, false),
		A(UVERBS_ATTR_CREATE_CQ_CQE, K_IN, -1, 4, V_CQE, false),
		A(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, K_IN, -1, 8, V_ANY, false),
		A(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, K_FD_CHAN, -1, 0, V_ANY, true),
		A(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, K_IN, -1, 4, V_VEC, false),
		A(UVERBS_ATTR_CREATE_CQ_FLAGS, K_FLAGS, -1, 8, V_ZERO, true),
		A(UVERBS_ATTR_CREATE_CQ_RESP_CQE, K_OUT, -1, 4, V_ANY, false),
		A(UVERBS_ATTR_CREATE_CQ_EVENT_FD, K_FD_ASYNC, -1, 0, V_ANY, true),
		UHW(sizeof(struct sv_create_cq_resp)),
	} },
	{ "cq_destroy", UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY, -1, O_CQ, {
		A(UVERBS_ATTR_DESTROY_CQ_HANDLE, K_IDR_DESTROY, O_CQ, 0, V_ANY, false),
		A(UVERBS_ATTR_DESTROY_CQ_RESP, K_OUT, -1,
		  sizeof(struct ib_uverbs_destroy_cq_resp), V_ANY, false),
	} },
	{ "qp_create", UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, O_QP, -1, {
		A(UVERBS_ATTR_CREATE_QP_HANDLE, K_IDR_NEW, O_QP, 0, V_ANY, false),
		A(UVERBS_ATTR_CREATE_QP_PD_HANDLE, K_IDR, O_PD, 0, V_ANY, false),
		A(UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, K_IDR, O_CQ, 0, V_ANY, false),
		A(UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, K_IDR, O_CQ, 0, V_ANY, false),
		A(UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, K_IDR, O_SRQ, 0, V_ANY, true),
		A(UVERBS_ATTR_CREATE_QP_XRCD_HANDLE, K_IDR, O_XRCD, 0, V_ANY, OPT_FUZZ),
		A(UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE, K_IDR, O_CQ, 0, V_ANY, OPT_FUZZ),
		A(UVERBS_ATTR_CREATE_QP_USER_HANDLE, K_IN, -1, 8, V_ANY, false),
		A(UVERBS_ATTR_CREATE_QP_CAP, K_IN, -1,
		  sizeof(struct ib_uverbs_qp_cap), V_QPCAP, false),
		A(UVERBS_ATTR_CREATE_QP_TYPE, K_IN, -1, 8, V_QPTYPE, false),
		A(UVERBS_ATTR_CREATE_QP_FLAGS, K_FLAGS, -1, 4, V_ZERO, true),
		A(UVERBS_ATTR_CREATE_QP_SOURCE_QPN, K_IN, -1, 4, V_ANY, OPT_FUZZ),
		A(UVERBS_ATTR_CREATE_QP_EVENT_FD, K_FD_ASYNC, -1, 0, V_ANY, true),
		A(UVERBS_ATTR_CREATE_QP_RESP_CAP, K_OUT, -1,
		  sizeof(struct ib_uverbs_qp_cap), V_ANY, false),
		A(UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, K_OUT, -1, 4, V_ANY, false),
		UHW(sizeof(struct sv_create_qp_resp)),
	} },
	{ "qp_destroy", UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY, -1, O_QP, {
		A(UVERBS_ATTR_DESTROY_QP_HANDLE, K_IDR_DESTROY, O_QP, 0, V_ANY, false),
		A(UVERBS_ATTR_DESTROY_QP_RESP, K_OUT, -1,
		  sizeof(struct ib_uverbs_destroy_qp_resp), V_ANY, false),
	} },
	{ "srq_create", UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_CREATE, O_SRQ, -1, {
		A(UVERBS_ATTR_CREATE_SRQ_HANDLE, K_IDR_NEW, O_SRQ, 0, V_ANY, false),
		A(UVERBS_ATTR_CREATE_SRQ_PD_HANDLE, K_IDR, O_PD, 0, V_ANY, false),
		A(UVERBS_ATTR_CREATE_SRQ_TYPE, K_IN, -1, 8, V_ZERO, false),
		A(UVERBS_ATTR_CREATE_SRQ_USER_HANDLE, K_IN, -1, 8, V_ANY, false),
		A(UVERBS_ATTR_CREATE_SRQ_MAX_WR, K_IN, -1, 4, V_WR, false),
		A(UVERBS_ATTR_CREATE_SRQ_MAX_SGE, K_IN, -1, 4, V_SGE, false),
		A(UVERBS_ATTR_CREATE_SRQ_LIMIT, K_IN, -1, 4, V_ZERO, false),
		A(UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE, K_IDR, O_CQ, 0, V_ANY, OPT_FUZZ),
		A(UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS, K_IN, -1, 4, V_ANY, OPT_FUZZ),
		A(UVERBS_ATTR_CREATE_SRQ_EVENT_FD, K_FD_ASYNC, -1, 0, V_ANY, true),
		A(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR, K_OUT, -1, 4, V_ANY, false),
		A(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE, K_OUT, -1, 4, V_ANY, false),
		A(UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM, K_OUT, -1, 4, V_ANY, true),
		UHW(sizeof(struct sv_create_srq_resp)),
	} },
	{ "srq_destroy", UVERBS_OBJECT_SRQ, UVERBS_METHOD_SRQ_DESTROY, -1, O_SRQ, {
		A(UVERBS_ATTR_DESTROY_SRQ_HANDLE, K_IDR_DESTROY, O_SRQ, 0, V_ANY, false),
		A(UVERBS_ATTR_DESTROY_SRQ_RESP, K_OUT, -1,
		  sizeof(struct ib_uverbs_destroy_srq_resp), V_ANY, false),
	} },
	DESTROY(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, O_PD,
		UVERBS_ATTR_DESTROY_PD_HANDLE),
	DESTROY(UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY, O_MR,
		UVERBS_ATTR_DESTROY_MR_HANDLE),
	DESTROY(UVERBS_OBJECT_MW, UVERBS_METHOD_MW_DESTROY, O_MW,
		UVERBS_ATTR_DESTROY_MW_HANDLE),
	DESTROY(UVERBS_OBJECT_AH, UVERBS_METHOD_AH_DESTROY, O_AH,
		UVERBS_ATTR_DESTROY_AH_HANDLE),
	{ "mr_query", UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, -1, -1, {
		A(UVERBS_ATTR_QUERY_MR_HANDLE, K_IDR, O_MR, 0, V_ANY, false),
		A(UVERBS_ATTR_QUERY_MR_RESP_RKEY, K_OUT, -1, 4, V_ANY, false),
		A(UVERBS_ATTR_QUERY_MR_RESP_LKEY, K_OUT, -1, 4, V_ANY, false),
		A(UVERBS_ATTR_QUERY_MR_RESP_LENGTH, K_OUT, -1, 8, V_ANY, false),
		A(UVERBS_ATTR_QUERY_MR_RESP_IOVA, K_OUT, -1, 8, V_ANY, true),
	} },
	{ "mr_advise", UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR, -1, -1, {
		A(UVERBS_ATTR_ADVISE_MR_PD_HANDLE, K_IDR, O_PD, 0, V_ANY, false),
		A(UVERBS_ATTR_ADVISE_MR_ADVICE, K_IN, -1, 8, V_ZERO, false),
		A(UVERBS_ATTR_ADVISE_MR_FLAGS, K_FLAGS, -1, 4, V_ZERO, false),
		A(UVERBS_ATTR_ADVISE_MR_SGE_LIST, K_IN, -1, 16, V_ANY, false),
	} },
	{ "mr_reg_dmabuf", UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR, O_MR, -1, {
		A(UVERBS_ATTR_REG_DMABUF_MR_HANDLE, K_IDR_NEW, O_MR, 0, V_ANY, false),
		A(UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, K_IDR, O_PD, 0, V_ANY, false),
		A(UVERBS_ATTR_REG_DMABUF_MR_OFFSET, K_IN, -1, 8, V_ZERO, false),
		A(UVERBS_ATTR_REG_DMABUF_MR_LENGTH, K_IN, -1, 8, V_ANY, false),
		A(UVERBS_ATTR_REG_DMABUF_MR_IOVA, K_IN, -1, 8, V_ANY, false),
		A(UVERBS_ATTR_REG_DMABUF_MR_FD, K_IN, -1, 4, V_ANY, false),
		A(UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, K_FLAGS, -1, 4, V_ANY, false),
		A(UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, K_OUT, -1, 4, V_ANY, false),
		A(UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, K_OUT, -1, 4, V_ANY, false),
	} },
	{ "invoke_write", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, -1, -1, {
		A(UVERBS_ATTR_WRITE_CMD, K_IN, -1, 8, V_WRCMD, false),
		A(UVERBS_ATTR_CORE_IN, K_IN, -1, 64, V_ANY, true),
		A(UVERBS_ATTR_CORE_OUT, K_OUT, -1, 64, V_ANY, true),
		UHW(0),
	} },
	{ "info_handles", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES, -1, -1, {
		A(UVERBS_ATTR_INFO_OBJECT_ID, K_IN, -1, 8, V_OBJ, false),
		A(UVERBS_ATTR_INFO_TOTAL_HANDLES, K_OUT, -1, 4, V_ANY, true),
		A(UVERBS_ATTR_INFO_HANDLES_LIST, K_OUT, -1, 64, V_ANY, true),
	} },
	{ "query_port", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, -1, -1, {
		A(UVERBS_ATTR_QUERY_PORT_PORT_NUM, K_IN, -1, 8, V_PORT, false),
		A(UVERBS_ATTR_QUERY_PORT_RESP, K_OUT, -1,
		  sizeof(struct ib_uverbs_query_port_resp_ex), V_ANY, false),
	} },
	{ "get_context", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT, -1, -1, {
		A(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, K_OUT, -1, 4, V_ANY, true),
		A(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, K_OUT, -1, 8, V_ANY, true),
		UHW(0),
	} },
	{ "query_context", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT, -1, -1, {
		A(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, K_OUT, -1, 4, V_ANY, true),
		A(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, K_OUT, -1, 8, V_ANY, true),
	} },
	{ "query_gid_table", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE, -1, -1, {
		A(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, K_IN, -1, 8, V_ESIZE, false),
		A(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, K_FLAGS, -1, 4, V_ZERO, true),
		A(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, K_OUT, -1, 256, V_ANY, false),
		A(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, K_OUT, -1, 8, V_ANY, false),
	} },
	{ "query_gid_entry", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY, -1, -1, {
		A(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, K_IN, -1, 8, V_ONE, false),
		A(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, K_IN, -1, 8, V_GIDIDX, false),
		A(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, K_FLAGS, -1, 4, V_ZERO, false),
		A(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, K_OUT, -1,
		  sizeof(struct ib_uverbs_gid_entry), V_ANY, false),
	} },
	{ "async_event_alloc", UVERBS_OBJECT_ASYNC_EVENT,
	  UVERBS_METHOD_ASYNC_EVENT_ALLOC, -1, -1, {
		A(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, K_FD_NEW, -1, 0, V_ANY, false),
	} },
};

static uint64_t valid_in(struct uctx *c, uint8_t vk, void *ptr_space,
			 uint16_t size)
{
	switch (vk) {
	case V_CQE:
		return 1 + rnd(256);
	case V_WR:
		return 1 + rnd(128);
	case V_SGE:
		return 1 + rnd(4);
	case V_QPTYPE:
		return qp_types[rnd(ARRAY_SIZE(qp_types))];
	case V_PORT:
	case V_ONE:
		return 1;
	case V_GIDIDX:
		return chance(50) ? c->gid_idx : rnd(8);
	case V_OBJ:
		return rnd(O_NUM + 2);
	case V_WRCMD:
		return rnd(IB_USER_VERBS_CMD_OPEN_QP + 1);
	case V_ESIZE:
		return sizeof(struct ib_uverbs_gid_entry);
	case V_QPCAP: {
		struct ib_uverbs_qp_cap *cap = ptr_space;

		cap->max_send_wr = rnd(64);
		cap->max_recv_wr = rnd(64);
		cap->max_send_sge = rnd(4);
		cap->max_recv_sge = rnd(4);
		cap->max_inline_data = rnd(64);
		(void)size;
		return 0;
	}
	case V_VEC:
	case V_ZERO:
		return 0;
	default:
		return rnd64();
	}
}

/*
 * One RDMA_VERBS_IOCTL call of method @m, valid or fuzzed; or (@m NULL)
 * random ids and attributes.  Tracks what a create made or a destroy
 * removed.  Returns 0 or -errno.
 */
static int ioctl_send(struct uctx *c, const struct mspec *m, bool valid)
{
	uint8_t *buf = zone + 24 * 1024;	/* 24..40 KiB: header, attributes */
	uint8_t *data = zone + 40 * 1024;	/* 40..64 KiB: pointed-at data */
	struct ib_uverbs_ioctl_hdr *hdr = (void *)buf;
	struct ib_uverbs_attr *a = hdr->attrs;
	size_t doff = 0;
	int n = 0, handle_at = -1, qpn_at = -1, uhw_at = -1, uhw_len = 0;
	uint32_t destroyed = ~0U;
	int ret;

	memset(hdr, 0, sizeof(*hdr));
	hdr->driver_id = RDMA_DRIVER_RXE;
	if (!m) {
		hdr->object_id = chance(50) ? rnd(20) : (chance(50) ?
			(1U << UVERBS_ID_NS_SHIFT) | rnd(8) : fz32());
		hdr->method_id = chance(60) ? rnd(10) : fz32();
		/* never GET_CONTEXT on a used fd: see uctx_open() */
		if (hdr->object_id == UVERBS_OBJECT_DEVICE &&
		    hdr->method_id == UVERBS_METHOD_GET_CONTEXT)
			hdr->method_id = UVERBS_METHOD_QUERY_CONTEXT;
		n = rnd(12);
		for (int i = 0; i < n; i++) {
			memset(&a[i], 0, sizeof(a[i]));
			a[i].attr_id = chance(60) ? rnd(20) : (chance(50) ?
				UVERBS_ATTR_UHW_IN + rnd(2) : fz32());
			a[i].len = chance(50) ? rnd(16) : fz32();
			a[i].flags = chance(70) ? rnd(4) : fz32();
			a[i].attr_data.reserved = chance(80) ? 0 : fz32();
			a[i].data = chance(40) ? rnd(40) : (chance(50) ?
				(uint64_t)(uintptr_t)data : bad_ptr());
		}
		memset(data, 0, 512);
		goto send;
	}

	hdr->object_id = m->obj;
	hdr->method_id = m->meth;
	for (size_t i = 0; i < ARRAY_SIZE(m->a) && m->a[i].kind; i++) {
		const struct aspec *s = &m->a[i];
		struct ib_uverbs_attr *x = &a[n];
		bool ok = valid || chance(80);

		if (s->opt && s->kind != K_UHW_OUT &&
		    (valid ? s->opt == OPT_FUZZ || chance(70) : chance(40)))
			continue;
		/* a valid call names only objects and fds that exist */
		if (valid && s->opt &&
		    ((s->kind == K_IDR && live_handle(c, s->otype) == ~0U) ||
		     (s->kind == K_FD_CHAN && c->chan[0] < 0) ||
		     (s->kind == K_FD_ASYNC && c->async_fd < 0)))
			continue;
		if (!valid && chance(4))	/* a mandatory one missing */
			continue;
		memset(x, 0, sizeof(*x));
		x->attr_id = s->id;
		x->flags = valid ? UVERBS_ATTR_F_MANDATORY * rnd(2) :
			(chance(85) ? rnd(2) : fz32());
		switch (s->kind) {
		case K_IDR_NEW:
			x->data = ok ? 0 : fz64();
			handle_at = n;
			break;
		case K_IDR:
			x->data = ok ? live_handle(c, s->otype) :
				       pick_handle(c, s->otype, 30);
			break;
		case K_IDR_DESTROY:
			x->data = valid ? live_handle(c, s->otype) :
				  pick_handle(c, s->otype, 60);
			destroyed = x->data;
			break;
		case K_FD_NEW:
			x->data = ok ? 0 : fz64();
			break;
		case K_FD_CHAN:
			x->data = valid ? c->chan[0] : ok ? pick_fd(c, true) :
				  (int64_t)(int32_t)fz32();
			break;
		case K_FD_ASYNC:
			x->data = valid ? c->async_fd : ok ? pick_fd(c, false) :
				  (int64_t)(int32_t)fz32();
			break;
		case K_IN:
		case K_FLAGS: {
			uint16_t len = s->size;
			uint64_t v;

			memset(data + doff, 0, 64);
			v = valid_in(c, s->vk, data + doff, len);
			if (!ok) {
				v = fz64();
				if (chance(40))
					len = chance(50) ? rnd(24) : fz32();
				for (int k = 0; k < 32; k++)
					data[doff + k] = chance(70) ? 0 : rnd(256);
			}
			x->len = len;
			if (len <= 8 && s->vk != V_QPCAP) {
				memcpy(&x->data, &v, sizeof(v));
				if (len < 8)
					x->data &= (1ULL << (8 * len)) - 1;
				if (!ok && chance(20))
					x->data = fz64();
			} else {
				x->data = ok || chance(50) ?
					(uint64_t)(uintptr_t)(data + doff) : bad_ptr();
				doff += 64;
			}
			break;
		}
		case K_OUT:
		case K_UHW_OUT:
			x->len = s->size;
			if (!ok)
				x->len = chance(50) ? rnd(s->size + 16) : fz32();
			x->data = ok || chance(40) ?
				(uint64_t)(uintptr_t)(data + doff) : bad_ptr();
			memset(data + doff, 0, 256);
			if (s->id == UVERBS_ATTR_CREATE_QP_RESP_QP_NUM &&
			    m->obj == UVERBS_OBJECT_QP)
				qpn_at = n;
			if (s->kind == K_UHW_OUT) {
				uhw_at = n;
				uhw_len = x->len;
			}
			doff += 256;
			break;
		case K_UHW_IN:
			x->len = ok ? 0 : rnd(24);
			memset(data + doff, 0, 64);
			if (!ok && chance(50))
				data[doff + rnd(24)] = 1 + rnd(255);
			x->data = (uint64_t)(uintptr_t)(data + doff);
			if (x->len <= 8)
				memcpy(&x->data, data + doff, 8);
			doff += 64;
			break;
		}
		if (!ok && chance(15))
			x->attr_data.reserved = fz32();
		n++;
		if (!valid && chance(5) && n < 30) {	/* a duplicate */
			a[n] = a[n - 1];
			n++;
		}
	}
	if (!valid && chance(10) && n < 30) {	/* an unknown attribute */
		memset(&a[n], 0, sizeof(a[n]));
		a[n].attr_id = chance(50) ? 16 + rnd(8) : fz32();
		a[n].flags = rnd(2);
		a[n].len = rnd(16);
		n++;
	}
	if (!valid && n > 1 && chance(20)) {	/* order does not matter */
		int i = rnd(n), j = rnd(n);
		struct ib_uverbs_attr t = a[i];

		a[i] = a[j];
		a[j] = t;
		if (handle_at == i)
			handle_at = j;
		else if (handle_at == j)
			handle_at = i;
		if (qpn_at == i)
			qpn_at = j;
		else if (qpn_at == j)
			qpn_at = i;
		if (uhw_at == i)
			uhw_at = j;
		else if (uhw_at == j)
			uhw_at = i;
	}

send:
	hdr->num_attrs = n;
	hdr->length = sizeof(*hdr) + n * sizeof(*a);
	void *arg = hdr;
	unsigned long req = RDMA_VERBS_IOCTL;

	if (!valid) {
		switch (rnd(16)) {
		case 0:
			hdr->length += chance(50) ? 8 : -8;
			break;
		case 1:
			hdr->num_attrs = fz32();
			break;
		case 2:
			hdr->reserved1 = fz64();
			break;
		case 3:
			hdr->reserved2 = fz32();
			break;
		case 4:
			hdr->driver_id = rnd(32);
			break;
		case 5:
			arg = (void *)(uintptr_t)bad_ptr();
			break;
		case 6:		/* the kernel cannot write new ids back */
			if (hdr->length <= PAGE) {
				mprotect(ro_page, PAGE, PROT_READ | PROT_WRITE);
				memcpy(ro_page, hdr, hdr->length);
				mprotect(ro_page, PAGE, PROT_READ);
				arg = ro_page;
			}
			break;
		case 7:		/* attributes run into a faulting page */
			if (hdr->length <= PAGE) {
				arg = none_page - hdr->length + 8 * (1 + rnd(n + 1));
				memcpy(arg, hdr, none_page - (uint8_t *)arg);
			}
			break;
		case 8:
			req = _IOWR(RDMA_IOCTL_MAGIC, rnd(4), struct ib_uverbs_ioctl_hdr);
			break;
		default:
			break;
		}
	}
	count(C_IOCTL);
	ret = ioctl(c->fd, req, arg) ? -errno : 0;
	count_err(sh->ierr[m ? m - methods : NMETH - 1], ret);
	if (ret || !m || arg != hdr)
		return ret;
	count(C_IOCTL_OK);
	if (m->creates >= 0 && handle_at >= 0) {
		uint32_t qpn = 0;

		if (qpn_at >= 0 && a[qpn_at].len >= 4 &&
		    (uint8_t *)(uintptr_t)a[qpn_at].data >= data &&
		    (uint8_t *)(uintptr_t)a[qpn_at].data < data + 16384)
			memcpy(&qpn, (void *)(uintptr_t)a[qpn_at].data, 4);
		obj_add(c, m->creates, a[handle_at].data, qpn,
			IB_UVERBS_QPT_RC);
		if (uhw_at >= 0 && uhw_len >= 16 &&
		    (uint8_t *)(uintptr_t)a[uhw_at].data >= data &&
		    (uint8_t *)(uintptr_t)a[uhw_at].data < data + 16384) {
			struct sv_mmap_info *mi = (void *)(uintptr_t)a[uhw_at].data;

			add_ring(c, &mi[0]);
			if (m->creates == O_QP && uhw_len >= 32)
				add_ring(c, &mi[1]);
		}
	}
	if (m->destroys >= 0 && destroyed != ~0U)
		obj_gone(c, m->destroys, destroyed);
	return 0;
}

static const struct mspec *method(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(methods); i++)
		if (!strcmp(methods[i].name, name))
			return &methods[i];
	abort();
}

/* --- uverbs: the other write() commands, fuzzed ------------------------------- */

static void fuzz_write_misc(struct uctx *c)
{
	struct wreq r = { 0 };
	void *p = r.core;

	memset(r.core, 0, sizeof(r.core));
	r.resp = resp_ptr(15);
	switch (rnd(20)) {
	case 0: {
		struct ib_uverbs_query_port *q = p;

		r.cmd = IB_USER_VERBS_CMD_QUERY_PORT;
		r.has_resp = true;
		q->port_num = PICK(keep, 1, fz8());
		r.core_len = sizeof(*q);
		r.resp_core = sizeof(struct ib_uverbs_query_port_resp);
		break;
	}
	case 1:
		r.cmd = IB_USER_VERBS_CMD_QUERY_DEVICE;
		r.has_resp = true;
		r.core_len = sizeof(struct ib_uverbs_query_device);
		r.resp_core = sizeof(struct ib_uverbs_query_device_resp);
		break;
	case 2: {
		struct ib_uverbs_ex_query_device *q = p;

		r.cmd = IB_USER_VERBS_EX_CMD_QUERY_DEVICE;
		r.ex = true;
		q->comp_mask = PICK(keep, 0, fz32());
		q->reserved = PICK(keep, 0, fz32());
		r.core_len = sizeof(*q);
		r.resp_core = 8 * rnd(64);
		break;
	}
	case 3: {
		struct ib_uverbs_resize_cq *q = p;

		r.cmd = IB_USER_VERBS_CMD_RESIZE_CQ;
		r.has_resp = true;
		q->cq_handle = pick_handle(c, O_CQ, keep);
		q->cqe = PICK(keep, 1 + rnd(512), fz32());
		r.core_len = sizeof(*q);
		r.resp_core = sizeof(struct ib_uverbs_resize_cq_resp);
		r.drv_out = drv_size(sizeof(struct sv_resize_cq_resp), false);
		r.drv_in = drv_size(0, false);
		r.drv_in_junk = chance(30);
		break;
	}
	case 4: {
		struct ib_uverbs_poll_cq *q = p;

		r.cmd = IB_USER_VERBS_CMD_POLL_CQ;
		r.has_resp = true;
		q->cq_handle = pick_handle(c, O_CQ, keep);
		q->ne = PICK(keep, rnd(8), fz32());
		r.core_len = sizeof(*q);
		r.resp_core = sizeof(struct ib_uverbs_poll_cq_resp) +
			rnd(4) * sizeof(struct ib_uverbs_wc);
		break;
	}
	case 5: {
		struct ib_uverbs_req_notify_cq *q = p;

		r.cmd = IB_USER_VERBS_CMD_REQ_NOTIFY_CQ;
		q->cq_handle = pick_handle(c, O_CQ, keep);
		q->solicited_only = PICK(keep, rnd(2), fz32());
		r.core_len = sizeof(*q);
		break;
	}
	case 6: {
		struct ib_uverbs_query_qp *q = p;

		r.cmd = IB_USER_VERBS_CMD_QUERY_QP;
		r.has_resp = true;
		q->qp_handle = pick_handle(c, O_QP, keep);
		q->attr_mask = fz32();
		r.core_len = sizeof(*q);
		r.resp_core = sizeof(struct ib_uverbs_query_qp_resp);
		break;
	}
	case 7: {	/* post_send through the system call (no librxe ABI) */
		struct ib_uverbs_post_send *q = p;
		struct ib_uverbs_send_wr *wr = (void *)(q + 1);
		uint32_t nwr = rnd(3), nsge = rnd(3);

		r.cmd = IB_USER_VERBS_CMD_POST_SEND;
		r.has_resp = true;
		q->qp_handle = pick_handle(c, O_QP, keep);
		q->wr_count = PICK(keep, nwr, fz32());
		q->sge_count = PICK(keep, nsge, fz32());
		q->wqe_size = PICK(keep, sizeof(*wr), fz32());
		for (uint32_t i = 0; i < nwr; i++) {
			wr[i].wr_id = rnd64();
			wr[i].num_sge = PICK(keep, nsge / (nwr ? nwr : 1), fz32());
			wr[i].opcode = PICK(keep, rnd(16), fz32());
			wr[i].send_flags = PICK(keep, rnd(16), fz32());
			wr[i].wr.ud.ah = pick_handle(c, O_AH, keep);
			wr[i].wr.ud.remote_qpn = fz32();
		}
		struct ib_uverbs_sge *sg = (void *)(wr + nwr);

		for (uint32_t i = 0; i < nsge; i++) {
			sg[i].addr = (uint64_t)(uintptr_t)mr_buf + rnd(PAGE);
			sg[i].length = PICK(keep, rnd(PAGE), fz32());
			sg[i].lkey = fz32();
		}
		r.core_len = sizeof(*q) + nwr * sizeof(*wr) + nsge * sizeof(*sg);
		r.resp_core = sizeof(struct ib_uverbs_post_send_resp);
		break;
	}
	case 8:
	case 9: {	/* post_recv, post_srq_recv */
		struct ib_uverbs_post_recv *q = p;
		struct ib_uverbs_recv_wr *wr = (void *)(q + 1);
		uint32_t nwr = rnd(3), nsge = rnd(3);
		bool srq = rnd(2);

		r.cmd = srq ? IB_USER_VERBS_CMD_POST_SRQ_RECV :
			      IB_USER_VERBS_CMD_POST_RECV;
		r.has_resp = true;
		q->qp_handle = srq ? pick_handle(c, O_SRQ, keep) :
				     pick_handle(c, O_QP, keep);
		q->wr_count = PICK(keep, nwr, fz32());
		q->sge_count = PICK(keep, nsge, fz32());
		q->wqe_size = PICK(keep, sizeof(*wr), fz32());
		for (uint32_t i = 0; i < nwr; i++) {
			wr[i].wr_id = rnd64();
			wr[i].num_sge = PICK(keep, nsge / (nwr ? nwr : 1), fz32());
		}
		struct ib_uverbs_sge *sg = (void *)(wr + nwr);

		for (uint32_t i = 0; i < nsge; i++) {
			sg[i].addr = (uint64_t)(uintptr_t)mr_buf + rnd(PAGE);
			sg[i].length = PICK(keep, rnd(PAGE), fz32());
			sg[i].lkey = fz32();
		}
		r.core_len = sizeof(*q) + nwr * sizeof(*wr) + nsge * sizeof(*sg);
		r.resp_core = sizeof(struct ib_uverbs_post_recv_resp);
		break;
	}
	case 10:
	case 11: {	/* attach/detach_mcast: UD QPs, any GID */
		struct ib_uverbs_attach_mcast *q = p;

		r.cmd = rnd(2) ? IB_USER_VERBS_CMD_ATTACH_MCAST :
				 IB_USER_VERBS_CMD_DETACH_MCAST;
		fill_gid(c, q->gid, false);
		if (chance(60)) {
			memset(q->gid, 0, 16);
			q->gid[0] = 0xff;
			q->gid[1] = 0x0e;
			q->gid[15] = rnd(4);
		}
		q->qp_handle = pick_handle(c, O_QP, keep);
		q->mlid = PICK(keep, 0, fz32());
		q->reserved = PICK(keep, 0, fz32());
		r.core_len = sizeof(*q);
		r.drv_in = drv_size(0, false);
		r.drv_in_junk = chance(30);
		break;
	}
	case 12: {	/* modify_srq, with the rxe ABI's mmap_info_addr */
		struct ib_uverbs_modify_srq *q = p;
		struct sv_modify_srq_cmd *d = (void *)(q + 1);

		r.cmd = IB_USER_VERBS_CMD_MODIFY_SRQ;
		q->srq_handle = pick_handle(c, O_SRQ, keep);
		q->attr_mask = PICK(keep, 1 + rnd(3), fz32());
		q->max_wr = PICK(keep, 1 + rnd(256), fz32());
		q->srq_limit = PICK(keep, rnd(64), fz32());
		d->mmap_info_addr = chance(60) ?
			(uint64_t)(uintptr_t)(RESP + 2048) : bad_ptr();
		r.core_len = sizeof(*q) + (chance(80) ? sizeof(*d) : 0);
		r.drv_in = chance(20) ? 8 * rnd(3) : 0;
		break;
	}
	case 13: {
		struct ib_uverbs_query_srq *q = p;

		r.cmd = IB_USER_VERBS_CMD_QUERY_SRQ;
		r.has_resp = true;
		q->srq_handle = pick_handle(c, O_SRQ, keep);
		q->reserved = PICK(keep, 0, fz32());
		r.core_len = sizeof(*q);
		r.resp_core = sizeof(struct ib_uverbs_query_srq_resp);
		break;
	}
	case 14: {
		struct ib_uverbs_rereg_mr *q = p;
		uint64_t start = (uint64_t)(uintptr_t)mr_buf + rnd(MR_BUF_SIZE / 2);

		r.cmd = IB_USER_VERBS_CMD_REREG_MR;
		r.has_resp = true;
		q->mr_handle = pick_handle(c, O_MR, keep);
		q->flags = PICK(keep, 1 + rnd(7), fz32());
		q->start = PICK(keep, start, bad_ptr());
		q->length = PICK(keep, 1 + rnd(MR_BUF_SIZE / 2), fz64());
		q->hca_va = PICK(keep, start, fz64());
		q->pd_handle = pick_handle(c, O_PD, keep);
		q->access_flags = PICK(keep, mr_access(), fz32());
		r.core_len = sizeof(*q);
		r.resp_core = sizeof(struct ib_uverbs_rereg_mr_resp);
		r.drv_in = drv_size(0, false);
		r.drv_out = drv_size(0, false);
		break;
	}
	case 15: {	/* create_xsrq: a basic SRQ too, or XRC/TM refused */
		struct ib_uverbs_create_xsrq *q = p;

		r.cmd = IB_USER_VERBS_CMD_CREATE_XSRQ;
		r.has_resp = true;
		q->user_handle = rnd64();
		q->srq_type = PICK(keep, rnd(3), fz32());
		q->pd_handle = pick_handle(c, O_PD, keep);
		q->max_wr = PICK(keep, 1 + rnd(64), fz32());
		q->max_sge = PICK(keep, 1 + rnd(4), fz32());
		q->srq_limit = PICK(keep, 0, fz32());
		q->max_num_tags = fz32();
		q->xrcd_handle = pick_handle(c, O_XRCD, keep);
		q->cq_handle = pick_handle(c, O_CQ, keep);
		r.core_len = sizeof(*q);
		r.resp_core = sizeof(struct ib_uverbs_create_srq_resp);
		r.drv_out = drv_size(sizeof(struct sv_create_srq_resp), false);
		break;
	}
	case 16: {	/* extended commands softverbs has no op for */
		static const uint32_t ex[] = {
			IB_USER_VERBS_EX_CMD_CREATE_FLOW,
			IB_USER_VERBS_EX_CMD_DESTROY_FLOW,
			IB_USER_VERBS_EX_CMD_CREATE_WQ,
			IB_USER_VERBS_EX_CMD_MODIFY_WQ,
			IB_USER_VERBS_EX_CMD_DESTROY_WQ,
			IB_USER_VERBS_EX_CMD_CREATE_RWQ_IND_TBL,
			IB_USER_VERBS_EX_CMD_DESTROY_RWQ_IND_TBL,
			IB_USER_VERBS_EX_CMD_MODIFY_CQ,
		};

		r.cmd = ex[rnd(ARRAY_SIZE(ex))];
		r.ex = true;
		r.core_len = 8 * rnd(12);
		for (size_t i = 0; i < r.core_len; i++)
			r.core[i] = chance(60) ? 0 : rnd(256);
		if (r.core_len >= 4 && chance(60))
			*(uint32_t *)r.core = pick_handle(c, O_CQ, keep);
		r.resp_core = 8 * rnd(4);
		break;
	}
	case 17: {	/* legacy commands ib_core or softverbs do not offer */
		static const uint32_t cmds[] = {
			IB_USER_VERBS_CMD_MODIFY_AH, IB_USER_VERBS_CMD_QUERY_AH,
			IB_USER_VERBS_CMD_REG_SMR, IB_USER_VERBS_CMD_QUERY_MR,
			IB_USER_VERBS_CMD_BIND_MW, IB_USER_VERBS_CMD_PEEK_CQ,
			IB_USER_VERBS_CMD_OPEN_XRCD, IB_USER_VERBS_CMD_CLOSE_XRCD,
			IB_USER_VERBS_CMD_OPEN_QP, 41, 45, 49, 63, 0x7f, 0xff,
		};

		r.cmd = cmds[rnd(ARRAY_SIZE(cmds))];
		r.has_resp = chance(50);
		r.core_len = 8 * rnd(12);
		for (size_t i = r.has_resp ? 8 : 0; i < r.core_len; i++)
			r.core[i] = chance(60) ? 0 : rnd(256);
		r.resp_core = 8 * rnd(4);
		break;
	}
	case 18: {	/* comp channel */
		r.cmd = IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL;
		r.has_resp = true;
		r.core_len = sizeof(struct ib_uverbs_create_comp_channel);
		r.resp_core = sizeof(struct ib_uverbs_create_comp_channel_resp);
		r.resp = resp_ptr(10);
		if (!wsend(c, &r, chance(10)) && resp_good(r.resp)) {
			int i = rnd(4), fd = *(int *)RESP;

			pthread_mutex_lock(&hl);
			int old = c->chan[i];

			c->chan[i] = fd;
			pthread_mutex_unlock(&hl);
			if (old >= 0)
				close(old);
		}
		return;
	}
	default: {	/* anything at all */
		r.cmd = chance(50) ? rnd(64) : fz32();
		r.ex = chance(30);
		r.has_resp = chance(50);
		r.core_len = 8 * rnd(16);
		for (size_t i = r.has_resp ? 8 : 0; i < r.core_len; i++)
			r.core[i] = rnd(256);
		r.resp_core = 8 * rnd(8);
		r.drv_out = 8 * rnd(4);
		r.drv_in = 8 * rnd(4);
		r.drv_in_junk = true;
		break;
	}
	}
	wsend(c, &r, chance(15));
}

int main(int argc, char **argv);

/* --- uverbs: ODP, prefetch, dma-buf and XRC; memory races under MRs ---------- */

/*
 * RACE is an area of RACE_PAGES pages that MRs (ODP and pinned) cover and
 * that the racer thread unmaps, moves (mremap), drops (MADV_DONTNEED,
 * MADV_FREE, MADV_REMOVE on its shared parts), protects and touches under
 * them, and forks over.  Nothing else in the process uses it, so those
 * operations only change what the kernel finds behind the MRs.  A hole the
 * racer leaves is refilled with MAP_FIXED_NOREPLACE: if another mapping
 * (a ring) took it meanwhile, those pages are never the racer's again.
 */
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#define RACE_PAGES 128
static uint8_t *race_buf;
static uint8_t race_ours[RACE_PAGES];	/* the racer's own: only it reads this */
static double worker_end;

/* the L_Keys of registered MRs and what they cover, for advise_mr */
struct mrkey {
	uint32_t lkey;
	uint32_t pd;
	uint64_t addr, len;
};
static struct mrkey mrkeys[32];
static int nmrkeys;
static uint32_t probe_lkey;
static int udmabuf_fd = -1, dmabuf_memfd = -1, xrcd_file = -1;
#define DMABUF_SIZE (64 * 1024)

static void mrkey_add(uint32_t lkey, uint32_t pd, uint64_t addr, uint64_t len)
{
	pthread_mutex_lock(&hl);
	mrkeys[nmrkeys < 32 ? nmrkeys++ : (int)rnd(32)] =
		(struct mrkey){ lkey, pd, addr, len };
	pthread_mutex_unlock(&hl);
}

/* a range to register: in RACE mostly, else across its end, high, wrapping */
static void race_range(uint64_t *start, uint64_t *len)
{
	uint64_t base = (uint64_t)(uintptr_t)race_buf, size = RACE_PAGES * PAGE;
	uint64_t off = rnd(RACE_PAGES) * PAGE + (chance(30) ? rnd(PAGE) : 0);

	if (off >= size)
		off = size - 1;
	*start = base + off;
	*len = 1 + rnd(size - off);
	switch (chance(75) ? 0 : rnd(5)) {
	case 0:
		break;
	case 1:		/* over the end of RACE */
		*len += PAGE * (1 + rnd(64));
		break;
	case 2:		/* the top of the user address space */
		*start = 0x7ffffffff000ULL - PAGE * rnd(4) + rnd(PAGE);
		*len = PAGE * (1 + rnd(8));
		break;
	case 3:		/* wraps */
		*len = ~0ULL - *start + 1 + rnd(2 * PAGE);
		break;
	default:	/* MR_BUF, never unmapped */
		*start = (uint64_t)(uintptr_t)mr_buf + rnd(MR_BUF_SIZE / 2);
		*len = 1 + rnd(MR_BUF_SIZE / 2);
		break;
	}
}

/*
 * REG_MR over RACE (or elsewhere): with @odp IB_ACCESS_ON_DEMAND, and with
 * @implicit the whole address space (start 0, length SIZE_MAX), which
 * softverbs refuses unless it offers implicit ODP.
 */
static int uv_reg_race(struct uctx *c, bool valid, bool odp, bool implicit,
		       uint32_t pd)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_REG_MR, .has_resp = true };
	struct ib_uverbs_reg_mr *cmd = (void *)r.core;
	uint64_t start, len;
	int err;

	race_range(&start, &len);
	if (implicit) {
		start = 0;
		len = chance(80) ? ~0ULL : fz64();
	}
	memset(cmd, 0, sizeof(*cmd));
	cmd->start = start;
	cmd->length = len;
	cmd->hca_va = chance(70) || implicit ? start :
		((rnd64() >> 4) & ~(PAGE - 1)) | (start & (PAGE - 1));
	cmd->pd_handle = valid ? pd : pick_handle(c, O_PD, keep);
	cmd->access_flags = mr_access() | (odp ? IB_UVERBS_ACCESS_ON_DEMAND : 0);
	if (!valid) {
		cmd->hca_va = PICK(keep, cmd->hca_va, fz64());
		cmd->access_flags = PICK(keep, cmd->access_flags, fz32());
	}
	r.core_len = sizeof(*cmd);
	r.resp_core = sizeof(struct ib_uverbs_reg_mr_resp);
	r.resp = resp_ptr(valid ? 0 : 10);
	err = wsend(c, &r, !valid && chance(8));
	if (odp)
		count(C_ODP);
	if (!err && resp_good(r.resp)) {
		struct ib_uverbs_reg_mr_resp *resp = (void *)RESP;

		obj_add(c, O_MR, resp->mr_handle, 0, 0);
		mrkey_add(resp->lkey, cmd->pd_handle, cmd->hca_va, cmd->length);
	}
	return err;
}

/* one RDMA_VERBS_IOCTL with @n attributes already in @a; counts under @m */
static int ioc(struct uctx *c, const char *m, uint16_t obj, uint16_t meth,
	       struct ib_uverbs_attr *a, int n)
{
	struct ib_uverbs_ioctl_hdr *hdr = (void *)(zone + 24 * 1024);
	const struct mspec *ms = method(m);
	int ret;

	memset(hdr, 0, sizeof(*hdr));
	hdr->object_id = obj;
	hdr->method_id = meth;
	hdr->driver_id = RDMA_DRIVER_RXE;
	hdr->num_attrs = n;
	hdr->length = sizeof(*hdr) + n * sizeof(*a);
	memcpy(hdr->attrs, a, n * sizeof(*a));
	count(C_IOCTL);
	ret = ioctl(c->fd, RDMA_VERBS_IOCTL, hdr);
	count_err(sh->ierr[ms ? ms - methods : NMETH - 1], ret < 0 ? -errno : 0);
	if (ret < 0)
		return -errno;
	count(C_IOCTL_OK);
	memcpy(a, hdr->attrs, n * sizeof(*a));
	return 0;
}

#define ATTR(i, v, l) ((struct ib_uverbs_attr){ .attr_id = (i), .len = (l), \
	.flags = UVERBS_ATTR_F_MANDATORY * chance(50), .data = (v) })

/*
 * ADVISE_MR: PREFETCH, PREFETCH_WRITE or PREFETCH_NO_FAULT, with and
 * without FLUSH, over SGEs that name registered MRs (ODP or not, of this
 * PD or another) by L_Key, inside, across and outside their ranges, at
 * the top of the address space and wrapping.
 */
static void uv_advise(struct uctx *c)
{
	struct ib_uverbs_sge *sge = (void *)(zone + 40 * 1024);
	struct ib_uverbs_attr a[4];
	uint32_t pd = pick_handle(c, O_PD, 92);
	int nsge = chance(90) ? 1 + rnd(4) : rnd(64), n = 0;

	for (int i = 0; i < nsge; i++) {
		struct mrkey k = { fz32(), pd, 0, PAGE };

		pthread_mutex_lock(&hl);
		if (nmrkeys && chance(85))
			k = mrkeys[rnd(nmrkeys)];
		pthread_mutex_unlock(&hl);
		if (chance(80))
			pd = k.pd;
		sge[i].lkey = k.lkey;
		sge[i].addr = k.addr + (k.len > 1 ? rnd64() % k.len : 0);
		sge[i].length = 1 + rnd(k.len < 65536 ? k.len : 65536);
		switch (chance(70) ? 0 : rnd(5)) {
		case 0:
			break;
		case 1:		/* past the end */
			sge[i].length += k.len;
			break;
		case 2:		/* before the start */
			sge[i].addr = k.addr - 1 - rnd(PAGE);
			break;
		case 3:		/* wraps */
			sge[i].addr = ~0ULL - rnd(PAGE);
			sge[i].length = PAGE + rnd(PAGE);
			break;
		default:
			sge[i].length = chance(50) ? 0 : fz32();
			break;
		}
	}
	a[n++] = ATTR(UVERBS_ATTR_ADVISE_MR_PD_HANDLE, pd, 0);
	a[n++] = ATTR(UVERBS_ATTR_ADVISE_MR_ADVICE,
		      chance(95) ? rnd(3) : fz64(), 8);
	a[n++] = ATTR(UVERBS_ATTR_ADVISE_MR_FLAGS, chance(95) ?
		      IB_UVERBS_ADVISE_MR_FLAG_FLUSH * rnd(2) : fz32(), 4);
	a[n++] = ATTR(UVERBS_ATTR_ADVISE_MR_SGE_LIST, (uintptr_t)sge,
		      nsge * sizeof(*sge));
	if (chance(5))
		a[3].len = chance(50) ? rnd(40) : fz32();
	if (chance(3))
		a[3].data = bad_ptr();
	count(C_ADVISE);
	ioc(c, "mr_advise", UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR, a, n);
}

/* a udmabuf over a sealed memfd, if the kernel has /dev/udmabuf */
static void udmabuf_make(void)
{
	struct udmabuf_create cr = { .flags = UDMABUF_FLAGS_CLOEXEC,
				     .size = DMABUF_SIZE };
	int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC), fd;

	if (dmabuf_memfd < 0) {
		dmabuf_memfd = memfd_create("cmdfuzz", MFD_ALLOW_SEALING | MFD_CLOEXEC);
		if (dmabuf_memfd >= 0 &&
		    (ftruncate(dmabuf_memfd, DMABUF_SIZE) ||
		     fcntl(dmabuf_memfd, F_ADD_SEALS, F_SEAL_SHRINK)))
			perror("memfd");
	}
	if (dev < 0)
		return;
	cr.memfd = dmabuf_memfd;
	fd = ioctl(dev, UDMABUF_CREATE, &cr);
	close(dev);
	if (fd < 0)
		return;
	/* a dma-buf closed under the MRs made from it: they hold their own */
	pthread_mutex_lock(&hl);
	int old = udmabuf_fd;

	udmabuf_fd = fd;
	pthread_mutex_unlock(&hl);
	if (old >= 0)
		close(old);
}

/* REG_DMABUF_MR on a udmabuf, or on fds that are no dma-buf */
static void uv_reg_dmabuf(struct uctx *c)
{
	uint32_t *keys = (void *)(zone + 40 * 1024);
	struct ib_uverbs_attr a[9];
	uint32_t pd = pick_handle(c, O_PD, 92);
	uint64_t off = chance(80) ? PAGE * rnd(DMABUF_SIZE / PAGE) : fz64();
	uint64_t len = chance(80) ? 1 + rnd(DMABUF_SIZE - (off % DMABUF_SIZE)) :
		fz64();
	uint64_t iova = chance(60) ? off : fz64() & ~0xfffULL;
	int64_t fd;
	int n = 0;

	if (chance(5))
		udmabuf_make();
	switch (chance(60) ? 0 : rnd(6)) {
	case 0:
		fd = udmabuf_fd >= 0 ? udmabuf_fd : dmabuf_memfd;
		break;
	case 1:
		fd = dmabuf_memfd;
		break;
	case 2:
		fd = c->fd;
		break;
	case 3:
		fd = stray_fds[rnd(8)];
		break;
	case 4:
		fd = xrcd_file;
		break;
	default:
		fd = (int32_t)fz32();
		break;
	}
	a[n++] = ATTR(UVERBS_ATTR_REG_DMABUF_MR_HANDLE, chance(95) ? 0 : fz64(), 0);
	a[n++] = ATTR(UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, pd, 0);
	a[n++] = ATTR(UVERBS_ATTR_REG_DMABUF_MR_OFFSET, off, 8);
	a[n++] = ATTR(UVERBS_ATTR_REG_DMABUF_MR_LENGTH, len, 8);
	a[n++] = ATTR(UVERBS_ATTR_REG_DMABUF_MR_IOVA, iova, 8);
	a[n++] = ATTR(UVERBS_ATTR_REG_DMABUF_MR_FD, (uint32_t)fd, 4);
	a[n++] = ATTR(UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, chance(90) ?
		      mr_access() | IB_UVERBS_ACCESS_ON_DEMAND * chance(20) :
		      fz32(), 4);
	a[n++] = ATTR(UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, (uintptr_t)&keys[0], 4);
	a[n++] = ATTR(UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, (uintptr_t)&keys[1], 4);
	count(C_DMABUF);
	if (!ioc(c, "mr_reg_dmabuf", UVERBS_OBJECT_MR,
		 UVERBS_METHOD_REG_DMABUF_MR, a, n)) {
		obj_add(c, O_MR, a[0].data, 0, 0);
		mrkey_add(keys[0], pd, iova, len);
	}
}

/* OPEN_XRCD: no inode (fd -1), or a file's, O_CREAT and O_EXCL or not */
static int uv_open_xrcd(struct uctx *c, bool valid, uint32_t *h)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_OPEN_XRCD, .has_resp = true };
	struct ib_uverbs_open_xrcd *cmd = (void *)r.core;
	int err;

	memset(cmd, 0, sizeof(*cmd));
	cmd->fd = chance(60) ? xrcd_file : -1;
	cmd->oflags = O_CREAT;
	if (!valid) {
		/* without O_CREAT EAGAIN if the file has no domain yet; O_EXCL
		 * EINVAL if it has */
		cmd->fd = PICK(keep, cmd->fd, chance(50) ? stray_fds[rnd(8)] : fz32());
		cmd->oflags = PICK(keep, chance(50) ? O_CREAT : chance(50) ?
				   O_CREAT | O_EXCL : 0, fz32());
	}
	r.core_len = sizeof(*cmd);
	r.resp_core = sizeof(struct ib_uverbs_open_xrcd_resp);
	r.resp = resp_ptr(valid ? 0 : 10);
	if (!valid)
		r.drv_in = drv_size(0, false);
	err = wsend(c, &r, !valid && chance(8));
	count(C_XRC);
	if (!err && resp_good(r.resp)) {
		*h = ((struct ib_uverbs_open_xrcd_resp *)RESP)->xrcd_handle;
		obj_add(c, O_XRCD, *h, 0, 0);
	}
	return err;
}

/* CREATE_XSRQ of type XRC on an XRCD, with a CQ */
static int uv_create_xrc_srq(struct uctx *c, bool valid, uint32_t pd,
			     uint32_t xrcd, uint32_t cq, uint32_t *h)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_CREATE_XSRQ, .has_resp = true };
	struct ib_uverbs_create_xsrq *q = (void *)r.core;
	size_t want = sizeof(struct sv_create_srq_resp);
	int err;

	memset(q, 0, sizeof(*q));
	q->user_handle = rnd64();
	q->srq_type = PICK(valid ? 100 : keep, IB_UVERBS_SRQT_XRC, fz32());
	q->pd_handle = valid ? pd : pick_handle(c, O_PD, keep);
	q->xrcd_handle = valid ? xrcd : pick_handle(c, O_XRCD, keep);
	q->cq_handle = valid ? cq : pick_handle(c, O_CQ, keep);
	q->max_wr = PICK(valid ? 100 : keep, 1 + rnd(64), fz32());
	q->max_sge = PICK(valid ? 100 : keep, 1 + rnd(4), fz32());
	q->srq_limit = PICK(valid ? 100 : keep, 0, fz32());
	r.core_len = sizeof(*q);
	r.resp_core = sizeof(struct ib_uverbs_create_srq_resp);
	r.resp = resp_ptr(valid ? 0 : 10);
	r.drv_out = drv_size(want, valid);
	err = wsend(c, &r, !valid && chance(8));
	count(C_XRC);
	if (!err && resp_good(r.resp)) {
		*h = ((struct ib_uverbs_create_srq_resp *)RESP)->srq_handle;
		obj_add(c, O_SRQ, *h, 0, 0);
		if (r.drv_out >= want)
			add_ring(c, (void *)(RESP + r.resp_core));
	}
	return err;
}

/*
 * XRC QPs by the write ABI: an XRC_TGT names its XRCD where others name
 * the PD and has no CQ, SRQ or queues; an XRC_INI has a send queue only.
 */
static int uv_create_xrc_qp(struct uctx *c, bool valid, bool tgt, uint32_t *h,
			    uint32_t *qpn)
{
	uint32_t pd = live_handle(c, tgt ? O_XRCD : O_PD), cq = live_handle(c, O_CQ);

	valid = valid && pd != ~0U && (tgt || cq != ~0U);
	count(C_XRC);
	return uv_create_qp(c, valid, chance(30), tgt ? IB_UVERBS_QPT_XRC_TGT :
			    IB_UVERBS_QPT_XRC_INI, pd, tgt ? 0 : cq, 0, ~0U, h, qpn);
}

/* an XRC_TGT QP taken towards RTS, or a live QP of either XRC type moved */
static void fuzz_xrc(struct uctx *c)
{
	uint32_t h, qpn, x;
	bool valid = chance(50);

	switch (rnd(6)) {
	case 0:
		uv_open_xrcd(c, valid, &x);
		break;
	case 1:
		uv_destroy(c, O_XRCD, pick_handle(c, O_XRCD, 80), chance(70));
		break;
	case 2: {
		uint32_t pd = live_handle(c, O_PD), xr = live_handle(c, O_XRCD);
		uint32_t cq = live_handle(c, O_CQ);

		uv_create_xrc_srq(c, valid && pd != ~0U && xr != ~0U && cq != ~0U,
				  pd, xr, cq, &h);
		break;
	}
	case 3:
		uv_create_xrc_qp(c, valid, false, &h, &qpn);
		break;
	default:
		if (uv_create_xrc_qp(c, valid, true, &h, &qpn) || !chance(60))
			break;
		for (int st = IB_QPS_INIT; st <= IB_QPS_RTS; st++)
			if (uv_modify_qp(c, chance(85), chance(30), h, qpn,
					 IB_UVERBS_QPT_XRC_TGT, st))
				break;
		break;
	}
}

/* the new commands: ODP and pinned MRs over RACE, prefetch, dma-buf, XRC */
static void fuzz_new(struct uctx *c)
{
	uint32_t pd = live_handle(c, O_PD);
	bool valid = chance(70) && pd != ~0U;

	switch (rnd(10)) {
	case 0:
	case 1:
		uv_reg_race(c, valid, true, false, pd);
		break;
	case 2:
		uv_reg_race(c, valid, true, true, pd);
		break;
	case 3:
		uv_reg_race(c, valid, false, false, pd);
		break;
	case 4:
	case 5:
		uv_advise(c);
		break;
	case 6:
		uv_reg_dmabuf(c);
		break;
	default:
		fuzz_xrc(c);
		break;
	}
}

static void race_refill(int pg, int n)
{
	uint8_t *p = race_buf + pg * PAGE;
	int shared = chance(30) ? MAP_SHARED : MAP_PRIVATE;
	void *q = mmap(p, n * PAGE, PROT_READ | PROT_WRITE,
		       shared | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (q == (void *)p)
		return;
	if (q != MAP_FAILED)	/* a kernel without NOREPLACE put it elsewhere */
		munmap(q, n * PAGE);
	/* partly somebody else's now, partly a hole: never the racer's again */
	for (int i = pg; i < pg + n; i++)
		race_ours[i] = 0;
}

static bool race_mine(int pg, int n)
{
	for (int i = pg; i < pg + n; i++)
		if (!race_ours[i])
			return false;
	return true;
}

static void race_segv(int sig)
{
	(void)sig;
	_exit(0);
}

/* one operation of the racer on the memory under the MRs */
static void race_op(void)
{
	int n = 1 + rnd(16), pg = rnd(RACE_PAGES - n + 1), dst;
	uint8_t *p = race_buf + pg * PAGE;
	size_t len = n * PAGE;
	pid_t pid;

	if (!race_mine(pg, n))
		return;
	count(C_RACES);
	switch (rnd(9)) {
	case 0:		/* a hole for a moment */
		munmap(p, len);
		if (chance(50))
			usleep(rnd(300));
		race_refill(pg, n);
		break;
	case 1:		/* new pages in place, in one step */
		if (mmap(p, len, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_ANONYMOUS |
			 (chance(30) ? MAP_SHARED : MAP_PRIVATE), -1, 0) == MAP_FAILED)
			race_refill(pg, n);	/* it may have unmapped them */
		break;
	case 2: {	/* the pages move to another part of RACE */
		bool keep_src = chance(50);

		dst = rnd(RACE_PAGES - n + 1);
		if ((dst < pg + n && pg < dst + n) || !race_mine(dst, n))
			break;
		/*
		 * A failed move (the source spans two mappings, or a shared
		 * one with DONTUNMAP) may leave the destination unmapped.
		 */
		if (mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED |
			   (keep_src ? MREMAP_DONTUNMAP : 0),
			   race_buf + dst * PAGE) == MAP_FAILED) {
			race_refill(dst, n);
			break;
		}
		if (!keep_src)
			race_refill(pg, n);
		break;
	}
	case 3:
		madvise(p, len, MADV_DONTNEED);
		break;
	case 4:
		madvise(p, len, MADV_FREE);
		break;
	case 5:		/* punches holes where RACE is shared, EINVAL elsewhere */
		madvise(p, len, MADV_REMOVE);
		break;
	case 6:
		mprotect(p, len, chance(50) ? PROT_READ : PROT_NONE);
		if (chance(50))
			usleep(rnd(300));
		mprotect(p, len, PROT_READ | PROT_WRITE);
		break;
	case 7:		/* fault pages in (for writing) */
		for (size_t i = 0; i < len; i += PAGE)
			p[i + rnd(PAGE)] = rnd(256);
		break;
	default:	/* fork over the MRs: the child writes (COW) and exits */
		count(C_RACE_FORKS);
		pid = fork();
		if (pid == 0) {
			signal(SIGSEGV, race_segv);
			for (size_t i = 0; i < len; i += PAGE)
				if (chance(60))
					p[i] = rnd(256);
			if (chance(30))
				madvise(p, len, MADV_DONTNEED);
			if (chance(20))
				raise(SIGKILL);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		break;
	}
}

/* a fault of the fuzzer itself: where, for tests/fuzz/cmdfuzz.c's author */
static void worker_segv(int sig, siginfo_t *si, void *uc)
{
	ucontext_t *u = uc;
	char msg[256];
	int n;

	n = snprintf(msg, sizeof(msg),
		     "cmdfuzz: signal %d at %p, pc %#llx (main at %p), race %p..%p, zone %p\n",
		     sig, si->si_addr, (unsigned long long)u->uc_mcontext.gregs[REG_RIP],
		     (void *)main, race_buf, race_buf + RACE_PAGES * PAGE, zone);
	if (write(2, msg, n) < 0)
		_exit(4);
	{
		static char maps[65536];
		int fd = open("/proc/self/maps", O_RDONLY);
		ssize_t got = fd >= 0 ? read(fd, maps, sizeof(maps) - 1) : -1;
		uintptr_t at = (uintptr_t)si->si_addr;

		n = snprintf(msg, sizeof(msg), "code %d ours %d\n", si->si_code,
			     at - (uintptr_t)race_buf < RACE_PAGES * PAGE ?
			     race_ours[(at - (uintptr_t)race_buf) / PAGE] : -1);
		if (write(2, msg, n) < 0)
			_exit(4);
		for (char *l = maps; got > 0 && l < maps + got;) {
			char *e = memchr(l, '\n', maps + got - l);
			unsigned long lo, hi;

			if (!e)
				break;
			if (sscanf(l, "%lx-%lx", &lo, &hi) == 2 &&
			    hi > (uintptr_t)race_buf - 64 * PAGE &&
			    lo < (uintptr_t)race_buf + (RACE_PAGES + 64) * PAGE)
				if (write(2, l, e - l + 1) < 0)
					_exit(4);
			l = e + 1;
		}
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void *racer_thread(void *arg)
{
	rs = (uint64_t)(uintptr_t)arg;
	while (now() < worker_end && !sh->failed) {
		race_op();
		usleep(rnd(2000));
	}
	return NULL;
}

/* RACE, the XRCD file and a dma-buf for this worker */
static void race_init(void)
{
	race_buf = map_anon(RACE_PAGES * PAGE, PROT_READ | PROT_WRITE);
	memset(race_buf, 0x3c, RACE_PAGES * PAGE);
	memset(race_ours, 1, sizeof(race_ours));
	xrcd_file = memfd_create("cmdfuzz-xrcd", MFD_CLOEXEC);
	udmabuf_make();
}

/* --- uverbs: opening, the probe, the worker ------------------------------------ */

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

/* /dev/infiniband/uverbsN of @ibdev into @path */
static int uverbs_path(const char *ibdev, char *path, size_t len)
{
	DIR *d = opendir("/sys/class/infiniband_verbs");
	struct dirent *e;
	int ret = -1;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char p[300], name[80];

		if (strncmp(e->d_name, "uverbs", 6))
			continue;
		snprintf(p, sizeof(p), "/sys/class/infiniband_verbs/%s/ibdev",
			 e->d_name);
		if (read_file(p, name, sizeof(name)) || strcmp(name, ibdev))
			continue;
		snprintf(path, len, "/dev/infiniband/%s", e->d_name);
		ret = 0;
		break;
	}
	closedir(d);
	return ret;
}

static int parse_gid(const char *s, uint8_t *gid)
{
	unsigned int w[8];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x:%x:%x", &w[0], &w[1], &w[2], &w[3],
		   &w[4], &w[5], &w[6], &w[7]) != 8)
		return -1;
	for (int i = 0; i < 8; i++) {
		gid[2 * i] = w[i] >> 8;
		gid[2 * i + 1] = w[i];
	}
	return 0;
}

/* a RoCE v2 GID of @ibdev (the one at @want if >= 0) */
static int device_gid(const char *ibdev, int want, uint8_t *gid)
{
	for (int i = want >= 0 ? want : 0; i < 8; i++) {
		char p[300], s[80];

		snprintf(p, sizeof(p),
			 "/sys/class/infiniband/%s/ports/1/gid_attrs/types/%d",
			 ibdev, i);
		if (read_file(p, s, sizeof(s)) || strcmp(s, "RoCE v2"))
			continue;
		snprintf(p, sizeof(p), "/sys/class/infiniband/%s/ports/1/gids/%d",
			 ibdev, i);
		if (read_file(p, s, sizeof(s)) || parse_gid(s, gid))
			continue;
		if (!memcmp(gid, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16))
			continue;
		return i;
	}
	return -1;
}

static void uctx_reset(struct uctx *c)
{
	pthread_mutex_lock(&hl);
	for (int t = 0; t < O_NUM; t++) {
		for (int i = 0; i < c->live[t].n; i++)
			hs_add(&c->dead[t], c->live[t].h[i]);
		c->live[t].n = 0;
	}
	c->nring = 0;
	pthread_mutex_unlock(&hl);
}

static const struct mspec *method(const char *name);
static void uctx_close(struct uctx *c);

/*
 * Open @c on DEV or the victim; false if the device is not there.  The
 * context comes by write() or ioctl() before the fd is published in @c:
 * ib_core (6.1, and upstream as of this writing) leaks a reference on the
 * calling task when UVERBS_METHOD_GET_CONTEXT finds the fd has a context
 * already (it frees the new context without rdma_restrack_put()), so no
 * ioctl() GET_CONTEXT may ever reach an fd that has one; anyone can leak
 * task_structs that way, and it is not softverbs'.  The legacy command has
 * no such leak and is fuzzed on any fd.
 */
static bool uctx_open(struct uctx *c, bool main, bool bare)
{
	char path[300], name[80];
	const char *dev = main_dev;
	struct uctx t = { .fd = -1, .async_fd = -1, .chan = { -1, -1, -1, -1 },
			  .on_main = main };

	if (!main) {
		/* the victim may have been renamed: find it by index */
		uint32_t idx = __atomic_load_n(&sh->victim_idx, __ATOMIC_RELAXED);

		if (idx == ~0U || nl_dev_name(idx, name, sizeof(name)))
			return false;
		dev = name;
	}
	if (uverbs_path(dev, path, sizeof(path)))
		return false;
	t.fd = open(path, O_RDWR | O_CLOEXEC);
	if (t.fd < 0)
		return false;
	if (main) {
		memcpy(t.gid, main_gid, 16);
		t.gid_idx = main_gid_idx;
	} else {
		t.gid_idx = device_gid(dev, -1, t.gid);
		if (t.gid_idx < 0)
			t.gid_idx = 1;
	}
	switch (bare ? 9 : rnd(10)) {
	case 0: case 1: case 2: case 3: case 4:
		uv_get_context(&t, chance(85));
		break;
	case 5: case 6: case 7: case 8:
		ioctl_send(&t, method("get_context"), chance(70));
		break;
	default:	/* none: every command meets an fd without one */
		break;
	}
	pthread_mutex_lock(&hl);
	if (c->fd < 0) {
		c->fd = t.fd;
		c->async_fd = t.async_fd;
		for (int i = 0; i < 4; i++)
			c->chan[i] = -1;
		c->on_main = main;
		c->gid_idx = t.gid_idx;
		memcpy(c->gid, t.gid, 16);
		t.fd = t.async_fd = -1;
	}
	pthread_mutex_unlock(&hl);
	if (t.fd >= 0)	/* the other thread opened one meanwhile */
		uctx_close(&t);
	return true;
}

static void uctx_close(struct uctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->async_fd >= 0)
		close(c->async_fd);
	for (int i = 0; i < 4; i++)
		if (c->chan[i] >= 0)
			close(c->chan[i]);
	c->fd = c->async_fd = -1;
	for (int i = 0; i < 4; i++)
		c->chan[i] = -1;
	uctx_reset(c);
}

#define PROBE(what, expr)							\
	do {									\
		int _e = (expr);						\
		if (_e) {							\
			fail("probe on %s: %s failed: %s", main_dev, what,	\
			     strerror(-_e));					\
			goto out;						\
		}								\
	} while (0)

/*
 * What every process must be able to do on DEV: a fresh context, a PD, two
 * CQs (write and ioctl), an SRQ (ioctl), an RC QP taken to RTS on itself, a
 * UD QP on the SRQ (ioctl), an MR, type 1 and 2 MWs, an AH; then all of it
 * destroyed again (QPs and AH by ioctl).  Any failure fails the run.
 */
/* the probe's ODP MR: 16 pages of MR_BUF, local write */
static int uv_reg_odp_probe(struct uctx *c, uint32_t pd, uint32_t *h)
{
	struct wreq r = { .cmd = IB_USER_VERBS_CMD_REG_MR, .has_resp = true };
	struct ib_uverbs_reg_mr *cmd = (void *)r.core;
	int err;

	memset(cmd, 0, sizeof(*cmd));
	cmd->start = cmd->hca_va = (uintptr_t)mr_buf;
	cmd->length = 16 * PAGE;
	cmd->pd_handle = pd;
	cmd->access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE | IB_UVERBS_ACCESS_ON_DEMAND;
	r.core_len = sizeof(*cmd);
	r.resp_core = sizeof(struct ib_uverbs_reg_mr_resp);
	r.resp = resp_ptr(0);
	err = wsend(c, &r, false);
	if (!err) {
		struct ib_uverbs_reg_mr_resp *resp = (void *)RESP;

		*h = resp->mr_handle;
		obj_add(c, O_MR, *h, 0, 0);
		probe_lkey = resp->lkey;
	}
	return err;
}

/* a synchronous PREFETCH_WRITE of the probe's ODP MR */
static int uv_advise_probe(struct uctx *c, uint32_t pd, uint32_t mr)
{
	struct ib_uverbs_sge *sge = (void *)(zone + 40 * 1024);
	struct ib_uverbs_attr a[4] = {
		{ .attr_id = UVERBS_ATTR_ADVISE_MR_PD_HANDLE, .data = pd },
		{ .attr_id = UVERBS_ATTR_ADVISE_MR_ADVICE, .len = 8,
		  .data = IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE },
		{ .attr_id = UVERBS_ATTR_ADVISE_MR_FLAGS, .len = 4,
		  .data = IB_UVERBS_ADVISE_MR_FLAG_FLUSH },
		{ .attr_id = UVERBS_ATTR_ADVISE_MR_SGE_LIST, .len = sizeof(*sge),
		  .data = (uintptr_t)sge },
	};

	(void)mr;
	sge->addr = (uintptr_t)mr_buf + PAGE;
	sge->length = 3 * PAGE;
	sge->lkey = probe_lkey;
	return ioc(c, "mr_advise", UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR, a, 4);
}

static bool probe(void)
{
	struct uctx pc = { 0 }, *c = &pc;
	uint32_t pd, cq, cq2, srq, qp, qpn, mr, mw1, mw2, ah, udqp;
	uint32_t xrcd, xsrq, tqp, tqpn, odp;
	bool ok = false;

	c->fd = c->async_fd = -1;
	if (!uctx_open(c, true, true)) {
		fail("probe: cannot open the uverbs device of %s: %s", main_dev,
		     strerror(errno));
		return false;
	}
	PROBE("GET_CONTEXT", uv_get_context(c, true));
	PROBE("ALLOC_PD", uv_alloc_pd(c, true, &pd));
	PROBE("CREATE_CQ", uv_create_cq(c, true, false, &cq));
	PROBE("ioctl CQ_CREATE", ioctl_send(c, method("cq_create"), true));
	cq2 = live_handle(c, O_CQ);
	PROBE("ioctl SRQ_CREATE", ioctl_send(c, method("srq_create"), true));
	srq = live_handle(c, O_SRQ);
	PROBE("CREATE_QP (RC)", uv_create_qp(c, true, false, IB_UVERBS_QPT_RC,
					     pd, cq, cq2, ~0U, &qp, &qpn));
	PROBE("MODIFY_QP to INIT", uv_modify_qp(c, true, false, qp, qpn,
						IB_UVERBS_QPT_RC, IB_QPS_INIT));
	PROBE("MODIFY_QP to RTR", uv_modify_qp(c, true, false, qp, qpn,
					       IB_UVERBS_QPT_RC, IB_QPS_RTR));
	PROBE("MODIFY_QP (ex) to RTS", uv_modify_qp(c, true, true, qp, qpn,
						    IB_UVERBS_QPT_RC, IB_QPS_RTS));
	PROBE("CREATE_QP (ex, UD, SRQ)",
	      uv_create_qp(c, true, true, IB_UVERBS_QPT_UD, pd, cq2, cq2, srq,
			   &udqp, NULL));
	PROBE("REG_MR", uv_reg_mr(c, true, pd, &mr));
	PROBE("ALLOC_MW", uv_alloc_mw(c, true, pd, &mw1));
	PROBE("CREATE_AH", uv_create_ah(c, true, pd, &ah));
	PROBE("DESTROY_AH (ioctl)", ioctl_send(c, method("destroy_O_AH"), true));
	PROBE("DESTROY_QP", uv_destroy(c, O_QP, qp, true));
	PROBE("DESTROY_QP (ioctl)", ioctl_send(c, method("qp_destroy"), true));
	PROBE("DEALLOC_MW", uv_destroy(c, O_MW, mw1, true));
	PROBE("ALLOC_MW again", uv_alloc_mw(c, true, pd, &mw2));
	PROBE("DEREG_MR", uv_destroy(c, O_MR, mr, true));
	PROBE("REG_MR (ODP)", uv_reg_odp_probe(c, pd, &odp));
	PROBE("ADVISE_MR (prefetch, flush)", uv_advise_probe(c, pd, odp));
	PROBE("DEREG_MR (ODP)", uv_destroy(c, O_MR, odp, true));
	PROBE("OPEN_XRCD", uv_open_xrcd(c, true, &xrcd));
	PROBE("CREATE_XSRQ (XRC)", uv_create_xrc_srq(c, true, pd, xrcd, cq, &xsrq));
	PROBE("CREATE_QP (XRC_TGT)", uv_create_qp(c, true, false,
		IB_UVERBS_QPT_XRC_TGT, xrcd, 0, 0, ~0U, &tqp, &tqpn));
	PROBE("MODIFY_QP (XRC_TGT) to INIT", uv_modify_qp(c, true, false, tqp, tqpn,
		IB_UVERBS_QPT_XRC_TGT, IB_QPS_INIT));
	PROBE("MODIFY_QP (XRC_TGT) to RTR", uv_modify_qp(c, true, false, tqp, tqpn,
		IB_UVERBS_QPT_XRC_TGT, IB_QPS_RTR));
	PROBE("DESTROY_QP (XRC_TGT)", uv_destroy(c, O_QP, tqp, true));
	PROBE("DESTROY_SRQ (XRC)", uv_destroy(c, O_SRQ, xsrq, true));
	PROBE("CLOSE_XRCD", uv_destroy(c, O_XRCD, xrcd, true));
	PROBE("DESTROY_SRQ (ioctl)", ioctl_send(c, method("srq_destroy"), true));
	PROBE("DESTROY_CQ", uv_destroy(c, O_CQ, cq, true));
	PROBE("DESTROY_CQ (ioctl)", ioctl_send(c, method("cq_destroy"), true));
	/* the PD still has an MW: the fd's close takes both */
	(void)ah;
	(void)mw2;
	(void)udqp;
	ok = true;
	count(C_PROBES);
out:
	uctx_close(c);
	return ok;
}

/* bring a live RC/UC QP towards RTS on itself, or anywhere with fuzz */
static void fuzz_modify(struct uctx *c)
{
	uint32_t h = ~0U, qpn = 0;
	int qpt = IB_UVERBS_QPT_RC;

	pthread_mutex_lock(&hl);
	if (c->live[O_QP].n) {
		int i = rnd(c->live[O_QP].n);

		h = c->live[O_QP].h[i];
		qpn = c->qpn[i];
		qpt = c->qpt[i];
	}
	pthread_mutex_unlock(&hl);
	if (h == ~0U || chance(10))
		h = pick_handle(c, O_QP, 0);
	bool valid = chance(40);
	static const int states[] = { IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS,
				      IB_QPS_SQD, IB_QPS_SQE, IB_QPS_ERR,
				      IB_QPS_RESET };
	int st = chance(60) ? states[rnd(3)] : states[rnd(ARRAY_SIZE(states))];

	uv_modify_qp(c, valid, chance(30), h, qpn, qpt, st);
}

static void fuzz_create(struct uctx *c)
{
	bool valid = chance(35);
	uint32_t h;

	switch (rnd(9)) {
	case 0:
		uv_alloc_pd(c, valid, &h);
		break;
	case 1:
		uv_create_cq(c, valid, chance(40), &h);
		break;
	case 2: {
		uint32_t pd = live_handle(c, O_PD);

		uv_create_srq(c, valid && pd != ~0U, pd, &h);
		break;
	}
	case 3:
	case 4: {
		uint32_t pd = live_handle(c, O_PD), cq = live_handle(c, O_CQ);
		uint32_t srq = chance(30) ? live_handle(c, O_SRQ) : ~0U;

		valid = valid && pd != ~0U && cq != ~0U;
		uv_create_qp(c, valid, chance(40),
			     qp_types[rnd(ARRAY_SIZE(qp_types))], pd, cq,
			     chance(50) ? cq : live_handle(c, O_CQ), srq, &h,
			     NULL);
		break;
	}
	case 5: {
		uint32_t pd = live_handle(c, O_PD);

		uv_reg_mr(c, valid && pd != ~0U, pd, &h);
		break;
	}
	case 6: {
		uint32_t pd = live_handle(c, O_PD);

		uv_alloc_mw(c, valid && pd != ~0U, pd, &h);
		break;
	}
	case 7: {
		uint32_t pd = live_handle(c, O_PD);

		uv_create_ah(c, valid && pd != ~0U, pd, &h);
		break;
	}
	default:
		if (chance(30))
			uv_get_context(c, chance(60));
		else
			fuzz_write_misc(c);
		break;
	}
}

static void fuzz_destroy(struct uctx *c)
{
	int t = rnd(O_NUM);
	uint32_t h = pick_handle(c, t, 70);

	uv_destroy(c, t, h, chance(60));
}

static void fuzz_ioctl(struct uctx *c)
{
	const struct mspec *m;

	if (chance(15)) {
		ioctl_send(c, NULL, false);
		return;
	}
	do	/* GET_CONTEXT only on fresh fds: see uctx_open() */
		m = &methods[rnd(ARRAY_SIZE(methods))];
	while (m->obj == UVERBS_OBJECT_DEVICE &&
	       m->meth == UVERBS_METHOD_GET_CONTEXT);
	ioctl_send(c, m, chance(30));
}

/* map one of the rings a create reported, or something like it */
static void fuzz_mmap(struct uctx *c)
{
	uint64_t off = 0;
	uint32_t size = PAGE;
	void *p;

	pthread_mutex_lock(&hl);
	if (c->nring) {
		int i = rnd(c->nring);

		off = c->ring[i].off;
		size = c->ring[i].size;
	}
	pthread_mutex_unlock(&hl);
	if (chance(25)) {
		switch (rnd(3)) {
		case 0:
			size = PAGE * rnd(8);
			break;
		case 1:
			off += PAGE * (rnd(5) - 2);
			break;
		default:
			off = fz64() & ~(PAGE - 1);
			break;
		}
	}
	if (!size || size > 64 << 20)
		size = PAGE;
	int prot = chance(90) ? PROT_READ | PROT_WRITE : PROT_READ;

	count(C_MMAPS);
	p = mmap(NULL, size, prot, chance(90) ? MAP_SHARED : MAP_PRIVATE,
		 c->fd, off);
	if (p == MAP_FAILED)
		return;
	if ((prot & PROT_WRITE) && chance(50))
		((volatile uint32_t *)p)[rnd(size / 4)] = rnd64();
	if (chance(60))	/* else it stays mapped past the fd's close */
		munmap(p, size);
}

static bool fork_child;	/* in a child of a worker: fewer ops, no forks */

static void uverbs_op(void)
{
	struct uctx *c = &U[rnd(NCTX)];
	unsigned int r = rnd(1000);

	keep = (const unsigned int[]){ 60, 85, 93, 97 }[rnd(4)];
	if (c->fd < 0) {
		if (!uctx_open(c, chance(70), false))
			uctx_open(c, true, false);
		return;
	}
	if (r < 240)
		fuzz_create(c);
	else if (r < 345)
		fuzz_destroy(c);
	else if (r < 435)
		fuzz_modify(c);
	else if (r < 650)
		fuzz_ioctl(c);
	else if (r < 780)
		fuzz_write_misc(c);
	else if (r < 830)
		fuzz_mmap(c);
	else if (r < 960)
		fuzz_new(c);
	else if (r < 965) {
		/* close with whatever is on it; the other thread may be using it */
		count(C_CLOSES);
		uctx_close(c);
	} else if (!fork_child && r < 970) {
		pid_t pid;

		count(C_FORKS);
		pid = fork();
		if (pid == 0) {
			/* the inherited fds, a few commands, then exit */
			pthread_mutex_init(&hl, NULL);
			fork_child = true;
			rs ^= getpid();
			for (int i = rnd(30); i > 0; i--)
				uverbs_op();
			if (chance(30))
				raise(SIGKILL);
			_exit(0);
		}
		if (pid > 0 && chance(70))
			waitpid(pid, NULL, 0);	/* else the parent reaps it */
	} else {
		fuzz_create(c);
	}
}

static void *uverbs_thread(void *arg)
{
	rs = (uint64_t)(uintptr_t)arg;
	zone_init();
	while (now() < worker_end && !sh->failed)
		uverbs_op();
	return NULL;
}

static void uverbs_worker(uint64_t seed, double life)
{
	pthread_t t, rt;
	bool two, racer;

	struct sigaction sa = { .sa_sigaction = worker_segv,
				.sa_flags = SA_SIGINFO };

	rs = seed;
	zone_init();
	race_init();
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	worker_end = now() + life;
	if (!probe())
		_exit(3);
	for (int i = 0; i < NCTX; i++) {
		memset(&U[i], 0, sizeof(U[i]));
		U[i].fd = U[i].async_fd = -1;
		for (int k = 0; k < 4; k++)
			U[i].chan[k] = -1;
		if (!uctx_open(&U[i], i == 0 || chance(50), false))
			uctx_open(&U[i], true, false);
	}
	stray_fds[0] = 0;
	stray_fds[1] = 1;
	stray_fds[2] = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	stray_fds[3] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	stray_fds[4] = U[1].fd;
	stray_fds[5] = -1;
	stray_fds[6] = 1 << 20;
	stray_fds[7] = INT32_MAX;
	two = !pthread_create(&t, NULL, uverbs_thread,
			      (void *)(uintptr_t)rnd64());
	racer = chance(70) && !pthread_create(&rt, NULL, racer_thread,
					      (void *)(uintptr_t)rnd64());
	while (now() < worker_end && !sh->failed)
		uverbs_op();
	if (two)
		pthread_join(t, NULL);
	if (racer)
		pthread_join(rt, NULL);
	switch (rnd(4)) {
	case 0:		/* tidy: destroy what is known, then close */
		for (int i = 0; i < NCTX; i++)
			for (int k = 0; k < 40; k++) {
				int ty = (int[]){ O_AH, O_QP, O_MW, O_MR, O_SRQ,
						  O_CQ, O_PD }[k % 7];
				uint32_t h = live_handle(&U[i], ty);

				if (h != ~0U)
					uv_destroy(&U[i], ty, h, true);
			}
		/* fall through */
	case 1:
		for (int i = 0; i < NCTX; i++)
			uctx_close(&U[i]);
		break;
	default:	/* exit with everything open */
		break;
	}
	_exit(0);
}

/* --- netlink ----------------------------------------------------------------- */

struct nlb {
	uint8_t buf[16384];
	size_t len;
	size_t msg;	/* where the current message starts */
	size_t nest[4];
	int depth;
};

static void nl_begin(struct nlb *b, uint16_t type, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *h = (void *)(b->buf + b->len);

	b->msg = b->len;
	memset(h, 0, sizeof(*h));
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = seq;
	b->len += NLMSG_HDRLEN;
	b->depth = 0;
}

static void nl_raw(struct nlb *b, const void *p, size_t len)
{
	if (b->len + len > sizeof(b->buf) - 64)
		return;
	memcpy(b->buf + b->len, p, len);
	b->len += len;
}

static void nl_put(struct nlb *b, uint16_t type, const void *p, size_t len)
{
	struct nlattr a = { .nla_len = NLA_HDRLEN + len, .nla_type = type };
	static const uint8_t zero[4];

	if (b->len + NLA_ALIGN(a.nla_len) > sizeof(b->buf) - 64 || len > 0xfff0)
		return;
	nl_raw(b, &a, sizeof(a));
	nl_raw(b, p, len);
	nl_raw(b, zero, NLA_ALIGN(len) - len);
}

static void nl_u32(struct nlb *b, uint16_t type, uint32_t v)
{
	nl_put(b, type, &v, 4);
}

static void nl_str(struct nlb *b, uint16_t type, const char *s)
{
	nl_put(b, type, s, strlen(s) + 1);
}

static void nl_nest_begin(struct nlb *b, uint16_t type)
{
	if (b->depth >= 4)
		return;
	b->nest[b->depth++] = b->len;
	nl_put(b, type | NLA_F_NESTED, NULL, 0);
}

static void nl_nest_end(struct nlb *b)
{
	if (!b->depth)
		return;
	size_t at = b->nest[--b->depth];

	((struct nlattr *)(b->buf + at))->nla_len = b->len - at;
}

static void nl_end(struct nlb *b)
{
	while (b->depth)
		nl_nest_end(b);
	((struct nlmsghdr *)(b->buf + b->msg))->nlmsg_len = b->len - b->msg;
}

static int nl_socket(int proto)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 60 };
	int one = 1, fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int nl_send(int fd, const void *p, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(fd, p, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/*
 * Read what the kernel answered without blocking (dumps continue while
 * we read); returns the first error of an NLMSG_ERROR, 0, or 1 if nothing
 * came.
 */
static int nl_drain(int fd)
{
	static __thread uint8_t rbuf[65536];
	int ret = 1;

	for (int i = 0; i < 256; i++) {
		ssize_t n = recv(fd, rbuf, sizeof(rbuf), MSG_DONTWAIT);

		if (n <= 0)
			break;
		for (struct nlmsghdr *h = (void *)rbuf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_ERROR) {
				int e = ((struct nlmsgerr *)NLMSG_DATA(h))->error;

				if (ret == 1 || (ret == 0 && e))
					ret = e;
			} else if (ret == 1) {
				ret = 0;
			}
		}
	}
	return ret;
}

/*
 * A request that must work: send, then read until its ACK, error or the
 * end of a dump, calling @cb for each reply.  Returns 0 or -errno.
 */
static int nl_call(int fd, struct nlb *b,
		   void (*cb)(struct nlmsghdr *h, void *arg), void *arg)
{
	static __thread uint8_t rbuf[65536];
	uint32_t seq = ((struct nlmsghdr *)b->buf)->nlmsg_seq;
	int err = nl_send(fd, b->buf, b->len);

	if (err)
		return err;
	for (;;) {
		ssize_t n = recv(fd, rbuf, sizeof(rbuf), 0);

		if (n < 0)
			return -errno;
		for (struct nlmsghdr *h = (void *)rbuf; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (cb)
				cb(h, arg);
		}
	}
}

/* attribute @type of the reply @h (headers of @hdrlen bytes) */
static struct nlattr *nl_attr(struct nlmsghdr *h, size_t hdrlen, int type)
{
	int rem = h->nlmsg_len - NLMSG_HDRLEN - NLMSG_ALIGN(hdrlen);
	struct nlattr *a = (void *)((uint8_t *)NLMSG_DATA(h) + NLMSG_ALIGN(hdrlen));

	while (rem >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) &&
	       a->nla_len <= rem) {
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		rem -= NLA_ALIGN(a->nla_len);
		a = (void *)((uint8_t *)a + NLA_ALIGN(a->nla_len));
	}
	return NULL;
}

#define NLDEV(op) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op)
static __thread uint32_t nlseq = 1;

struct devlist {
	uint32_t idx[64];
	char name[64][64];
	int n;
};

static void devlist_cb(struct nlmsghdr *h, void *arg)
{
	struct devlist *l = arg;
	struct nlattr *i = nl_attr(h, 0, RDMA_NLDEV_ATTR_DEV_INDEX);
	struct nlattr *s = nl_attr(h, 0, RDMA_NLDEV_ATTR_DEV_NAME);

	if (!i || !s || l->n >= 64)
		return;
	l->idx[l->n] = *(uint32_t *)(i + 1);
	snprintf(l->name[l->n], 64, "%.*s", (int)(s->nla_len - NLA_HDRLEN),
		 (char *)(s + 1));
	l->n++;
}

static int nl_devices(struct devlist *l)
{
	struct nlb b = { 0 };
	int fd = nl_socket(NETLINK_RDMA), err;

	if (fd < 0)
		return -errno;
	l->n = 0;
	nl_begin(&b, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_DUMP,
		 nlseq++);
	nl_end(&b);
	err = nl_call(fd, &b, devlist_cb, l);
	close(fd);
	return err;
}

static int nl_dev_name(uint32_t idx, char *name, size_t len)
{
	struct devlist l;

	if (nl_devices(&l))
		return -1;
	for (int i = 0; i < l.n; i++)
		if (l.idx[i] == idx) {
			snprintf(name, len, "%s", l.name[i]);
			return 0;
		}
	return -1;
}

static int nl_dev_index(const char *name, uint32_t *idx)
{
	struct devlist l;
	int err = nl_devices(&l);

	if (err)
		return err;
	for (int i = 0; i < l.n; i++)
		if (!strcmp(l.name[i], name)) {
			*idx = l.idx[i];
			return 0;
		}
	return -ENODEV;
}

static int nl_newlink(const char *name, const char *netdev)
{
	struct nlb b = { 0 };
	int fd = nl_socket(NETLINK_RDMA), err;

	if (fd < 0)
		return -errno;
	nl_begin(&b, NLDEV(RDMA_NLDEV_CMD_NEWLINK), NLM_F_REQUEST | NLM_F_ACK,
		 nlseq++);
	nl_str(&b, RDMA_NLDEV_ATTR_DEV_NAME, name);
	nl_str(&b, RDMA_NLDEV_ATTR_LINK_TYPE, "softverbs");
	nl_str(&b, RDMA_NLDEV_ATTR_NDEV_NAME, netdev);
	nl_end(&b);
	err = nl_call(fd, &b, NULL, NULL);
	close(fd);
	return err;
}

static int nl_dellink(uint32_t idx)
{
	struct nlb b = { 0 };
	int fd = nl_socket(NETLINK_RDMA), err;

	if (fd < 0)
		return -errno;
	nl_begin(&b, NLDEV(RDMA_NLDEV_CMD_DELLINK), NLM_F_REQUEST | NLM_F_ACK,
		 nlseq++);
	nl_u32(&b, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	nl_end(&b);
	err = nl_call(fd, &b, NULL, NULL);
	close(fd);
	return err;
}

struct sysvals {
	int netns_mode, pqkey;
};

static void sys_cb(struct nlmsghdr *h, void *arg)
{
	struct sysvals *v = arg;
	struct nlattr *a = nl_attr(h, 0, RDMA_NLDEV_SYS_ATTR_NETNS_MODE);

	if (a)
		v->netns_mode = *(uint8_t *)(a + 1);
	a = nl_attr(h, 0, RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE);
	if (a)
		v->pqkey = *(uint8_t *)(a + 1);
}

static int nl_sys(struct sysvals *get, const struct sysvals *set)
{
	struct nlb b = { 0 };
	int fd = nl_socket(NETLINK_RDMA), err;

	if (fd < 0)
		return -errno;
	if (get) {
		get->netns_mode = get->pqkey = -1;
		nl_begin(&b, NLDEV(RDMA_NLDEV_CMD_SYS_GET),
			 NLM_F_REQUEST | NLM_F_ACK, nlseq++);
		nl_end(&b);
		err = nl_call(fd, &b, sys_cb, get);
	} else {
		uint8_t v;

		nl_begin(&b, NLDEV(RDMA_NLDEV_CMD_SYS_SET),
			 NLM_F_REQUEST | NLM_F_ACK, nlseq++);
		v = set->netns_mode;
		nl_put(&b, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, &v, 1);
		nl_end(&b);
		err = set->netns_mode >= 0 ? nl_call(fd, &b, NULL, NULL) : 0;
		if (!err && set->pqkey >= 0) {
			b.len = 0;
			nl_begin(&b, NLDEV(RDMA_NLDEV_CMD_SYS_SET),
				 NLM_F_REQUEST | NLM_F_ACK, nlseq++);
			v = set->pqkey;
			nl_put(&b, RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE, &v, 1);
			nl_end(&b);
			err = nl_call(fd, &b, NULL, NULL);
		}
	}
	close(fd);
	return err;
}

/*
 * Defuse what the fuzzer must not do to the device under test, walking the
 * buffer as netlink_rcv_skb() and nla_parse() do: DELLINK names no device
 * that exists (only the cycler deletes: the victim, knowing when); SET
 * (rename, move to a netns) names the victim instead of DEV; SYS_SET
 * keeps the shared namespace mode; NEWLINK never puts a device on the
 * victim's netdev (the cycler does) nor loads another driver (rxe, siw).
 */
static void nl_defuse(uint8_t *buf, size_t len)
{
	uint32_t main_idx = sh->main_idx, victim = sh->victim_idx;

	while (len >= NLMSG_HDRLEN) {
		struct nlmsghdr *h = (void *)buf;
		size_t msglen;

		if (h->nlmsg_len < NLMSG_HDRLEN || len < h->nlmsg_len)
			return;
		if (RDMA_NL_GET_CLIENT(h->nlmsg_type) == RDMA_NL_NLDEV) {
			int op = RDMA_NL_GET_OP(h->nlmsg_type);
			uint8_t *p = buf + NLMSG_HDRLEN;
			int rem = h->nlmsg_len - NLMSG_HDRLEN;

			while (rem >= NLA_HDRLEN) {
				struct nlattr *a = (void *)p;
				int alen = a->nla_len - NLA_HDRLEN;
				uint8_t *d = p + NLA_HDRLEN;
				int type = a->nla_type & NLA_TYPE_MASK;

				if (a->nla_len < NLA_HDRLEN || a->nla_len > rem)
					break;
				if (type == RDMA_NLDEV_ATTR_DEV_INDEX && alen >= 4) {
					uint32_t v;

					memcpy(&v, d, 4);
					if (op == RDMA_NLDEV_CMD_DELLINK)
						v = 0x7ffff000 + rnd(16);
					else if (op == RDMA_NLDEV_CMD_SET &&
						 v == main_idx)
						v = victim;
					memcpy(d, &v, 4);
				}
				if (op == RDMA_NLDEV_CMD_SYS_SET &&
				    type == RDMA_NLDEV_SYS_ATTR_NETNS_MODE &&
				    alen >= 1)
					d[0] = 1;
				if (op == RDMA_NLDEV_CMD_NEWLINK &&
				    type == RDMA_NLDEV_ATTR_NDEV_NAME && alen >= 1 &&
				    !strncmp((char *)d, victim_netdev, alen))
					d[0] = 'Z';
				if (op == RDMA_NLDEV_CMD_NEWLINK &&
				    type == RDMA_NLDEV_ATTR_LINK_TYPE && alen >= 3 &&
				    (!memcmp(d, "rxe", 3) || !memcmp(d, "siw", 3)))
					d[0] = 'Z';
				rem -= NLA_ALIGN(a->nla_len);
				p += NLA_ALIGN(a->nla_len);
			}
		}
		msglen = NLMSG_ALIGN(h->nlmsg_len);
		if (msglen > len)
			msglen = len;
		buf += msglen;
		len -= msglen;
	}
}

static const char *const fuzz_names[] = {
	"", "x", "sv%d", "softverbs", "softverbs%d", "lo", "nonexistent0",
	"%s%n%x", "uverbs", "umad", "rdma_cm", "issm", "a.b", "..", "a/b",
};

/* a string: a real name, a fuzz name, long, or without its NUL */
static void put_fuzz_str(struct nlb *b, uint16_t type, const char *real)
{
	char s[300];
	size_t len;

	switch (rnd(6)) {
	case 0:
	case 1:
		snprintf(s, sizeof(s), "%s", real);
		break;
	case 2:
		snprintf(s, sizeof(s), "%s", chance(80) ?
			 fuzz_names[rnd(ARRAY_SIZE(fuzz_names))] :
			 chance(50) ? main_dev : main_netdev);
		break;
	case 3:
		len = chance(50) ? 60 + rnd(10) : rnd(sizeof(s) - 1);
		memset(s, 'a' + rnd(26), len);
		s[len] = 0;
		break;
	case 4:		/* no NUL */
		len = strlen(real);
		nl_put(b, type, real, len);
		return;
	default:
		len = rnd(32);
		for (size_t i = 0; i < len; i++)
			s[i] = rnd(256);
		s[len] = 0;
		break;
	}
	nl_str(b, type, s);
}

/* a u32 attribute: right size mostly; also 0-3 and 8 bytes */
static void put_fuzz_u32(struct nlb *b, uint16_t type, uint32_t good)
{
	uint64_t v = chance(70) ? good : fz64();

	if (chance(85))
		nl_put(b, type, &v, 4);
	else
		nl_put(b, type, &v, chance(50) ? rnd(4) : 8);
}

static uint32_t dev_idx_value(void)
{
	switch (rnd(5)) {
	case 0:
	case 1:
		return sh->main_idx;
	case 2:
		return sh->victim_idx;
	case 3:
		return rnd(8);
	default:
		return fz32();
	}
}

/* attributes of an NLDEV request: plausible ones, then noise */
static void nldev_attrs(struct nlb *b, int op)
{
	int n = rnd(6);

	if (chance(85))
		put_fuzz_u32(b, RDMA_NLDEV_ATTR_DEV_INDEX, dev_idx_value());
	if (chance(50))
		put_fuzz_u32(b, RDMA_NLDEV_ATTR_PORT_INDEX, chance(70) ? 1 : rnd(4));
	switch (op) {
	case RDMA_NLDEV_CMD_SET:
		if (chance(40))
			put_fuzz_str(b, RDMA_NLDEV_ATTR_DEV_NAME,
				     chance(80) ? "fuzzrenamed" : victim_name);
		if (chance(20))
			put_fuzz_u32(b, RDMA_NLDEV_NET_NS_FD, rnd(8));
		if (chance(30)) {
			uint8_t v = PICK(60, rnd(2), fz8());

			nl_put(b, RDMA_NLDEV_ATTR_DEV_DIM, &v, 1);
		}
		break;
	case RDMA_NLDEV_CMD_NEWLINK: {
		const char *const nd[] = { main_netdev, "lo", "nope0", "" };

		if (chance(80))
			put_fuzz_str(b, RDMA_NLDEV_ATTR_DEV_NAME, "fuzz%d");
		if (chance(80))
			put_fuzz_str(b, RDMA_NLDEV_ATTR_LINK_TYPE,
				     chance(85) ? "softverbs" : "fuzzlink");
		if (chance(80))
			put_fuzz_str(b, RDMA_NLDEV_ATTR_NDEV_NAME, nd[rnd(4)]);
		break;
	}
	case RDMA_NLDEV_CMD_SYS_SET: {
		uint8_t v = fz8();

		nl_put(b, chance(50) ? RDMA_NLDEV_SYS_ATTR_NETNS_MODE :
		       RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE, &v,
		       chance(80) ? 1 : rnd(8));
		break;
	}
	case RDMA_NLDEV_CMD_GET_CHARDEV:
		if (chance(80)) {
			static const char *const t[] = { "uverbs", "umad", "rdma_cm", "x" };

			put_fuzz_str(b, RDMA_NLDEV_ATTR_CHARDEV_TYPE, t[rnd(4)]);
		}
		break;
	case RDMA_NLDEV_CMD_RES_QP_GET:
	case RDMA_NLDEV_CMD_RES_QP_GET_RAW:
	case RDMA_NLDEV_CMD_RES_CQ_GET:
	case RDMA_NLDEV_CMD_RES_CQ_GET_RAW:
	case RDMA_NLDEV_CMD_RES_MR_GET:
	case RDMA_NLDEV_CMD_RES_MR_GET_RAW:
	case RDMA_NLDEV_CMD_RES_PD_GET:
	case RDMA_NLDEV_CMD_RES_CTX_GET:
	case RDMA_NLDEV_CMD_RES_SRQ_GET:
	case RDMA_NLDEV_CMD_RES_CM_ID_GET: {
		static const int ids[] = {
			RDMA_NLDEV_ATTR_RES_LQPN, RDMA_NLDEV_ATTR_RES_CQN,
			RDMA_NLDEV_ATTR_RES_MRN, RDMA_NLDEV_ATTR_RES_PDN,
			RDMA_NLDEV_ATTR_RES_CTXN, RDMA_NLDEV_ATTR_RES_SRQN,
			RDMA_NLDEV_ATTR_RES_CM_IDN,
		};

		/* QPNs and object ids are small and dense: hit live ones */
		if (chance(70))
			put_fuzz_u32(b, ids[rnd(ARRAY_SIZE(ids))],
				     chance(70) ? rnd(48) : fz32());
		break;
	}
	case RDMA_NLDEV_CMD_STAT_SET:
	case RDMA_NLDEV_CMD_STAT_GET:
	case RDMA_NLDEV_CMD_STAT_DEL:
	case RDMA_NLDEV_CMD_STAT_GET_STATUS:
		if (chance(60))
			put_fuzz_u32(b, RDMA_NLDEV_ATTR_STAT_RES,
				     chance(70) ? RDMA_NLDEV_ATTR_RES_QP : rnd(8));
		if (chance(50))
			put_fuzz_u32(b, RDMA_NLDEV_ATTR_STAT_MODE, rnd(3));
		if (chance(40))
			put_fuzz_u32(b, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, rnd(4));
		if (chance(40))
			put_fuzz_u32(b, RDMA_NLDEV_ATTR_RES_LQPN, rnd(48));
		if (chance(30))
			put_fuzz_u32(b, RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK, rnd(4));
		if (chance(30)) {
			nl_nest_begin(b, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
			for (int i = rnd(4); i > 0; i--)
				put_fuzz_u32(b, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX,
					     rnd(64));
			nl_nest_end(b);
		}
		break;
	default:
		break;
	}
	while (n-- > 0) {	/* noise: any attribute, any size, any flag */
		uint8_t d[64];
		uint16_t type = chance(80) ? rnd(RDMA_NLDEV_ATTR_MAX + 4) : fz32();
		size_t len = chance(60) ? (size_t[]){ 0, 1, 2, 4, 8 }[rnd(5)] : rnd(64);

		for (size_t i = 0; i < len; i++)
			d[i] = chance(50) ? 0 : rnd(256);
		if (chance(10))
			type |= NLA_F_NESTED;
		if (chance(5))
			type |= NLA_F_NET_BYTEORDER;
		nl_put(b, type, d, len);
	}
}

/* structural damage after the fact: lengths that lie, truncation */
static void nl_mangle(struct nlb *b)
{
	struct nlmsghdr *h = (void *)(b->buf + b->msg);

	switch (rnd(6)) {
	case 0:
		h->nlmsg_len = chance(50) ? h->nlmsg_len - 1 - rnd(8) :
			       h->nlmsg_len + rnd(64);
		break;
	case 1:		/* an attribute longer than what is left */
		if (b->len > b->msg + NLMSG_HDRLEN + 4) {
			struct nlattr *a = (void *)(b->buf + b->msg + NLMSG_HDRLEN);

			a->nla_len = chance(50) ? rnd(4) : a->nla_len + rnd(100);
		}
		break;
	case 2:
		b->len -= rnd(b->len - b->msg > 8 ? 8 : 1);
		break;
	case 3:
		h->nlmsg_flags = fz32();
		break;
	case 4:		/* trailing bytes */
		for (int i = rnd(8); i > 0; i--)
			b->buf[b->len++] = rnd(256);
		break;
	default:
		h->nlmsg_len = fz32();
		break;
	}
}

/*
 * One message per send: ib_core's rdma_nl_rcv_skb() (6.1.192; later kernels
 * not checked) keeps one extack for all messages of a send, so an
 * error in a later message that names no attribute gets the bad attribute
 * of an earlier one reported, outside the message, and netlink_ack() WARNs
 * (the bug netlink_rcv_skb() had until 2018, commit cbbdf8433a5f).  Any
 * user can do that with two bad GET requests; it is not softverbs', so the
 * fuzzer does not send such batches there (the softverbs family gets them).
 */
/*
 * A mangled nlmsg_len can split one message into two that the kernel
 * walks (the first cut short, the rest read as a header): cut the send at
 * the first message's end then, so that RDMA netlink sees one message.
 */
static void one_message(struct nlb *b)
{
	struct nlmsghdr *h = (void *)b->buf;
	size_t first;

	if (b->len < NLMSG_HDRLEN || h->nlmsg_len < NLMSG_HDRLEN ||
	    h->nlmsg_len > b->len)
		return;		/* the kernel stops at this one */
	first = NLMSG_ALIGN(h->nlmsg_len);
	if (first < b->len && b->len - first >= NLMSG_HDRLEN)
		b->len = first;
}

static void fuzz_rdma_nl(int fd)
{
	struct nlb b = { 0 };
	int msgs = 1;

	for (int m = 0; m < msgs; m++) {
		int client = chance(85) ? RDMA_NL_NLDEV :
			     (int[]){ RDMA_NL_IWCM, RDMA_NL_LS, RDMA_NL_RSVD,
				      0, 1, 7 }[rnd(6)];
		int op = chance(90) ? 1 + rnd(RDMA_NLDEV_NUM_OPS) : rnd(64);
		uint16_t flags = NLM_F_REQUEST | (chance(50) ? NLM_F_ACK : 0);
		uint16_t type = RDMA_NL_GET_TYPE(client, op);

		if (chance(35))
			flags |= NLM_F_DUMP;
		if (chance(5))
			flags = fz32();
		if (chance(3))
			type = fz32();
		nl_begin(&b, type, flags, nlseq++);
		if (client == RDMA_NL_NLDEV) {
			nldev_attrs(&b, op);
		} else {
			uint8_t d[64];
			size_t len = rnd(64);

			for (size_t i = 0; i < len; i++)
				d[i] = rnd(256);
			for (int i = rnd(4); i > 0; i--)
				nl_put(&b, rnd(16), d, rnd(len + 1));
		}
		nl_end(&b);
		if (chance(15))
			nl_mangle(&b);
	}
	one_message(&b);
	nl_defuse(b.buf, b.len);
	count(C_RDMANL);
	if (!nl_send(fd, b.buf, b.len) && nl_drain(fd) == 0)
		count(C_NL_OK);
}

static void fault_nest(struct nlb *b, uint16_t type, bool valid)
{
	static const int kinds[] = {
		SV_NL_FAULT_ATTR_DROP, SV_NL_FAULT_ATTR_DUP,
		SV_NL_FAULT_ATTR_REORDER, SV_NL_FAULT_ATTR_CORRUPT,
	};

	nl_nest_begin(b, type);
	for (int i = rnd(5); i > 0; i--) {
		int k = chance(80) ? kinds[rnd(4)] : rnd(SV_NL_FAULT_ATTR_MAX + 3);
		uint32_t v = valid ? rnd(SV_NL_FAULT_PPM_MAX + 1) :
			     (chance(50) ? SV_NL_FAULT_PPM_MAX + rnd(3) - 1 : fz32());

		if (!valid && chance(15)) {
			uint64_t w = fz64();

			nl_put(b, k, &w, chance(50) ? 8 : rnd(4));
		} else {
			nl_u32(b, k, v);
		}
	}
	nl_nest_end(b);
}

static void fuzz_genl(int fd, uint16_t family)
{
	struct nlb b = { 0 };
	struct genlmsghdr g = { .version = SV_GENL_VERSION };
	bool valid = chance(30);
	char name[64];
	int n, msgs = chance(85) ? 1 : 2 + rnd(3);

again:
	g.cmd = chance(90) ? rnd(SV_NL_CMD_MAX + 2) : fz8();
	if (!valid && chance(10))
		g.version = fz8();
	if (!valid && chance(10))
		g.reserved = fz32();
	nl_begin(&b, family, NLM_F_REQUEST | (chance(60) ? NLM_F_ACK : 0) |
		 (chance(30) ? NLM_F_DUMP : 0), nlseq++);
	nl_raw(&b, &g, GENL_HDRLEN);
	if (chance(80))
		put_fuzz_u32(&b, SV_NL_ATTR_DEV_INDEX, dev_idx_value());
	if (chance(40)) {
		snprintf(name, sizeof(name), "%s", chance(70) ? main_dev : victim_name);
		if (valid)
			nl_str(&b, SV_NL_ATTR_DEV_NAME, name);
		else
			put_fuzz_str(&b, SV_NL_ATTR_DEV_NAME, name);
	}
	if (g.cmd == SV_NL_CMD_FAULT_SET || chance(20)) {
		if (chance(60))
			fault_nest(&b, SV_NL_ATTR_FAULT_TX, valid || chance(40));
		if (chance(60))
			fault_nest(&b, SV_NL_ATTR_FAULT_RX, valid || chance(40));
		if (chance(30)) {
			uint64_t s = rnd64();

			nl_put(&b, SV_NL_ATTR_FAULT_SEED, &s, valid || chance(70) ? 8 : rnd(8));
		}
		if (chance(30))
			nl_put(&b, SV_NL_ATTR_FAULT_OFF, &b, valid || chance(80) ? 0 : rnd(8));
	}
	for (n = valid ? 0 : rnd(4); n > 0; n--) {	/* reply-only, unknown, junk */
		uint8_t d[48];
		uint16_t type = chance(80) ? rnd(SV_NL_ATTR_MAX + 4) : fz32();
		size_t len = rnd(48);

		for (size_t i = 0; i < len; i++)
			d[i] = rnd(256);
		if (chance(20))
			type |= NLA_F_NESTED;
		nl_put(&b, type, d, len);
	}
	nl_end(&b);
	if (!valid && chance(10))
		nl_mangle(&b);
	if (--msgs > 0) {	/* batched: netlink_rcv_skb() walks them */
		valid = chance(30);
		goto again;
	}
	count(C_GENL);
	if (!nl_send(fd, b.buf, b.len) && nl_drain(fd) == 0)
		count(C_NL_OK);
}

static void family_cb(struct nlmsghdr *h, void *arg)
{
	struct nlattr *a = nl_attr(h, GENL_HDRLEN, CTRL_ATTR_FAMILY_ID);

	if (a)
		*(uint16_t *)arg = *(uint16_t *)(a + 1);
}

static int genl_family(int fd, uint16_t *family)
{
	struct nlb b = { 0 };
	struct genlmsghdr g = { .cmd = CTRL_CMD_GETFAMILY, .version = 1 };

	*family = 0;
	nl_begin(&b, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK, nlseq++);
	nl_raw(&b, &g, GENL_HDRLEN);
	nl_str(&b, CTRL_ATTR_FAMILY_NAME, SV_GENL_NAME);
	nl_end(&b);
	int err = nl_call(fd, &b, family_cb, family);

	return err ? err : (*family ? 0 : -ENOENT);
}

/* FAULT_SET OFF on @idx (a request that must work) */
static int genl_faults_off(int fd, uint16_t family, uint32_t idx)
{
	struct nlb b = { 0 };
	struct genlmsghdr g = { .cmd = SV_NL_CMD_FAULT_SET,
				.version = SV_GENL_VERSION };

	nl_begin(&b, family, NLM_F_REQUEST | NLM_F_ACK, nlseq++);
	nl_raw(&b, &g, GENL_HDRLEN);
	nl_u32(&b, SV_NL_ATTR_DEV_INDEX, idx);
	nl_put(&b, SV_NL_ATTR_FAULT_OFF, NULL, 0);
	nl_end(&b);
	return nl_call(fd, &b, NULL, NULL);
}

static void netlink_worker(uint64_t seed, double life)
{
	int rfd = nl_socket(NETLINK_RDMA), gfd = nl_socket(NETLINK_GENERIC);
	uint16_t family;
	int err;

	rs = seed;
	if (rfd < 0 || gfd < 0) {
		fail("netlink sockets: %s", strerror(errno));
		_exit(3);
	}
	err = genl_family(gfd, &family);
	if (err) {
		fail("generic netlink family %s: %s", SV_GENL_NAME, strerror(-err));
		_exit(3);
	}
	worker_end = now() + life;
	while (now() < worker_end && !sh->failed) {
		if (chance(55))
			fuzz_rdma_nl(rfd);
		else
			fuzz_genl(gfd, family);
	}
	_exit(0);
}

/* --- the supervisor ------------------------------------------------------------ */

enum { S_UV1, S_UV2, S_NL, S_CYCLE, S_NUM };
static const char *const slot_name[S_NUM] = {
	"uverbs worker", "uverbs worker", "netlink worker", "victim cycler",
};

struct slot {
	pid_t pid;
	double end;		/* planned end */
	double kill_at;		/* SIGKILL then */
	bool killed;
};

static double hang_s = 150;

/* every process of this run (us and our descendants): stat, kernel stack */
static void dump_stacks(void)
{
	static int pid[8192], ppid[8192];
	static bool ours[8192];
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0, fd;
	bool more = true;

	fd = open("/proc/sysrq-trigger", O_WRONLY);
	if (fd >= 0) {	/* blocked tasks into the kernel log */
		if (write(fd, "w", 1) < 0)
			perror("sysrq");
		close(fd);
	}
	if (!d)
		return;
	while ((e = readdir(d)) && n < 8192) {
		char p[300], stat[512], *rp;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/stat", e->d_name);
		if (read_file(p, stat, sizeof(stat)))
			continue;
		rp = strrchr(stat, ')');
		if (!rp || sscanf(rp + 2, "%*c %d", &ppid[n]) != 1)
			continue;
		pid[n] = atoi(e->d_name);
		ours[n] = pid[n] == getpid();
		n++;
	}
	closedir(d);
	while (more) {
		more = false;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n && !ours[i]; j++)
				if (ours[j] && ppid[i] == pid[j])
					ours[i] = more = true;
	}
	for (int i = 0; i < n; i++) {
		char p[300], stat[512], stack[4096];

		if (!ours[i])
			continue;
		snprintf(p, sizeof(p), "/proc/%d/stat", pid[i]);
		if (read_file(p, stat, sizeof(stat)))
			continue;
		snprintf(p, sizeof(p), "/proc/%d/stack", pid[i]);
		if (read_file(p, stack, sizeof(stack)))
			stack[0] = 0;
		fprintf(stderr, "--- %.80s\n%s\n", stat, stack);
	}
}

static void cycler(uint64_t seed)
{
	uint32_t idx = sh->victim_idx;
	struct devlist before, after;
	int err;

	rs = seed;
	if (idx != ~0U) {
		err = nl_dellink(idx);
		/* gone already is fine; anything else is not */
		if (err && err != -ENODEV && err != -EINVAL) {
			fail("deleting the victim (index %u): %s", idx,
			     strerror(-err));
			_exit(3);
		}
		__atomic_store_n(&sh->victim_idx, ~0U, __ATOMIC_SEQ_CST);
	}
	/*
	 * The new device is the one that was not there before (the netlink
	 * worker may rename it at once, and its NEWLINKs never succeed).
	 */
	err = nl_devices(&before) ?: nl_newlink(victim_name, victim_netdev) ?:
	      nl_devices(&after);
	idx = ~0U;
	for (int i = 0; !err && i < after.n; i++) {
		bool known = false;

		for (int j = 0; j < before.n; j++)
			known |= before.idx[j] == after.idx[i];
		if (!known)
			idx = after.idx[i];
	}
	if (err || idx == ~0U) {
		fail("creating the victim %s on %s: %s", victim_name,
		     victim_netdev, err ? strerror(-err) : "not listed");
		_exit(3);
	}
	__atomic_store_n(&sh->victim_idx, idx, __ATOMIC_SEQ_CST);
	count(C_CYCLES);
	_exit(0);
}

static pid_t spawn(int kind, uint64_t seed, double life)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid)
		return pid;
	rs = seed;
	switch (kind) {
	case S_UV1:
	case S_UV2:
		uverbs_worker(seed, life);
		break;
	case S_NL:
		netlink_worker(seed, life);
		break;
	default:
		cycler(seed);
		break;
	}
	_exit(0);
}

/* reap what has ended; false on a crash or a hang */
static bool reap(struct slot *s, double t)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		int k;

		for (k = 0; k < S_NUM && s[k].pid != pid; k++)
			;
		if (k == S_NUM) {	/* a worker's child, reparented to us */
			count(C_ORPHANS);
			continue;
		}
		s[k].pid = 0;
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL &&
		    s[k].killed)
			continue;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		fail("%s %d ended with %s %d", slot_name[k], pid,
		     WIFEXITED(status) ? "exit status" : "signal",
		     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return false;
	}
	for (int k = 0; k < S_NUM; k++) {
		if (!s[k].pid)
			continue;
		/* the cycler is never killed: the victim would be lost */
		if (k == S_CYCLE && t > s[k].kill_at) {
			fail("the victim cycler %d did not end in %.0f s: a system call hangs",
			     s[k].pid, hang_s);
			dump_stacks();
			return false;
		}
		if (!s[k].killed && t >= s[k].kill_at) {
			kill(s[k].pid, SIGKILL);
			s[k].killed = true;
			if (t >= s[k].end + 10)
				count(C_OVERRUN);
			else
				count(C_KILLED);
		}
		if (s[k].killed && t > s[k].kill_at + hang_s) {
			fail("%s %d did not end %.0f s after SIGKILL: a system call hangs",
			     slot_name[k], s[k].pid, hang_s);
			dump_stacks();
			return false;
		}
	}
	return true;
}

static void print_errs(const char *what, uint64_t *row)
{
	uint64_t n = 0;

	for (size_t b = 0; b < NBUCKET; b++)
		n += row[b];
	if (!n)
		return;
	printf("  %-22s %7" PRIu64 ":", what, n);
	for (size_t b = 0; b < NBUCKET; b++)
		if (row[b])
			printf(" %s %" PRIu64, b == 0 ? "ok" : b < NBUCKET - 1 ?
			       strerrorname_np(err_bucket[b]) : "other", row[b]);
	printf("\n");
}

static void usage(void)
{
	fprintf(stderr, "usage: cmdfuzz -n NETNS -d DEV:NETDEV -g GID_INDEX -v VICTIM:NETDEV -t SECONDS -s SEED [-H HANG] [-V]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *netns = NULL;
	double seconds = 60, t0, t, next_cycle;
	uint64_t seed = 1;
	struct slot s[S_NUM] = { 0 };
	struct devlist before, after;
	struct sysvals sys;
	uint16_t family;
	int opt, err, gfd;
	uint64_t round = 0;

	bool verbose = false;

	while ((opt = getopt(argc, argv, "n:d:g:v:t:s:H:V")) != -1) {
		switch (opt) {
		case 'n':
			netns = optarg;
			break;
		case 'd': {
			char *colon = strchr(optarg, ':');

			if (!colon)
				usage();
			*colon = 0;
			main_dev = optarg;
			main_netdev = colon + 1;
			break;
		}
		case 'g':
			main_gid_idx = atoi(optarg);
			break;
		case 'v': {
			char *colon = strchr(optarg, ':');

			if (!colon)
				usage();
			*colon = 0;
			victim_name = optarg;
			victim_netdev = colon + 1;
			break;
		}
		case 't':
			seconds = atof(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'H':
			hang_s = atof(optarg);
			break;
		case 'V':
			verbose = true;
			break;
		default:
			usage();
		}
	}
	if (!netns || !main_dev || !victim_name)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (netns[0]) {
		char p[300];
		int fd;

		snprintf(p, sizeof(p), "/run/netns/%s", netns);
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET)) {
			perror(p);
			return 2;
		}
		close(fd);
	}
	/* reparented grandchildren come to us, and their hangs with them */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	zone_init();
	rs = seed;

	if (device_gid(main_dev, main_gid_idx, main_gid) != main_gid_idx) {
		fprintf(stderr, "no RoCE v2 GID %d on %s\n", main_gid_idx, main_dev);
		return 2;
	}
	err = nl_dev_index(main_dev, &sh->main_idx);
	if (err) {
		fprintf(stderr, "%s: %s\n", main_dev, strerror(-err));
		return 2;
	}
	err = nl_sys(&sys, NULL) ?: nl_devices(&before);
	if (err) {
		fprintf(stderr, "RDMA netlink: %s\n", strerror(-err));
		return 2;
	}
	sh->victim_idx = ~0U;
	printf("cmdfuzz: seed %" PRIu64 ", %.0f s, device %s (index %u), victim %s on %s, netns mode %d\n",
	       seed, seconds, main_dev, sh->main_idx, victim_name, victim_netdev,
	       sys.netns_mode);

	t0 = now();
	next_cycle = t0;
	while ((t = now()) < t0 + seconds && !sh->failed) {
		for (int k = 0; k < S_NUM; k++) {
			double life;

			if (s[k].pid)
				continue;
			if (k == S_CYCLE) {
				if (t < next_cycle)
					continue;
				next_cycle = t + 6 + rnd(7);
				life = 0;
			} else {
				life = k == S_NL ? 2 + rnd(4000) / 1000.0 :
					1 + rnd(4000) / 1000.0;
			}
			round++;
			s[k].pid = spawn(k, seed + round * 0x10001, life);
			if (s[k].pid < 0) {
				fail("fork: %s", strerror(errno));
				break;
			}
			if (k != S_CYCLE)
				count(C_WORKERS);
			s[k].end = t + life;
			s[k].killed = false;
			/* a third are killed at a random moment of their life */
			if (k == S_CYCLE)
				s[k].kill_at = t + hang_s;
			else if (chance(33))
				s[k].kill_at = t + rnd64() %
					(uint64_t)(life * 1000 + 1) / 1000.0;
			else
				s[k].kill_at = t + life + 10;
		}
		if (!reap(s, t))
			break;
		usleep(20000);
	}

	/* stop: everything still running gets SIGKILL; nothing may hang */
	t = now();
	for (int k = 0; k < S_NUM; k++)
		if (s[k].pid && !s[k].killed && k != S_CYCLE) {
			kill(s[k].pid, SIGKILL);
			s[k].killed = true;
			s[k].kill_at = t;
		}
	while (!sh->failed) {
		bool any = false;

		t = now();
		if (!reap(s, t))
			break;
		for (int k = 0; k < S_NUM; k++)
			any |= s[k].pid != 0;
		if (!any)
			break;
		usleep(20000);
	}
	/* orphans (children of workers) end by themselves, soon */
	for (t = now(); !sh->failed && waitpid(-1, NULL, WNOHANG) >= 0;) {
		if (now() > t + hang_s) {
			fail("a worker's child did not end in %.0f s", hang_s);
			dump_stacks();
			break;
		}
		usleep(20000);
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	printf("cmdfuzz: fuzzing ended after %.1f s\n", now() - t0);

	/* put back what the fuzzing may have changed; all of it must work */
	gfd = nl_socket(NETLINK_GENERIC);
	err = gfd < 0 ? -errno : genl_family(gfd, &family);
	if (!err)
		err = genl_faults_off(gfd, family, sh->main_idx);
	if (!err && sh->victim_idx != ~0U)
		err = genl_faults_off(gfd, family, sh->victim_idx);
	if (err)
		fail("turning fault injection off: %s", strerror(-err));
	if (gfd >= 0)
		close(gfd);
	err = nl_sys(NULL, &sys);
	if (err)
		fail("restoring the RDMA subsystem settings: %s", strerror(-err));
	if (sh->victim_idx != ~0U) {
		err = nl_dellink(sh->victim_idx);
		if (err)
			fail("deleting the victim: %s", strerror(-err));
		sh->victim_idx = ~0U;
	}
	err = nl_devices(&after);
	if (err)
		fail("listing devices: %s", strerror(-err));
	for (int i = 0; i < after.n; i++) {
		bool known = false;

		for (int j = 0; j < before.n; j++)
			known |= before.idx[j] == after.idx[i];
		if (!known) {
			fail("a device the fuzzing made is left: %s (index %u)",
			     after.name[i], after.idx[i]);
			nl_dellink(after.idx[i]);
		}
	}
	if (!sh->failed) {
		if (probe())
			printf("ok: the final probe on %s passed\n", main_dev);
	}

	if (verbose) {
		char what[32];

		printf("cmdfuzz: results per write() command and ioctl() method:\n");
		for (int i = 0; i < NWCMD; i++) {
			snprintf(what, sizeof(what), "write %s%d", i >= 64 ? "ex " : "",
				 i & 63);
			print_errs(what, sh->werr[i]);
		}
		for (int i = 0; i < NMETH; i++)
			print_errs(i < (int)ARRAY_SIZE(methods) ? methods[i].name :
				   "ioctl random", sh->ierr[i]);
	}
	printf("cmdfuzz: iterations:");
	for (int i = 0; i < C_NUM; i++)
		printf(" %s %" PRIu64, cname[i], sh->count[i]);
	printf("\n");
	printf("SV_SUMMARY: cmdfuzz seed %" PRIu64 ": %" PRIu64 " write, %" PRIu64
	       " ioctl, %" PRIu64 " rdma netlink, %" PRIu64 " genl in %.0f s, %" PRIu64
	       " workers, %" PRIu64 " victim cycles\n", seed, sh->count[C_WRITE],
	       sh->count[C_IOCTL], sh->count[C_RDMANL], sh->count[C_GENL],
	       seconds, sh->count[C_WORKERS], sh->count[C_CYCLES]);
	if (sh->failed) {
		printf("FAIL: %s (seed %" PRIu64 ")\n", sh->failure, seed);
		return 1;
	}
	return 0;
}
