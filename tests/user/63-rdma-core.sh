#!/bin/bash
# sv-test: kernels=all needs=rxe,nic cost=L
# rdma-core's own test suite (python3-pyverbs' tests, run_tests.py) on
# softverbs, as upstream runs it: --dev only, no --gid, so every test takes
# the first valid GID (index 0), as users' programs do.  Then, in the same
# VM, the same suite on Soft-RoCE, the baseline.
#
#   init_net:  sv_rc0 (softverbs) on NIC 10.63.0.1/24, fd63::1/64
#              NIC: the VM's virtio-net NIC (a PCI function, as a cloud
#              VM's eth0; run.sh --nic) if it has one, else vA of a veth
#              pair vA ===== vB
#   then:      rxe_rc0 (Soft-RoCE) on the same NIC (softverbs unloaded
#              first: both bind UDP 4791 in init_net)
#
# Then the suite on softverbs again, through libsoftverbs in place of
# libibverbs and librxe (see below for what is judged there).
#
# Every run goes ahead whatever the one before it found, so one boot gives
# all three counts; the verdict comes last.
# Passes when softverbs has no failure and no error, its rdma_cm tests all
# run and pass (they find the device's netdev under
# /sys/class/infiniband/DEV/device/net/, which softverbs' sysfs parent
# provides on any netdev), and every test that passes on Soft-RoCE passes
# on softverbs.  Prints the counts of both as "SV_SUMMARY: ..." lines (make
# check shows them in its summary).  On a KASAN kernel (the debug kernel)
# Soft-RoCE's run is left out: it takes minutes there and tells nothing
# about softverbs' memory safety; the stock kernels compare.  Soft-RoCE's
# rdma_cm tests skip: its device has no parent, so no device/net/.
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
# Left out of every run: the mlx5 and efa modules import pyverbs'
# providers/mlx5|efa, which link libmlx5/libefa, which need libibverbs'
# provider ABI (IBVERBS_PRIVATE_34) that libsoftverbs does not have (one
# import error stops the whole suite from loading). On softverbs and
# Soft-RoCE they only skip, so the counts lose skips, nothing else.
rm -f "$tmp"/tests/test_mlx5_*.py "$tmp"/tests/test_efa*.py

