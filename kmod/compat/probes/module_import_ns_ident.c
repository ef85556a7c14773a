// SPDX-License-Identifier: GPL-2.0
/*
 * MODULE_IMPORT_NS() takes the namespace as an identifier and stringifies
 * it (before 6.13); later kernels take a string literal
 */
#include <linux/module.h>

MODULE_IMPORT_NS(DMA_BUF);
