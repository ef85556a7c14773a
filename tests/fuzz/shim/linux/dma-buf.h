/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kmod/compat/compat.h names of <linux/dma-buf.h>: its dma-buf
 * helpers are static inline and unused by the fuzzed files, so
 * declarations are enough (without this file the include finds the uapi
 * header, which declares none of them).
 */
#ifndef SV_SHIM_LINUX_DMA_BUF_H
#define SV_SHIM_LINUX_DMA_BUF_H

struct dma_buf;
struct iosys_map;

int dma_buf_vmap(struct dma_buf *dmabuf, struct iosys_map *map);
void dma_buf_vunmap(struct dma_buf *dmabuf, struct iosys_map *map);
int dma_buf_vmap_unlocked(struct dma_buf *dmabuf, struct iosys_map *map);
void dma_buf_vunmap_unlocked(struct dma_buf *dmabuf, struct iosys_map *map);

#endif
