/* SPDX-License-Identifier: GPL-2.0 */
/* <asm/byteorder.h> of a little-endian machine (x86) */
#ifndef SHIM_LINUX_BYTEORDER_H
#define SHIM_LINUX_BYTEORDER_H
#include <linux/types.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the shim's byte order is little endian's"
#endif
#define cpu_to_be16(x)	((__force __be16)__builtin_bswap16(x))
#define cpu_to_be32(x)	((__force __be32)__builtin_bswap32(x))
#define cpu_to_be64(x)	((__force __be64)__builtin_bswap64(x))
#define be16_to_cpu(x)	__builtin_bswap16((__force u16)(x))
#define be32_to_cpu(x)	__builtin_bswap32((__force u32)(x))
#define be64_to_cpu(x)	__builtin_bswap64((__force u64)(x))
#define htons(x)	cpu_to_be16(x)
#define ntohs(x)	be16_to_cpu(x)
#endif
