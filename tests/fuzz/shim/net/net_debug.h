/* SPDX-License-Identifier: GPL-2.0 */
/*
 * As with CONFIG_DEBUG_NET, which turns these into WARN_ON_ONCE (here an
 * abort): stricter than the debug kernel, which lacks the option, so that
 * a fuzz target reading an extension header its opcode lacks fails.
 */
#ifndef SHIM_NET_NET_DEBUG_H
#define SHIM_NET_NET_DEBUG_H
#include <linux/types.h>
#define DEBUG_NET_WARN_ON_ONCE(cond)	((void)WARN_ON_ONCE(cond))
#endif
