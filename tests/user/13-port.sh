#!/bin/bash
# sv-test: kernels=debug,stock cost=M
# Port state and active MTU follow the netdev; state changes are delivered
# as asynchronous events (to libsoftverbs and to rdma-core programs).
#
#   init_net:  sv_p0 (softverbs) on vA, vA ===== veth ===== vB
#
# vA's carrier depends on vB: "ip link set vB down" takes the port DOWN
# (PORT_ERR event), "up" brings it back ACTIVE (PORT_ACTIVE event).  MTU
# 9000 gives an active MTU of 4096, 1500 gives 1024, 600 gives 256, and an
# MTU too small for any RoCE packet keeps the port down.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma ibv_devinfo
watch=$SV_TOOLS/ulib/examples/asyncwatch
[ -x "$watch" ] || sv_fail "$watch is not built"

sv_load_module
sv_on_exit sv_unload_module
sv_veth_pair vA vB
rdma link add sv_p0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_p0 2>/dev/null'

# ibv_devinfo's value of KEY (the line "<blanks>KEY:<blanks>VALUE"), parsed
# by the shell (one exec per poll, not two: execs are what the debug kernel
# is slow at)
devinfo_value() {
	local out
	out=$(ibv_devinfo -d sv_p0) || return 0
	[[ $out =~ (^|$'\n')[[:space:]]*$1:[[:space:]]*([^$'\n']*) ]] && echo "${BASH_REMATCH[2]}"
	return 0
}
state() { devinfo_value state; }
mtu() { devinfo_value active_mtu; }
# sysfs_state_is 'PORT_X (N)': the port's sysfs state ("N: X") has number N.
# A builtin read, so polling it costs no exec; rdma-core is asked once the
# kernel's answer is there.
sysfs_state_is() {
	local s=
	read -r s </sys/class/infiniband/sv_p0/ports/1/state || return 1
	[ "${s%%:*}" = "${1//[^0-9]/}" ]
}
expect_state() {
	sv_wait_for "sysfs_state_is '$1'" 10 || true
	sv_wait_for "[ \"\$(state)\" = '$1' ]" 10 || sv_fail "expected state '$1', got '$(state)'"
}
expect_state 'PORT_ACTIVE (4)'

tmp=$(mktemp -d)
sv_on_exit "rm -rf $tmp"
# the two expected events, then 1 s (scaled) more to catch any extra one;
# the 12 s (scaled) watch is only the timeout
"$watch" sv_p0 "$(sv_t 12)" 2 "$(sv_t 1)" >"$tmp/ours" 2>&1 &
ours=$!
if command -v ibv_asyncwatch >/dev/null; then
	# line-buffered, so "async event FD" shows it is listening
	timeout "$(sv_t 20)" stdbuf -oL ibv_asyncwatch -d sv_p0 >"$tmp/theirs" 2>&1 &
	theirs=$!
fi
sv_wait_for "sv_file_has $tmp/ours watching" 10 || sv_fail "asyncwatch did not start: $(cat "$tmp/ours")"
if [ -n "${theirs:-}" ]; then
	sv_wait_for "sv_file_has $tmp/theirs 'async event FD'" 10 ||
		sv_fail "ibv_asyncwatch did not start: $(cat "$tmp/theirs")"
fi
sv_sleep 1

ip link set vB down
expect_state 'PORT_DOWN (1)'
ip link set vB up
expect_state 'PORT_ACTIVE (4)'

wait $ours || sv_fail "asyncwatch failed: $(cat "$tmp/ours")"
cat "$tmp/ours"
diff <(printf 'watching sv_p0\nPORT_ERR port 1\nPORT_ACTIVE port 1\n') "$tmp/ours" ||
	sv_fail "libsoftverbs saw the wrong events"
if [ -n "${theirs:-}" ]; then
	# it runs until killed: give it the time to print both events first
	sv_wait_for "sv_file_has $tmp/theirs IBV_EVENT_PORT_ERR && sv_file_has $tmp/theirs IBV_EVENT_PORT_ACTIVE" 10 || true
	kill $theirs 2>/dev/null || true
	wait $theirs || true
	cat "$tmp/theirs"
	grep -q 'IBV_EVENT_PORT_ERR' "$tmp/theirs" || sv_fail "rdma-core saw no PORT_ERR"
	grep -q 'IBV_EVENT_PORT_ACTIVE' "$tmp/theirs" || sv_fail "rdma-core saw no PORT_ACTIVE"
fi

# MTU
for m in "9000 4096 (5)" "1500 1024 (3)" "600 256 (1)"; do
	set -- $m
	ip link set vA mtu "$1"
	ip link set vB mtu "$1"
	sv_wait_for "[ \"\$(mtu)\" = '$2 $3' ]" 10 || sv_fail "netdev MTU $1: active_mtu $(mtu)"
done
expect_state 'PORT_ACTIVE (4)'
ip link set vA mtu 300
expect_state 'PORT_DOWN (1)'
ip link set vA mtu 1500
expect_state 'PORT_ACTIVE (4)'

# down/up of the device's own netdev
ip link set vA down
expect_state 'PORT_DOWN (1)'
grep -q "phys_state:.*DISABLED" <<<"$(ibv_devinfo -v -d sv_p0)" || sv_fail "phys_state not DISABLED for an admin-down netdev"
ip link set vA up
expect_state 'PORT_ACTIVE (4)'
echo "port state, MTU and events follow the netdev"
