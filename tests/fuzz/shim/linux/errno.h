/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's errno values: the system's uapi ones (asm-generic/errno.h). */
#ifndef SHIM_LINUX_ERRNO_H
#define SHIM_LINUX_ERRNO_H
#include_next <linux/errno.h>
#endif
