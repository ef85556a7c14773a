// SPDX-License-Identifier: GPL-2.0
/* WQ_PERCPU (6.17+): a per-CPU workqueue says so, or alloc_workqueue() warns */
#include <linux/workqueue.h>

unsigned int probe_wq_percpu = WQ_PERCPU;
