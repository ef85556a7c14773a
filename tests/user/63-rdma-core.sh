#!/bin/bash
# sv-test: kernels=all needs=rxe cost=L
# rdma-core's own test suite (python3-pyverbs' tests, run_tests.py) on
# softverbs, as upstream runs it: --dev only, no --gid, so every test takes
# the first valid GID (index 0), as users' programs do.  Then, in the same
# VM, the same suite on Soft-RoCE, the baseline.
#
#   init_net:  sv_rc0 (softverbs) on vA 10.63.0.1/24, fd63::1/64
#              vA ===== veth ===== vB
#   then:      rxe_rc0 (Soft-RoCE) on the same vA (softverbs unloaded
#              first: both bind UDP 4791 in init_net)
#
# Passes when softverbs has no failure and no error, and every test that
# passes on Soft-RoCE passes on softverbs.  Prints the counts of both as
# "SV_SUMMARY: ..." lines (make check shows them in its summary).  On a
# KASAN kernel (the debug kernel) Soft-RoCE's run is left out: it takes
# minutes there and tells nothing about softverbs' memory safety; the stock
# kernels compare.  The rdma_cm tests of the suite skip here: they need a
# device whose parent has a netdev (/sys/class/infiniband/DEV/device/net),
# which a veth has not.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/63-rdma-core.py
suite_src=/usr/share/doc/rdma-core/tests
[ -x $py ] || sv_skip "python3 is not installed"
[ -f $suite_src/run_tests.py ] || sv_skip "python3-pyverbs' test suite is not installed ($suite_src)"

tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
# the suite ships with its larger files gzipped
cp -r $suite_src "$tmp/tests"
gunzip -f "$tmp"/tests/*.gz

sv_load_module_init_net
sv_veth_pair vA vB
ip addr add 10.63.0.1/24 dev vA
ip -6 addr add fd63::1/64 dev vA nodad

# suite DEV NAME: the suite on DEV, outcomes in $tmp/NAME.out, its log in
# $tmp/NAME.log; prints the counts
suite() {
	local dev=$1 name=$2 rc=0 t0=$SECONDS
	sv_wait_for "[ -e /sys/class/infiniband/$dev/ports/1/gids/0 ] && [[ \$(rdma link show $dev/1) == *'state ACTIVE'* ]]" 20 ||
		sv_fail "$dev is not ACTIVE"
	# the IPv4 GID: the suite's traffic tests use the first valid GID
	sv_wait_for "grep -q ffff:0a3f:0001 /sys/class/infiniband/$dev/ports/1/gids/*" 20 ||
		sv_fail "$dev has no GID for 10.63.0.1"
	$py "$helper" run "$tmp/tests" "$dev" "$tmp/$name.out" >"$tmp/$name.log" 2>&1 || rc=$?
	[ $rc -eq 0 ] || { cat "$tmp/$name.log"; sv_fail "the suite did not run on $dev"; }
	echo "SV_SUMMARY: rdma-core suite on $name: $($py "$helper" counts "$tmp/$name.out") ($((SECONDS - t0)) s)"
}

rdma link add sv_rc0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_rc0 2>/dev/null'
echo "GID 0 of sv_rc0: $(cat /sys/class/infiniband/sv_rc0/ports/1/gids/0) ($(cat /sys/class/infiniband/sv_rc0/ports/1/gid_attrs/types/0 2>/dev/null))"
suite sv_rc0 softverbs
bad=$(grep -E '^(fail|error|xpass) ' "$tmp/softverbs.out" || true)
if [ -n "$bad" ]; then
	# the tracebacks of what went wrong
	sed -n '/^=\{20,\}$/,$p' "$tmp/softverbs.log" | head -n 300
	echo "$bad"
	sv_fail "rdma-core's tests fail on softverbs"
fi

sv_baseline_rxe sv_rc0 rxe_rc0 vA || exit 0
suite rxe_rc0 Soft-RoCE
$py "$helper" compare "$tmp/softverbs.out" "$tmp/Soft-RoCE.out" ||
	sv_fail "tests that pass on Soft-RoCE do not pass on softverbs"
ok_sv=$(grep -c '^ok ' "$tmp/softverbs.out" || true)
ok_rxe=$(grep -c '^ok ' "$tmp/Soft-RoCE.out" || true)
echo "passed: softverbs $ok_sv, Soft-RoCE $ok_rxe"
