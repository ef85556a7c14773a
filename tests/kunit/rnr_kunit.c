// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmod/sv_rnr.h: the RNR NAK timer encoding (IBTA Table
 * 45) and the local ACK timeout (IBTA 9.7.6.1.3).
 *
 * The expected RNR table comes from the names of ib_core's enum
 * ib_rnr_timeout (IB_RNR_TIMER_655_36 = 0: code 0 is 655.36 ms, ...), an
 * independent spelling of Table 45.
 */
#include <kunit/test.h>
#include <linux/jiffies.h>

#include <rdma/ib_verbs.h>

#include "sv_rnr.h"

/*
 * IB_RNR_TIMER_MMM_FF -> MMM.FF ms -> microseconds.  The digits are
 * glued behind a 1 so that "081" is not read as an octal number.
 */
#define RNR(ms, frac)	{ IB_RNR_TIMER_##ms##_##frac, \
			  (1##ms##U - 1000) * 1000 + (1##frac##U - 100) * 10 }

static const struct { u8 code; u32 us; } rnr_table[] = {
	RNR(655, 36), RNR(000, 01), RNR(000, 02), RNR(000, 03),
	RNR(000, 04), RNR(000, 06), RNR(000, 08), RNR(000, 12),
	RNR(000, 16), RNR(000, 24), RNR(000, 32), RNR(000, 48),
	RNR(000, 64), RNR(000, 96), RNR(001, 28), RNR(001, 92),
	RNR(002, 56), RNR(003, 84), RNR(005, 12), RNR(007, 68),
	RNR(010, 24), RNR(015, 36), RNR(020, 48), RNR(030, 72),
	RNR(040, 96), RNR(061, 44), RNR(081, 92), RNR(122, 88),
	RNR(163, 84), RNR(245, 76), RNR(327, 68), RNR(491, 52),
};

static void rnr_every_code(struct kunit *test)
{
	unsigned int i;

	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(rnr_table), SV_RNR_TIMER_CODES);
	for (i = 0; i < ARRAY_SIZE(rnr_table); i++)
		KUNIT_EXPECT_EQ_MSG(test, sv_rnr_timer_to_us(rnr_table[i].code),
				    rnr_table[i].us, "RNR timer code %u",
				    rnr_table[i].code);
	KUNIT_EXPECT_EQ_MSG(test, sv_rnr_timer_to_us(32 + 14),
			    sv_rnr_timer_to_us(14), "only 5 bits count");
}

/* exact table values encode to their own code */
static void rnr_exact_round_trip(struct kunit *test)
{
	u8 code;

	for (code = 0; code < SV_RNR_TIMER_CODES; code++)
		KUNIT_EXPECT_EQ_MSG(test,
				    sv_rnr_timer_from_us(sv_rnr_timer_to_us(code)),
				    code, "%u us", sv_rnr_timer_to_us(code));
}

/* one microsecond more needs the next longer code */
static void rnr_rounds_up(struct kunit *test)
{
	u8 code;

	KUNIT_EXPECT_EQ_MSG(test, sv_rnr_timer_from_us(0), 1, "0 us: shortest");
	KUNIT_EXPECT_EQ_MSG(test, sv_rnr_timer_from_us(1), 1, "1 us: 10 us");
	KUNIT_EXPECT_EQ_MSG(test, sv_rnr_timer_from_us(11), 2, "11 us: 20 us");
	KUNIT_EXPECT_EQ_MSG(test, sv_rnr_timer_from_us(1000), 14,
			    "1 ms: 1.28 ms");
	for (code = 1; code < SV_RNR_TIMER_CODES - 1; code++)
		KUNIT_EXPECT_EQ_MSG(test,
				    sv_rnr_timer_from_us(sv_rnr_timer_to_us(code) + 1),
				    code + 1, "%u us + 1", sv_rnr_timer_to_us(code));
	/* beyond 491.52 ms only code 0 (655.36 ms) is longer */
	KUNIT_EXPECT_EQ(test, sv_rnr_timer_from_us(491521), 0);
	/* beyond 655.36 ms: the longest there is */
	KUNIT_EXPECT_EQ(test, sv_rnr_timer_from_us(655361), 0);
	KUNIT_EXPECT_EQ(test, sv_rnr_timer_from_us(U32_MAX), 0);
}

