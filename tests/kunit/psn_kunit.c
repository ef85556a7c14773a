// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmod/sv_psn.h: 24-bit PSN arithmetic with wrap-around
 * (IBTA 9.7.1) and packets per message at a path MTU.
 */
#include <kunit/test.h>
#include <linux/random.h>

#include "sv_psn.h"

#define MAXPSN	0xffffffU

/* PSNs where wrap bugs live */
static const u32 edge_psns[] = {
	0, 1, 2, 0x7ffffe, 0x7fffff, 0x800000, 0x800001, 0xfffffd, 0xfffffe,
	MAXPSN, 0x123456, 0xabcdef,
};

static void psn_add_sub_wrap(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_add(MAXPSN, 1), 0, "0xffffff + 1");
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_add(0xfffffe, 5), 3, "0xfffffe + 5");
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_add(0, MAXPSN), MAXPSN, "0 + 0xffffff");
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_add(5, 1U << 24), 5, "+ 2^24 is identity");
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_add(5, U32_MAX), 4, "+ (2^32 - 1) is - 1");
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_sub(0, 1), MAXPSN, "0 - 1");
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_sub(3, 5), 0xfffffe, "3 - 5");
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_mask(0x01abcdef), 0xabcdef, "mask");
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_dist(MAXPSN, 0), 1, "dist 0xffffff -> 0");
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_dist(0, MAXPSN), MAXPSN, "dist 0 -> 0xffffff");
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_dist(7, 7), 0, "dist to itself");
}

/* garbage above bit 23 in the inputs must not matter */
static void psn_ignores_high_bits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sv_psn_diff(0xff000005, 0x00000003), 2);
	KUNIT_EXPECT_EQ(test, sv_psn_diff(0x00000003, 0x7f000005), -2);
	KUNIT_EXPECT_EQ(test, sv_psn_dist(0xaa000001, 0x55000003), 2);
	KUNIT_EXPECT_TRUE(test, sv_psn_in_window(0x01000002, 0xff000001, 3));
}

/* diff(a + d, a) == d for every d in [-2^23, 2^23), across the wrap */
static void psn_diff_range(struct kunit *test)
{
	static const s32 ds[] = {
		0, 1, -1, 2, -2, 1000, -1000, 0x7ffffe, 0x7fffff,
		-0x7fffff, -0x800000,
	};
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(edge_psns); i++)
		for (j = 0; j < ARRAY_SIZE(ds); j++) {
			u32 a = edge_psns[i];
			u32 b = sv_psn_add(a, (u32)ds[j]);

			KUNIT_EXPECT_EQ_MSG(test, sv_psn_diff(b, a), ds[j],
					    "diff(0x%06x, 0x%06x)", b, a);
		}
	/* +2^23 is the same point as -2^23: behind */
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_diff(0x800000, 0), -0x800000,
			    "exactly half-way round");
}

/*
 * before/after/cmp are antisymmetric everywhere except at distance 2^23,
 * where each PSN is behind the other.
 */
static void psn_compare_symmetry(struct kunit *test)
{
	unsigned int i, j, n;

	for (n = 0; n < 20000; n++) {
		u32 a, b;

		if (n < ARRAY_SIZE(edge_psns) * ARRAY_SIZE(edge_psns)) {
			i = n / ARRAY_SIZE(edge_psns);
			j = n % ARRAY_SIZE(edge_psns);
			a = edge_psns[i];
			b = edge_psns[j];
		} else {
			a = get_random_u32() & MAXPSN;
			b = get_random_u32() & MAXPSN;
		}
		if (sv_psn_dist(a, b) == 0x800000) {
			if (!sv_psn_before(a, b) || !sv_psn_before(b, a))
				KUNIT_FAIL(test, "0x%06x, 0x%06x half-way: both must be behind",
					   a, b);
			continue;
		}
		if (sv_psn_cmp(a, b) != -sv_psn_cmp(b, a) ||
		    sv_psn_before(a, b) != sv_psn_after(b, a) ||
		    (sv_psn_cmp(a, b) == 0) != (a == b) ||
		    sv_psn_before(a, b) != (sv_psn_cmp(a, b) < 0)) {
			KUNIT_FAIL(test, "0x%06x vs 0x%06x: cmp %d / %d, before %d, after %d",
				   a, b, sv_psn_cmp(a, b), sv_psn_cmp(b, a),
				   sv_psn_before(a, b), sv_psn_after(b, a));
			return;
		}
	}
}

/* the requester's view: the next 2^23 - 1 PSNs are ahead */
static void psn_ahead_across_wrap(struct kunit *test)
{
	KUNIT_EXPECT_TRUE_MSG(test, sv_psn_after(0, MAXPSN), "0 after 0xffffff");
	KUNIT_EXPECT_TRUE_MSG(test, sv_psn_before(MAXPSN, 0), "0xffffff before 0");
	KUNIT_EXPECT_TRUE_MSG(test, sv_psn_after(0x7ffffe, MAXPSN),
			      "0x7ffffe is 2^23 - 1 after 0xffffff");
	KUNIT_EXPECT_TRUE_MSG(test, sv_psn_before(0x7fffff, MAXPSN),
			      "0x7fffff is 2^23 from 0xffffff: behind");
	KUNIT_EXPECT_TRUE_MSG(test, sv_psn_before(0xfffff0, 0x10),
			      "0xfffff0 before 0x10");
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_cmp(0x10, 0xfffff0), 1, "cmp");
	KUNIT_EXPECT_EQ_MSG(test, sv_psn_cmp(0x42, 0x42), 0, "cmp equal");
}

