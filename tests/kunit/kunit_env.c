// SPDX-License-Identifier: GPL-2.0
/*
 * What kmod/sv_main.c provides inside softverbs.ko, for the code compiled
 * into softverbs_kunit.ko.  sv_main.c itself is not compiled in: its module
 * init would register a second "softverbs" link type.  Suites that need the
 * work queues create them in their suite_init (see qp_kunit.c).
 */
#include "sv.h"

struct workqueue_struct *sv_wq;
