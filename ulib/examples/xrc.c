// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xrc: the XRC objects of libsoftverbs (IBTA Annex A14), what exists of
 * them so far: XRC domains shared through a file, XRC SRQs in them, their
 * numbers, and the refusals (missing domain or CQ, destroy orders, O_EXCL
 * on a domain that exists, in this process and in another one: EINVAL,
 * as ib_uverbs answers it).
 *
 *   xrc [-d DEV] FILE
 *
 * FILE is created if need be; it names the shared domain.  The child
 * process opens the device on its own (a verbs context does not survive a
 * fork), opens the domain of FILE and makes an SRQ in it; the kernel must
 * find the parent's domain by the file's inode.
 */
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rs_common.h"

static struct ibv_xrcd *open_xrcd(struct ibv_context *ctx, int fd, int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd,
		.oflags = oflags,
	};

	return ibv_open_xrcd(ctx, &a);
}

static struct ibv_srq *xrc_srq(struct ibv_context *ctx, struct ibv_pd *pd,
			       struct ibv_xrcd *xrcd, struct ibv_cq *cq)
{
	struct ibv_srq_init_attr_ex a = {
		.attr = { .max_wr = 16, .max_sge = 2 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = pd,
		.xrcd = xrcd,
		.cq = cq,
	};
	struct ibv_srq *srq = ibv_create_srq_ex(ctx, &a);

	if (srq)
		CHECK(a.attr.max_wr >= 16 && a.attr.max_sge >= 2,
		      "XRC SRQ granted %u x %u", a.attr.max_wr, a.attr.max_sge);
	return srq;
}

static uint32_t srq_num(struct ibv_srq *srq)
{
	uint32_t n = 0;

	need_ok(ibv_get_srq_num(srq, &n), "ibv_get_srq_num");
	/* 24 bits on the wire (XRCETH), 0 never used */
	CHECK(n && n < (1U << 24), "SRQ number %u", n);
	return n;
}

/* the child: another process, its own context, the same domain */
static int child(const char *dev, const char *path, uint32_t parent_num)
{
	struct ibv_context *ctx = rs_open(dev);
	struct ibv_pd *pd = need(ibv_alloc_pd(ctx), "child alloc_pd");
	struct ibv_cq *cq = need(ibv_create_cq(ctx, 16, NULL, NULL, 0),
				 "child create_cq");
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	int fd = open(path, O_RDONLY);

	CHECK(fd >= 0, "child: open %s: %s", path, strerror(errno));
	/* the parent's domain exists: O_EXCL must see it */
	errno = 0;
	CHECK(!open_xrcd(ctx, fd, O_CREAT | O_EXCL) && errno == EINVAL,
	      "child: O_EXCL on the parent's domain: errno %d", errno);
	/* and without O_CREAT it is found, not made */
	xrcd = need(open_xrcd(ctx, fd, 0), "child: open the parent's domain");
	srq = need(xrc_srq(ctx, pd, xrcd, cq), "child: XRC SRQ");
	CHECK(srq_num(srq) != parent_num, "child SRQ has the parent's number");
	need_ok(ibv_destroy_srq(srq), "child destroy_srq");
	need_ok(ibv_close_xrcd(xrcd), "child close_xrcd");
	close(fd);
	need_ok(ibv_destroy_cq(cq), "child destroy_cq");
	need_ok(ibv_dealloc_pd(pd), "child dealloc_pd");
	need_ok(ibv_close_device(ctx), "child close_device");
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_recv_wr rwr, *bad;
	struct ibv_xrcd *xrcd, *again, *priv;
	struct ibv_srq *s1, *s2, *sp;
	struct ibv_context *ctx;
	const char *dev = NULL;
	struct ibv_sge sge;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	uint32_t n1, n2;
	char buf[256];
	int opt, fd, status;
	pid_t pid;

	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd')
			die(2, "usage: xrc [-d DEV] FILE");
		dev = optarg;
	}
	if (optind != argc - 1)
		die(2, "usage: xrc [-d DEV] FILE");

	ctx = rs_open(dev);
	{
		struct ibv_device_attr da;

		need_ok(ibv_query_device(ctx, &da), "query_device");
		/* not before XRC works end to end (Documentation/design.md) */
		CHECK(!(da.device_cap_flags & IBV_DEVICE_XRC),
		      "the device advertises XRC already");
	}
	pd = need(ibv_alloc_pd(ctx), "alloc_pd");
	cq = need(ibv_create_cq(ctx, 16, NULL, NULL, 0), "create_cq");
	fd = open(argv[optind], O_RDONLY | O_CREAT, 0600);
	CHECK(fd >= 0, "open %s: %s", argv[optind], strerror(errno));

