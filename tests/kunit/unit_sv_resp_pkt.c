// SPDX-License-Identifier: GPL-2.0
/* Code under test: compile kmod/sv_resp_pkt.c into softverbs_kunit.ko. */
#include "../../kmod/sv_resp_pkt.c"
