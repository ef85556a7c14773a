#!/bin/bash
# sv-test: kernels=debug,stock,cloud needs=rxe cost=M
# rdma_cm between softverbs and Soft-RoCE: rping, ucmatose, udaddy.
#
#   netns sv-55a                              init_net
#   sv55a (softverbs) on x55a 10.155.0.1  ==== x55b 10.155.0.2 <- rxe55b (rdma_rxe)
#                           fd9b::1                  fd9b::2
#
# rdma_cm picks the device from the address, so these also check that the
# connection manager finds softverbs in its namespace and that its CM MADs
# (REQ/REP/RTU/DREQ, sent on the GSI QP1) get through.  rping -V -C 5: the
# client checks every ping's data (RDMA READ of the client's buffer by the
# server, then RDMA WRITE back), over IPv4 both directions and IPv6 one
# direction; ucmatose (RC, 2 connections, 10 messages) and udaddy (UD) with
# softverbs as server.  SV_XPORT_DUT=rxe runs them on Soft-RoCE alone.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma rping ucmatose udaddy
modinfo rdma_ucm >/dev/null 2>&1 || sv_skip "no rdma_ucm module"
modprobe rdma_ucm
sv_xport_setup 55 softverbs rxe

# cm_listening SIDE TOOL: TOOL has an rdma_cm ID in LISTEN state on SIDE
# (rdma resource tracking, one line per cm_id).  The client waits for it:
# started earlier, a multi-connection client (ucmatose -c 2) can have its
# first REQ rejected (invalid service ID) and its second accepted; it then
# exits, the server sees that connection rejected (timeout) and exits too,
# and every retry meets no listener.  Seen once on the debug kernel.
cm_listening() {
	local l
	while read -r l; do
		[[ $l == *"state LISTEN "* && $l == *"comm $2"* ]] && return 0
	done < <(xp_exec "$1" rdma resource show cm_id 2>/dev/null)
	return 1
}

# cm_pair SRV CLI WHAT SERVER_CMD... -- CLIENT_CMD...: start the server on
# side SRV, wait for its listener (cm_listening; ss cannot see rdma_cm
# listeners), run the client on CLI, retrying while it is rejected; both
# must succeed within XP_RUN_TIMEOUT
cm_pair() {
	local srv=$1 cli=$2 what=$3 scmd=() ccmd=() so co rs=0 rc=0 pid try out
	shift 3
	while [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	# builtins where the debug kernel's 0.2-0.5 s per exec adds up: the
	# output files in one directory (made once, removed at exit), the
	# pause and the reject match by the shell
	so=$cm_dir/${what}.$$.$((++cm_n)).srv co=${so%.srv}.cli
	_xp_runt
	xp_exec "$srv" timeout -k 5 "$_xp_t" "${scmd[@]}" >"$so" 2>&1 &
	pid=$!
	sv_wait_for "cm_listening $srv ${scmd[0]}" 30 ||
		echo "--- $what: no LISTEN cm_id of ${scmd[0]} seen; trying anyway"
	for try in 1 2 3 4 5; do
		[ $try -eq 1 ] || sv_sleep 1
		rc=0
		xp_exec "$cli" timeout -k 5 "$_xp_t" "${ccmd[@]}" >"$co" 2>&1 || rc=$?
		[ $rc -ne 0 ] || break
		# grep -qiE 'reject|unreachable|connect error|event 8|RDMA_CM_EVENT_REJECTED'
		out=
		read -r -d '' out <"$co" || true
		out=${out,,}
		[[ $out =~ reject|unreachable|connect\ error|event\ 8|rdma_cm_event_rejected ]] || break
	done
	[ $rc -eq 0 ] || kill "$pid" 2>/dev/null
	wait "$pid" || rs=$?
	echo "--- $what: server $srv (${scmd[*]}) rc $rs, client $cli (${ccmd[*]}) rc $rc"
	if [ $rs -ne 0 ] || [ $rc -ne 0 ]; then
		sed 's/^/  srv| /' "$so" | tail -n 30
		sed 's/^/  cli| /' "$co" | tail -n 30
		dmesg | tail -n 15 | sed 's/^/  dmesg| /'
		return 1
	fi
	# tail -n 2 "$co" | sed 's/^/  cli| /'
	local lines=() l
	mapfile -t lines <"$co"
	for l in "${lines[@]: -2}"; do echo "  cli| $l"; done
}
cm_dir=$(mktemp -d) cm_n=0
sv_on_exit "rm -rf '$cm_dir'"

p=25500
xp_case "rping IPv4 A<-B" cm_pair A B rping rping -s -V -C 5 -S 1000 -a "$XP_A_IP4" -p $((p + 1)) -- \
	rping -c -V -C 5 -S 1000 -a "$XP_A_IP4" -p $((p + 1))
xp_case "rping IPv4 B<-A" cm_pair B A rping rping -s -V -C 5 -S 1000 -a "$XP_B_IP4" -p $((p + 2)) -- \
	rping -c -V -C 5 -S 1000 -a "$XP_B_IP4" -p $((p + 2))
xp_case "rping IPv6 A<-B" cm_pair A B rping rping -s -V -C 5 -S 1000 -a "$XP_A_IP6" -p $((p + 3)) -- \
	rping -c -V -C 5 -S 1000 -a "$XP_A_IP6" -p $((p + 3))
xp_case "ucmatose A<-B" cm_pair A B ucmatose ucmatose -b "$XP_A_IP4" -p $((p + 4)) -c 2 -C 10 -- \
	ucmatose -s "$XP_A_IP4" -p $((p + 4)) -c 2 -C 10
xp_case "udaddy A<-B" cm_pair A B udaddy udaddy -b "$XP_A_IP4" -c 2 -C 10 -- \
	udaddy -s "$XP_A_IP4" -c 2 -C 10
xp_summary
