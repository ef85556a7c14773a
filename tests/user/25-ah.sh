#!/bin/bash
# sv-test: kernels=debug,stock cost=M
# Address handles, driven by distro rdma-core (librxe) through pyverbs.
#
#   init_net                                  netns sv-ah
#   sv_ah0 (softverbs) on vA ======== veth ======== vB
#     10.25.0.1/24                                  10.25.0.2/24
#     2001:db8:25::1/64                             2001:db8:25::2/64
#     fe80::... (link-local)                        fe80::... (link-local)
#
# 25-ah.py does the verbs: AHs with IPv4, IPv6 and link-local IPv6 GIDs to
# the peer, to the local address and to multicast groups, a UD send through
# an AH, 1000 AHs; destinations without an answer or a route refused in
# about a second (ETIMEDOUT from ib_core's ARP/ND resolution, ENETUNREACH
# with no IPv6 route); a 32-bit flow label (UCX's ~0) and the widest traffic
# class, hop limit and SL accepted; an empty source GID index, no GRH, a bad
# port or SL refused; unsignaled UD sends whose AH and QP are destroyed at
# once, with the CPU they were deferred to busy, all arrive.  Here: a process killed with SIGKILL while holding AHs, the
# device removed under a process holding AHs, the module unloads without
# complaining about AHs left behind; the kernel log stays clean.
#
# Not reachable from user space: create_ah/destroy_ah of kernel consumers in
# atomic context (ib_cm does it with interrupts off), query_ah, and the
# kernel's use of the AH in a UD send (needs the transport).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/25-ah.py
[ -x $py ] || sv_skip "python3 is not installed"
# (whether pyverbs is installed, 25-ah.py itself says: exit 4 and "SKIP:")
[ -e /proc/net/if_inet6 ] || sv_skip "IPv6 is disabled"

dev=sv_ah0
log_start=$(dmesg | wc -l)

sv_load_module
sv_on_exit sv_unload_module
sv_netns_add sv-ah
sv_veth_pair vA vB sv-ah
ip addr add 10.25.0.1/24 dev vA
ip addr add 2001:db8:25::1/64 dev vA nodad
ip -n sv-ah addr add 10.25.0.2/24 dev vB
ip -n sv-ah addr add 2001:db8:25::2/64 dev vB nodad
rdma link add $dev type softverbs netdev vA
sv_on_exit "rdma link delete $dev 2>/dev/null"

