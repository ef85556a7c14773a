#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# Devices go away cleanly under their users.
#
#   init_net:  sv_r0 on vA (vA = veth = vB), sv_r1 on vC (vC = veth = vD)
#
# 1. Deleting the netdev under a device that a process holds open (an
#    async-event watcher of libsoftverbs and one of rdma-core) removes the
#    device promptly: the processes see DEVICE_FATAL / their fd go dead
#    instead of blocking the removal until they exit.
# 2. "rdma link delete" under an open context, likewise.
# 3. rmmod with live devices removes them all.
# The runner fails the test on any kernel warning or leak.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
watch=$SV_TOOLS/ulib/examples/asyncwatch
[ -x "$watch" ] || sv_fail "$watch is not built"

sv_load_module
sv_on_exit sv_unload_module
tmp=$(mktemp -d)
sv_on_exit "rm -rf $tmp"

# 1. netdev deleted under an open device
sv_veth_pair vA vB
rdma link add sv_r0 type softverbs netdev vA
"$watch" sv_r0 "$(sv_t 30)" >"$tmp/w0" 2>&1 &
w0=$!
sv_on_exit "kill $w0 2>/dev/null"
if command -v ibv_asyncwatch >/dev/null; then
	timeout "$(sv_t 30)" ibv_asyncwatch -d sv_r0 >"$tmp/w1" 2>&1 &
	w1=$!
	sv_on_exit "kill $w1 2>/dev/null"
fi
sv_wait_for "read -r l <$tmp/w0 && [[ \$l == *watching* ]]" 5 || sv_fail "watcher did not start"
sv_sleep 1
ip link del vA
sv_wait_for '[ ! -e /sys/class/infiniband/sv_r0 ]' 10 ||
	sv_fail "sv_r0 still exists 10 s after its netdev was deleted"
echo "sv_r0 removed with its netdev while held open"
cat "$tmp/w0"
grep -q DEVICE_FATAL "$tmp/w0" || sv_fail "libsoftverbs watcher saw no DEVICE_FATAL"

# 2. link delete under an open device
sv_veth_pair vC vD
rdma link add sv_r1 type softverbs netdev vC
"$watch" sv_r1 "$(sv_t 30)" >"$tmp/w2" 2>&1 &
w2=$!
sv_on_exit "kill $w2 2>/dev/null"
sv_wait_for "read -r l <$tmp/w2 && [[ \$l == *watching* ]]" 5 || sv_fail "watcher did not start"
timeout "$(sv_t 10)" rdma link delete sv_r1 || sv_fail "rdma link delete blocked or failed"
[ ! -e /sys/class/infiniband/sv_r1 ] || sv_fail "sv_r1 still exists"

# 3. rmmod with live devices (and the watchers still running on dead fds)
rdma link add sv_r2 type softverbs netdev vC
ip link add vE type veth peer name vF
sv_on_exit 'ip link del vE 2>/dev/null'
rdma link add sv_r3 type softverbs netdev vE
timeout "$(sv_t 20)" rmmod softverbs || sv_fail "rmmod with live devices failed"
[ ! -e /sys/class/infiniband/sv_r2 ] && [ ! -e /sys/class/infiniband/sv_r3 ] ||
	sv_fail "devices left after rmmod"
echo "all removal paths clean"
