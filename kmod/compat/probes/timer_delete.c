// SPDX-License-Identifier: GPL-2.0
/*
 * timer_delete() and timer_delete_sync() (6.2+) replace del_timer() and
 * del_timer_sync()
 */
#include <linux/timer.h>

int (*probe_timer_delete)(struct timer_list *) = timer_delete;
int (*probe_timer_delete_sync)(struct timer_list *) = timer_delete_sync;
