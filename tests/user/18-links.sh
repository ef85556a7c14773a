#!/bin/bash
# sv-test: kernels=first,stock cost=L
# softverbs-links.service under a real systemd: devices from links.conf,
# also for netdevs that come later, come back or move into a namespace.
#
#   systemd (PID 1 of its own PID and mount namespaces, same network)
#     softverbs-links.service (tools/systemd, svctl of the tree)
#       links.conf:  svl0 netdev vL0             vL0: there before the start
#                    svl1 netdev vL1             vL1: created after; deleted
#                                                     and created again
#                    svl2 netdev vL2 netns lns   lns: "ip netns add" after the
#                                                     start; vL2 created in the
#                                                     initial namespace, then
#                                                     moved into lns
#   then "svctl link save" writes the three lines back, and stopping the
#   service deletes the three devices.
#
# The guest has no systemd as init (tests/vm/init), so the test starts one:
# "unshare --pid --mount --fork" makes it PID 1 of a new PID namespace, in
# container mode ($container), with only an empty target to reach.
# Everything that needs its view (systemctl, ip netns) runs in its
# namespaces through nsenter; it has a /run of its own, so its namespaces
# ("ip netns add lns") exist there only, and end with it.
. "$(dirname "$0")/lib.sh"

sv_need unshare nsenter systemctl ip rdma
[ -x /lib/systemd/systemd ] || sv_skip "no /lib/systemd/systemd"
svctl=$SV_TOOLS/tools/svctl
[ -x "$svctl" ] || sv_skip "no $svctl (make tools)"
unit_in=$SV_ROOT/tools/systemd/softverbs-links.service.in
[ ! -e /etc/softverbs/links.conf ] || sv_fail "/etc/softverbs/links.conf exists already"
sv_load_module_init_net

tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"

# the unit as packaged, with the tree's svctl; its output into a file (no
# journald here)
mkdir -p /etc/systemd/system/softverbs-links.service.d /etc/softverbs
sv_on_exit 'rm -rf /etc/systemd/system/softverbs-links.service /etc/systemd/system/softverbs-links.service.d /etc/systemd/system/sv-idle.target /etc/softverbs'
sed "s|@SBINDIR@|${svctl%/svctl}|" "$unit_in" >/etc/systemd/system/softverbs-links.service
printf '[Service]\nStandardOutput=append:%s\nStandardError=append:%s\n' \
	"$tmp/links.log" "$tmp/links.log" >/etc/systemd/system/softverbs-links.service.d/log.conf
printf '[Unit]\nDescription=nothing: the test starts what it needs\n' >/etc/systemd/system/sv-idle.target
cat >/etc/softverbs/links.conf <<'EOF'
# 18-links
svl0 netdev vL0
svl1   netdev vL1	# later
svl2 netdev vL2 netns lns
EOF

sv_veth_pair vL0 vL0p

# its own /run (a copied mount is the same tmpfs: the guest's /run must
# not get a /run/systemd/system that tells later tests systemd is running)
unshare --pid --mount --fork --mount-proc --propagation private \
	sh -c 'mount -t tmpfs -o mode=0755 tmpfs /run && exec env container=sv-test \
		/lib/systemd/systemd --system --unit=sv-idle.target --log-target=console \
		--show-status=0' >"$tmp/systemd.log" 2>&1 </dev/null &
unshare_pid=$!
sd_pid=
stop_systemd() {
	local d
	if [ -n "$sd_pid" ]; then
		in_sd ip netns del lns 2>/dev/null
		kill -KILL "$sd_pid" 2>/dev/null
	fi
	wait "$unshare_pid" 2>/dev/null
	# what a failed test may have left
	for d in svl0 svl1 svl2; do
		rdma link delete "$d" 2>/dev/null
	done
}
sv_on_exit stop_systemd
sv_wait_for '[ -n "$(cat /proc/$unshare_pid/task/$unshare_pid/children 2>/dev/null)" ]' 10 ||
	sv_fail "unshare started no systemd"
