// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers for MTU-sized packets: a per-CPU ring of pages that are reused
 * as they come back, never allocated (or zeroed) again.
 *
 * Why: a fresh buffer costs a zeroing of its every byte on kernels that
 * initialise all allocations (init_on_alloc, Debian's default), slab or
 * page alike; on 6.1 that is `rep stosb`, which emulators run slowly
 * (Documentation/performance.md, "Packet buffers").  The stack's per-CPU
 * fragment cache that small packets use (sv_net.c) does not help with
 * large ones: it reuses its 32 KiB page only if every fragment of it has
 * come back when it wraps, so a burst of MTU-sized packets in flight has
 * it take, and clear, a new one.
 *
 * How: each CPU has two rings of SV_PKTBUF_RING_BYTES each, one of single
 * pages for packets up to a page (MTU 1024 and 2048) and one of two-page
 * compound pages for those up to two (MTU 4096, on jumbo-frame netdevs),
 * each used in turn.  Packets are cut from the ring's current page one
 * after the other (two MTU-1024 packets fit in a 4 KiB page), each holding
 * a reference on the (head) page that the stack drops when it frees the
 * packet (skb_free_frag()); the ring holds one more.  A page
 * whose count is back to the ring's one reference is free, and is cut
 * again from the start.  Packets come back about in the order they were
 * cut (the wire and the loopback queue are FIFO), so the next page in the
 * ring is the one most likely free; when it is not, more packets are in
 * flight than the ring holds and the caller takes a slab buffer instead:
 * the memory used is bounded by the ring, never by the load.
 *
 * Only the CPU that owns a ring touches it, with bottom halves off so that
 * a tasklet or timer on the same CPU cannot cut from it halfway through.
 * Other CPUs only drop page references.  Pages are released at module
 * exit (a page still in a packet is freed by whoever frees that packet).
 *
 * A reused page holds old packets' bytes: every byte of a new packet is
 * written (headers, payload, pad, ICRC) before it goes out, as it had to
 * be with the fragment cache, which does not zero either.
 */
#include <linux/bottom_half.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/percpu.h>

#include "sv_xport.h"

/* the rings' page orders: up to one page, up to two */
#define SV_PKTBUF_ORDERS	2

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

void *sv_pktbuf_alloc(unsigned int size)
{
	unsigned int order = size > PAGE_SIZE;
	struct sv_pktbuf_ring *ring;
	struct page *page;
	void *data = NULL;

	/* sizes are cache-line multiples (SKB_DATA_ALIGN), so are offsets */
	if (size > (PAGE_SIZE << (SV_PKTBUF_ORDERS - 1)) || in_hardirq() ||
	    irqs_disabled())
		return NULL;

	local_bh_disable();
	ring = this_cpu_ptr(&sv_pktbuf_ring[order]);
	page = ring->page[ring->cur];
	if (!page || ring->off + size > (PAGE_SIZE << order))
		page = sv_pktbuf_next_page(ring, order);
	if (page) {
		get_page(page);
		data = page_address(page) + ring->off;
		ring->off += size;
	}
	local_bh_enable();
	return data;
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
