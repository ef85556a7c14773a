// SPDX-License-Identifier: GPL-2.0
/* from_timer() (before timer_container_of()) */
#include <linux/timer.h>

struct probe {
	struct timer_list timer;
};

struct probe *sv_probe(struct timer_list *t);
struct probe *sv_probe(struct timer_list *t)
{
	struct probe *p = from_timer(p, t, timer);

	return p;
}
