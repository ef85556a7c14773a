// SPDX-License-Identifier: GPL-2.0
/*
 * softverbs_kunit.ko: module information only.  Each <area>_kunit.c
 * registers its own suites with kunit_test_suites(); the module loader
 * collects them all from the .kunit_test_suites section and runs them at
 * load time.
 */
#include <linux/module.h>

MODULE_DESCRIPTION("KUnit tests for softverbs");
MODULE_LICENSE("GPL");
/* sv_mr.c: dma-buf MRs */
MODULE_IMPORT_NS(DMA_BUF);