static void psn_window(struct kunit *test)
{
	/* [0xfffff0, 0x10) spans the wrap */
	KUNIT_EXPECT_TRUE(test, sv_psn_in_window(0xfffff0, 0xfffff0, 0x10));
	KUNIT_EXPECT_TRUE(test, sv_psn_in_window(MAXPSN, 0xfffff0, 0x10));
	KUNIT_EXPECT_TRUE(test, sv_psn_in_window(0, 0xfffff0, 0x10));
	KUNIT_EXPECT_TRUE(test, sv_psn_in_window(0xf, 0xfffff0, 0x10));
	KUNIT_EXPECT_FALSE_MSG(test, sv_psn_in_window(0x10, 0xfffff0, 0x10),
			       "end is excluded");
	KUNIT_EXPECT_FALSE(test, sv_psn_in_window(0xffffef, 0xfffff0, 0x10));
	KUNIT_EXPECT_FALSE(test, sv_psn_in_window(0x800000, 0xfffff0, 0x10));
	/* empty */
	KUNIT_EXPECT_FALSE_MSG(test, sv_psn_in_window(5, 5, 5), "[5, 5) is empty");
	/* everything but one PSN */
	KUNIT_EXPECT_TRUE(test, sv_psn_in_window(3, 5, 4));
	KUNIT_EXPECT_FALSE(test, sv_psn_in_window(4, 5, 4));
}

/* brute force against a plain definition on a window spanning the wrap */
static void psn_window_exhaustive_near_wrap(struct kunit *test)
{
	const u32 start = 0xffff00, width = 0x200;
	u32 off;

	for (off = 0; off < 0x400; off++) {
		u32 psn = sv_psn_add(0xfffe00, off);	/* 0xfffe00 .. 0x0001ff */
		bool want = off >= 0x100 && off < 0x100 + width;

		if (sv_psn_in_window(psn, start, sv_psn_add(start, width)) != want) {
			KUNIT_FAIL(test, "0x%06x in [0x%06x, +0x%x): want %d",
				   psn, start, width, want);
			return;
		}
	}
}

static void psn_next_after_n(struct kunit *test)
{
	/* a 3-packet message at 0xfffffe takes 0xfffffe, 0xffffff, 0 */
	KUNIT_EXPECT_EQ(test, sv_psn_add(0xfffffe, sv_mtu_npkts(3000, 1024)), 1);
}

static void psn_mtu_npkts(struct kunit *test)
{
	static const u32 mtus[] = { 256, 512, 1024, 2048, 4096 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mtus); i++) {
		u32 m = mtus[i];

		KUNIT_EXPECT_EQ_MSG(test, sv_mtu_npkts(0, m), 1,
				    "0 bytes at MTU %u: one empty packet", m);
		KUNIT_EXPECT_EQ_MSG(test, sv_mtu_npkts(1, m), 1, "1 byte, MTU %u", m);
		KUNIT_EXPECT_EQ_MSG(test, sv_mtu_npkts(m - 1, m), 1, "MTU-1, MTU %u", m);
		KUNIT_EXPECT_EQ_MSG(test, sv_mtu_npkts(m, m), 1, "MTU bytes, MTU %u", m);
		KUNIT_EXPECT_EQ_MSG(test, sv_mtu_npkts(m + 1, m), 2, "MTU+1, MTU %u", m);
		KUNIT_EXPECT_EQ_MSG(test, sv_mtu_npkts(3 * m, m), 3, "3 MTU, MTU %u", m);
		/* 2^31, the largest message (IBTA) */
		KUNIT_EXPECT_EQ_MSG(test, sv_mtu_npkts(1U << 31, m), (1U << 31) / m,
				    "2^31 bytes, MTU %u", m);
		KUNIT_EXPECT_EQ_MSG(test, sv_mtu_npkts(U32_MAX, m),
				    (u32)(((u64)U32_MAX + m - 1) / m),
				    "2^32 - 1 bytes, MTU %u: no overflow", m);
	}
}

static struct kunit_case psn_cases[] = {
	KUNIT_CASE(psn_add_sub_wrap),
	KUNIT_CASE(psn_ignores_high_bits),
	KUNIT_CASE(psn_diff_range),
	KUNIT_CASE(psn_compare_symmetry),
	KUNIT_CASE(psn_ahead_across_wrap),
	KUNIT_CASE(psn_window),
	KUNIT_CASE(psn_window_exhaustive_near_wrap),
	KUNIT_CASE(psn_next_after_n),
	KUNIT_CASE(psn_mtu_npkts),
	{}
};

static struct kunit_suite psn_suite = {
	.name = "psn_kunit",
	.test_cases = psn_cases,
};

kunit_test_suites(&psn_suite);
