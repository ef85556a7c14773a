/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Test doubles for ulib: a fake sysfs/dev tree and a fake uverbs "kernel".
 *
 * fake_tree builds <tmp>/sys and <tmp>/dev and points SOFTVERBS_SYSFS_ROOT
 * and SOFTVERBS_DEV_ROOT at them.
 *
 * fake_kernel replaces sv_transport: it validates each write() the way
 * uverbs' verify_hdr does, keeps a copy of every command written, and
 * answers by writing the response through the command's response pointer,
 * as the kernel does.  The async fd it hands out is the read end of a pipe
 * whose write end tests use to inject events.
 */
#ifndef SV_TEST_FAKE_H
#define SV_TEST_FAKE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../ulib/ulib.h"

struct fake_tree {
	char root[PATH_MAX];	/* the mkdtemp directory */
	char sys[PATH_MAX + 8];	/* root/sys */
	char dev[PATH_MAX + 8];	/* root/dev */
};

/* Create an empty tree with class/infiniband_verbs/abi_version = 6. */
void fake_tree_init(struct fake_tree *t);
void fake_tree_destroy(struct fake_tree *t);
/* Write sys/<rel> (parents created).  A NULL fmt removes the file. */
void fake_sys_write(struct fake_tree *t, const char *rel, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Add uverbs<n> bound to ib_device <ibdev> with driver ABI <abi>; a
 * softverbs device gets the softverbs_version marker.  node_type "1: CA",
 * node_guid 0002:c9ff:fe00:00<n>, and an empty dev/infiniband/uverbs<n>.
 */
void fake_add_device(struct fake_tree *t, unsigned int n, const char *ibdev,
		     int abi, bool softverbs);
/*
 * Port 1 of <ibdev>: gid_tbl_len 4 in sysfs with slot 0 an IB/RoCE v1
 * link-local GID on "lo", slot 1 the same GID as RoCE v2, slot 2 empty,
 * slot 3 an IPv4-mapped RoCE v2 GID; pkeys 0 = 0xffff, 1 = 0x8001.
 */
void fake_add_port(struct fake_tree *t, const char *ibdev, unsigned int port);

#define FAKE_MAX_CMDS 32

struct fake_cmd {
	uint8_t bytes[512];
	size_t len;
};

struct fake_kernel {
	/* Behaviour knobs. */
	int get_context_err;		/* errno for GET_CONTEXT, 0 = ok */
	int ex_query_err;		/* errno for EX_QUERY_DEVICE */
	size_t ex_resp_len;		/* response_length to claim; 0 = full */
	int write_err;			/* fail every write with this errno */
	bool short_write;		/* return one byte less than asked */
	int eintr_count;		/* fail this many writes with EINTR */
	bool objects;			/* answer PD/CQ/QP commands */
	unsigned int nports;
	struct ib_uverbs_ex_query_device_resp dev;
	struct ib_uverbs_query_port_resp port;
	uint32_t num_comp_vectors;

	/*
	 * Object commands: handles count up from 1; every queue is a ring in
	 * plain memory handed out through the transport's mmap hook by its
	 * offset.  CQ slots are 64 bytes, SQ slots 512, RQ/SRQ slots 128.
	 */
	uint32_t next_handle;
	unsigned int nrings;
	struct fake_ring {
		struct sv_queue_buf *buf;
		size_t size;
		uint64_t offset;
		int maps;		/* mmaps minus munmaps */
	} rings[16];
	struct sv_queue_buf *last_cq, *last_sq, *last_rq;
	uint32_t last_qp_handle;
	/* XRC: the last CREATE_XSRQ, CREATE_QP and OPEN_QP as received */
	struct ib_uverbs_create_xsrq last_xsrq;
	struct ib_uverbs_create_qp last_create_qp;
	struct ib_uverbs_open_qp last_open_qp;
	struct ib_uverbs_post_send last_post_send;
	struct ib_uverbs_reg_mr last_reg_mr;	/* the last REG_MR */
	uint32_t last_modify_state;	/* also what QUERY_QP answers */
	uint32_t last_modify_handle, last_query_qp_handle;
	int open_qp_err;		/* errno for OPEN_QP, 0 = ok */

	/* State and log. */
	bool have_context;
	int async_wr;			/* write end of the async pipe */
	int async_rd;
	char opened[PATH_MAX];
	unsigned int ncmds;
	struct fake_cmd cmds[FAKE_MAX_CMDS];
	unsigned int count[64];		/* per legacy command number */
	unsigned int ex_count[64];

	/* ioctl methods (RDMA_VERBS_IOCTL): ADVISE_MR, REG_DMABUF_MR */
	unsigned int advise_count, dmabuf_count;
	uint32_t last_advice, last_advise_flags, last_advise_pd;
	struct ib_uverbs_sge last_advise_sge;
	uint32_t last_advise_nsge;
	uint64_t last_dmabuf_offset, last_dmabuf_length, last_dmabuf_iova;
	uint32_t last_dmabuf_fd, last_dmabuf_access;
	/* ioctls of objects the fake kernel lacks (completion counters) */
	unsigned int ioctl_unknown;
};

extern struct fake_kernel fk;

/* The ring mapped at this address, or NULL. */
struct fake_ring *fake_ring_of(const void *addr);

/* Reset fk to a plausible softverbs device and install it as transport. */
void fake_kernel_install(void);

/* Build a tree with one softverbs device "sv0" (uverbs0), port 1. */
void fake_standard_setup(struct fake_tree *t);

#endif /* SV_TEST_FAKE_H */
