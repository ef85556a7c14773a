#!/bin/bash
# sv-test: kernels=debug,stock quick cost=M
# Multicast attach/detach of UD QPs, driven by libibverbs (librxe) through
# ctypes: pyverbs has no ibv_attach_mcast.
#
#   init_net                                   netns sv-mc
#   sv_mc0 (softverbs) on vA 10.26.0.1/24 ===== veth ===== vB
#
# 26-mcast.py does the verbs: attaching UD QPs to IPv4 (239.26.0.1) and
# IPv6 (ff0e::26:1) groups joins the IP group on vA once (ip maddr shows it)
# and the last detach or destroy leaves it; RC/UC QPs, unicast GIDs and
# detaching a QP that is not attached fail with EINVAL; max_mcast_qp_attach
# QPs fit in a group and max_mcast_grp groups in a device, one more fails
# with ENOMEM.  (max_total_mcast_qp_attach is their product, so it cannot
# be reached on its own.)  Here: a process killed with SIGKILL while its QPs
# are attached leaves every group, so does a device removed under it; the
# module unloads; the kernel log stays clean.
#
# Delivery of multicast packets to the attached QPs is 60-mcast-data's.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/26-mcast.py
[ -x $py ] || sv_skip "python3 is not installed"
# (whether libibverbs is installed, 26-mcast.py itself says: exit 4, "SKIP:")
[ -e /proc/net/if_inet6 ] || sv_skip "IPv6 is disabled"

dev=sv_mc0
log_start=$(dmesg | wc -l)

sv_load_module
sv_on_exit sv_unload_module
sv_netns_add sv-mc
sv_veth_pair vA vB sv-mc
ip addr add 10.26.0.1/24 dev vA
rdma link add $dev type softverbs netdev vA
sv_on_exit "rdma link delete $dev 2>/dev/null"

# groups: the softverbs test groups vA is a member of
groups() {
	local out line
	out=$(ip maddr show dev vA) || return 1
	# (grep -E without the exec: it is polled)
	while IFS= read -r line; do
		[[ ! $line =~ inet6?\ (239\.2[678]\.|ff0e::26:) ]] || echo "$line"
	done <<<"$out"
}

# basic and limits in one python process (each start costs seconds under
# the debug kernel); it checks itself that basic left no group
out=$(mktemp)
sv_on_exit "rm -f '$out'"
rc=0
$py "$helper" $dev vA basic limits >"$out" 2>&1 || rc=$?
last=
while IFS= read -r line; do
	echo "$line"
	[[ $line != '--- '* ]] || last=${line#--- }
done <"$out"
[ $rc -ne 4 ] || sv_skip "libibverbs is not installed"
[ $rc -eq 0 ] || sv_fail "26-mcast.py ${last:-basic}"
sv_assert_eq "" "$(groups)" "groups left after limits"

# hold OUT: start a process with QPs attached to groups; wait for it
hold() {
	$py "$helper" $dev vA hold >"$1" 2>&1 &
	holder=$!
	sv_on_exit "kill -9 $holder 2>/dev/null"
	sv_wait_for "sv_file_has '$1' ready" 30 || sv_fail "holder did not start: $(cat "$1")"
	[ -n "$(groups)" ] || sv_fail "the holder's groups are not joined"
}

echo "--- SIGKILL with QPs attached"
tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
hold "$tmp/hold1"
kill -9 "$holder"
wait "$holder" 2>/dev/null || true
sv_wait_for '[ -z "$(groups)" ]' 10 || sv_fail "groups left after SIGKILL: $(groups)"
echo "ok: every group left after SIGKILL"

echo "--- device removed with QPs attached"
hold "$tmp/hold2"
rdma link delete $dev
sv_wait_for "! rdma dev show $dev" 20 || sv_fail "$dev still there after link delete"
sv_wait_for '[ -z "$(groups)" ]' 10 || sv_fail "groups left after removal: $(groups)"
kill -9 "$holder"
wait "$holder" 2>/dev/null || true
echo "ok: every group left when the device went"

sv_unload_clean "$log_start"
