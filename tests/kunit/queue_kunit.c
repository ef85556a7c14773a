// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the shared-ring index maths of kmod/sv_queue.h.
 *
 * The rings follow uapi/softverbs-abi.h ("Shared queues and memory
 * ordering"): producer and consumer indices are slot numbers kept masked
 * to [0, index_mask] (librxe's convention), empty when equal, one slot
 * always free.  The kernel
 * keeps private copies of the indices it owns and reads the ones user
 * space owns from the shared header.
 *
 * Queues here are built by hand on a kunit_kzalloc()'ed buffer, so only
 * the inline helpers are under test, not the vmalloc/mmap plumbing.
 */
#include <kunit/test.h>

#include "sv_queue.h"

#define ELEM_LOG2	6		/* 64-byte slots */

static struct sv_queue *make_queue(struct kunit *test, enum sv_queue_kind kind,
				   u32 slots)
{
	struct sv_queue *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	q->buf_size = sizeof(*q->buf) + ((size_t)slots << ELEM_LOG2);
	q->buf = kunit_kzalloc(test, q->buf_size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q->buf);
	q->kind = kind;
	q->log2_elem_size = ELEM_LOG2;
	q->index_mask = slots - 1;
	q->buf->log2_elem_size = ELEM_LOG2;
	q->buf->index_mask = slots - 1;
	return q;
}

/* Start both counters at @start, in the private copies and the header. */
static void set_indices(struct sv_queue *q, u32 start)
{
	q->prod = q->cons = start;
	q->buf->producer_index = q->buf->consumer_index = start;
}

static void new_queue_is_empty(struct kunit *test)
{
	struct sv_queue *q = make_queue(test, SV_QUEUE_KERNEL_ONLY, 8);

	KUNIT_EXPECT_EQ_MSG(test, sv_queue_count(q), 0U, "fresh queue has entries");
	KUNIT_EXPECT_TRUE_MSG(test, sv_queue_empty(q), "fresh queue not empty");
	KUNIT_EXPECT_FALSE_MSG(test, sv_queue_full(q), "fresh queue full");
}

static void capacity_keeps_one_slot_free(struct kunit *test)
{
	struct sv_queue *q = make_queue(test, SV_QUEUE_KERNEL_ONLY, 8);
	u32 i;

	KUNIT_EXPECT_EQ_MSG(test, sv_queue_capacity(q), 7U,
			    "8 slots must give capacity 7 (one slot stays free)");
	for (i = 0; i < 7; i++) {
		KUNIT_EXPECT_FALSE_MSG(test, sv_queue_full(q),
				       "full after only %u of 7 entries", i);
		sv_queue_produce(q);
	}
	KUNIT_EXPECT_TRUE_MSG(test, sv_queue_full(q), "not full after 7 of 7 entries");
	KUNIT_EXPECT_EQ_MSG(test, sv_queue_count(q), 7U, "count after filling");
}

static void produce_then_consume_same_slot(struct kunit *test)
{
	struct sv_queue *q = make_queue(test, SV_QUEUE_KERNEL_ONLY, 4);
	u32 *slot;

	slot = sv_queue_producer_slot(q);
	*slot = 0xabcd1234;
	sv_queue_produce(q);
	KUNIT_EXPECT_EQ_MSG(test, sv_queue_count(q), 1U, "count after one produce");
	KUNIT_EXPECT_PTR_EQ_MSG(test, sv_queue_consumer_slot(q), (void *)slot,
				"consumer does not see the slot just produced");
	KUNIT_EXPECT_EQ_MSG(test, *(u32 *)sv_queue_consumer_slot(q), 0xabcd1234U,
			    "slot contents changed between produce and consume");
	sv_queue_consume(q);
	KUNIT_EXPECT_TRUE_MSG(test, sv_queue_empty(q), "not empty after consuming all");
}

static void slot_address_masks_index(struct kunit *test)
{
	struct sv_queue *q = make_queue(test, SV_QUEUE_KERNEL_ONLY, 16);
	u32 i;

	for (i = 0; i < 16; i++) {
		void *want = q->buf->data + ((size_t)i << ELEM_LOG2);

		KUNIT_EXPECT_PTR_EQ_MSG(test, sv_queue_slot(q, i), want,
					"slot %u at wrong offset", i);
		KUNIT_EXPECT_PTR_EQ_MSG(test, sv_queue_slot(q, i + 16), want,
					"index %u does not wrap to slot %u", i + 16, i);
		KUNIT_EXPECT_PTR_EQ_MSG(test, sv_queue_slot(q, i + 0xfffffff0U), want,
					"index %#x does not wrap to slot %u",
					i + 0xfffffff0U, i);
	}
}

/* Indices wrap at the ring size: slot 7 + 1 = slot 0 must not look empty. */
static void indices_wrap_at_ring_size(struct kunit *test)
{
	struct sv_queue *q = make_queue(test, SV_QUEUE_KERNEL_ONLY, 8);
	u32 i;

	set_indices(q, 6);
	for (i = 1; i <= 5; i++) {
		sv_queue_produce(q);
		KUNIT_EXPECT_EQ_MSG(test, sv_queue_count(q), i,
				    "count across the wrap (prod %#x, cons %#x)",
				    q->prod, q->cons);
	}
	for (i = 5; i > 0; i--) {
		KUNIT_EXPECT_FALSE_MSG(test, sv_queue_empty(q),
				       "empty with %u entries left (cons %#x)", i, q->cons);
		sv_queue_consume(q);
	}
	KUNIT_EXPECT_TRUE_MSG(test, sv_queue_empty(q), "not empty at prod=cons=%#x", q->prod);
}

static void full_across_wrap(struct kunit *test)
{
	struct sv_queue *q = make_queue(test, SV_QUEUE_KERNEL_ONLY, 4);
	u32 i;

	set_indices(q, 3);
	for (i = 0; i < 3; i++)
		sv_queue_produce(q);
	KUNIT_EXPECT_TRUE_MSG(test, sv_queue_full(q),
			      "not full with 3 of 3 entries (prod %#x, cons %#x)",
			      q->prod, q->cons);
}

/* What the kernel owns, it publishes to user space with each step. */
static void produce_publishes_producer_index(struct kunit *test)
{
	struct sv_queue *q = make_queue(test, SV_QUEUE_KERNEL_PRODUCES, 8);

	sv_queue_produce(q);
	sv_queue_produce(q);
	KUNIT_EXPECT_EQ_MSG(test, q->buf->producer_index, 2U,
			    "user space sees producer_index %u after 2 produces",
			    q->buf->producer_index);
}

static void consume_publishes_consumer_index(struct kunit *test)
{
	struct sv_queue *q = make_queue(test, SV_QUEUE_KERNEL_CONSUMES, 8);

	q->buf->producer_index = 3;		/* user posted 3 */
	sv_queue_consume(q);
	KUNIT_EXPECT_EQ_MSG(test, q->buf->consumer_index, 1U,
			    "user space sees consumer_index %u after 1 consume",
			    q->buf->consumer_index);
	KUNIT_EXPECT_EQ_MSG(test, sv_queue_count(q), 2U, "entries left");
}

/* User CQ: the kernel produces, the count follows the user's consumer index. */
static void kernel_produces_reads_user_consumer(struct kunit *test)
{
	struct sv_queue *q = make_queue(test, SV_QUEUE_KERNEL_PRODUCES, 8);

	sv_queue_produce(q);
	sv_queue_produce(q);
	sv_queue_produce(q);
	q->buf->consumer_index = 2;		/* user polled 2 */
	KUNIT_EXPECT_EQ_MSG(test, sv_queue_count(q), 1U,
			    "count must use the user's consumer_index");
}

/* User SQ/RQ: user space produces; the kernel's consumer index stays private. */
static void kernel_consumes_ignores_user_consumer_writes(struct kunit *test)
{
	struct sv_queue *q = make_queue(test, SV_QUEUE_KERNEL_CONSUMES, 8);

	q->buf->producer_index = 4;		/* user posted 4 */
	KUNIT_EXPECT_EQ_MSG(test, sv_queue_count(q), 4U, "count after user posted 4");
	q->buf->consumer_index = 4;		/* user scribbles on our index */
	KUNIT_EXPECT_EQ_MSG(test, sv_queue_cons(q), 0U,
			    "kernel consumer index taken from user-writable memory");
	KUNIT_EXPECT_EQ_MSG(test, sv_queue_count(q), 4U,
			    "user write to consumer_index changed the count");
}

/* Whatever user space writes into its index names a slot inside the ring. */
static void bogus_user_index_stays_in_ring(struct kunit *test)
{
	struct sv_queue *q = make_queue(test, SV_QUEUE_KERNEL_CONSUMES, 8);

	q->buf->producer_index = 100;		/* 100 & 7 = 4 */
	KUNIT_EXPECT_EQ_MSG(test, sv_queue_count(q), 4U,
			    "producer_index 100 on an 8-slot ring must count as slot 4");
	q->buf->producer_index = 0xfffffff0U;	/* & 7 = 0: empty */
	KUNIT_EXPECT_TRUE_MSG(test, sv_queue_empty(q),
			      "producer_index 0xfffffff0 must read as slot 0");
	q->buf->producer_index = ~0U;
	KUNIT_EXPECT_LE_MSG(test, sv_queue_count(q), sv_queue_capacity(q),
			    "count beyond capacity from a hostile index");
}

static struct kunit_case queue_cases[] = {
	KUNIT_CASE(new_queue_is_empty),
	KUNIT_CASE(capacity_keeps_one_slot_free),
	KUNIT_CASE(produce_then_consume_same_slot),
	KUNIT_CASE(slot_address_masks_index),
	KUNIT_CASE(indices_wrap_at_ring_size),
	KUNIT_CASE(full_across_wrap),
	KUNIT_CASE(produce_publishes_producer_index),
	KUNIT_CASE(consume_publishes_consumer_index),
	KUNIT_CASE(kernel_produces_reads_user_consumer),
	KUNIT_CASE(kernel_consumes_ignores_user_consumer_writes),
	KUNIT_CASE(bogus_user_index_stays_in_ring),
	{}
};

static struct kunit_suite queue_suite = {
	.name = "queue_kunit",
	.test_cases = queue_cases,
};

kunit_test_suites(&queue_suite);
