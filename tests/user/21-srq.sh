#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# Shared receive queues, driven by distro rdma-core (librxe) through pyverbs.
#
#   init_net:  sv_srq0 (softverbs) on vA 10.21.0.1/24, vA ===== veth ===== vB
#
# 21-srq.py does the verbs: SRQs from 1 WQE up to max_srq_wr and 0 up to
# max_srq_sge SGEs, what query reports after create and after each modify
# (max_wr growth and shrinking, srq_limit arming and disarming, both at
# once), bad max_wr, max_sge and srq_limit refused with EINVAL, posted WQEs
# carried over by a resize (and a resize below the posted count refused), a
# ring whose producer index user space corrupted (taken modulo the ring: the
# garbage is carried like WQEs, nothing breaks), and an SRQ destroy refused
# with EBUSY while a QP uses it.  Here: a process
# killed with SIGKILL while holding SRQs with posted WQEs, and a device
# removed while a process still has SRQs mapped, leave the SRQ count where it
# started; the module unloads; the kernel log stays clean.
#
# Taking WQEs off the SRQ (sv_srq_pop) happens in the responder: the
# ibv_srq_pingpong runs of 51-interop and 52-sv2sv carry data through it,
# and srq_kunit tests num_sge validation and the SRQ limit event.
. "$(dirname "$0")/lib.sh"
# shellcheck source=lib/objects.sh
. "$sv_lib/objects.sh"

sv_need ip rdma

log_start=$(dmesg | wc -l)

sv_load_module
sv_on_exit sv_unload_module
sv_veth_pair vA vB
ip addr add 10.21.0.1/24 dev vA
rdma link add sv_srq0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_srq0 2>/dev/null'

sv_objects 21-srq.py SRQ srq sv_srq0
sv_obj_cases create modify carry corrupt qp
sv_assert_eq "$SV_OBJ_BASE" "$(sv_obj_count)" "SRQ count after the verbs checks"

sv_obj_check_sigkill 5
sv_obj_check_removal 3

sv_unload_clean "$log_start"
