/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Packet sequence numbers: 24-bit counters that wrap (IBTA 9.7.1), and how
 * many packets a message takes at a path MTU.  Pure arithmetic, tested by
 * tests/kunit/psn_kunit.c.
 *
 * Comparison follows IBTA 9.7.1: seen from a reference PSN, the 2^23 PSNs
 * at and after it are "ahead" (not yet reached: new requests at the
 * responder, future responses at the requester) and the 2^23 before it
 * are "behind" (duplicates, stale responses).  So sv_psn_diff() is the
 * signed distance in [-2^23, 2^23): exactly half-way round the circle
 * counts as behind, from either side.  Everywhere else the comparison is
 * antisymmetric: sv_psn_before(a, b) == sv_psn_after(b, a).
 */
#ifndef SV_PSN_H
#define SV_PSN_H

#include <linux/types.h>

#define SV_PSN_BITS	24
#define SV_PSN_MASK	((1U << SV_PSN_BITS) - 1)
#define SV_PSN_HALF	(1U << (SV_PSN_BITS - 1))	/* 2^23 */

static inline u32 sv_psn_mask(u32 v)
{
	return v & SV_PSN_MASK;
}

/* @psn + @n modulo 2^24: the PSN @n packets later */
static inline u32 sv_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SV_PSN_MASK;
}

/* @psn - @n modulo 2^24 */
static inline u32 sv_psn_sub(u32 psn, u32 n)
{
	return (psn - n) & SV_PSN_MASK;
}

/* forward distance from @from to @to, 0 .. 2^24 - 1 */
static inline u32 sv_psn_dist(u32 from, u32 to)
{
	return (to - from) & SV_PSN_MASK;
}

/* signed distance @a - @b, in [-2^23, 2^23) (see the top of the file) */
static inline s32 sv_psn_diff(u32 a, u32 b)
{
	/* move the 24-bit difference's sign bit to bit 31, shift back */
	return (s32)((a - b) << (32 - SV_PSN_BITS)) >> (32 - SV_PSN_BITS);
}

/* <0, 0, >0 as @a is behind, equal to or ahead of @b */
static inline int sv_psn_cmp(u32 a, u32 b)
{
	s32 d = sv_psn_diff(a, b);

	return (d > 0) - (d < 0);
}

static inline bool sv_psn_before(u32 a, u32 b)
{
	return sv_psn_diff(a, b) < 0;
}

static inline bool sv_psn_after(u32 a, u32 b)
{
	return sv_psn_diff(a, b) > 0;
}

/*
 * Is @psn in the window [@start, @end) going forward from @start, modulo
 * 2^24?  Empty when @start == @end; any width up to 2^24 - 1.
 */
static inline bool sv_psn_in_window(u32 psn, u32 start, u32 end)
{
	return sv_psn_dist(start, psn) < sv_psn_dist(start, end);
}

/*
 * Packets a message of @len bytes takes at a path MTU of @mtu bytes: at
 * least one (a zero-length message is one packet without payload, IBTA
 * 9.7.7), else ceil(@len / @mtu).  @mtu is a path MTU (256..4096) and
 * never 0.  No overflow for any u32 @len.
 */
static inline u32 sv_mtu_npkts(u32 len, u32 mtu)
{
	if (!len)
		return 1;
	return len / mtu + !!(len % mtu);
}

#endif /* SV_PSN_H */