	/* a file with no domain yet: without O_CREAT, EAGAIN (ib_uverbs) */
	errno = 0;
	CHECK(!open_xrcd(ctx, fd, 0) && errno == EAGAIN,
	      "domain found where none was made: errno %d", errno);
	xrcd = need(open_xrcd(ctx, fd, O_CREAT | O_EXCL), "open_xrcd");
	/* the same file again in this process: the same domain, counted */
	again = need(open_xrcd(ctx, fd, O_CREAT), "open_xrcd again");
	errno = 0;
	CHECK(!open_xrcd(ctx, fd, O_CREAT | O_EXCL) && errno == EINVAL,
	      "O_EXCL on an existing domain: errno %d", errno);
	/* no file: a private domain */
	priv = need(open_xrcd(ctx, -1, O_CREAT), "private open_xrcd");
	printf("XRC domains: shared (file), reopened, private: ok\n");

	/* XRC SRQs: numbered, distinct, usable rings */
	s1 = need(xrc_srq(ctx, pd, xrcd, cq), "XRC SRQ 1");
	s2 = need(xrc_srq(ctx, pd, again, cq), "XRC SRQ 2");
	sp = need(xrc_srq(ctx, pd, priv, cq), "XRC SRQ in the private domain");
	n1 = srq_num(s1);
	n2 = srq_num(s2);
	CHECK(n1 != n2 && srq_num(sp) != n1 && srq_num(sp) != n2,
	      "SRQ numbers %u %u %u", n1, n2, srq_num(sp));
	mr = need(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE),
		  "reg_mr");
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	need_ok(ibv_post_srq_recv(s1, &rwr, &bad), "post_srq_recv");
	printf("XRC SRQs %u, %u, %u: ok\n", n1, n2, srq_num(sp));

	/* bad input: an XRC SRQ needs its domain and its CQ */
	{
		struct ibv_srq_init_attr_ex a = {
			.attr = { .max_wr = 4, .max_sge = 1 },
			.comp_mask = IBV_SRQ_INIT_ATTR_TYPE |
				     IBV_SRQ_INIT_ATTR_PD |
				     IBV_SRQ_INIT_ATTR_XRCD,
			.srq_type = IBV_SRQT_XRC, .pd = pd, .xrcd = xrcd,
		};

		errno = 0;
		CHECK(!ibv_create_srq_ex(ctx, &a) && errno == EINVAL,
		      "XRC SRQ without a CQ: errno %d", errno);
		a.comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
		a.comp_mask &= ~IBV_SRQ_INIT_ATTR_XRCD;
		a.cq = cq;
		errno = 0;
		CHECK(!ibv_create_srq_ex(ctx, &a) && errno == EINVAL,
		      "XRC SRQ without a domain: errno %d", errno);
	}

	/* destroy orders: what is in use cannot go */
	CHECK(ibv_close_xrcd(xrcd) == EBUSY, "close_xrcd with an SRQ in it");
	CHECK(ibv_destroy_cq(cq) == EBUSY, "destroy_cq of an XRC SRQ's CQ");
	CHECK(ibv_dealloc_pd(pd) == EBUSY, "dealloc_pd of an XRC SRQ's PD");
	printf("refusals (missing domain or CQ, objects in use): ok\n");

	/* another process finds the domain through the file */
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid)
		_exit(child(dev, argv[optind], n1));
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status),
	      "child failed (status %#x)", status);
	printf("domain shared with another process through the file: ok\n");

	need_ok(ibv_destroy_srq(s1), "destroy_srq 1");
	/* s2 is in the domain through the second open: still busy */
	CHECK(ibv_close_xrcd(again) == EBUSY, "close_xrcd with SRQ 2 in it");
	need_ok(ibv_destroy_srq(s2), "destroy_srq 2");
	need_ok(ibv_close_xrcd(xrcd), "close_xrcd");
	/* the domain lives on while this process has it open once more */
	errno = 0;
	CHECK(!open_xrcd(ctx, fd, O_CREAT | O_EXCL) && errno == EINVAL,
	      "domain gone with one open left: errno %d", errno);
	need_ok(ibv_close_xrcd(again), "close_xrcd again");
	/* closed by all: the file has no domain any more */
	xrcd = need(open_xrcd(ctx, fd, O_CREAT | O_EXCL), "open_xrcd anew");
	need_ok(ibv_close_xrcd(xrcd), "close_xrcd anew");
	need_ok(ibv_destroy_srq(sp), "destroy_srq private");
	need_ok(ibv_close_xrcd(priv), "close private xrcd");
	need_ok(ibv_dereg_mr(mr), "dereg_mr");
	need_ok(ibv_destroy_cq(cq), "destroy_cq");
	need_ok(ibv_dealloc_pd(pd), "dealloc_pd");
	need_ok(ibv_close_device(ctx), "close_device");
	close(fd);
	printf("XRC objects: all ok\n");
	return 0;
}
