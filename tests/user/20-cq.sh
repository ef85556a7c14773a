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

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/20-cq.py
[ -x $py ] || sv_skip "python3 is not installed"

log_start=$(dmesg | wc -l)

sv_load_module
sv_on_exit sv_unload_module
sv_veth_pair vA vB
ip addr add 10.20.0.1/24 dev vA
rdma link add sv_cq0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_cq0 2>/dev/null'

# cq_count DEV: the CQs ib_core counts for DEV (kernel and user ones), from
# the summary line "N: DEV: pd 0 cq 2 qp 0 ..."
cq_count() {
	local out
	out=$(rdma resource show) || return 1
	sed -n "s/^[0-9]*: $1: .* cq \([0-9]*\) .*/\1/p" <<<"$out"
}

# The holders below are forked by the helper's spawner (tests/user/svspawn.py,
# fed through the FIFO on fd 4: sv_spawn) rather than started: a python3
# with pyverbs costs seconds under a debug kernel.

# hold DEV N OUT: start a process holding N CQs; wait until it has them
hold() {
	sv_spawn "$3" "$1" hold "$2"
	sv_wait_for "sv_file_has_line '$3' '*ready*' || sv_file_has_line '$3' 'exit *'" 30 &&
		sv_file_has_line "$3" '*ready*' || sv_fail "holder did not start: $(cat "$3")"
	read -r _ holder <"$3"
	sv_on_exit "kill -9 $holder 2>/dev/null"
}

base=$(cq_count sv_cq0)
[ -n "$base" ] || sv_fail "no CQ count for sv_cq0 in: $(rdma resource show)"
echo "CQs at start: $base"

tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
mkfifo "$tmp/spawn"
exec 4<>"$tmp/spawn"
# one python process for all cases (it prints "--- CASE" before each):
# python and pyverbs start in seconds each under a debug kernel; 77 is its
# "pyverbs cannot be imported"
rc=0
$py "$helper" --spawn "$tmp/spawn" sv_cq0 sizes resize notify corrupt qp 4>&- | tee "$tmp/cases" || rc=$?
[ $rc != 77 ] || sv_skip "python3-pyverbs is not installed"
out=$'\n'$(<"$tmp/cases")
t=${out##*$'\n'--- }
[ $rc = 0 ] || sv_fail "20-cq.py ${t%%$'\n'*}"

sv_assert_eq "$base" "$(cq_count sv_cq0)" "CQ count after the verbs checks"

echo "--- SIGKILL while holding CQs"
hold sv_cq0 5 "$tmp/hold1"
sv_assert_eq $((base + 5)) "$(cq_count sv_cq0)" "CQ count with 5 held"
kill -9 "$holder"
sv_wait_for "! kill -0 $holder" 10 || sv_fail "holder $holder outlived SIGKILL"
sv_wait_for "[ \"\$(cq_count sv_cq0)\" = $base ]" 10 ||
	sv_fail "CQ count $(cq_count sv_cq0) after SIGKILL, expected $base"
echo "ok: CQ count back to $base after SIGKILL"

echo "--- device removed while a process holds CQs"
hold sv_cq0 3 "$tmp/hold2"
rdma link delete sv_cq0
sv_wait_for '! rdma dev show sv_cq0' 20 || sv_fail "sv_cq0 still there after link delete"
kill -9 "$holder"
sv_wait_for "! kill -0 $holder" 10 || sv_fail "holder $holder outlived SIGKILL"
echo "ok: device removal with mapped CQs"

sv_unload_clean "$log_start"