# exploded IPv6 ADDR: the GID notation of sysfs (in the shell: a python3
# start costs seconds under the debug kernel); fails on anything but hex
# groups with at most one "::"
exploded() {
	local a=${1,,} head tail g out= n
	local -a h=() t=()
	[[ $a =~ ^[0-9a-f:]+$ ]] && [[ $a != *::*::* ]] || return 1
	if [[ $a == *::* ]]; then
		head=${a%%::*} tail=${a#*::}
		[ -z "$head" ] || IFS=: read -ra h <<<"$head"
		[ -z "$tail" ] || IFS=: read -ra t <<<"$tail"
		n=$((8 - ${#h[@]} - ${#t[@]}))
		[ $n -ge 1 ] || return 1
		while ((n--)); do h+=(0); done
		h+=(${t[@]+"${t[@]}"})
	else
		IFS=: read -ra h <<<"$a"
		[[ $a != :* && $a != *: ]] || return 1
	fi
	[ ${#h[@]} -eq 8 ] || return 1
	for g in "${h[@]}"; do
		[[ $g =~ ^[0-9a-f]{1,4}$ ]] || return 1
		printf -v g %04x $((16#$g))
		out+=${out:+:}$g
	done
	echo "$out"
}
# link_local NETNS DEV: DEV's link-local address, once usable ("" NETNS:
# this namespace)
link_local() {
	local out
	out=$(ip ${1:+-n "$1"} -6 -o addr show dev "$2" scope link -tentative 2>/dev/null) ||
		return 1
	[[ $out =~ \ inet6\ (fe80[^/]*)/ ]] && echo "${BASH_REMATCH[1]}"
	return 0
}
# gid_index TYPE GID: the index of GID of TYPE in the device's GID table
gid_index() { sv_gid_index "$dev" "$2" "$1"; }

sv_wait_for '[ -n "$(link_local "" vA)" ] && [ -n "$(link_local sv-ah vB)" ]' 10 ||
	sv_fail "no usable link-local addresses"
my4=0000:0000:0000:0000:0000:ffff:0a19:0001
my6=$(exploded 2001:db8:25::1)
myll=$(exploded "$(link_local "" vA)")
for g in "$my4" "$my6" "$myll"; do
	sv_wait_for "gid_index 'RoCE v2' $g" 10 || sv_fail "no RoCE v2 GID $g"
done
export V4 V6 LL PEER4 PEER6 PEERLL
V4=$(gid_index 'RoCE v2' $my4)
V6=$(gid_index 'RoCE v2' "$my6")
LL=$(gid_index 'RoCE v2' "$myll")
PEER4=0000:0000:0000:0000:0000:ffff:0a19:0002
PEER6=$(exploded 2001:db8:25::2)
PEERLL=$(exploded "$(link_local sv-ah vB)")
echo "GIDs: IPv4 $V4, IPv6 $V6, link-local $LL"

# "late" holds a CPU with a SCHED_FIFO spinner so that the work item a UD
# QP's sends were deferred to cannot run.  From 6.12 on, the fair server
# (debugfs sched/fair_server) runs normal tasks on a CPU an RT task holds
# within milliseconds; its runtime is set to 0 on CPU 0 for the test, as
# RT throttling alone (950 ms of each second) holds the CPU on 6.1.
fair=/sys/kernel/debug/sched/fair_server/cpu0/runtime
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ -w $fair ]; then
	fair_old=$(cat $fair)
	echo 0 >$fair
	sv_on_exit "echo $fair_old >$fair"
fi

# One python process (its start and pyverbs' import cost 10-30 s under the
# debug kernel) runs the tests, each on its own context, then forks
# the two AH holders below one after the other, each when the one before
# has ended, and reports how each ended.
tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
$py "$helper" $dev good unreach bad late hold 200 "$tmp/hold1" hold 50 "$tmp/hold2" >"$tmp/py" 2>&1 &
pyp=$!
sv_on_exit "kill -9 $pyp 2>/dev/null"
# py_ended: the helper process has exited
py_ended() { ! kill -0 "$pyp" 2>/dev/null; }
# (before, the tests ran in the foreground under the runner's per-test
# timeout only)
sv_wait_for "sv_file_has $tmp/py 'cases done' || py_ended" 150 || true
cat "$tmp/py"
if ! sv_file_has "$tmp/py" 'cases done'; then
	rc=0
	if py_ended; then wait "$pyp" || rc=$?; fi
	[ $rc -ne 4 ] || sv_skip "$(sed -n 's/^SKIP: //p' "$tmp/py")"
	last=$(sed -n 's/^--- //p' "$tmp/py" | tail -n 1)
	sv_fail "25-ah.py ${last:-(before the first test)}"
fi

# hold N OUT: the helper's next holder has N AHs; its pid -> $holder
hold() {
	sv_wait_for "sv_file_has '$2' ready || py_ended" 60 || true
	sv_file_has "$2" ready || sv_fail "holder did not start: $(cat "$2" 2>&1)"
	read -r _ holder <"$2"
	sv_on_exit "kill -9 $holder 2>/dev/null"
}
# reaped PID: the helper saw PID end (by SIGKILL)
reaped() {
	sv_wait_for "sv_file_has $tmp/py 'holder $1 ended' || py_ended" 60 || true
	sv_file_has "$tmp/py" "holder $1 ended: signal 9" ||
		sv_fail "holder $1 did not end by SIGKILL: $(cat "$tmp/py")"
}

echo "--- SIGKILL while holding AHs"
hold 200 "$tmp/hold1"
kill -9 "$holder"
reaped "$holder"
echo "ok: process holding 200 AHs killed"

echo "--- device removed while a process holds AHs"
hold 50 "$tmp/hold2"
rdma link delete $dev
sv_wait_for "! rdma dev show $dev" 20 || sv_fail "$dev still there after link delete"
kill -9 "$holder"
reaped "$holder"
wait "$pyp" || sv_fail "25-ah.py failed after the holders: $(cat "$tmp/py")"
echo "ok: device removal with AHs held"

# the device's teardown warns if any AH was left behind
sv_unload_clean "$log_start"
