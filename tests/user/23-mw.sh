#!/bin/bash
# sv-test: kernels=debug,stock cost=M
# Memory windows, driven by distro rdma-core (librxe) through pyverbs.
#
#   init_net:  sv_mw0 (softverbs) on vA 10.23.0.1/24, vA ===== veth ===== vB
#
# 23-mw.py does the verbs: type 1 and type 2 windows allocated and freed in
# bulk and interleaved with MRs (all R_Keys distinct, from the MRs' key
# space, none handed out twice), type 3 refused; then binds on an RC QP
# connected to itself: deregistering an MR is refused with EBUSY while a
# type 1 or type 2 window is bound to it (IBTA 10.6.7.2.1) and works after
# the zero-length bind, LOCAL_INV or deallocation of the window.  Here:
# processes killed with SIGKILL while holding windows (ib_core's restrack
# does not count windows: the device's own count is checked by removing the
# device, whose teardown warns if any MW or key is left), the module
# unloads, the kernel log stays clean.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/23-mw.py
[ -x $py ] || sv_skip "python3 is not installed"

log_start=$(dmesg | wc -l)

sv_load_module
sv_on_exit sv_unload_module
sv_veth_pair vA vB
ip addr add 10.23.0.1/24 dev vA
rdma link add sv_mw0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_mw0 2>/dev/null'
ulimit -l unlimited

# The holders below are forked by the helper's spawner (tests/user/svspawn.py,
# fed through the FIFO on fd 4: sv_spawn) rather than started: a python3
# with pyverbs costs seconds under a debug kernel.

# hold DEV N OUT: start a process holding N windows of each type
hold() {
	sv_spawn "$3" "$1" hold "$2"
	sv_wait_for "sv_file_has_line '$3' '*ready*' || sv_file_has_line '$3' 'exit *'" 120 &&
		sv_file_has_line "$3" '*ready*' || sv_fail "holder did not start: $(cat "$3")"
	read -r _ holder <"$3"
	sv_on_exit "kill -9 $holder 2>/dev/null"
}

tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
mkfifo "$tmp/spawn"
exec 4<>"$tmp/spawn"
# one python process for all cases (it prints "--- CASE" before each):
# python and pyverbs start in seconds each under a debug kernel; 77 is its
# "pyverbs cannot be imported"
rc=0
$py "$helper" --spawn "$tmp/spawn" sv_mw0 alloc bind 4>&- | tee "$tmp/cases" || rc=$?
[ $rc != 77 ] || sv_skip "python3-pyverbs is not installed"
out=$'\n'$(<"$tmp/cases")
t=${out##*$'\n'--- }
[ $rc = 0 ] || sv_fail "23-mw.py ${t%%$'\n'*}"

echo "--- SIGKILL while holding windows"
for i in 1 2; do
	hold sv_mw0 50 "$tmp/hold$i"
	kill -9 "$holder"
	sv_wait_for "! kill -0 $holder" 10 || sv_fail "holder $holder outlived SIGKILL"
done
# the windows are gone: new ones can be had, and the device removal below
# finds no window left (sv_dev_dealloc_driver warns otherwise)
sv_spawn "$tmp/alloc2" sv_mw0 alloc
sv_wait_for "sv_file_has_line '$tmp/alloc2' 'exit *'" 120 && sv_file_has_line "$tmp/alloc2" 'exit 0' ||
	sv_fail "23-mw.py alloc after SIGKILL: $(cat "$tmp/alloc2")"
echo "ok: windows of killed processes released"

echo "--- device removed while a process holds windows"
hold sv_mw0 20 "$tmp/hold3"
rdma link delete sv_mw0
sv_wait_for '! rdma dev show sv_mw0' 20 || sv_fail "sv_mw0 still there after link delete"
kill -9 "$holder"
sv_wait_for "! kill -0 $holder" 10 || sv_fail "holder $holder outlived SIGKILL"
echo "ok: device removal with windows held"

sv_unload_clean "$log_start"