sv_load_module_init_net
# the VM's NIC: a netdev driven by virtio_net (no udev in the VM: load it)
modprobe -q virtio_net 2>/dev/null || true
nic=
for d in /sys/class/net/*; do
	[[ "$(readlink "$d/device/driver" 2>/dev/null)" == */virtio_net ]] || continue
	nic=${d##*/}
	break
done
if [ -n "$nic" ]; then
	# its netdev's parent is the virtio device, whose parent is a PCI function
	echo "NIC: $nic on $(basename "$(readlink -f "/sys/class/net/$nic/device/..")")"
	ip addr flush dev "$nic"
	ip link set "$nic" up
	sv_on_exit "ip addr flush dev '$nic'; ip link set '$nic' down"
else
	echo "note: no NIC in this VM (run.sh --nic): the suite runs on a veth"
	nic=vA
	sv_veth_pair vA vB
fi
ip addr add 10.63.0.1/24 dev "$nic"
ip -6 addr add fd63::1/64 dev "$nic" nodad

# suite DEV NAME [ULIB]: the suite on DEV, outcomes in $tmp/NAME.out, its log in
# $tmp/NAME.log; prints the counts.  With ULIB (a libsoftverbs.so.1), pyverbs
# runs on it: libibverbs.so.1 -> ULIB on LD_LIBRARY_PATH, and the helper
# checks its own maps (libsoftverbs in, no libibverbs or provider)
suite() {
	local dev=$1 name=$2 ulib=${3:-} rc=0 t0=$SECONDS envs=()
	if [ -n "$ulib" ]; then
		mkdir -p "$tmp/shim"
		ln -sf "$ulib" "$tmp/shim/libibverbs.so.1"
		envs=(LD_LIBRARY_PATH="$tmp/shim" SV_63_ULIB="$ulib")
	fi
	sv_wait_for "[ -e /sys/class/infiniband/$dev/ports/1/gids/0 ] && [[ \$(rdma link show $dev/1) == *'state ACTIVE'* ]]" 20 ||
		sv_fail "$dev is not ACTIVE"
	# the IPv4 GID: the suite's traffic tests use the first valid GID
	sv_wait_for "grep -q ffff:0a3f:0001 /sys/class/infiniband/$dev/ports/1/gids/*" 20 ||
		sv_fail "$dev has no GID for 10.63.0.1"
	env "${envs[@]}" $py "$helper" run "$tmp/tests" "$dev" "$tmp/$name.out" >"$tmp/$name.log" 2>&1 || rc=$?
	[ $rc -eq 0 ] || { cat "$tmp/$name.log"; sv_fail "the suite did not run on $dev"; }
	echo "SV_SUMMARY: rdma-core suite on $name: $($py "$helper" counts "$tmp/$name.out") ($((SECONDS - t0)) s, on $nic)"
}

rdma link add sv_rc0 type softverbs netdev "$nic"
sv_on_exit 'rdma link delete sv_rc0 2>/dev/null'
# where the suite looks for the netdev (and skips its rdma_cm tests without)
[ -L "/sys/class/infiniband/sv_rc0/device/net/$nic" ] ||
	sv_fail "no /sys/class/infiniband/sv_rc0/device/net/$nic: $(ls -l /sys/class/infiniband/sv_rc0/device/ 2>&1)"
echo "GID 0 of sv_rc0: $(cat /sys/class/infiniband/sv_rc0/ports/1/gids/0) ($(cat /sys/class/infiniband/sv_rc0/ports/1/gid_attrs/types/0 2>/dev/null))"
# what failed, judged at the end
problems=()
# SV_63_KERNEL_ERRORS: ids of tests that error because of the running
# kernel, not of the device (a caller such as 71-rdma-core-65 names them
# with the reason).  Such an error is accepted only where the same test
# errors alike (same last line) on Soft-RoCE in this boot; else it counts.
declare -A waivable=() waived=()
for t in ${SV_63_KERNEL_ERRORS:-}; do waivable[$t]=1; done
# unwaived OUT: bad=OUT's failed tests, less those that may be waived
# (noted in waived[] with the run, for the verdict after Soft-RoCE's run);
# sets globals, so not in a $(...)
unwaived() {
	local status id run
	run=$(basename "$1" .out)
	bad=
	while read -r status id; do
		if [ "$status" = error ] && [ -n "${waivable[$id]:-}" ]; then
			waived[$id]+="${waived[$id]:+, }$run"
		else
			bad+="$status $id"$'\n'
		fi
	done < <(grep -E '^(fail|error|xpass) ' "$1" || true)
	bad=${bad%$'\n'}
}
suite sv_rc0 softverbs
unwaived "$tmp/softverbs.out"
if [ -n "$bad" ]; then
	# the tracebacks of what went wrong
	head -n 300 <<<"$(sed -n '/^=\{20,\}$/,$p' "$tmp/softverbs.log")"
	echo "$bad"
	problems+=("rdma-core's tests fail on softverbs: $(echo "$bad" | wc -l)")
fi
cm_all=$(grep -c ' tests\.test_rdmacm\.' "$tmp/softverbs.out" || true)
cm_ok=$(grep -c '^ok tests\.test_rdmacm\.' "$tmp/softverbs.out" || true)
# (a waived rdma_cm test is judged with the waivers below)
cm_ok=$((cm_ok + $(printf '%s\n' "${!waived[@]}" | grep -c '^tests\.test_rdmacm\.' || true)))
if [ "$cm_all" -eq 0 ] || [ "$cm_ok" -ne "$cm_all" ]; then
	grep ' tests\.test_rdmacm\.' "$tmp/softverbs.out" || true
	problems+=("rdma_cm tests on softverbs: $cm_ok of $cm_all passed")
fi
echo "rdma_cm tests on softverbs: $cm_ok of $cm_all passed (on $nic)"

# The same suite through libsoftverbs instead of libibverbs + librxe
# (63-rdma-core.py gives pyverbs' mlx5/efa provider modules inert
# stand-ins there: their libraries need libibverbs' provider ABI).  Judged
# as the first run: it loads, runs on libsoftverbs alone (the helper checks
# its own maps), every test that passes through librxe passes here, and
# nothing fails.  Not on a KASAN kernel: libsoftverbs answers GID queries
# from sysfs (libibverbs asks the kernel's QUERY_GID_ENTRY ioctl), and the
# suite's setUp queries all 1024 GID slots before each test, which made
# the run take 659 s there against 134 s through librxe; the stock kernels
# run it, and the debug kernel runs libsoftverbs' own tests (30-32).
ulib=$SV_TOOLS/ulib/libsoftverbs.so.1
[ -f "$ulib" ] || sv_fail "$ulib is not built (make -C ulib)"
if [ "$SV_TIME_SCALE" -gt 1 ]; then
	echo "note: KASAN kernel, no run through libsoftverbs (GID queries read sysfs)"
else
	suite sv_rc0 "softverbs via libsoftverbs" "$(realpath "$ulib")"
	grep -q '^ulib maps ok' "$tmp/softverbs via libsoftverbs.log" ||
		{ grep '^ulib maps' "$tmp/softverbs via libsoftverbs.log"; problems+=("pyverbs did not run on libsoftverbs alone"); }
	$py "$helper" compare "$tmp/softverbs via libsoftverbs.out" "$tmp/softverbs.out" |
		sed 's/passes on Soft-RoCE/through libsoftverbs: passes via librxe/'
	[ "${PIPESTATUS[0]}" -eq 0 ] ||
		problems+=("tests that pass through librxe do not pass through libsoftverbs")
	# what passes here and not through librxe (compare's wording turned)
	$py "$helper" compare "$tmp/softverbs.out" "$tmp/softverbs via libsoftverbs.out" |
		sed -n 's/^passes on Soft-RoCE, \([a-z]*\) here: /SV_SUMMARY: through libsoftverbs only (librxe: \1): /p' || true
	unwaived "$tmp/softverbs via libsoftverbs.out"
	[ -z "$bad" ] || { echo "$bad"; head -150 <<<"$(grep -E -A25 '^(ERROR|FAIL):' "$tmp/softverbs via libsoftverbs.log")";
		problems+=("through libsoftverbs: $(echo "$bad" | wc -l) tests failed"); }
fi

if sv_baseline_rxe sv_rc0 rxe_rc0 "$nic"; then
	suite rxe_rc0 Soft-RoCE
	$py "$helper" compare "$tmp/softverbs.out" "$tmp/Soft-RoCE.out" ||
		problems+=("tests that pass on Soft-RoCE do not pass on softverbs")
	ok_sv=$(grep -c '^ok ' "$tmp/softverbs.out" || true)
	ok_rxe=$(grep -c '^ok ' "$tmp/Soft-RoCE.out" || true)
	echo "passed: softverbs $ok_sv, Soft-RoCE $ok_rxe"
fi
for t in "${!waived[@]}"; do
	why=$(grep -hF "error $t: " "$tmp/softverbs.why" "$tmp/softverbs via libsoftverbs.why" 2>/dev/null |
		sed 's/^error [^ ]*: //' | sort -u)
	if [ -f "$tmp/Soft-RoCE.why" ] && [ "$(wc -l <<<"$why")" -eq 1 ] &&
		grep -Fxq "error $t: $why" "$tmp/Soft-RoCE.why"; then
		echo "accepted, the kernel's (errors alike on Soft-RoCE): $t (${waived[$t]}): $why"
	else
		problems+=("$t errors on softverbs (${waived[$t]}), not alike on Soft-RoCE")
	fi
done
# why the tests that did not pass did not, run by run
for f in "$tmp"/*.why; do
	echo "--- not passed, $(basename "$f" .why):"
	cat "$f"
done
[ ${#problems[@]} -eq 0 ] || sv_fail "$(IFS=';'; echo "${problems[*]}")"
