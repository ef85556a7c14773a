/* SPDX-License-Identifier: GPL-2.0 */
/* struct sv_path's route cache: its layout only (the targets route nothing) */
#ifndef SHIM_NET_DST_CACHE_H
#define SHIM_NET_DST_CACHE_H
#include <linux/types.h>
struct dst_cache {
	void		*cache;
	unsigned long	reset_ts;
};
#endif
