// SPDX-License-Identifier: GPL-2.0
/*
 * softverbs_kunit.ko: module information and exit.  Each <area>_kunit.c
 * registers its own suites with kunit_test_suites(); the module loader
 * collects them all from the .kunit_test_suites section and runs them at
 * load time.
 */
#include <linux/module.h>

#include "sv_xport.h"

/* the packet buffer rings' pages (sv_pktbuf.c), as softverbs.ko's exit does */
static void __exit sv_kunit_exit(void)
{
	sv_pktbuf_exit();
}
module_exit(sv_kunit_exit);

MODULE_DESCRIPTION("KUnit tests for softverbs");
MODULE_LICENSE("GPL");
/* sv_mr.c: dma-buf MRs */
SV_MODULE_IMPORT_NS_DMA_BUF();
