// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * odp: on-demand paging MRs and ibv_advise_mr() through libsoftverbs, for
 * tests/user/28-odp.sh (librxe has no advise_mr: only libsoftverbs
 * callers reach the kernel's ADVISE_MR).
 *
 *   odp DEV
 *	on an anonymous mapping never touched, registered with
 *	IBV_ACCESS_ON_DEMAND: PREFETCH_WRITE with IBV_ADVISE_MR_FLAG_FLUSH
 *	maps every page before it returns (the device's odp_fault_pages
 *	counter grows by the page count); PREFETCH_NO_FAULT maps only what
 *	the process has (after MADV_DONTNEED: nothing); PREFETCH without
 *	FLUSH (asynchronous) maps the pages soon after; refused: an MR that
 *	is not ODP (EINVAL), a range outside the MR (ERANGE), an unknown
 *	L_Key (EINVAL), an empty SGE list (EINVAL).  Then an implicit ODP
 *	MR (NULL, SIZE_MAX; ibv_fork_init() first, which must leave it
 *	alone): PREFETCH_WRITE with FLUSH of a fresh mapping maps all its
 *	pages, of an unmapped range fails (EFAULT); prefetches in the
 *	last 2 MiB of the address space end (a child, within 20 s).  Last,
 *	a child prefetching 1 TiB (1024 SGEs of 1 GiB) dies within 5 s of
 *	SIGKILL.  Then ib_core's ODP page tables against the context's
 *	limit (ctx_mem_max_mb, set and restored): explicit MRs refused past
 *	it and given back at dereg, an implicit MR's chunks refused past it.
 *
 *   odp DEV hold
 *	registers an ODP MR, maps it (PREFETCH_WRITE, then an asynchronous
 *	PREFETCH of it that may still run), says "holding" and waits for a
 *	line on stdin: meanwhile the test removes DEV ("rdma link delete"),
 *	which destroys the MR under us; then the range is madvised away and
 *	unmapped (no notifier may be left to call) and we exit.
 *
 * Exit 0 all passed, 1 a check failed, 4 skipped (no such device).
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define NPAGES		64

static const char *dev_name;

/*
 * ib_core caches hw counters for RDMA_HW_STATS_DEFAULT_LIFESPAN (10 ms)
 * after a read: wait that out, so the value read is the current one.
 */
static long long counter(const char *name)
{
	char path[256];
	long long v;
	FILE *f;

	usleep(30000);
	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev_name,
		 name);
	f = fopen(path, "r");
	CHECK(f, "%s: %s", path, strerror(errno));
	CHECK(fscanf(f, "%lld", &v) == 1, "%s: unreadable", path);
	fclose(f);
	return v;
}

/*
 * Run @fn(@arg) in a child: it must exit 0 within @ms, or, with
 * @kill_after_ms >= 0, be SIGKILLed then and be gone within @ms.  A
 * prefetch the kernel cannot stop would keep the child for ever.
 */
static void bounded(const char *what, void (*fn)(void *), void *arg,
		    long kill_after_ms, long ms)
{
	long long t0 = now_ms(), deadline;
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		fn(arg);
		_exit(0);
	}
	if (kill_after_ms >= 0) {
		usleep(kill_after_ms * 1000);
		CHECK(waitpid(pid, &status, WNOHANG) == 0,
		      "%s: done in %lld ms, before the kill: make it longer",
		      what, now_ms() - t0);
		kill(pid, SIGKILL);
	}
	for (deadline = now_ms() + ms; waitpid(pid, &status, WNOHANG) == 0;) {
		CHECK(now_ms() < deadline, "%s: still running %ld ms after %s",
		      what, ms, kill_after_ms >= 0 ? "SIGKILL" : "it started");
		usleep(10000);
	}
	if (kill_after_ms >= 0)
		CHECK(WIFSIGNALED(status), "%s: not killed", what);
	else
		CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "%s failed",
		      what);
	printf("ok: %s, %lld ms\n", what, now_ms() - t0);
}

/*
 * Prefetches in the last 2 MiB of the address space of an implicit MR:
 * nothing is mapped there, and the walk over its chunks must end.
 */
