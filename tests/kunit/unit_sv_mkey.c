// SPDX-License-Identifier: GPL-2.0
/* Code under test: compile kmod/sv_mkey.c into softverbs_kunit.ko. */
#include "../../kmod/sv_mkey.c"
