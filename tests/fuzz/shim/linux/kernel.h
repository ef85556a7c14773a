/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_KERNEL_H
#define SHIM_LINUX_KERNEL_H
#include <linux/types.h>
#include <linux/byteorder.h>
#include <linux/log2.h>
#include <linux/string.h>
#endif
