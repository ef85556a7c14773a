/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_STRING_H
#define SHIM_LINUX_STRING_H
#include <string.h>
#include <linux/types.h>
#endif