static void top_prefetch(void *arg)
{
	struct ibv_mr *mr = arg;
	struct ibv_sge sge = { 0xFFFFFFFFFFF00000ULL, 4096, mr->lkey };
	int err;

	err = ibv_advise_mr(mr->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK(!err, "NO_FAULT, FLUSH at the top: %s", strerror(err));
	err = ibv_advise_mr(mr->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, 0,
			    &sge, 1);
	CHECK(!err, "NO_FAULT at the top: %s", strerror(err));
	err = ibv_advise_mr(mr->pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK(err == EFAULT, "PREFETCH, FLUSH at the top: %s", strerror(err));
}

#define BIG		(1ULL << 30)
#define BIG_SGES	1024

/*
 * A prefetch for reading of BIG_SGES times 1 GiB of an ODP MR over a
 * fresh mapping (the zero page: no memory used), long enough to be
 * killed in the middle.
 */
static void long_prefetch(void *arg)
{
	static struct ibv_sge sge[BIG_SGES];
	struct ibv_device **list = arg;
	struct ibv_context *ctx;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	void *big;
	int i;

	/* our own context: uverbs refuses write() commands on an inherited fd */
	ctx = ibv_open_device(*list);
	CHECK(ctx, "open %s: %s", dev_name, strerror(errno));
	pd = ibv_alloc_pd(ctx);
	CHECK(pd, "alloc_pd: %s", strerror(errno));

	big = mmap(NULL, BIG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		   MAP_NORESERVE, -1, 0);
	CHECK(big != MAP_FAILED, "mmap 1 GiB: %s", strerror(errno));
	mr = ibv_reg_mr(pd, big, BIG, IBV_ACCESS_ON_DEMAND);
	CHECK(mr, "reg_mr 1 GiB ON_DEMAND: %s", strerror(errno));
	for (i = 0; i < BIG_SGES; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)big, BIG, mr->lkey };
	ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
		      IBV_ADVISE_MR_FLAG_FLUSH, sge, BIG_SGES);
	_exit(0);
}

#define LIMIT_PARAM	"/sys/module/softverbs/parameters/ctx_mem_max_mb"

/* ctx_mem_max_mb: set it to @mb, return what it was */
static unsigned int ctx_limit(unsigned int mb)
{
	unsigned int old;
	FILE *f = fopen(LIMIT_PARAM, "r+");

	CHECK(f, "%s: %s", LIMIT_PARAM, strerror(errno));
	CHECK(fscanf(f, "%u", &old) == 1, "%s: unreadable", LIMIT_PARAM);
	rewind(f);
	CHECK(fprintf(f, "%u\n", mb) > 0 && !fclose(f), "%s: %s",
	      LIMIT_PARAM, strerror(errno));
	return old;
}

/*
 * ib_core's page tables of ODP ranges (16 bytes a page) count against
 * the context's limit: with 8 MiB, a 4 GiB range (16 MiB of tables) is
 * refused, one 1 GiB range fits and a second does not until the first is
 * gone; with 1 MiB, an implicit MR maps 128 MiB (64 chunks) but not
 * 512 MiB.  Nothing of the ranges needs to be mapped.
 */
static void charged(struct ibv_pd *pd)
{
	const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND;
	struct ibv_mr *a, *b, *mr;
	unsigned int old;
	struct ibv_sge sge;
	char *big;
	int err;

	big = mmap(NULL, 4 * BIG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		   MAP_NORESERVE, -1, 0);
	CHECK(big != MAP_FAILED, "mmap 4 GiB: %s", strerror(errno));
	old = ctx_limit(8);
	mr = ibv_reg_mr(pd, big, 4 * BIG, acc);
	CHECK(!mr && errno == ENOMEM, "4 GiB ODP MR under 8 MiB: %s",
	      mr ? "registered" : strerror(errno));
	a = ibv_reg_mr(pd, big, BIG, acc);
	CHECK(a, "1 GiB ODP MR under 8 MiB: %s", strerror(errno));
	b = ibv_reg_mr(pd, big + BIG, BIG, acc);
	CHECK(!b && errno == ENOMEM, "second 1 GiB ODP MR under 8 MiB: %s",
	      b ? "registered" : strerror(errno));
	CHECK(!ibv_dereg_mr(a), "dereg_mr: %s", strerror(errno));
	b = ibv_reg_mr(pd, big + BIG, BIG, acc);
	CHECK(b, "1 GiB ODP MR after the first went: %s", strerror(errno));
	CHECK(!ibv_dereg_mr(b), "dereg_mr: %s", strerror(errno));

	ctx_limit(1);
	mr = ibv_reg_mr(pd, NULL, SIZE_MAX, acc);
	CHECK(mr, "reg_mr(NULL, SIZE_MAX, ON_DEMAND): %s", strerror(errno));
	sge = (struct ibv_sge){ (uintptr_t)big, 128 << 20, mr->lkey };
	err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK(!err, "implicit MR, 128 MiB under 1 MiB: %s", strerror(err));
	sge.length = 512 << 20;
	err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK(err == ENOMEM, "implicit MR, 512 MiB under 1 MiB: %s",
	      strerror(err));
	CHECK(!ibv_dereg_mr(mr), "dereg_mr implicit: %s", strerror(errno));
	ctx_limit(old);
	munmap(big, 4 * BIG);
}

