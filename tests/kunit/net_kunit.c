// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmod/sv_net.c: the packet buffers the requester and the
 * responder build their packets in (sv_net_alloc_skb()), and local frames
 * (sv_net_frame, received by sv_recv_frame()).  Small ones sit
 * on a page fragment, MTU-sized ones and local bursts on a page of the
 * per-CPU ring (sv_pktbuf.c), larger ones on a slab buffer; each must leave room
 * for every header in front, hold exactly the IB part, and survive what the
 * stack and softverbs do to a packet later (a private copy for fault
 * injection, a new head when a header does not fit, being made linear).
 * KASAN and kmemleak judge the freeing.  The ring's cases check that a
 * page is reused once its packets are freed, and never while one is not.
 *
 * Each case works on a device made by hand: a zeroed struct sv_dev on a
 * zeroed net_device (no link header room of its own).
 */
#include <kunit/test.h>

#include <linux/if_vlan.h>
#include <linux/ipv6.h>
#include <linux/mm.h>
#include <linux/udp.h>

#include "sv.h"
#include "sv_xport.h"

struct net_env {
	struct sv_dev	*sv;
	struct sv_path	path;
};

static int net_env_init(struct kunit *test)
{
	struct net_env *env;

	env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env);
	env->sv = kunit_kzalloc(test, sizeof(*env->sv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env->sv);
	env->sv->ndev = kunit_kzalloc(test, sizeof(*env->sv->ndev),
				      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env->sv->ndev);
	env->sv->stats = alloc_percpu(struct sv_stats);
	/* NULL on failure; a per-CPU pointer is no plain pointer (7.x) */
	KUNIT_ASSERT_TRUE(test, env->sv->stats);
	env->path.network_type = RDMA_NETWORK_IPV4;
	test->priv = env;
	return 0;
}

static void net_env_exit(struct kunit *test)
{
	struct net_env *env = test->priv;

	free_percpu(env->sv->stats);
}

/* what any packet needs in front: link header, VLAN tag, IPv6, UDP */
static unsigned int needed_headroom(const struct net_env *env)
{
	return LL_RESERVED_SPACE(env->sv->ndev) + VLAN_HLEN +
	       sizeof(struct ipv6hdr) + sizeof(struct udphdr);
}

/* a buffer for @ib_len bytes: room in front, the bytes, nothing more */
static struct sk_buff *expect_buffer(struct kunit *test, unsigned int ib_len)
{
	struct net_env *env = test->priv;
	struct sk_buff *skb;

	skb = sv_net_alloc_skb(env->sv, &env->path, ib_len, GFP_ATOMIC);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, skb->len, ib_len);
	KUNIT_EXPECT_FALSE(test, skb_is_nonlinear(skb));
	KUNIT_EXPECT_GE(test, skb_headroom(skb), needed_headroom(env));
	KUNIT_EXPECT_EQ(test, skb->protocol, htons(ETH_P_IP));
	/* every byte writable: KASAN reports an overrun */
	memset(skb->data, 0xa5, ib_len);
	memset(skb->data - needed_headroom(env), 0x5a,
	       needed_headroom(env));
	return skb;
}

/*
 * IB parts of an MTU-1024 and an MTU-4096 RDMA WRITE middle packet, and of
 * the longest local burst
 */
#define PKTBUF_LEN	(1024 + 12 + 4)
#define PKTBUF_JUMBO	(4096 + 12 + 4)
#define PKTBUF_BURST	(SV_HDR_MAX_LOCAL_COPY + 12 + 16 + 4)

/*
 * IB parts of an ACK, a 64-byte WRITE, sizes up to where the fragment
 * path ends (about 600 bytes), an MTU-1024 packet and an MTU-4096 one
 */
static const unsigned int sizes[] = {
	12 + 4, 12 + 16 + 64 + 4, 300, 500, 600, 700, 1024 + 28 + 4, 4096 + 32,
	3 * 4096, PKTBUF_BURST, 5 * 4096,
};

static void net_alloc_sizes(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct sk_buff *skb = expect_buffer(test, sizes[i]);

		/*
		 * up to the longest local burst on a fragment or a ring
		 * page, beyond (nothing makes those) on slab
		 */
		if (sizes[i] <= PKTBUF_BURST)
			KUNIT_EXPECT_TRUE_MSG(test, skb->head_frag, "%u bytes",
					      sizes[i]);
		else
			KUNIT_EXPECT_FALSE_MSG(test, skb->head_frag,
					       "%u bytes", sizes[i]);
		kfree_skb(skb);
	}
}

