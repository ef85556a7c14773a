#!/bin/bash
# sv-test: kernels=debug,stock,cloud cost=M
# Queue pairs, driven by distro rdma-core (librxe) through pyverbs.
#
#   init_net                                   netns sv-qp
#   sv_qp0 (softverbs) on vA 10.24.0.1/24 ===== veth ===== vB
#
# Connected QPs are connected to themselves through the RoCEv2 GID of
# 10.24.0.1.  24-qp.py does the verbs: RC/UC/UD QPs with various caps (caps
# beyond the limits refused), every legal state transition with query_qp
# returning exactly what was set, illegal transitions and wrong attribute
# masks refused with EINVAL, path migration with EOPNOTSUPP, what the IBTA
# and RoCE NICs take accepted (a 32-bit flow label, as UCX passes: its low
# 20 bits), send WRs posted before RTS refused and never executed, flushing
# on the way to ERR (IBV_WC_WR_FLUSH_ERR, in order), UD and UC messages
# longer than the receive dropped with the receive kept,
# destroy with WRs posted, the SQ_DRAINED and LAST_WQE_REACHED events, and a
# controlled Q_Key refused without CAP_NET_RAW.  Here: ib_mad opens the port
# (its QP1 is in RTS, no "Couldn't create ib_mad" errors), a process killed
# with SIGKILL while holding QPs and a device removed under a process holding
# QPs leave the QP count where it started (ib_mad's QP1 included); the
# module unloads; the kernel log stays clean.
#
# Not driven from here: WQEs executed on the wire (the data tests, 5x), the
# error events (qp_kunit), the SQ draining with WQEs in flight, COMM_EST.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/24-qp.py
[ -x $py ] || sv_skip "python3 is not installed"

dev=sv_qp0
log_start=$(dmesg | wc -l)
new_log() { dmesg | tail -n +"$((log_start + 1))"; }

sv_load_module
sv_on_exit sv_unload_module
sv_netns_add sv-qp
sv_veth_pair vA vB sv-qp
ip addr add 10.24.0.1/24 dev vA
ip -n sv-qp addr add 10.24.0.2/24 dev vB
rdma link add $dev type softverbs netdev vA
sv_on_exit "rdma link delete $dev 2>/dev/null"

# gid_index TYPE GID: the index of GID (sysfs notation) of TYPE
# (bash reads only: a grep and a cat per poll cost a second under a debug
# kernel)
gid_index() {
	local port=/sys/class/infiniband/$dev/ports/1 f g type
	for f in "$port"/gids/*; do
		{ read -r g <"$f"; } 2>/dev/null && [ "$g" = "$2" ] || continue
		{ read -r type <"$port/gid_attrs/types/${f##*/}"; } 2>/dev/null &&
			[ "$type" = "$1" ] && { echo "${f##*/}"; return 0; }
	done
	return 1
}
gid=0000:0000:0000:0000:0000:ffff:0a18:0001	# ::ffff:10.24.0.1
sv_wait_for "gid_index 'RoCE v2' $gid" 10 || sv_fail "no RoCE v2 GID for 10.24.0.1"
gid4=$(gid_index 'RoCE v2' $gid)
echo "GID index of 10.24.0.1: RoCE v2 $gid4"

# qp_count: the QPs ib_core counts for the device, from the summary line
# "N: DEV: pd 1 cq 1 qp 1 ..." (kernel and user QPs)
qp_count() {
	local out
	out=$(rdma resource show) || return 1
	sed -n "s/^[0-9]*: $dev: .* qp \([0-9]*\) .*/\1/p" <<<"$out"
}

echo "--- ib_mad opened the port"
sv_wait_for "[[ \$(rdma resource show qp link $dev/1) == *'lqpn 1 type GSI state RTS'* ]]" 10 ||
	sv_fail "no QP1 in RTS: $(rdma resource show qp link $dev/1)"
rdma resource show qp link $dev/1
errs=$(new_log | grep -iE "ib_mad|couldn't create" || true)
[ -z "$errs" ] || sv_fail "ib_mad errors: $errs"
base=$(qp_count)
[ "$base" = 1 ] || sv_fail "expected ib_mad's QP1 alone, got $base QPs"
echo "ok: QP1 in RTS, no ib_mad errors"

tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
mkfifo "$tmp/spawn"
exec 4<>"$tmp/spawn"
# one python process for all cases (it prints "--- CASE" before each):
# python and pyverbs start in seconds each under a debug kernel; 77 is its
# "pyverbs cannot be imported"
rc=0
$py "$helper" --spawn "$tmp/spawn" $dev "$gid4" caps states errors early toolong flush events 4>&- |
	tee "$tmp/cases" || rc=$?
[ $rc != 77 ] || sv_skip "python3-pyverbs is not installed"
out=$'\n'$(<"$tmp/cases")
t=${out##*$'\n'--- }
[ $rc = 0 ] || sv_fail "24-qp.py ${t%%$'\n'*}"

echo "--- controlled Q_Key without CAP_NET_RAW"
if command -v setpriv >/dev/null; then
	setpriv --inh-caps=-net_raw --bounding-set=-net_raw \
		$py "$helper" $dev "$gid4" qkey-unpriv 4>&- || sv_fail "24-qp.py qkey-unpriv"
else
	echo "note: setpriv is not installed, the unprivileged Q_Key case is skipped"
fi

sv_assert_eq "$base" "$(qp_count)" "QP count after the verbs checks"

# The holders below are forked by the helper's spawner (tests/user/svspawn.py,
# fed through the FIFO on fd 4: sv_spawn) rather than started: a python3
# with pyverbs costs seconds under a debug kernel.

# hold N OUT: start a process holding N QPs; wait until it has them
hold() {
	sv_spawn "$2" $dev "$gid4" hold "$1"
	sv_wait_for "sv_file_has_line '$2' '*ready*' || sv_file_has_line '$2' 'exit *'" 60 &&
		sv_file_has_line "$2" '*ready*' || sv_fail "holder did not start: $(cat "$2")"
	read -r _ holder <"$2"
	sv_on_exit "kill -9 $holder 2>/dev/null"
}

echo "--- SIGKILL while holding QPs"
hold 30 "$tmp/hold1"
sv_assert_eq $((base + 30)) "$(qp_count)" "QP count with 30 held"
kill -9 "$holder"
sv_wait_for "! kill -0 $holder" 10 || sv_fail "holder $holder outlived SIGKILL"
sv_wait_for "[ \"\$(qp_count)\" = $base ]" 10 ||
	sv_fail "QP count $(qp_count) after SIGKILL, expected $base"
echo "ok: QP count back to $base after SIGKILL"

echo "--- device removed while a process holds QPs"
hold 12 "$tmp/hold2"
rdma link delete $dev
sv_wait_for "! rdma dev show $dev" 20 || sv_fail "$dev still there after link delete"
kill -9 "$holder"
sv_wait_for "! kill -0 $holder" 10 || sv_fail "holder $holder outlived SIGKILL"
echo "ok: device removal with QPs mapped"

sv_unload_module
echo "ok: module unloaded"

reports=$(new_log | grep -E 'BUG:|WARNING:|Oops|KASAN|UBSAN|circular locking|Call Trace' || true)
[ -z "$reports" ] || sv_fail "kernel reports: $reports"
echo "ok: no kernel reports"
