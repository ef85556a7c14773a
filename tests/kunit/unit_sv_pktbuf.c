// SPDX-License-Identifier: GPL-2.0
/* Code under test: compile kmod/sv_pktbuf.c into softverbs_kunit.ko. */
#include "../../kmod/sv_pktbuf.c"
