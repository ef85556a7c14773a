// SPDX-License-Identifier: GPL-2.0
/* system_percpu_wq (6.17+): system_wq's new name; queueing on system_wq warns */
#include <linux/workqueue.h>

struct workqueue_struct **probe_system_percpu_wq = &system_percpu_wq;
