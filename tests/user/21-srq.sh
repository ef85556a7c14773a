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

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/21-srq.py
[ -x $py ] || sv_skip "python3 is not installed"

log_start=$(dmesg | wc -l)

sv_load_module
sv_on_exit sv_unload_module
sv_veth_pair vA vB
ip addr add 10.21.0.1/24 dev vA
rdma link add sv_srq0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_srq0 2>/dev/null'

# srq_count DEV: the SRQs ib_core counts for DEV, from the summary line
# "N: DEV: pd 0 cq 0 qp 0 cm_id 0 mr 0 ctx 0 srq 2"
srq_count() {
	local out
	out=$(rdma resource show) || return 1
	sed -n "s/^[0-9]*: $1: .* srq \([0-9]*\).*/\1/p" <<<"$out"
}

# The holders below are forked by the helper's spawner (tests/user/svspawn.py,
# fed through the FIFO on fd 4: sv_spawn) rather than started: a python3
# with pyverbs costs seconds under a debug kernel.

# hold DEV N OUT: start a process holding N SRQs; wait until it has them
hold() {
	sv_spawn "$3" "$1" hold "$2"
	sv_wait_for "sv_file_has_line '$3' '*ready*' || sv_file_has_line '$3' 'exit *'" 30 &&
		sv_file_has_line "$3" '*ready*' || sv_fail "holder did not start: $(cat "$3")"
	read -r _ holder <"$3"
	sv_on_exit "kill -9 $holder 2>/dev/null"
}

base=$(srq_count sv_srq0)
[ -n "$base" ] || sv_fail "no SRQ count for sv_srq0 in: $(rdma resource show)"
echo "SRQs at start: $base"

tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
mkfifo "$tmp/spawn"
exec 4<>"$tmp/spawn"
# one python process for all cases (it prints "--- CASE" before each):
# python and pyverbs start in seconds each under a debug kernel; 77 is its
# "pyverbs cannot be imported"
rc=0
$py "$helper" --spawn "$tmp/spawn" sv_srq0 create modify carry corrupt qp 4>&- | tee "$tmp/cases" || rc=$?
[ $rc != 77 ] || sv_skip "python3-pyverbs is not installed"
out=$'\n'$(<"$tmp/cases")
t=${out##*$'\n'--- }
[ $rc = 0 ] || sv_fail "21-srq.py ${t%%$'\n'*}"

sv_assert_eq "$base" "$(srq_count sv_srq0)" "SRQ count after the verbs checks"

echo "--- SIGKILL while holding SRQs"
hold sv_srq0 5 "$tmp/hold1"
sv_assert_eq $((base + 5)) "$(srq_count sv_srq0)" "SRQ count with 5 held"
kill -9 "$holder"
sv_wait_for "! kill -0 $holder" 10 || sv_fail "holder $holder outlived SIGKILL"
sv_wait_for "[ \"\$(srq_count sv_srq0)\" = $base ]" 10 ||
	sv_fail "SRQ count $(srq_count sv_srq0) after SIGKILL, expected $base"
echo "ok: SRQ count back to $base after SIGKILL"

echo "--- device removed while a process holds SRQs"
hold sv_srq0 3 "$tmp/hold2"
rdma link delete sv_srq0
sv_wait_for '! rdma dev show sv_srq0' 20 || sv_fail "sv_srq0 still there after link delete"
kill -9 "$holder"
sv_wait_for "! kill -0 $holder" 10 || sv_fail "holder $holder outlived SIGKILL"
echo "ok: device removal with mapped SRQs"

sv_unload_clean "$log_start"
