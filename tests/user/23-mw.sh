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
# shellcheck source=lib/objects.sh
. "$sv_lib/objects.sh"

sv_need ip rdma

log_start=$(dmesg | wc -l)

sv_load_module
sv_on_exit sv_unload_module
sv_veth_pair vA vB
ip addr add 10.23.0.1/24 dev vA
rdma link add sv_mw0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_mw0 2>/dev/null'
ulimit -l unlimited

# a holder has N windows of each type ("-": ib_core keeps no window count)
sv_objects 23-mw.py window - sv_mw0
sv_obj_cases alloc bind

echo "--- SIGKILL while holding windows"
for _ in 1 2; do
	sv_obj_hold 50
	sv_obj_kill
done
# the windows are gone: new ones can be had, and the device removal below
# finds no window left (sv_dev_dealloc_driver warns otherwise)
out=$SV_OBJ_TMP/alloc2
sv_spawn "$out" sv_mw0 alloc
sv_wait_for "sv_file_has_line '$out' 'exit *'" 120 || true
sv_file_has_line "$out" 'exit 0' || sv_fail "23-mw.py alloc after SIGKILL: $(cat "$out")"
echo "ok: windows of killed processes released"

sv_obj_check_removal 20

sv_unload_clean "$log_start"
