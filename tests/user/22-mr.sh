#!/bin/bash
# sv-test: kernels=debug,stock cost=L
# Memory regions, driven by distro rdma-core (librxe) through pyverbs.
#
#   init_net:  sv_mr0 (softverbs) on vA 10.22.0.1/24, vA ===== veth ===== vB
#
# 22-mr.py does the verbs: registration of 1 byte to 64 MiB at aligned and
# unaligned addresses, the access-flag matrix (legal combinations register,
# remote write/atomic without local write give EINVAL, on-demand paging
# registers, zero-based, FLUSH and unknown flags are refused), length 0, lengths past
# max_mr_size or wrapping, unmapped memory, RLIMIT_MEMLOCK (ENOMEM past the
# limit for a process without CAP_IPC_LOCK), re-registration of access, PD
# and translation alone and combined (raw uverbs commands: librxe has no
# rereg_mr), and stale keys (no key is ever handed out twice).  Here: the
# device reports its MR limits, a process killed with SIGKILL while holding
# MRs leaves the MR count where it started, a device removed while a
# process holds MRs goes away, the module unloads and the kernel log stays
# clean.
#
# Data moving through MRs (sv_mr_lookup/sv_mr_copy/sv_mr_atomic) is the
# data tests' part (5x: every opcode in 53-verbs-matrix), fast registration
# and invalidation the kernel ULPs' (REG_MR/LOCAL_INV work requests: 56
# NVMe-oF, 58 NFS, 61 SRP).  So "rereg keeps data access working" is
# checked here as far as the verbs show it: keys, restrack attributes,
# deregistration.
. "$(dirname "$0")/lib.sh"
# shellcheck source=lib/objects.sh
. "$sv_lib/objects.sh"

sv_need ip rdma setpriv

log_start=$(dmesg | wc -l)

sv_load_module
sv_on_exit sv_unload_module
sv_veth_pair vA vB
ip addr add 10.22.0.1/24 dev vA
rdma link add sv_mr0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_mr0 2>/dev/null'

info=$(ibv_devinfo -v -d sv_mr0)
for attr in max_mr max_mr_size max_mw page_size_cap; do
	line=$(grep -E "^[[:space:]]*$attr:" <<<"$info") || sv_fail "ibv_devinfo has no $attr"
	echo "$line"
	[[ $line != *:*[[:space:]]0 && $line != *0x0 ]] || sv_fail "$attr is 0"
done

sv_objects 22-mr.py MR mr sv_mr0
ulimit -l unlimited
sv_obj_cases sizes access bounds rereg stale

echo "--- memlock"
# root has CAP_IPC_LOCK, which ib_umem lets past RLIMIT_MEMLOCK: drop it
# from the bounding set so the python process never gets it
(ulimit -l 256 && exec setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock \
	$sv_py "$SV_OBJ_HELPER" sv_mr0 memlock 4>&-) || sv_fail "22-mr.py memlock"

sv_assert_eq "$SV_OBJ_BASE" "$(sv_obj_count)" "MR count after the verbs checks"

sv_obj_check_sigkill 20
sv_obj_check_removal 10

sv_unload_clean "$log_start"
