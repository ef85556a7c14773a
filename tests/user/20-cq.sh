#!/bin/bash
# sv-test: kernels=debug,stock,cloud cost=M
# Completion queues, driven by distro rdma-core (librxe) through pyverbs.
#
#   init_net:  sv_cq0 (softverbs) on vA 10.20.0.1/24, vA ===== veth ===== vB
#
# 20-cq.py does the verbs: CQs of 1 entry up to max_cqe (0 and max_cqe + 1
# refused with EINVAL, as is a comp_vector past num_comp_vectors), resizes
# up and down with the ring still usable by librxe after each, a completion
# channel with CQs armed for any and for solicited completions (no event may
# arrive without a completion), a ring whose consumer index user space moved
# (entries that look pending survive a resize, which may not shrink below
# them: entries in the ring without any traffic), and a CQ destroy refused
# with EBUSY while an RC QP uses it.  Here: a process killed with SIGKILL
# while holding CQs, and a device removed while a process still has CQs
# mapped, leave the CQ count where it started; the module unloads; the
# kernel log stays clean.
#
# The completion path itself (sv_cq_post: posting, overrun, notification)
# is not driven from here: completions come from work requests, which the
# QP and data tests post (24-qp's flushes, 5x), and cq_kunit tests it on a
# device made by hand.
. "$(dirname "$0")/lib.sh"
# shellcheck source=lib/objects.sh
. "$sv_lib/objects.sh"

sv_need ip rdma

log_start=$(dmesg | wc -l)

sv_load_module
sv_on_exit sv_unload_module
sv_veth_pair vA vB
ip addr add 10.20.0.1/24 dev vA
rdma link add sv_cq0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_cq0 2>/dev/null'

sv_objects 20-cq.py CQ cq sv_cq0
sv_obj_cases sizes resize notify corrupt qp
sv_assert_eq "$SV_OBJ_BASE" "$(sv_obj_count)" "CQ count after the verbs checks"

sv_obj_check_sigkill 5
sv_obj_check_removal 3

sv_unload_clean "$log_start"
