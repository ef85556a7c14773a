// SPDX-License-Identifier: GPL-2.0
/*
 * VMA flags are changed through vm_flags_set() (6.3+); before, drivers
 * wrote vma->vm_flags directly.
 */
#include <linux/mm.h>

void (*probe_vm_flags_set)(struct vm_area_struct *, vm_flags_t) = vm_flags_set;
