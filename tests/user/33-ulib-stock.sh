#!/bin/bash
# sv-test: kernels=first,stock cost=M
# Stock rdma-core programs on libsoftverbs alone, between two softverbs devices.
#
#   netns sv-31a                              netns sv-31b
#   sv31a (softverbs) on x31a 10.131.0.1  ==== x31b 10.131.0.2 <- sv31b (softverbs)
#
# A directory holding libibverbs.so.1 -> libsoftverbs.so.1 is on
# LD_LIBRARY_PATH for every program below: the distro binaries (and the
# distro librdmacm.so.1 under rping, ucmatose, udaddy and mckey) bind their
# ibv_* symbols to libsoftverbs.  No rdma-core verbs library or provider may
# be in the process: a server's /proc/PID/maps is read while it waits for
# its peer, ibv_devinfo's loads are traced with LD_DEBUG.
#
#   ibv_devinfo -v                     the device, every port and GID
#   ibv_{rc,uc,ud,srq}_pingpong -c     A <- B (two devices), rc also A <- A
#                                      (two processes on one device); maps
#                                      of each from a server alone on A
#   rping -V, ucmatose, udaddy         rdma_cm over librdmacm, A <- B
#   mckey                              a multicast join and UD sends, B -> A
. "$(dirname "$0")/lib.sh"

sv_need ip rdma ibv_devinfo ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong \
	ibv_srq_pingpong rping ucmatose udaddy mckey
lib=$SV_TOOLS/ulib/libsoftverbs.so.1
[ -f "$lib" ] || sv_fail "$lib is not built (make -C ulib)"
modinfo rdma_ucm >/dev/null 2>&1 || sv_skip "no rdma_ucm module"
modprobe rdma_ucm
XP_PORT=23100
sv_xport_setup 31 softverbs softverbs

shim=$(mktemp -d)
sv_on_exit "rm -rf '$shim'"
ln -s "$(realpath "$lib")" "$shim/libibverbs.so.1"
export LD_LIBRARY_PATH=$shim
real=$(realpath "$lib")

