// SPDX-License-Identifier: GPL-2.0
/* dma_buf_vmap_unlocked() (6.2+): dma_buf_vmap() then wants the resv lock */
#include <linux/dma-buf.h>

int sv_probe(struct dma_buf *dmabuf, struct iosys_map *map);
int sv_probe(struct dma_buf *dmabuf, struct iosys_map *map)
{
	return dma_buf_vmap_unlocked(dmabuf, map);
}
