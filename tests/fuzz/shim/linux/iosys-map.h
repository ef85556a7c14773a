/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct iosys_map, which struct sv_mr embeds for dma-buf MRs
 * (kmod/sv_mkey.h): the fuzzed files never map one, only its size matters.
 */
#ifndef SV_SHIM_LINUX_IOSYS_MAP_H
#define SV_SHIM_LINUX_IOSYS_MAP_H

#include <stdbool.h>

struct iosys_map {
	union {
		void *vaddr_iomem;
		void *vaddr;
	};
	bool is_iomem;
};

#endif