# no_rdma_core WHAT PID: PID maps libsoftverbs and nothing of rdma-core's
# verbs stack (libibverbs itself, a provider, a provider-specific library)
no_rdma_core() {
	local what=$1 pid=$2 l ours=0 bad=()
	[ -r "/proc/$pid/maps" ] || { echo "$what: pid $pid gone before its maps were read"; return 1; }
	while read -r l; do
		case $l in
		*"$real"*) ours=1 ;;
		*/libibverbs.so*|*-rdmav*.so*|*/libmlx[45].so*|*/libefa.so*|*/libmana.so*|*/libhns.so*)
			bad+=("${l##* }") ;;
		esac
	done <"/proc/$pid/maps"
	if [ $ours -eq 0 ] || [ ${#bad[@]} -ne 0 ]; then
		echo "$what (pid $pid): libsoftverbs mapped: $ours; rdma-core: ${bad[*]:-none}"
		return 1
	fi
	echo "  $what (pid $pid): libsoftverbs only"
}

# ibv_devinfo: every port and GID through ibv_query_gid_type and
# ibv_read_sysfs_file; the dynamic loader's trace lists each object loaded
devinfo() {
	local out
	out=$(xp_exec A env LD_DEBUG=files ibv_devinfo -v -d "$XP_A_DEV" 2>"$shim/ld.trace") ||
		{ echo "$out"; return 1; }
	echo "$out" | grep -E "hca_id|transport|state|GID\[" | head -n 12
	[[ $out == *"hca_id:	$XP_A_DEV"* && $out == *"RoCE v2"* ]] || { echo "no device or GIDs"; return 1; }
	# "calling init: PATH" for each object the loader initialises
	local l ok=0 bad=()
	while read -r l; do
		[[ $l == *"calling init: "* ]] || continue
		l=${l##*calling init: }
		case $l in
		"$shim/libibverbs.so.1") ok=1 ;;
		*libibverbs*|*-rdmav*|*/libmlx[45].so*|*/libefa.so*) bad+=("$l") ;;
		esac
	done <"$shim/ld.trace"
	echo "  ibv_devinfo: libsoftverbs loaded: $ok, rdma-core verbs libraries: ${bad[*]:-none}"
	[ $ok -eq 1 ] && [ ${#bad[@]} -eq 0 ]
}
xp_case "ibv_devinfo -v" devinfo

# maps_of PROG: a PROG server on A, alone, waiting for a client that never
# comes: its maps once it listens (deterministic: the traffic runs below)
maps_of() {
	local prog=$1 pid port=$((XP_PORT + 50))
	exec ip netns exec "$XP_A_NS" timeout -k 5 60 "$prog" -d "$XP_A_DEV" -g "$XP_A_GID4" -p $port \
		>"$shim/$prog.alone" 2>&1 &
	pid=$!
	sv_wait_for "sv_tcp_listening $port $pid" 30 || { cat "$shim/$prog.alone"; kill $pid; return 1; }
	no_rdma_core "$prog" "$(pgrep -n -P $pid)"
	local rc=$?
	kill $pid
	wait $pid 2>/dev/null
	return $rc
}
for p in ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong; do
	xp_case "$p maps" maps_of $p
done
xp_case "rc_pingpong A<-B" xp_pair 4 A B ibv_rc_pingpong -n 100 -s 4096 -c
xp_case "rc_pingpong A<-A" xp_pair 4 A A ibv_rc_pingpong -n 100 -s 4096 -c
xp_case "uc_pingpong A<-B" xp_pair 4 A B ibv_uc_pingpong -n 100 -s 1024 -c
xp_case "ud_pingpong A<-B" xp_pair 4 A B ibv_ud_pingpong -n 100 -s 512 -c
xp_case "srq_pingpong A<-B" xp_pair 4 A B ibv_srq_pingpong -n 100 -s 1024 -q 4 -c

# cm_pair SRV CLI SERVER_CMD... -- CLIENT_CMD...: the rdma_cm server on SRV,
# its maps checked once it listens (rdma resource tracking shows the
# LISTEN cm_id; ss cannot), then the client on CLI; both must succeed.
cm_pair() {
	local srv=$1 cli=$2 scmd=() ccmd=() rs=0 rc=0 pid so co
	shift 2
	while [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	so=$shim/${scmd[0]}.srv co=$shim/${scmd[0]}.cli
	_xp_runt
	local nsv=XP_${srv}_NS
	# line-buffered: the server's "joined" (mckey) must reach $so when
	# printed, not at exit
	exec ip netns exec "${!nsv}" timeout -k 5 "$_xp_t" stdbuf -oL "${scmd[@]}" >"$so" 2>&1 &
	pid=$!
	# a LISTEN cm_id; mckey listens on nothing: any of its cm_ids
	listening() {
		local l
		while read -r l; do
			[[ $l == *"comm ${scmd[0]}"* ]] || continue
			[[ ${scmd[0]} == mckey || $l == *"state LISTEN "* ]] && return 0
		done < <(xp_exec "$srv" rdma resource show cm_id 2>/dev/null)
		return 1
	}
	sv_wait_for listening 30 || echo "  no listening cm_id of ${scmd[0]} seen; trying anyway"
	# mckey: its QP is attached when it prints "joined"; a sender before
	# that sends into the void and the receiver waits for ever
	[ "${scmd[0]}" != mckey ] || sv_wait_for "sv_file_has '$so' joined" 30 ||
		echo "  mckey receiver did not report its join; trying anyway"
	local child
	child=$(pgrep -n -P "$pid") || child=$pid
	no_rdma_core "${scmd[0]} server" "$child" || rs=1
	xp_exec "$cli" timeout -k 5 "$_xp_t" "${ccmd[@]}" >"$co" 2>&1 || rc=$?
	[ $rc -eq 0 ] || kill "$pid" 2>/dev/null
	wait "$pid" || rs=$((rs ? rs : $?))
	echo "--- ${scmd[*]} <- ${ccmd[*]}: server rc $rs, client rc $rc"
	if [ $rs -ne 0 ] || [ $rc -ne 0 ]; then
		sed 's/^/  srv| /' "$so" | tail -n 20
		sed 's/^/  cli| /' "$co" | tail -n 20
		dmesg | tail -n 10 | sed 's/^/  dmesg| /'
		return 1
	fi
	tail -n 2 "$co" | sed 's/^/  cli| /'
}
xp_case "rping A<-B" cm_pair A B rping -s -V -C 5 -S 1000 -a "$XP_A_IP4" -p 23190 -- \
	rping -c -V -C 5 -S 1000 -a "$XP_A_IP4" -p 23190
xp_case "ucmatose A<-B" cm_pair A B ucmatose -b "$XP_A_IP4" -p 23191 -c 2 -C 10 -- \
	ucmatose -s "$XP_A_IP4" -p 23191 -c 2 -C 10
xp_case "udaddy A<-B" cm_pair A B udaddy -b "$XP_A_IP4" -c 2 -C 10 -- \
	udaddy -s "$XP_A_IP4" -c 2 -C 10
# mckey: the receiver on A joins 239.31.0.1, the sender on B joins
# send-only and sends; the receiver exits after its 10 messages
xp_case "mckey B->A" cm_pair A B mckey -m 239.31.0.1 -b "$XP_A_IP4" -C 10 -- \
	mckey -m 239.31.0.1 -b "$XP_B_IP4" -s -C 10
xp_summary
