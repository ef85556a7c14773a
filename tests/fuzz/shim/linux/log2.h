/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_LOG2_H
#define SHIM_LINUX_LOG2_H
#include <linux/types.h>

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/* floor(log2(n)); n > 0 */
static inline int shim_ilog2(unsigned long long n)
{
	return 63 - __builtin_clzll(n);
}
#define ilog2(n)	shim_ilog2(n)

/* ceil(log2(n)), 0 for n <= 1, as the kernel's */
static inline int order_base_2(unsigned long long n)
{
	return n > 1 ? shim_ilog2(n - 1) + 1 : 0;
}

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return 1UL << order_base_2(n);
}
#endif
