// SPDX-License-Identifier: GPL-2.0
/*
 * Packet buffers: per-CPU rings of pages, cut into packets and reused once
 * every packet on a page has been freed; the caller falls back to other
 * buffers when the ring's next page is still in flight.
 *
 * Documentation/design.md, "Transport" (packet buffers).
 */
#include <linux/bottom_half.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/percpu.h>

#include "sv_xport.h"

/* the rings' page orders: up to one page, two, four (local bursts) */
#define SV_PKTBUF_ORDERS	3

struct sv_pktbuf_ring {
	struct page	*page[SV_PKTBUF_PAGES];	/* NULL: not allocated yet */
	unsigned int	cur;	/* index of the page being cut */
	unsigned int	off;	/* bytes of it handed out */
};

static DEFINE_PER_CPU(struct sv_pktbuf_ring, sv_pktbuf_ring[SV_PKTBUF_ORDERS]);

/*
 * Move @ring (of pages of @order) on to its next page, if that page is
 * free (only the ring's reference left) or not allocated yet.  Returns
 * it, or NULL.
 */
static struct page *sv_pktbuf_next_page(struct sv_pktbuf_ring *ring,
					unsigned int order)
{
	unsigned int next = (ring->cur + 1) % sv_pktbuf_ring_pages(order);
	struct page *page = ring->page[next];

	if (page) {
		if (page_ref_count(page) != 1)
			return NULL;	/* still in a packet */
		/*
		 * The last packet's reader dropped its reference with a
		 * fully ordered atomic; order our writes after seeing it.
		 */
		smp_acquire__after_ctrl_dep();
	} else {
		/* compound: the stack frees a packet by its head page */
		page = alloc_pages(GFP_ATOMIC | __GFP_NOWARN |
				   (order ? __GFP_COMP : 0), order);
		if (!page)
			return NULL;
		/* an emergency reserve page is not kept */
		if (page_is_pfmemalloc(page)) {
			__free_pages(page, order);
			return NULL;
		}
		ring->page[next] = page;
	}
	ring->cur = next;
	ring->off = 0;
	return page;
}

/* A buffer of this CPU's rings; bottom halves off, not a hard interrupt. */
static void *sv_pktbuf_take(unsigned int size, unsigned int order)
{
	struct sv_pktbuf_ring *ring = this_cpu_ptr(&sv_pktbuf_ring[order]);
	struct page *page = ring->page[ring->cur];
	void *data;

	if (!page || ring->off + size > (PAGE_SIZE << order))
		page = sv_pktbuf_next_page(ring, order);
	if (!page)
		return NULL;
	get_page(page);
	data = page_address(page) + ring->off;
	ring->off += size;
	return data;
}

void *sv_pktbuf_alloc(unsigned int size)
{
	unsigned int order = get_order(size);
	void *data;

	/* sizes are cache-line multiples (SKB_DATA_ALIGN), so are offsets */
	if (order >= SV_PKTBUF_ORDERS || in_hardirq() || irqs_disabled())
		return NULL;

	local_bh_disable();
	data = sv_pktbuf_take(size, order);
	local_bh_enable();
	return data;
}

void *sv_pktbuf_alloc_bh(unsigned int size)
{
	unsigned int order = get_order(size);

	if (order >= SV_PKTBUF_ORDERS || in_hardirq() || irqs_disabled())
		return NULL;
	lockdep_assert_in_softirq();
	return sv_pktbuf_take(size, order);
}

/* Module exit: no packet is being built any more. */
void sv_pktbuf_exit(void)
{
	unsigned int order, i;
	int cpu;

	for_each_possible_cpu(cpu) {
		for (order = 0; order < SV_PKTBUF_ORDERS; order++) {
			struct sv_pktbuf_ring *ring;

			ring = per_cpu_ptr(&sv_pktbuf_ring[order], cpu);
			for (i = 0; i < SV_PKTBUF_PAGES; i++) {
				if (ring->page[i])
					put_page(ring->page[i]);
				ring->page[i] = NULL;
			}
			ring->cur = 0;
			ring->off = 0;
		}
	}
}
