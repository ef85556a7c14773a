// SPDX-License-Identifier: GPL-2.0
/* timer_container_of() (6.16+) replaces from_timer() */
#include <linux/timer.h>

struct probe {
	struct timer_list timer;
};

struct probe *sv_probe(struct timer_list *t);
struct probe *sv_probe(struct timer_list *t)
{
	struct probe *p = timer_container_of(p, t, timer);

	return p;
}
