// SPDX-License-Identifier: GPL-2.0
/* crc32_le() runs the CPU's CRC instructions: the CRC library's arch code */
#include <linux/kconfig.h>
#include <linux/crc32.h>

#if !IS_ENABLED(CONFIG_CRC32_ARCH)
#error "crc32_le() is the generic table CRC on this kernel"
#endif