static void net_alloc_protocols(struct kunit *test)
{
	struct net_env *env = test->priv;
	struct sk_buff *skb;

	env->path.network_type = RDMA_NETWORK_IPV6;
	skb = sv_net_alloc_skb(env->sv, &env->path, 100, GFP_ATOMIC);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, skb->protocol, htons(ETH_P_IPV6));
	kfree_skb(skb);

	env->path.network_type = RDMA_NETWORK_ROCE_V1;
	skb = sv_net_alloc_skb(env->sv, &env->path, 100, GFP_ATOMIC);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, skb->protocol, htons(ETH_P_IBOE));
	kfree_skb(skb);
}

/*
 * A page-backed packet (a fragment, or a ring page) through what may
 * happen to it: copied (fault injection's duplicate), given a larger head
 * (a link header that did not fit), shared and cloned; the contents follow
 * each time.
 */
static void frag_survives(struct kunit *test, unsigned int len)
{
	struct sk_buff *skb = expect_buffer(test, len);
	struct sk_buff *copy, *clone;

	KUNIT_EXPECT_TRUE(test, skb->head_frag);
	copy = skb_copy(skb, GFP_ATOMIC);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	KUNIT_EXPECT_EQ(test, memcmp(copy->data, skb->data, len), 0);
	kfree_skb(copy);

	clone = skb_clone(skb, GFP_ATOMIC);
	KUNIT_ASSERT_NOT_NULL(test, clone);
	KUNIT_ASSERT_EQ(test, pskb_expand_head(skb, 256, 0, GFP_ATOMIC), 0);
	KUNIT_EXPECT_EQ(test, skb->data[len - 1], 0xa5);
	KUNIT_EXPECT_EQ(test, clone->data[0], 0xa5);
	kfree_skb(clone);
	KUNIT_EXPECT_GE(test, skb_headroom(skb), 256U);
	consume_skb(skb);
}

static void net_alloc_frag_survives(struct kunit *test)
{
	frag_survives(test, 100);
	frag_survives(test, PKTBUF_LEN);	/* on a ring page */
	frag_survives(test, PKTBUF_JUMBO);	/* on a two-page one */
}

/* many at once: fragments of one page freed in any order */
static void net_alloc_many(struct kunit *test)
{
	struct sk_buff *skbs[200];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(skbs); i++) {
		skbs[i] = expect_buffer(test, i % 2 ? 80 : 2000);
		skbs[i]->data[0] = i;
	}
	for (i = 0; i < ARRAY_SIZE(skbs); i++)
		KUNIT_EXPECT_EQ(test, skbs[i]->data[0], (u8)i);
	for (i = 0; i < ARRAY_SIZE(skbs); i += 2)
		kfree_skb(skbs[i]);
	for (i = 1; i < ARRAY_SIZE(skbs); i += 2)
		kfree_skb(skbs[i]);
}

/* --- the ring of reused pages (sv_pktbuf.c) --- */

struct pktbuf_ring_info {
	unsigned int	pages;		/* in the ring for this size */
	unsigned int	per_page;	/* packets of this size per page */
};

static struct pktbuf_ring_info pktbuf_ring(struct kunit *test,
					   unsigned int len)
{
	struct net_env *env = test->priv;
	unsigned int size = SKB_DATA_ALIGN(needed_headroom(env) + len) +
			    SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	unsigned int order = get_order(size);
	struct pktbuf_ring_info ri = {
		.pages = sv_pktbuf_ring_pages(order),
		.per_page = (PAGE_SIZE << order) / size,
	};

	KUNIT_EXPECT_LE(test, size, (unsigned int)PAGE_SIZE * 4);
	return ri;
}

static struct page *head_page(const struct sk_buff *skb)
{
	return virt_to_head_page(skb->head);
}

/*
 * Packets freed as soon as they are built: all of them on ring pages, and
 * never more pages than the ring has, however many packets go by.
 */
static void pktbuf_reuse(struct kunit *test, unsigned int len)
{
	struct pktbuf_ring_info ri = pktbuf_ring(test, len);
	unsigned int n = 4 * ri.pages * ri.per_page;
	struct page *seen[SV_PKTBUF_PAGES + 1];
	unsigned int i, j, nseen = 0;

	migrate_disable();	/* one CPU, one ring */
	for (i = 0; i < n; i++) {
		struct sk_buff *skb = expect_buffer(test, len);
		struct page *page = head_page(skb);

		KUNIT_EXPECT_TRUE_MSG(test, skb->head_frag, "packet %u", i);
		/* the ring's reference and this packet's, at least */
		KUNIT_EXPECT_GE(test, page_ref_count(page), 2);
		for (j = 0; j < nseen && seen[j] != page; j++)
			;
		if (j == nseen && nseen < ARRAY_SIZE(seen))
			seen[nseen++] = page;
		kfree_skb(skb);
	}
	migrate_enable();
	KUNIT_EXPECT_LE(test, nseen, ri.pages);
}