/* an implicit MR: the whole address space, nothing pinned */
static void implicit(struct ibv_pd *pd, long page)
{
	size_t size = 4 * NPAGES * page;
	struct ibv_mr *mr;
	struct ibv_sge sge;
	long long before;
	char *buf;
	int err;

	mr = ibv_reg_mr(pd, NULL, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND);
	CHECK(mr, "reg_mr(NULL, SIZE_MAX, ON_DEMAND): %s", strerror(errno));
	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(buf != MAP_FAILED, "no memory");
	before = counter("odp_fault_pages");
	sge = (struct ibv_sge){ (uintptr_t)buf, size, mr->lkey };
	err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK(!err, "advise_mr: %s", strerror(err));
	CHECK(counter("odp_fault_pages") - before >= 4 * NPAGES,
	      "%lld pages mapped, want %d", counter("odp_fault_pages") - before,
	      4 * NPAGES);
	munmap(buf, size);
	err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK(err == EFAULT, "prefetch of an unmapped range: %s",
	      strerror(err));
	bounded("prefetches at the top of the address space", top_prefetch,
		mr, -1, 20000);
	CHECK(!ibv_dereg_mr(mr), "dereg_mr implicit: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	struct ibv_device **list, *dev;
	struct ibv_context *ctx;
	struct ibv_mr *mr, *plain;
	struct ibv_sge sge;
	struct ibv_pd *pd;
	long page = sysconf(_SC_PAGESIZE);
	size_t size = NPAGES * page;
	long long before, t0;
	char *buf, *pbuf;
	int err;

	step = "start";
	if (argc != 2 && (argc != 3 || strcmp(argv[2], "hold")))
		die(2, "usage: odp DEV [hold]");
	dev_name = argv[1];
	/* fork.c's tracking on: ODP MRs must not touch it */
	CHECK(!ibv_fork_init(), "ibv_fork_init");
	ctx = ex_open(dev_name, &list);
	dev = ctx->device;
	pd = ibv_alloc_pd(ctx);
	CHECK(pd, "alloc_pd: %s", strerror(errno));

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pbuf = malloc(page);
	CHECK(buf != MAP_FAILED && pbuf, "no memory");
	step = "reg ODP";
	mr = ibv_reg_mr(pd, buf, size, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND);
	CHECK(mr, "reg_mr ON_DEMAND: %s", strerror(errno));
	plain = ibv_reg_mr(pd, pbuf, page, IBV_ACCESS_LOCAL_WRITE);
	CHECK(plain, "reg_mr: %s", strerror(errno));

	if (argc == 3) {
		char line[16];

		step = "hold";
		sge = (struct ibv_sge){ (uintptr_t)buf, size, mr->lkey };
		err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
		CHECK(!err, "advise_mr: %s", strerror(err));
		err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0,
				    &sge, 1);
		CHECK(!err, "advise_mr: %s", strerror(err));
		printf("holding\n");
		fflush(stdout);
		CHECK(fgets(line, sizeof(line), stdin), "no go-ahead");
		CHECK(!madvise(buf, size, MADV_DONTNEED), "madvise: %s",
		      strerror(errno));
		munmap(buf, size);
		printf("ok: ODP MR through device removal\n");
		return 0;
	}

	step = "PREFETCH_WRITE, FLUSH";
	before = counter("odp_fault_pages");
	sge = (struct ibv_sge){ (uintptr_t)buf, size, mr->lkey };
	err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK(!err, "advise_mr: %s", strerror(err));
	CHECK(counter("odp_fault_pages") - before >= NPAGES,
	      "%lld pages mapped, want %d", counter("odp_fault_pages") - before,
	      NPAGES);

	step = "PREFETCH_NO_FAULT after MADV_DONTNEED";
	CHECK(!madvise(buf, size, MADV_DONTNEED), "madvise: %s",
	      strerror(errno));
	before = counter("odp_fault_pages");
	err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK(!err, "advise_mr: %s", strerror(err));
	CHECK(counter("odp_fault_pages") == before,
	      "%lld pages mapped of an empty range",
	      counter("odp_fault_pages") - before);

	step = "PREFETCH, asynchronous";
	err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1);
	CHECK(!err, "advise_mr: %s", strerror(err));
	for (t0 = now_ms(); counter("odp_fault_pages") - before < NPAGES;) {
		CHECK(now_ms() - t0 < TIMEOUT_MS, "%lld of %d pages after %d ms",
		      counter("odp_fault_pages") - before, NPAGES, TIMEOUT_MS);
		usleep(1000);
	}

	step = "implicit";
	implicit(pd, page);

	step = "ODP tables charged to the context";
	charged(pd);

	step = "killed while prefetching";
	bounded("1 TiB of prefetch, killed after 1 s", long_prefetch, &dev,
		1000, 5000);
	ibv_free_device_list(list);

	step = "refusals";
	sge = (struct ibv_sge){ (uintptr_t)pbuf, page, plain->lkey };
	err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK(err == EINVAL, "not an ODP MR: %s", strerror(err));
	sge = (struct ibv_sge){ (uintptr_t)buf + page, size, mr->lkey };
	err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK(err == ERANGE, "beyond the MR: %s", strerror(err));
	sge = (struct ibv_sge){ (uintptr_t)buf, page, mr->lkey ^ 0x80 };
	err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK(err == EINVAL, "stale L_Key: %s", strerror(err));
	err = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 0);
	CHECK(err == EINVAL, "no SGE: %s", strerror(err));

	CHECK(!ibv_dereg_mr(plain) && !ibv_dereg_mr(mr), "dereg_mr");
	CHECK(!ibv_dealloc_pd(pd), "dealloc_pd");
	CHECK(!ibv_close_device(ctx), "close");
	munmap(buf, size);
	free(pbuf);
	printf("ok: ODP prefetch on %s\n", dev_name);
	return 0;
}
