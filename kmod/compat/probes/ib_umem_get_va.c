// SPDX-License-Identifier: GPL-2.0
/*
 * A umem of user virtual memory is ib_umem_get_va() (ib_umem_get() is
 * gone: the other ib_umem_get_*() take a buffer descriptor)
 */
#include <rdma/ib_umem.h>

struct ib_umem *sv_probe(struct ib_device *dev, unsigned long addr,
			 size_t size, int access);
struct ib_umem *sv_probe(struct ib_device *dev, unsigned long addr,
			 size_t size, int access)
{
	return ib_umem_get_va(dev, addr, size, access);
}
