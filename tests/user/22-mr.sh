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

sv_need ip rdma setpriv
py=/usr/bin/python3
helper=$(dirname "$0")/22-mr.py
[ -x $py ] || sv_skip "python3 is not installed"

log_start=$(dmesg | wc -l)

sv_load_module
sv_on_exit sv_unload_module
sv_veth_pair vA vB
ip addr add 10.22.0.1/24 dev vA
rdma link add sv_mr0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_mr0 2>/dev/null'

# mr_count DEV: the MRs ib_core counts for DEV (kernel and user ones), from
# the summary line "N: DEV: pd 1 cq 0 qp 0 cm_id 0 mr 1 ..."
mr_count() {
	local out
	out=$(rdma resource show) || return 1
	sed -n "s/^[0-9]*: $1: .* mr \([0-9]*\).*/\1/p" <<<"$out"
}

# The holders below are forked by the helper's spawner (tests/user/svspawn.py,
# fed through the FIFO on fd 4: sv_spawn) rather than started: a python3
# with pyverbs costs seconds under a debug kernel.

# hold DEV N OUT: start a process holding N MRs; wait until it has them
hold() {
	sv_spawn "$3" "$1" hold "$2"
	sv_wait_for "sv_file_has_line '$3' '*ready*' || sv_file_has_line '$3' 'exit *'" 120 &&
		sv_file_has_line "$3" '*ready*' || sv_fail "holder did not start: $(cat "$3")"
	read -r _ holder <"$3"
	sv_on_exit "kill -9 $holder 2>/dev/null"
}

info=$(ibv_devinfo -v -d sv_mr0)
for attr in max_mr max_mr_size max_mw page_size_cap; do
	line=$(grep -E "^[[:space:]]*$attr:" <<<"$info") || sv_fail "ibv_devinfo has no $attr"
	echo "$line"
	[[ $line != *:*[[:space:]]0 && $line != *0x0 ]] || sv_fail "$attr is 0"
done

base=$(mr_count sv_mr0)
[ -n "$base" ] || sv_fail "no MR count for sv_mr0 in: $(rdma resource show)"
echo "MRs at start: $base"

ulimit -l unlimited
tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
mkfifo "$tmp/spawn"
exec 4<>"$tmp/spawn"
# one python process for all cases (it prints "--- CASE" before each):
# python and pyverbs start in seconds each under a debug kernel; 77 is its
# "pyverbs cannot be imported"
rc=0
$py "$helper" --spawn "$tmp/spawn" sv_mr0 sizes access bounds rereg stale 4>&- | tee "$tmp/cases" || rc=$?
[ $rc != 77 ] || sv_skip "python3-pyverbs is not installed"
out=$'\n'$(<"$tmp/cases")
t=${out##*$'\n'--- }
[ $rc = 0 ] || sv_fail "22-mr.py ${t%%$'\n'*}"

echo "--- memlock"
# root has CAP_IPC_LOCK, which ib_umem lets past RLIMIT_MEMLOCK: drop it
# from the bounding set so the python process never gets it
(ulimit -l 256 && exec setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock \
	$py "$helper" sv_mr0 memlock 4>&-) || sv_fail "22-mr.py memlock"

sv_assert_eq "$base" "$(mr_count sv_mr0)" "MR count after the verbs checks"

echo "--- SIGKILL while holding MRs"
hold sv_mr0 20 "$tmp/hold1"
sv_assert_eq $((base + 20)) "$(mr_count sv_mr0)" "MR count with 20 held"
kill -9 "$holder"
sv_wait_for "! kill -0 $holder" 10 || sv_fail "holder $holder outlived SIGKILL"
sv_wait_for "[ \"\$(mr_count sv_mr0)\" = $base ]" 10 ||
	sv_fail "MR count $(mr_count sv_mr0) after SIGKILL, expected $base"
echo "ok: MR count back to $base after SIGKILL"

echo "--- device removed while a process holds MRs"
hold sv_mr0 10 "$tmp/hold2"
rdma link delete sv_mr0
sv_wait_for '! rdma dev show sv_mr0' 20 || sv_fail "sv_mr0 still there after link delete"
kill -9 "$holder"
sv_wait_for "! kill -0 $holder" 10 || sv_fail "holder $holder outlived SIGKILL"
echo "ok: device removal with MRs held"

sv_unload_clean "$log_start"