static void net_pktbuf_reuse(struct kunit *test)
{
	pktbuf_reuse(test, PKTBUF_LEN);
	pktbuf_reuse(test, PKTBUF_JUMBO);
	pktbuf_reuse(test, PKTBUF_BURST);
}

/*
 * More packets held than the ring has room for: the ring's pages are not
 * cut again while a packet is on them (each packet keeps its bytes), the
 * packets beyond come from slab, and once they are freed the ring serves
 * again.
 */
static void pktbuf_in_flight(struct kunit *test, unsigned int len)
{
	struct pktbuf_ring_info ri = pktbuf_ring(test, len);
	unsigned int n = (ri.pages + 2) * ri.per_page, i, on_ring = 0;
	struct sk_buff **skbs;
	struct sk_buff *skb;

	skbs = kunit_kcalloc(test, n, sizeof(*skbs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skbs);
	migrate_disable();
	for (i = 0; i < n; i++) {
		skbs[i] = expect_buffer(test, len);
		memset(skbs[i]->data, i, len);
		if (skbs[i]->head_frag)
			on_ring++;
		else	/* the ring is full: so is everything after */
			KUNIT_EXPECT_GE(test, on_ring,
					(ri.pages - 1) * ri.per_page);
	}
	KUNIT_EXPECT_LE(test, on_ring, ri.pages * ri.per_page);
	KUNIT_EXPECT_LT(test, on_ring, n);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, skbs[i]->data[0], (u8)i);
		KUNIT_EXPECT_EQ(test, skbs[i]->data[len - 1], (u8)i);
		kfree_skb(skbs[i]);
	}
	skb = expect_buffer(test, len);
	KUNIT_EXPECT_TRUE(test, skb->head_frag);
	kfree_skb(skb);
	migrate_enable();
}

static void net_pktbuf_in_flight(struct kunit *test)
{
	pktbuf_in_flight(test, PKTBUF_LEN);
	pktbuf_in_flight(test, PKTBUF_JUMBO);
	pktbuf_in_flight(test, PKTBUF_BURST);
}

/*
 * The rings released (module exit) while a packet is out: its page stays
 * until the packet is freed, and the ring starts again afterwards.
 */
static void net_pktbuf_exit_with_packet_out(struct kunit *test)
{
	struct sk_buff *skb, *jumbo;
	struct page *page, *jpage;

	skb = expect_buffer(test, PKTBUF_LEN);
	jumbo = expect_buffer(test, PKTBUF_JUMBO);
	KUNIT_ASSERT_TRUE(test, skb->head_frag);
	KUNIT_ASSERT_TRUE(test, jumbo->head_frag);
	page = head_page(skb);
	jpage = head_page(jumbo);
	sv_pktbuf_exit();
	KUNIT_EXPECT_EQ(test, page_ref_count(page), 1);
	KUNIT_EXPECT_EQ(test, page_ref_count(jpage), 1);
	/* still the packets': KASAN reports a write to a freed page */
	memset(skb->data, 0x3c, PKTBUF_LEN);
	memset(jumbo->data, 0x3c, PKTBUF_JUMBO);
	kfree_skb(skb);
	kfree_skb(jumbo);

	skb = expect_buffer(test, PKTBUF_LEN);
	KUNIT_EXPECT_TRUE(test, skb->head_frag);
	kfree_skb(skb);
}

/* --- local frames (sv_net.c) and their receive (sv_recv.c) --- */

/* a frame of @len IB bytes on a page fragment, as sv_net_frame_alloc() */
static struct sv_net_frame *frame_new(struct kunit *test, u8 opcode,
				      u32 paylen, u8 npkts)
{
	const struct sv_opcode_info *info = &sv_opcode_table[opcode];
	u32 len = sv_hdr_pkt_len(info, paylen);
	struct sv_net_frame *f;

	f = netdev_alloc_frag(SKB_DATA_ALIGN(sizeof(*f) + len));
	KUNIT_ASSERT_NOT_NULL(test, f);
	memset(f, 0, sizeof(*f) + len);
	f->pkt.frame = true;
	f->len = len;
	f->npkts = npkts;
	sv_hdr_build_bth(f->data, opcode, 0, SV_DEFAULT_PKEY, 0x123, 7,
			 paylen);
	return f;
}