sd_pid=$(cat "/proc/$unshare_pid/task/$unshare_pid/children")
sd_pid=${sd_pid%% *}
# in_sd CMD...: CMD in systemd's PID and mount namespaces, and its root
# (entering a mount namespace sets the root to the namespace's, and the
# guest runs chrooted into its overlay)
in_sd() { SYSTEMD_IGNORE_CHROOT=1 nsenter -t "$sd_pid" -m -p -r -w -- "$@"; }
show_logs() {
	echo "--- systemd (as PID 1 it writes to the console)"
	tail -n 40 "$tmp/systemd.log"
	echo "--- softverbs-links.service"
	cat "$tmp/links.log" 2>/dev/null || true
}
# lfail WHY: sv_fail with systemd's and the service's logs
lfail() {
	show_logs >&2
	sv_fail "$@"
}
sv_wait_for '[[ "$(in_sd systemctl is-system-running 2>/dev/null)" =~ ^(running|degraded)$ ]]' 60 ||
	lfail "systemd did not come up: $(in_sd systemctl is-system-running 2>&1)"

# dev_on NAME NETDEV [NS]: NAME is a softverbs device on NETDEV, seen from NS
dev_on() {
	local out
	if [ -n "${3:-}" ]; then
		out=$(in_sd ip netns exec "$3" rdma link show "$1/1" 2>/dev/null) || return 1
	else
		out=$(rdma link show "$1/1" 2>/dev/null) || return 1
	fi
	[[ $out == *" netdev $2"* ]]
}
gone() { [ ! -e "/sys/class/infiniband/$1" ]; }

t0=$SECONDS
in_sd systemctl start softverbs-links.service || lfail "systemctl start failed: $(in_sd systemctl status softverbs-links.service 2>&1)"
echo "service started in $((SECONDS - t0)) s"
# Type=notify: READY=1 comes after the first pass, so svl0 is there now
dev_on svl0 vL0 || lfail "svl0 is not on vL0 once the service is started"
gone svl1 || lfail "svl1 exists before vL1"

# a netdev that comes after the service
sv_veth_pair vL1 vL1p
sv_wait_for 'dev_on svl1 vL1' 10 || lfail "svl1 was not created when vL1 appeared"
# ... goes, and comes back
ip link del vL1
sv_wait_for 'gone svl1' 10 || lfail "svl1 outlived vL1"
sv_veth_pair vL1 vL1p
sv_wait_for 'dev_on svl1 vL1' 10 || lfail "svl1 was not created again when vL1 came back"

# a namespace that comes after the service, and a netdev moved into it
in_sd ip netns add lns
in_sd ip -n lns link set lo up
ip link add vL2 type veth peer name vL2p
sv_on_exit 'ip link del vL2p 2>/dev/null'
sv_sleep 1
gone svl2 || lfail "svl2 was created for vL2 outside lns"
in_sd ip link set vL2 netns lns
sv_wait_for 'dev_on svl2 vL2 lns' 10 || lfail "svl2 was not created when vL2 moved into lns"

# svctl link save writes what there is, the namespace named
in_sd "$svctl" link save file "$tmp/saved.conf" || lfail "svctl link save failed"
grep -v '^#' "$tmp/saved.conf" | sort >"$tmp/saved.sorted"
printf '%s\n' 'svl0 netdev vL0' 'svl1 netdev vL1' 'svl2 netdev vL2 netns lns' >"$tmp/want"
diff -u "$tmp/want" "$tmp/saved.sorted" || lfail "svctl link save wrote something else"
# ... a file link watch reads as it is
in_sd "$svctl" link apply file "$tmp/saved.conf" || lfail "svctl link apply of the saved file failed"

# stopping the service deletes the devices
t0=$SECONDS
in_sd systemctl stop softverbs-links.service
echo "service stopped in $((SECONDS - t0)) s"
for d in svl0 svl1 svl2; do
	sv_wait_for "gone $d" 10 || lfail "$d is left after the service stopped"
done
# no failure logged by the daemon
if grep -E 'cannot|error' "$tmp/links.log"; then
	lfail "softverbs-links.service logged an error"
fi
echo "SV_SUMMARY: softverbs-links.service: device at start, late netdev, netdev back, late netns + moved netdev, save, stop deletes"
