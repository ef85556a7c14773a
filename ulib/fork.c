// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fork() protection: ibv_fork_init, ibv_is_fork_initialized and the
 * refcounted MADV_DONTFORK ranges (ibv_dontfork_range/ibv_dofork_range).
 *
 * Why: before kernel 5.13 a fork() made the parent's pinned pages
 * copy-on-write, and the parent's next write moved its buffer away from
 * what the device keeps using.  libibverbs' answer was to mark registered
 * memory MADV_DONTFORK (the child does not get it at all).  Kernels that
 * copy pinned pages at fork say so over RDMA netlink
 * (RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK), and then nothing needs doing.
 *
 * The rules, as libibverbs documents them (ibv_fork_init(3)):
 *   - tracking is off until ibv_fork_init() (or RDMAV_FORK_SAFE /
 *     IBV_FORK_SAFE in the environment when the device list is first
 *     read); with the kernel's copy-on-fork it stays off and
 *     ibv_is_fork_initialized() says IBV_FORK_UNNEEDED;
 *   - while off, the range calls succeed doing nothing, but once one has
 *     been made (memory was registered unprotected) ibv_fork_init() is too
 *     late and fails with EINVAL;
 *   - while on, every page has a count of the ranges covering it: the
 *     first one marks it DONTFORK, the last one to go marks it DOFORK
 *     again.  MRs register and deregister their range.
 * Huge pages (RDMAV_HUGEPAGES_SAFE) are not handled: ranges are rounded to
 * the base page size.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <rdma/rdma_netlink.h>

#include "ulib.h"

/*
 * One run of pages with the same count; spans are sorted, disjoint, and a
 * count of 0 is never stored.  [start, end) in bytes, page aligned.
 */
struct span {
	uintptr_t start, end;
	unsigned long cnt;
};

static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
/* The fields below are guarded by fork_lock. */
static bool tracking;
static bool too_late;
static struct span *spans;
static size_t nspans;

/* ------------------------------------------------------------------ */
/* The kernel's copy-on-fork flag                                      */

static int copy_on_fork_reply(const struct nlmsghdr *nlh, void *arg)
{
	const uint8_t *v = sv_nl_attr(nlh, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1);

	*(bool *)arg = v && *v;
	return 0;
}

/*
 * RDMA_NLDEV_CMD_SYS_GET.  Any failure (no netlink, an old kernel without
 * the attribute) reads as "no copy-on-fork", the safe answer.
 */
static bool kernel_copies_on_fork(void)
{
	bool cof = false;

	if (sv_nl_request(RDMA_NLDEV_CMD_SYS_GET, false, copy_on_fork_reply,
			  &cof))
		return false;
	return cof;
}

static bool kernel_cof;

static void probe_kernel(void)
{
	kernel_cof = kernel_copies_on_fork();
}

static bool copy_on_fork(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, probe_kernel);
	return kernel_cof;
}

/* ------------------------------------------------------------------ */
/* Refcounted ranges                                                   */

/*
 * Add inc (+1 or -1) to the count of every page of [start, end) and
 * madvise the pages whose count leaves or reaches 0.  The span array is
 * rebuilt: cut at start and end, with the gaps inside the range as count-0
 * pieces, then merged back.  A failed MADV_DONTFORK undoes the pieces this
 * call already marked and leaves the counts as they were.  A DOFORK of
 * pages nobody counted (an unbalanced dofork) changes nothing.
 */