/* the encoded wait is never shorter than asked, and minimal */
static void rnr_sweep(struct kunit *test)
{
	u32 us;

	for (us = 0; us <= 660000; us += 7) {
		u8 code = sv_rnr_timer_from_us(us);
		u32 got = sv_rnr_timer_to_us(code);
		u8 c;

		if (us <= 655360 && got < us) {
			KUNIT_FAIL(test, "%u us encoded as code %u = %u us", us, code, got);
			return;
		}
		for (c = 0; c < SV_RNR_TIMER_CODES; c++) {
			u32 t = sv_rnr_timer_to_us(c);

			if (t >= us && t < got) {
				KUNIT_FAIL(test, "%u us: code %u (%u us) is shorter than code %u",
					   us, c, t, code);
				return;
			}
		}
	}
}

static void ack_timeout_ns(struct kunit *test)
{
	u8 t;

	KUNIT_EXPECT_EQ_MSG(test, sv_ack_timeout_ns(0), 0, "0: never");
	KUNIT_EXPECT_EQ_MSG(test, sv_ack_timeout_ns(1), 8192, "4.096 us * 2");
	KUNIT_EXPECT_EQ_MSG(test, sv_ack_timeout_ns(14), 67108864, "14: 67.1 ms");
	KUNIT_EXPECT_EQ_MSG(test, sv_ack_timeout_ns(31), 4096ULL << 31,
			    "31: 2.44 hours");
	for (t = 1; t < 31; t++)
		KUNIT_EXPECT_EQ_MSG(test, sv_ack_timeout_ns(t + 1),
				    2 * sv_ack_timeout_ns(t),
				    "timeout %u doubles %u", t + 1, t);
	KUNIT_EXPECT_EQ_MSG(test, sv_ack_timeout_ns(32), sv_ack_timeout_ns(31),
			    "above 31: treated as 31");
	KUNIT_EXPECT_EQ_MSG(test, sv_ack_timeout_ns(255), sv_ack_timeout_ns(31),
			    "255: treated as 31");
}

static void ack_timeout_jiffies(struct kunit *test)
{
	unsigned long prev = 0;
	u8 t;

	KUNIT_EXPECT_EQ_MSG(test, sv_ack_timeout_jiffies(0), 0, "0: never");
	for (t = 1; t <= 31; t++) {
		unsigned long j = sv_ack_timeout_jiffies(t);

		KUNIT_EXPECT_GE_MSG(test, j, 1UL, "timeout %u: at least a jiffy", t);
		KUNIT_EXPECT_LE_MSG(test, j, (unsigned long)MAX_JIFFY_OFFSET,
				    "timeout %u: within MAX_JIFFY_OFFSET", t);
		KUNIT_EXPECT_GE_MSG(test, j, prev, "timeout %u shorter than %u",
				    t, t - 1);
		/* within a jiffy of the exact value */
		KUNIT_EXPECT_LE_MSG(test,
				    div_u64(sv_ack_timeout_ns(t), NSEC_PER_SEC / HZ),
				    (u64)j, "timeout %u: too short", t);
		prev = j;
	}
	KUNIT_EXPECT_EQ_MSG(test, sv_ack_timeout_jiffies(31),
			    (unsigned long)div_u64(4096ULL << 31, NSEC_PER_SEC / HZ),
			    "timeout 31: 8796 s in jiffies");
}

static struct kunit_case rnr_cases[] = {
	KUNIT_CASE(rnr_every_code),
	KUNIT_CASE(rnr_exact_round_trip),
	KUNIT_CASE(rnr_rounds_up),
	KUNIT_CASE(rnr_sweep),
	KUNIT_CASE(ack_timeout_ns),
	KUNIT_CASE(ack_timeout_jiffies),
	{}
};

static struct kunit_suite rnr_suite = {
	.name = "rnr_kunit",
	.test_cases = rnr_cases,
};

kunit_test_suites(&rnr_suite);