/* a counter of the device, summed as the hw_stats ops sum it */
static u64 net_stat(struct kunit *test, unsigned int idx)
{
	struct net_env *env = test->priv;
	u64 *vals = kunit_kcalloc(test, sv_stats_num(), sizeof(*vals),
				  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, vals);
	sv_stats_read(env->sv, vals);
	return vals[idx];
}

/* @f through sv_recv_frame() as the loopback's drain hands it over */
static void net_recv_frame(struct net_env *env, struct sv_net_frame *f)
{
	local_bh_disable();
	rcu_read_lock();
	sv_recv_frame(env->sv, f);
	rcu_read_unlock();
	local_bh_enable();
}

/*
 * A frame is never UD (its receiver would put the IP header it does not
 * have into the GRH area): one that is, is dropped as invalid before any
 * QP is looked for, and freed.
 */
static void net_frame_ud_refused(struct kunit *test)
{
	struct net_env *env = test->priv;
	struct sv_net_frame *f = frame_new(test, IB_OPCODE_UD_SEND_ONLY, 8, 1);

	sv_hdr_build_deth(f->data, 0x11111111, 0x42);
	net_recv_frame(env, f);
	KUNIT_EXPECT_EQ(test, net_stat(test, SV_STAT_RX_DROP_INVALID), 1ULL);
	KUNIT_EXPECT_EQ(test, net_stat(test, SV_STAT_RX_DROP_NO_QP), 0ULL);
}

/*
 * A burst frame's headers are checked against the packets it stands for
 * (sv_hdr_parse_local()): a Middle burst of 1000 bytes is no whole number
 * of packets, and is dropped as invalid.
 */
static void net_frame_burst_checked(struct kunit *test)
{
	struct net_env *env = test->priv;
	struct sv_net_frame *f = frame_new(test, IB_OPCODE_RC_SEND_MIDDLE,
					   1000, 4);

	net_recv_frame(env, f);
	KUNIT_EXPECT_EQ(test, net_stat(test, SV_STAT_RX_DROP_INVALID), 1ULL);
}

/* An ODP park's copy of a frame: the IB bytes, BTH at skb->data. */
static void net_frame_copy(struct kunit *test)
{
	struct sv_net_frame *f = frame_new(test, IB_OPCODE_RC_SEND_ONLY, 61, 1);
	struct sv_rx_pkt pkt = { .skb = NULL };
	struct sk_buff *skb;

	memset(f->data + sv_opcode_table[IB_OPCODE_RC_SEND_ONLY].hdr_len,
	       0x5a, 61);
	KUNIT_ASSERT_EQ(test, sv_hdr_parse(f->data, f->len, &pkt.p), 0);
	skb = sv_recv_pkt_copy(&pkt);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, skb->len, f->len);
	KUNIT_EXPECT_EQ(test, memcmp(skb->data, f->data, f->len), 0);
	KUNIT_EXPECT_EQ(test, sv_hdr_parse(skb->data, skb->len, &pkt.p), 0);
	kfree_skb(skb);
	sv_net_frame_free(f);
}

/* a DMA MR's stand-in: a kind sv_mr_can_ref() takes, its key unpublished */
static struct sv_mr *ref_mr_new(struct kunit *test)
{
	struct sv_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mr);
	sv_mkey_init(&mr->mkey, SV_MKEY_MR);
	mr->kind = SV_MR_DMA;
	KUNIT_EXPECT_TRUE(test, sv_mr_can_ref(mr));
	return mr;
}

/*
 * A payload by reference only on a SEND or RDMA WRITE request or a READ
 * response: an ACK or an ATOMIC WRITE frame that claims one is dropped as
 * invalid, and the MR reference it held goes with it.
 */
static void net_frame_ref_refused(struct kunit *test)
{
	static const u8 ops[] = { IB_OPCODE_RC_ACKNOWLEDGE,
				  SV_OPCODE_RC_ATOMIC_WRITE };
	struct net_env *env = test->priv;
	struct sv_mr *mr = ref_mr_new(test);
	static u8 buf[8];
	int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		struct sv_net_frame *f;

		f = frame_new(test, ops[i],
			      ops[i] == IB_OPCODE_RC_ACKNOWLEDGE ? 0 : 8, 1);
		sv_mr_hold(mr);
		f->ref_mr = mr;
		f->ref_iova = (uintptr_t)buf;
		net_recv_frame(env, f);
	}
	KUNIT_EXPECT_EQ(test, net_stat(test, SV_STAT_RX_DROP_INVALID), 2ULL);
	KUNIT_EXPECT_EQ(test, net_stat(test, SV_STAT_RX_DROP_NO_QP), 0ULL);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->mkey.ref), 1U);
}

