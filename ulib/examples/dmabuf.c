// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dmabuf: a dma-buf MR (ibv_reg_dmabuf_mr, which only libsoftverbs offers
 * for softverbs: librxe has no reg_dmabuf_mr) carrying RDMA, for
 * tests/user/28-odp.sh.
 *
 *   dmabuf [-H] DEV GID_INDEX
 *	a memfd turned into a dma-buf by /dev/udmabuf (skip, exit 4, where
 *	the kernel has no udmabuf: Debian's 6.1), or with -H a buffer of the
 *	system DMA heap (/dev/dma_heap/system, mapped through the dma-buf
 *	itself, CPU access bracketed by DMA_BUF_IOCTL_SYNC; skip where the
 *	kernel has no DMA heaps: Debian's 6.1 again), registered from offset
 *	4096 at an iova of our choice; two RC QPs of DEV connected to each
 *	other: an RDMA WRITE into it (checked through the memfd), an RDMA
 *	READ of it, a fetch-and-add on it, a SEND gathered from it (its
 *	L_Key); refused: a range beyond the buffer (EINVAL), an fd that is
 *	not a dma-buf.
 *
 * Exit 0 all passed, 1 a check failed, 4 skipped.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>

#include "common.h"

#define BUF_SIZE	(64 << 10)
#define MR_OFF		4096
#define MR_LEN		(32 << 10)
#define MR_IOVA		0x7ead0000ULL

/* a DMA heap's dma-buf: CPU access through its mmap is bracketed */
static int sync_fd = -1;

/*
 * Begin (or end) CPU access to the exporter's memory: DMA_BUF_IOCTL_SYNC
 * on a heap buffer mapped through its dma-buf (the exporter's cache
 * maintenance hook); a udmabuf is read through its memfd and needs none.
 */
static void cpu_access(bool begin)
{
	struct dma_buf_sync sync = {
		.flags = DMA_BUF_SYNC_RW |
			 (begin ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END),
	};

	if (sync_fd >= 0)
		CHECK(!ioctl(sync_fd, DMA_BUF_IOCTL_SYNC, &sync),
		      "DMA_BUF_IOCTL_SYNC: %s", strerror(errno));
}

static void wait_wc(struct ibv_cq *cq, const char *what)
{
	long long t0 = now_ms();
	struct ibv_wc wc;
	int n;

	while (!(n = ibv_poll_cq(cq, 1, &wc)))
		CHECK(now_ms() - t0 < TIMEOUT_MS, "%s: no completion", what);
	CHECK(n == 1 && wc.status == IBV_WC_SUCCESS, "%s: %s", what,
	      n < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
}

static void connect_qp(struct ibv_qp *qp, uint32_t dqpn, int gid_index,
		       union ibv_gid *gid, enum ibv_mtu mtu)
{
	struct ex_path p = ex_path(gid, gid_index, dqpn,
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC, mtu);
	const char *to;

	CHECK(!ex_connect(qp, &p, &to), "%s", to);
}

static void post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t addr,
		 uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { addr, len, lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 7;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	CHECK(!ibv_post_send(qp, &wr, &bad), "post_send: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	struct udmabuf_create uc = { .flags = UDMABUF_FLAGS_CLOEXEC };
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			 .max_recv_sge = 1 } };
	struct ibv_qp *qa, *qb;
	struct ibv_context *ctx;
	struct ibv_port_attr pa;
	struct ibv_mr *dmr, *mr;
	struct ibv_sge rsge;
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *rbad;
	union ibv_gid gid;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	uint8_t *mem, *buf;
	struct dma_heap_allocation_data ha = { 0 };
	int memfd, dev, dfd, gid_index, i;
	bool heap = false;
	uint64_t word;

	step = "start";
	if (argc == 4 && !strcmp(argv[1], "-H")) {
		heap = true;
		argc--;
		argv++;
	}
	if (argc != 3)
		die(2, "usage: dmabuf [-H] DEV GID_INDEX");
	gid_index = atoi(argv[2]);
	/* not a dma-buf, for the refusal below; udmabuf's backing memory */
	memfd = memfd_create("sv-dmabuf", MFD_ALLOW_SEALING);
	CHECK(memfd >= 0 && !ftruncate(memfd, BUF_SIZE) &&
	      !fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK), "memfd: %s",
	      strerror(errno));
	if (heap) {
		dev = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
		if (dev < 0)
			die(EXIT_SKIP, "no /dev/dma_heap/system (%s): this "
			    "kernel has no CONFIG_DMABUF_HEAPS_SYSTEM",
			    strerror(errno));
		ha.len = BUF_SIZE;
		ha.fd_flags = O_RDWR | O_CLOEXEC;
		CHECK(!ioctl(dev, DMA_HEAP_IOCTL_ALLOC, &ha),
		      "DMA_HEAP_IOCTL_ALLOC: %s", strerror(errno));
		dfd = ha.fd;
		/* the heap's pages, through the dma-buf's own mmap */
		mem = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			   dfd, 0);
	} else {
		dev = open("/dev/udmabuf", O_RDWR);
		if (dev < 0)
			die(EXIT_SKIP, "no /dev/udmabuf (%s): this kernel has "
			    "no CONFIG_UDMABUF, nothing here exports a dma-buf",
			    strerror(errno));
		uc.memfd = memfd;
		uc.size = BUF_SIZE;
		dfd = ioctl(dev, UDMABUF_CREATE, &uc);
		CHECK(dfd >= 0, "UDMABUF_CREATE: %s", strerror(errno));
		mem = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			   memfd, 0);
	}
	sync_fd = heap ? dfd : -1;
	buf = aligned_alloc(4096, BUF_SIZE);
	CHECK(mem != MAP_FAILED && buf, "no memory");
	cpu_access(true);
	memset(mem, 0, BUF_SIZE);
	cpu_access(false);

	ctx = ex_open(argv[1], NULL);
	CHECK(!ibv_query_gid(ctx, 1, gid_index, &gid) &&
	      !ibv_query_port(ctx, 1, &pa), "query");
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	CHECK(pd && cq, "pd/cq: %s", strerror(errno));

	step = "reg_dmabuf_mr";
	dmr = ibv_reg_dmabuf_mr(pd, MR_OFF, MR_LEN, MR_IOVA, dfd,
				IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_ATOMIC);
	CHECK(dmr, "ibv_reg_dmabuf_mr: %s", strerror(errno));
	CHECK(!ibv_reg_dmabuf_mr(pd, BUF_SIZE - 4096, 8192, 0, dfd,
				 IBV_ACCESS_LOCAL_WRITE) && errno == EINVAL,
	      "a range beyond the buffer: %s", strerror(errno));
	CHECK(!ibv_reg_dmabuf_mr(pd, 0, 4096, 0, memfd,
				 IBV_ACCESS_LOCAL_WRITE),
	      "a memfd registered as a dma-buf");
	mr = ibv_reg_mr(pd, buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr, "reg_mr: %s", strerror(errno));

	ia.send_cq = ia.recv_cq = cq;
	qa = ibv_create_qp(pd, &ia);
	qb = ibv_create_qp(pd, &ia);
	CHECK(qa && qb, "create_qp: %s", strerror(errno));
	connect_qp(qa, qb->qp_num, gid_index, &gid, pa.active_mtu);
	connect_qp(qb, qa->qp_num, gid_index, &gid, pa.active_mtu);

	step = "RDMA WRITE into the dma-buf";
	for (i = 0; i < 8192; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	post(qa, IBV_WR_RDMA_WRITE, (uintptr_t)buf, 8192, mr->lkey,
	     MR_IOVA + 100, dmr->rkey);
	wait_wc(cq, step);
	cpu_access(true);
	CHECK(!memcmp(mem + MR_OFF + 100, buf, 8192), "data not in the buffer");
	CHECK(!mem[MR_OFF + 99] && !mem[MR_OFF + 100 + 8192],
	      "bytes around the target changed");

	step = "RDMA READ of the dma-buf";
	memset(mem + MR_OFF + 16384, 0x6b, 4096);
	cpu_access(false);
	post(qa, IBV_WR_RDMA_READ, (uintptr_t)buf + 32768, 4096, mr->lkey,
	     MR_IOVA + 16384, dmr->rkey);
	wait_wc(cq, step);
	for (i = 0; i < 4096; i++)
		CHECK(buf[32768 + i] == 0x6b, "byte %d read wrong", i);

	step = "fetch-and-add on the dma-buf";
	word = 35;
	cpu_access(true);
	memcpy(mem + MR_OFF + 64, &word, 8);
	cpu_access(false);
	post(qa, IBV_WR_ATOMIC_FETCH_AND_ADD, (uintptr_t)buf + 40960, 8,
	     mr->lkey, MR_IOVA + 64, dmr->rkey);
	wait_wc(cq, step);
	memcpy(&word, buf + 40960, 8);
	CHECK(word == 35, "original %llu", (unsigned long long)word);
	cpu_access(true);
	memcpy(&word, mem + MR_OFF + 64, 8);
	CHECK(word == 42, "result %llu", (unsigned long long)word);

	step = "SEND gathered from the dma-buf";
	rsge = (struct ibv_sge){ (uintptr_t)buf + 49152, 4096, mr->lkey };
	CHECK(!ibv_post_recv(qb, &rwr, &rbad), "post_recv");
	memset(mem + MR_OFF + 20480, 0x3c, 4096);
	cpu_access(false);
	post(qa, IBV_WR_SEND, MR_IOVA + 20480, 4096, dmr->lkey, 0, 0);
	wait_wc(cq, "send");
	wait_wc(cq, "recv");
	for (i = 0; i < 4096; i++)
		CHECK(buf[49152 + i] == 0x3c, "byte %d received wrong", i);

	step = "teardown";
	CHECK(!ibv_destroy_qp(qa) && !ibv_destroy_qp(qb), "destroy_qp");
	CHECK(!ibv_dereg_mr(dmr) && !ibv_dereg_mr(mr), "dereg_mr");
	CHECK(!ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd), "cq/pd");
	CHECK(!ibv_close_device(ctx), "close");
	munmap(mem, BUF_SIZE);
	close(dfd);
	close(memfd);
	close(dev);
	free(buf);
	printf("ok: dma-buf MR (%s) on %s\n",
	       heap ? "system DMA heap" : "udmabuf", argv[1]);
	return 0;
}