static int update(uintptr_t start, uintptr_t end, int inc)
{
	struct span *out, *p;
	size_t i, n = 0, k;
	uintptr_t cur = start;
	int err, advice = inc > 0 ? MADV_DONTFORK : MADV_DOFORK;

	/* each old span yields at most 3 pieces, plus the gaps between */
	out = calloc(2 * nspans + nspans + 2, sizeof(*out));
	if (!out) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < nspans; i++) {
		struct span s = spans[i];

		if (s.end <= start || s.start >= end) {
			if (s.start >= end && cur < end) {
				out[n++] = (struct span){ cur, end, 0 };
				cur = end;
			}
			out[n++] = s;
			continue;
		}
		if (s.start < start)
			out[n++] = (struct span){ s.start, start, s.cnt };
		else if (s.start > cur)
			out[n++] = (struct span){ cur, s.start, 0 };
		out[n++] = (struct span){ s.start > start ? s.start : start,
					  s.end < end ? s.end : end, s.cnt };
		cur = s.end < end ? s.end : end;
		if (s.end > end)
			out[n++] = (struct span){ end, s.end, s.cnt };
	}
	if (cur < end)
		out[n++] = (struct span){ cur, end, 0 };

	/* madvise the pieces inside the range whose state flips */
	for (k = 0; k < n; k++) {
		p = &out[k];
		if (p->start < start || p->end > end)
			continue;
		if ((inc > 0 && p->cnt == 0) || (inc < 0 && p->cnt == 1)) {
			if (!madvise((void *)p->start, p->end - p->start,
				     advice))
				continue;
			if (advice == MADV_DOFORK)
				continue;	/* best effort, as libibverbs */
			/*
			 * A partly unmapped piece fails with ENOMEM after
			 * marking what is mapped: undo it with the others.
			 */
			err = errno;
			k++;
			while (k--) {
				p = &out[k];
				if (p->start >= start && p->end <= end &&
				    p->cnt == 0)
					madvise((void *)p->start,
						p->end - p->start,
						MADV_DOFORK);
			}
			free(out);
			errno = err;
			return -1;
		}
	}

	/* apply, then drop count-0 pieces and merge equal neighbours */
	for (k = 0, i = 0; k < n; k++) {
		p = &out[k];
		if (p->start >= start && p->end <= end && (inc > 0 || p->cnt))
			p->cnt += inc;
		if (!p->cnt)
			continue;
		if (i && out[i - 1].end == p->start && out[i - 1].cnt == p->cnt)
			out[i - 1].end = p->end;
		else
			out[i++] = *p;
	}
	free(spans);
	spans = out;
	nspans = i;
	return 0;
}

static int madvise_range(void *base, size_t size, int inc)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start, end;
	int ret = 0;

	pthread_mutex_lock(&fork_lock);
	if (!tracking) {
		too_late = true;
		goto out;
	}
	if (!base || !size)
		goto out;
	start = (uintptr_t)base & ~(page - 1);
	end = ((uintptr_t)base + size + page - 1) & ~(page - 1);
	if (end <= start) {		/* wraps the address space */
		errno = EINVAL;
		ret = -1;
		goto out;
	}
	ret = update(start, end, inc);
out:
	pthread_mutex_unlock(&fork_lock);
	return ret;
}

SV_EXPORT int ibv_dontfork_range(void *base, size_t size)
{
	return madvise_range(base, size, +1);
}

SV_EXPORT int ibv_dofork_range(void *base, size_t size)
{
	return madvise_range(base, size, -1);
}

/* The count of the page holding addr (host tests). */
unsigned long sv_fork_count(const void *addr)
{
	unsigned long cnt = 0;
	size_t i;

	pthread_mutex_lock(&fork_lock);
	for (i = 0; i < nspans; i++)
		if ((uintptr_t)addr >= spans[i].start &&
		    (uintptr_t)addr < spans[i].end)
			cnt = spans[i].cnt;
	pthread_mutex_unlock(&fork_lock);
	return cnt;
}

/* ------------------------------------------------------------------ */
/* ibv_fork_init                                                       */

/*
 * Turn tracking on regardless of the kernel (ibv_fork_init after the
 * copy-on-fork check; the host tests directly).  EINVAL once a range call
 * has been made with tracking off: memory registered before is unprotected.
 */
int sv_fork_track_start(void)
{
	int ret = 0;

	pthread_mutex_lock(&fork_lock);
	if (!tracking) {
		if (too_late)
			ret = EINVAL;
		else
			tracking = true;
	}
	pthread_mutex_unlock(&fork_lock);
	return ret;
}

SV_EXPORT int ibv_fork_init(void)
{
	if (copy_on_fork())
		return 0;
	return sv_fork_track_start();
}

SV_EXPORT enum ibv_fork_status ibv_is_fork_initialized(void)
{
	bool on;

	if (copy_on_fork())
		return IBV_FORK_UNNEEDED;
	pthread_mutex_lock(&fork_lock);
	on = tracking;
	pthread_mutex_unlock(&fork_lock);
	return on ? IBV_FORK_ENABLED : IBV_FORK_DISABLED;
}

/* libibverbs reads these when it first lists devices; so do we. */
void sv_fork_env_init(void)
{
	if (getenv("RDMAV_FORK_SAFE") || getenv("IBV_FORK_SAFE"))
		ibv_fork_init();
}