/*
 * An ODP park's copy of a frame by reference: the headers from the frame,
 * the payload from the MR, zeros for the pad and the ICRC.
 */
static void net_frame_ref_copy(struct kunit *test)
{
	const struct sv_opcode_info *info =
		&sv_opcode_table[IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY];
	struct sv_net_frame *f = frame_new(test,
					   IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY,
					   61, 1);
	struct sv_rx_pkt pkt = { .skb = NULL };
	struct sv_mr *mr = ref_mr_new(test);
	u8 *pay = kunit_kmalloc(test, 61, GFP_KERNEL);
	struct sk_buff *skb;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, pay);
	for (i = 0; i < 61; i++)
		pay[i] = i + 1;
	/* only the headers are in the frame: its payload place is junk */
	memset(f->data + info->hdr_len, 0xee, f->len - info->hdr_len);
	KUNIT_ASSERT_EQ(test, sv_hdr_parse(f->data, f->len, &pkt.p), 0);
	pkt.pay_mr = mr;
	pkt.pay_iova = (uintptr_t)pay;
	skb = sv_recv_pkt_copy(&pkt);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_EQ(test, skb->len, f->len);
	KUNIT_EXPECT_EQ(test, memcmp(skb->data, f->data, info->hdr_len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(skb->data + info->hdr_len, pay, 61), 0);
	for (i = info->hdr_len + 61; i < skb->len; i++)
		KUNIT_EXPECT_EQ_MSG(test, skb->data[i], 0, "byte %u", i);
	kfree_skb(skb);
	sv_net_frame_free(f);
	KUNIT_EXPECT_EQ(test, refcount_read(&mr->mkey.ref), 1U);
}

/* a packet list keeps its order; purging drops what it holds */
static void net_pktq_order(struct kunit *test)
{
	struct net_env *env = test->priv;
	struct sv_net_pkt *pkts[3];
	struct sv_net_pktq q;
	unsigned int i;

	sv_net_pktq_init(&q);
	KUNIT_EXPECT_TRUE(test, sv_net_pktq_empty(&q));
	for (i = 0; i < ARRAY_SIZE(pkts); i++) {
		/* no destination of this host: skbs */
		pkts[i] = sv_net_pkt_alloc(env->sv, &env->path, 40, 0, NULL);
		KUNIT_ASSERT_NOT_NULL(test, pkts[i]);
		KUNIT_EXPECT_FALSE(test, pkts[i]->frame);
		KUNIT_EXPECT_EQ(test, sv_net_pkt_len(pkts[i]), 40U);
		sv_net_pktq_add(&q, pkts[i]);
	}
	KUNIT_EXPECT_EQ(test, q.len, 3U);
	KUNIT_EXPECT_PTR_EQ(test, sv_net_pktq_pop(&q), pkts[0]);
	sv_net_pkt_drop(pkts[0]);
	KUNIT_EXPECT_PTR_EQ(test, sv_net_pktq_pop(&q), pkts[1]);
	sv_net_pkt_drop(pkts[1]);
	pkts[1] = sv_net_pkt_alloc(env->sv, &env->path, 40, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, pkts[1]);
	sv_net_pktq_add(&q, pkts[1]);
	KUNIT_EXPECT_EQ(test, q.len, 2U);
	KUNIT_EXPECT_PTR_EQ(test, q.head, pkts[2]);
	sv_net_pktq_purge(&q);
	KUNIT_EXPECT_TRUE(test, sv_net_pktq_empty(&q));
	KUNIT_EXPECT_EQ(test, q.len, 0U);
}

static struct kunit_case net_cases[] = {
	KUNIT_CASE(net_alloc_sizes),
	KUNIT_CASE(net_alloc_protocols),
	KUNIT_CASE(net_alloc_frag_survives),
	KUNIT_CASE(net_alloc_many),
	KUNIT_CASE(net_pktbuf_reuse),
	KUNIT_CASE(net_pktbuf_in_flight),
	KUNIT_CASE(net_pktbuf_exit_with_packet_out),
	KUNIT_CASE(net_frame_ud_refused),
	KUNIT_CASE(net_frame_burst_checked),
	KUNIT_CASE(net_frame_copy),
	KUNIT_CASE(net_frame_ref_refused),
	KUNIT_CASE(net_frame_ref_copy),
	KUNIT_CASE(net_pktq_order),
	{}
};

static struct kunit_suite net_suite = {
	.name = "softverbs_net",
	.init = net_env_init,
	.exit = net_env_exit,
	.test_cases = net_cases,
};

kunit_test_suites(&net_suite);
