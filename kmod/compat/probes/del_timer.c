// SPDX-License-Identifier: GPL-2.0
/* del_timer() and del_timer_sync() (before timer_delete[_sync]()) */
#include <linux/timer.h>

int (*probe_del_timer)(struct timer_list *) = del_timer;
int (*probe_del_timer_sync)(struct timer_list *) = del_timer_sync;
