/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timer encodings of the reliable transport, tested by
 * tests/kunit/rnr_kunit.c:
 *
 *  - the 5-bit RNR NAK timer code (IBTA Table 45, "Encoding for
 *    RNR NAK Timer Field"): how long a requester waits after an RNR NAK;
 *    a QP's min_rnr_timer and the AETH of an RNR NAK carry it;
 *  - the 5-bit local ACK timeout (IBTA 9.7.6.1.3): 4.096 us * 2^timeout
 *    before the requester retransmits, 0 meaning never.
 */
#ifndef SV_RNR_H
#define SV_RNR_H

#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/types.h>

#define SV_RNR_TIMER_CODES	32

/*
 * Table 45 in microseconds, indexed by code: 0 is the longest wait
 * (655.36 ms), 1..31 grow from 0.01 ms to 491.52 ms.  The same encoding
 * as enum ib_rnr_timeout (IB_RNR_TIMER_655_36 = 0, ...).
 */
static inline u32 sv_rnr_timer_to_us(u8 code)
{
	static const u32 us[SV_RNR_TIMER_CODES] = {
		655360,     10,     20,     30,     40,     60,     80,    120,
		   160,    240,    320,    480,    640,    960,   1280,   1920,
		  2560,   3840,   5120,   7680,  10240,  15360,  20480,  30720,
		 40960,  61440,  81920, 122880, 163840, 245760, 327680, 491520,
	};

	return us[code % SV_RNR_TIMER_CODES];
}

/*
 * The code of the shortest RNR wait that is at least @us: rounding up,
 * so a responder that asks for @us never gets less.  Above 655.36 ms the
 * longest, code 0.
 */
static inline u8 sv_rnr_timer_from_us(u32 us)
{
	u8 code;

	for (code = 1; code < SV_RNR_TIMER_CODES; code++)
		if (sv_rnr_timer_to_us(code) >= us)
			return code;
	return 0;
}

static inline unsigned long sv_rnr_timer_to_jiffies(u8 code)
{
	return usecs_to_jiffies(sv_rnr_timer_to_us(code));
}

/*
 * Local ACK timeout in nanoseconds: 4096 ns << @timeout (IBTA 9.7.6.1.3),
 * at most 4096 << 31 ns = 2.4 hours, well inside u64.  0 means the
 * requester never times out: returns 0.  Values above 31 are not
 * encodings; they are treated as 31.
 */
static inline u64 sv_ack_timeout_ns(u8 timeout)
{
	if (!timeout)
		return 0;
	return 4096ULL << min_t(u8, timeout, 31);
}

/*
 * The same in jiffies, for mod_timer(): at least 1 for any finite
 * timeout, and never beyond MAX_JIFFY_OFFSET; 0 still means never.
 */
static inline unsigned long sv_ack_timeout_jiffies(u8 timeout)
{
	u64 ns = sv_ack_timeout_ns(timeout);
	unsigned long j;

	if (!ns)
		return 0;
	j = nsecs_to_jiffies(ns);
	return clamp_t(unsigned long, j, 1, MAX_JIFFY_OFFSET);
}

#endif /* SV_RNR_H */
