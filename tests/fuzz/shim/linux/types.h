/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fake kernel headers for building kmod/ C files in user space (tests/fuzz):
 * the base every other shim header includes.  Kernel types on top of the
 * system's uapi <linux/types.h>, the compiler helpers, and the checks
 * that turn a kernel WARN or BUG into an abort(), which libFuzzer reports
 * as a crash with the input that caused it.
 *
 * Only what the kmod files built here use, with the kernel's semantics;
 * nothing here may make a check pass that would fail in the kernel.
 */
#ifndef SHIM_LINUX_TYPES_H
#define SHIM_LINUX_TYPES_H

#include_next <linux/types.h>	/* __u8 .. __u64, __be16 .. __be64 */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef unsigned int gfp_t;
typedef u64 phys_addr_t;
typedef u64 dma_addr_t;

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S32_MAX		((s32)(U32_MAX >> 1))

/* annotations sparse reads and the compiler does not */
#define __rcu
#define __percpu
#define __user
#define __iomem
#define __force
#define __must_check
#define __maybe_unused	__attribute__((unused))
#define __packed	__attribute__((packed))
#define __aligned(x)	__attribute__((aligned(x)))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define fallthrough	__attribute__((fallthrough))

/* <linux/build_bug.h>: static_assert with an optional message */
#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)
#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)

/* <linux/bits.h> */
#define BIT(nr)		(1UL << (nr))
#define BIT_ULL(nr)	(1ULL << (nr))
#define GENMASK(h, l)	(((~0UL) << (l)) & (~0UL >> (63 - (h))))
#define GENMASK_ULL(h, l) (((~0ULL) << (l)) & (~0ULL >> (63 - (h))))

/* <linux/kernel.h>, <linux/minmax.h>, <linux/container_of.h> */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#define IS_ALIGNED(x, a) (((x) & ((typeof(x))(a) - 1)) == 0)
#define ALIGN(x, a)	(((x) + ((typeof(x))(a) - 1)) & ~((typeof(x))(a) - 1))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define READ_ONCE(x)	(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile typeof(x) *)&(x) = (v))

/* WARN and BUG: abort, so the fuzzer reports the input */
#define shim_die(what, cond) \
	(fprintf(stderr, "%s:%d: %s(%s)\n", __FILE__, __LINE__, what, cond), \
	 abort())
#define WARN_ON(cond) \
	({ bool __c = !!(cond); if (__c) shim_die("WARN_ON", #cond); __c; })
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define WARN(cond, ...)		WARN_ON(cond)
#define WARN_ONCE(cond, ...)	WARN_ON(cond)
#define BUG_ON(cond)	do { if (cond) shim_die("BUG_ON", #cond); } while (0)
#define BUG()		shim_die("BUG", "")

#endif /* SHIM_LINUX_TYPES_H */
