# shellcheck shell=bash
# tests/user/lib/xport.sh: the transport fixture half of lib.sh (source
# lib.sh, not this; it needs lib/common.sh): RoCE devices on veth pairs,
# softverbs and Soft-RoCE side by side (sv_xport_setup, sv_baseline_rxe),
# GID lookups, and running the distro tools between two sides (xp_*).

# --- Soft-RoCE baseline -------------------------------------------------------

# sv_baseline_rxe SV_DEV RXE_DEV NETDEV: replace softverbs device SV_DEV on
# NETDEV (init_net) with a Soft-RoCE device RXE_DEV, for a test that runs a
# third-party client on both side by side (63-65).  Both bind UDP 4791 in
# init_net, so softverbs is unloaded first.  Returns 1, saying why, where
# there is no baseline: a KASAN kernel (minutes of Soft-RoCE there tell
# nothing about softverbs' memory safety) or no rdma_rxe module.
sv_baseline_rxe() {
	if [ "$SV_TIME_SCALE" -gt 1 ]; then
		echo "note: KASAN kernel, no Soft-RoCE baseline"
		return 1
	fi
	if ! modinfo rdma_rxe >/dev/null 2>&1; then
		echo "note: no rdma_rxe module, no Soft-RoCE baseline"
		return 1
	fi
	rdma link delete "$1"
	sv_unload_module
	modprobe rdma_rxe
	sv_on_exit 'modprobe -r rdma_rxe 2>/dev/null'
	rdma link add "$2" type rxe netdev "$3"
	sv_on_exit "rdma link delete '$2' 2>/dev/null"
}

# --- transport tests (51-59): two RoCE devices and the tools between them ----
#
# sv_xport_setup TAG KIND_A KIND_B builds one of these topologies (KIND is
# softverbs or rxe) and exports, for SIDE in A and B, XP_<SIDE>_{NS,IF,DEV,
# IP4,IP6,GID4,GID6} (NS empty = init_net; GIDn = the RoCE v2 GID index of
# the side's IPv4/IPv6 address):
#
#   softverbs - rxe        netns sv-TAGa: svTAGa on veth xTAGa 10.N.0.1, fdN::1
#                          init_net:      rxeTAGb on veth xTAGb 10.N.0.2, fdN::2
#   softverbs - softverbs  netns sv-TAGa and sv-TAGb, one veth end and one
#                          softverbs device in each
#   rxe - rxe              one rxe device in init_net talking to itself (two
#                          rxe devices in one namespace don't talk); A and B
#                          are the same device; the veth's other end sits in
#                          netns sv-TAGb for the carrier
#   softverbs - self       the same with one softverbs device in netns
#                          sv-TAGa (KIND_B "self"): every packet is local
#
# N = 100 + the last two digits of TAG.  rdma_rxe binds UDP 4791 in init_net
# only, so an rxe side is always there and softverbs always in a netns.
# XP_VLAN=ID puts the addresses on VLAN ID devices (xTAGa.ID, xTAGb.ID) on
# top of the veth ends; the RDMA devices stay on the veths, whose GID
# tables list their VLAN upper devices' addresses.
# SV_XPORT_DUT=rxe turns every softverbs side into rxe: the same test then
# runs on Soft-RoCE alone (rxe - rxe), which is how the tests themselves are
# checked before softverbs carries data.  Everything is removed at exit.
SV_XPORT_DUT=${SV_XPORT_DUT:-softverbs}
XP_RUN_TIMEOUT=${XP_RUN_TIMEOUT:-40}
# _xp_run_timeout: XP_RUN_TIMEOUT scaled like every other wait (SV_TIME_SCALE),
# but at most 600 s (a hung run should not eat the test's whole budget)
_xp_run_timeout() {
	_xp_runt
	echo "$_xp_t"
}
# _xp_runt: the same into _xp_t, without the subshell of $(...)
_xp_runt() {
	_xp_t=$((XP_RUN_TIMEOUT * SV_TIME_SCALE))
	[ "$_xp_t" -le 600 ] || _xp_t=600
	[ "$_xp_t" -ge "$XP_RUN_TIMEOUT" ] || _xp_t=$XP_RUN_TIMEOUT
}

# _sv_xport_gid DEV GID: index of GID (sysfs notation) of type RoCE v2
# (sv_gid_index: no grep or cat, every GID is read by the shell itself)
_sv_xport_gid() {
	sv_gid_index "$1" "$2" 'RoCE v2'
}

# The GID tables hold 1024 entries (softverbs and rdma_rxe alike), and one
# read of a sysfs file by the shell costs ~25 ms under the debug kernel: a
# walk over the whole table takes 25 s there, one grep over it well under a
# second.  The addresses of a fresh device sit at the lowest indices, so the
# helpers below look at the first _SV_GID_LOW entries with builtins and only
# then, for a GID not there, let a single grep read the rest.
_SV_GID_LOW=16

# sv_gid_present DEV GID: GID (sysfs notation) is in DEV's port 1 GID table,
# of any type (grep -qx GID .../gids/*)
sv_gid_present() {
	local gids=/sys/class/infiniband/$1/ports/1/gids i g
	for ((i = 0; i < _SV_GID_LOW; i++)); do
		g=
		read -r g 2>/dev/null <"$gids/$i" || [ -n "$g" ] || continue
		[ "$g" != "$2" ] || return 0
	done
	grep -qsFx -- "$2" "$gids"/*
}

# sv_ulib_device: the one device the libsoftverbs tests (30-32) drive,
# sv_u0 on vA (10.31.0.1/24) of a veth pair vA ===== vB in init_net,
# ACTIVE with its IPv4 GID; the module loaded for it, everything undone at
# exit.  Skips where rdma_rxe owns UDP 4791 in init_net.
sv_ulib_device() {
	[ ! -d /sys/module/rdma_rxe ] || sv_skip "rdma_rxe is loaded"
	sv_load_module
	sv_on_exit sv_unload_module
	ulimit -l unlimited
	sv_veth_pair vA vB
	ip addr add 10.31.0.1/24 dev vA
	rdma link add sv_u0 type softverbs netdev vA
	sv_on_exit 'rdma link delete sv_u0 2>/dev/null'
	sv_wait_for '[[ "$(rdma link show sv_u0/1)" == *"state ACTIVE"* ]]' 10 ||
		sv_fail "sv_u0 port not ACTIVE"
	sv_wait_for 'sv_gid_present sv_u0 0000:0000:0000:0000:0000:ffff:0a1f:0001' 10 ||
		sv_fail "no IPv4 GID on sv_u0"
}

# _sv_gid_find DEV GID [TYPE]: set _sv_gid to the index of GID (sysfs
# notation) in DEV's port 1 GID table whose type is TYPE (default RoCE v2),
# the lowest such index; returns 1 if there is none
_sv_gid_find() {
	local port=/sys/class/infiniband/$1/ports/1 type=${3:-RoCE v2} i g t f
	_sv_gid=
	for ((i = 0; i < _SV_GID_LOW; i++)); do
		g=
		read -r g 2>/dev/null <"$port/gids/$i" || [ -n "$g" ] || continue
		[ "$g" = "$2" ] || continue
		t=
		read -r t 2>/dev/null <"$port/gid_attrs/types/$i" || true
		[ "$t" = "$type" ] && { _sv_gid=$i; return 0; }
	done
	# (grep's status is 2 if any file failed to read, even with a match)
	g=$(grep -lsFx -- "$2" "$port"/gids/*) || true
	for f in $g; do
		i=${f##*/}
		[ "$i" -ge $_SV_GID_LOW ] || continue
		t=
		read -r t 2>/dev/null <"$port/gid_attrs/types/$i" || true
		[ "$t" = "$type" ] || continue
		[ -n "$_sv_gid" ] && [ "$_sv_gid" -lt "$i" ] || _sv_gid=$i
	done
	[ -n "$_sv_gid" ]
}

# sv_gid_index DEV GID [TYPE]: print the index of GID (sysfs notation) in
# DEV's port 1 GID table whose type is TYPE (default RoCE v2); returns 1 if
# there is none (see _sv_gid_find)
sv_gid_index() {
	_sv_gid_find "$@" || return 1
	echo "$_sv_gid"
}

# xp_exec SIDE CMD...: run CMD in SIDE's (A or B) network namespace
xp_exec() {
	local ns_var=XP_${1}_NS
	shift
	if [ -n "${!ns_var}" ]; then
		ip netns exec "${!ns_var}" "$@"
	else
		"$@"
	fi
}

# xp_svctl SIDE ARGS...: svctl ARGS in SIDE's network namespace through
# svctl's own -n (one setns()).  ip netns exec would add an exec and a new
# mount namespace with a fresh sysfs, ~1 s a call under the debug kernel.
# Only for what svctl does over netlink alone (fault, set, stats, qp): the
# /sys it sees stays this process's.
xp_svctl() {
	local ns_var=XP_${1}_NS
	shift
	"$SV_TOOLS/tools/svctl" ${!ns_var:+-n "${!ns_var}"} "$@"
}

# sv_xport_setup runs ip once per namespace (-batch) rather than once per
# step: every exec costs 0.2-0.5 s under the debug kernel.
sv_xport_setup() {
	local tag=$1 ka=$2 kb=$3 n s kind ns ifn dev hex self= cmds st
	[ "$kb" != self ] || { self=1; kb=$ka; }
	[ "$SV_XPORT_DUT" != rxe ] || { ka=${ka/softverbs/rxe}; kb=${kb/softverbs/rxe}; }
	n=$((100 + 10#${tag: -2}))
	printf -v hex '%02x' $n
	_sv_modprobe_missing ib_core ib_uverbs
	if [ "$ka" = rxe ] || [ "$kb" = rxe ]; then
		if [ ! -d /sys/module/rdma_rxe ]; then
			modinfo rdma_rxe >/dev/null 2>&1 || sv_skip "no rdma_rxe module for $SV_KVER"
			modprobe rdma_rxe
		fi
		sv_on_exit 'modprobe -r rdma_rxe 2>/dev/null'
	fi
	if [ "$ka" = softverbs ] || [ "$kb" = softverbs ]; then
		sv_load_module
		sv_on_exit sv_unload_module
	fi
	ulimit -l unlimited
	XP_A_NS= XP_B_NS=sv-${tag}b
	[ "$ka" = rxe ] || XP_A_NS=sv-${tag}a
	[ "$kb" = rxe ] && [ "$ka" != rxe ] && XP_B_NS=
	for ns in "$XP_A_NS" "$XP_B_NS"; do
		[ -n "$ns" ] || continue
		ip netns add "$ns"
		sv_on_exit "ip netns del '$ns'"
	done
	# fixed MACs, so that each side's permanent neighbour entry for the
	# other goes into the same ip batch as its addresses (below)
	cmds="link add x${tag}a address 02:5f:00:00:$hex:01 type veth peer name x${tag}b address 02:5f:00:00:$hex:02"
	[ -z "$XP_A_NS" ] || cmds+=$'\n'"link set x${tag}a netns $XP_A_NS"
	[ -z "$XP_B_NS" ] || cmds+=$'\n'"link set x${tag}b netns $XP_B_NS"
	# deleting either end removes both; A's end is in XP_A_NS unless
	# moving it there failed
	sv_on_exit "${XP_A_NS:+ip -n $XP_A_NS link del x${tag}a 2>/dev/null ||} ip link del x${tag}a 2>/dev/null"
	ip -batch - <<<"$cmds"
	for s in A B; do
		ns=XP_${s}_NS ns=${!ns} ifn=x${tag}${s,}
		if [ $s = A ]; then n=1; else n=2; fi
		cmds="link set $ifn up"
		[ -z "$ns" ] || cmds="link set lo up"$'\n'$cmds
		if [ -n "${XP_VLAN:-}" ]; then
			# the addresses live on a VLAN device on top of the veth
			cmds+=$'\n'"link add link $ifn name $ifn.$XP_VLAN type vlan id $XP_VLAN"
			ifn=$ifn.$XP_VLAN
			cmds+=$'\n'"link set $ifn up"
		fi
		cmds+=$'\n'"addr add 10.$((100 + 10#${tag: -2})).0.$n/24 dev $ifn"
		cmds+=$'\n'"addr add fd$hex::$n/64 dev $ifn nodad"
		# Permanent neighbour entries for the peer: every RTR transition
		# resolves the peer's MAC, and ib_core gives up with ETIMEDOUT
		# after one second without an ARP or ND reply, which a loaded
		# TCG guest sometimes takes.  What a test drops or delays is
		# meant for RDMA, not for address resolution.
		cmds+=$'\n'"neigh replace 10.$((100 + 10#${tag: -2})).0.$((3 - n)) lladdr 02:5f:00:00:$hex:0$((3 - n)) dev $ifn nud permanent"
		cmds+=$'\n'"neigh replace fd$hex::$((3 - n)) lladdr 02:5f:00:00:$hex:0$((3 - n)) dev $ifn nud permanent"
		ip ${ns:+-n "$ns"} -batch - <<<"$cmds"
		printf -v "XP_${s}_IF" %s "$ifn"
		printf -v "XP_${s}_IP4" %s "10.$((100 + 10#${tag: -2})).0.$n"
		printf -v "XP_${s}_IP6" %s "fd$hex::$n"
	done
	for s in A B; do
		kind=$ka ns=XP_${s}_NS ns=${!ns} ifn=x${tag}${s,}
		[ $s = A ] || kind=$kb
		if [ $s = A ]; then n=1; else n=2; fi
		if [ $s = B ] && { [ -n "$self" ] || { [ "$kind" = rxe ] && [ "$ka" = rxe ]; }; }; then
			# rxe - rxe, softverbs - self: B is A's device talking to itself
			XP_B_IF=$XP_A_IF XP_B_IP4=$XP_A_IP4 XP_B_IP6=$XP_A_IP6
			XP_B_DEV=$XP_A_DEV XP_B_GID4=$XP_A_GID4 XP_B_GID6=$XP_A_GID6
			continue
		fi
		if [ "$kind" = rxe ]; then
			dev=rxe${tag}${s,}
		else
			dev=sv${tag}${s,}
		fi
		xp_exec $s rdma link add "$dev" type "$kind" netdev "$ifn" ||
			sv_fail "cannot create $kind device $dev on $ifn"
		sv_on_exit "rdma link delete $dev 2>/dev/null || ip netns exec '$ns' rdma link delete $dev 2>/dev/null"
		printf -v "XP_${s}_DEV" %s "$dev"
		# the port state "rdma link show" prints, from sysfs (the
		# devices of every namespace are visible there) without an exec
		sv_wait_for "st= && read -r st </sys/class/infiniband/$dev/ports/1/state && [[ \$st == *ACTIVE ]]" 20 ||
			sv_fail "$dev port not ACTIVE: $(rdma link show "$dev/1" 2>&1)"
		local g4 g6 i4='' i6=''
		g4=0000:0000:0000:0000:0000:ffff:0a$hex:000$n
		g6=fd$hex:0000:0000:0000:0000:0000:0000:000$n
		sv_wait_for "_sv_gid_find $dev $g4 && i4=\$_sv_gid && _sv_gid_find $dev $g6 && i6=\$_sv_gid" 20 ||
			sv_fail "$dev: no RoCE v2 GIDs for 10.x.0.$n / fd$hex::$n: $(grep -H . /sys/class/infiniband/$dev/ports/1/gids/* | grep -v ':0000:0000:0000:0000:0000:0000:0000:0000$')"
		printf -v "XP_${s}_GID4" %s "$i4"
		printf -v "XP_${s}_GID6" %s "$i6"
	done
	# rxe - rxe, softverbs - self: B runs in A's namespace with A's device;
	# sv-TAGb only holds the carrier
	[ "$ka" != rxe ] || [ "$kb" != rxe ] || XP_B_NS=
	[ -z "$self" ] || XP_B_NS=$XP_A_NS
	export XP_A_NS XP_A_IF XP_A_DEV XP_A_IP4 XP_A_IP6 XP_A_GID4 XP_A_GID6
	export XP_B_NS XP_B_IF XP_B_DEV XP_B_IP4 XP_B_IP6 XP_B_GID4 XP_B_GID6
	echo "topology: A=$XP_A_DEV (${XP_A_NS:-init_net}, $XP_A_IP4 gid $XP_A_GID4, $XP_A_IP6 gid $XP_A_GID6)" \
		"B=$XP_B_DEV (${XP_B_NS:-init_net}, $XP_B_IP4 gid $XP_B_GID4, $XP_B_IP6 gid $XP_B_GID6)"
}

# xp_pair FAM SRV CLI PROG [ARG...]: run PROG (ibv_*_pingpong or a perftest
# ib_*) as server on side SRV and client on side CLI (A or B), on the RoCE v2
# GIDs of address family FAM (4 or 6); the out-of-band TCP exchange always
# uses IPv4.  Each side has XP_RUN_TIMEOUT seconds (scaled: _xp_run_timeout).
# Returns PROG's status (non-zero if either side failed); prints both sides'
# output, and on failure the last kernel messages.  perftest results: the client must print its
# result row (see _xp_perf_ok).  XP_PORT (default 20000) is the first TCP
# port, incremented per run.
XP_PORT=${XP_PORT:-20000}
# Per case the shell itself does the bookkeeping (every exec costs 0.2-0.5 s
# under the debug kernel): the two output files live in one directory made
# at the first case and removed at exit, the server's listening socket is
# seen in /proc/PID/net of the server process (which is in the server's
# namespace) rather than by "ip netns exec ss", and the reports are parsed
# by _xp_perf_row and _xp_perf_ok.
_xp_dir=
xp_pair() {
	local fam=$1 srv=$2 cli=$3 prog=$4 sgid cgid sdev cdev sip gopt sns
	shift 4
	XP_PORT=$((XP_PORT + 1))
	local sdv=XP_${srv}_DEV cdv=XP_${cli}_DEV sgv=XP_${srv}_GID$fam cgv=XP_${cli}_GID$fam sipv=XP_${srv}_IP4
	local snv=XP_${srv}_NS
	sdev=${!sdv} cdev=${!cdv} sgid=${!sgv} cgid=${!cgv} sip=${!sipv} sns=${!snv}
	case $prog in
	ib_*)
		gopt=-x
		# perftest's local ACK timeout (default 14: 67 ms, 7 retries)
		# is shorter than a KASAN kernel under TCG takes to work off
		# a full window: scale it like every other wait (18: 1.07 s).
		[ "$SV_TIME_SCALE" -le 1 ] || set -- -u 18 "$@"
		;;
	*) gopt=-g ;;
	esac
	if [ -z "$_xp_dir" ]; then
		_xp_dir=$(mktemp -d)
		sv_on_exit "rm -rf '$_xp_dir'"
	fi
	local so=$_xp_dir/$XP_PORT.srv co=$_xp_dir/$XP_PORT.cli rs=0 rc=0 pid runt l
	_xp_runt
	runt=$_xp_t
	: >"$co"
	# exec: $! is the server itself (ip netns exec enters the namespace
	# and execs timeout), so /proc/$!/net is the server's namespace's
	if [ -n "$sns" ]; then
		exec ip netns exec "$sns" timeout -k 5 "$runt" "$prog" -d "$sdev" $gopt "$sgid" -p $XP_PORT "$@" >"$so" 2>&1 &
	else
		exec timeout -k 5 "$runt" "$prog" -d "$sdev" $gopt "$sgid" -p $XP_PORT "$@" >"$so" 2>&1 &
	fi
	pid=$!
	# a server that exits before it listens fails at once, not after 30 s
	sv_wait_for "sv_tcp_listening $XP_PORT $pid || ! kill -0 $pid" 30 || true
	if ! sv_tcp_listening $XP_PORT $pid; then
		rs=1
	else
		xp_exec "$cli" timeout -k 5 "$runt" "$prog" -d "$cdev" $gopt "$cgid" -p $XP_PORT "$@" "$sip" >"$co" 2>&1 || rc=$?
	fi
	[ $rc -eq 0 ] || kill "$pid" 2>/dev/null
	wait "$pid" || rs=$?
	if [ $rs -eq 0 ] && [ $rc -eq 0 ] && [[ $prog == ib_* ]] && ! _xp_perf_ok "$co"; then
		echo "no result row in the client's report" >>"$co"
		rc=1
	fi
	echo "--- IPv$fam server $srv ($sdev) <- client $cli ($cdev): $prog $* (server rc $rs, client rc $rc)"
	if [ $rs -ne 0 ] || [ $rc -ne 0 ] || [ -n "${XP_VERBOSE:-}" ]; then
		sed 's/^/  srv| /' "$so"
		sed 's/^/  cli| /' "$co"
	elif [[ $prog == ib_* ]]; then
		_xp_perf_row "$co"
		echo "  result: $_xp_row"
	else
		# grep -E 'bytes in .* seconds'
		while IFS= read -r l || [ -n "$l" ]; do
			[[ $l != *'bytes in '*' seconds'* ]] || echo "  $l"
		done <"$co"
	fi
	if [ $rs -ne 0 ] || [ $rc -ne 0 ]; then
		[ $rs -ne 124 ] && [ $rc -ne 124 ] || echo "  (timed out after ${runt}s)"
		echo "  kernel log:"
		dmesg | tail -n 15 | sed 's/^/  dmesg| /'
		return 1
	fi
}

# _xp_perf_row FILE: set _xp_row to perftest's first result row (the first
# line after the "#bytes" header whose first field is a number), or empty
_xp_perf_row() {
	local l h= f
	_xp_row=
	while IFS= read -r l || [ -n "$l" ]; do
		if [ -z "$h" ]; then
			[[ $l =~ ^\ *#bytes ]] && h=1
			continue
		fi
		read -ra f <<<"$l"
		[[ ${f[0]:-} =~ ^[0-9]+$ ]] || continue
		_xp_row=$l
		return 0
	done <"$1"
}

# _xp_perf_ok FILE: perftest ran to the end: its result row (bytes, iterations, ...) is there.
# perftest itself fails on any error completion, so the row means every
# iteration completed.  The bandwidth is not required to be nonzero: under
# TCG perftest's cycle clock sometimes rounds a healthy run to 0.00 MB/s
# ("Correlation coefficient r^2 < 0.9"); rates belong to make bench.
# (A row: two numbers, the iterations nonzero, at least four fields.)
_xp_perf_ok() {
	local l h= f
	while IFS= read -r l || [ -n "$l" ]; do
		if [ -z "$h" ]; then
			[[ $l =~ ^\ *#bytes ]] && h=1
			continue
		fi
		read -ra f <<<"$l"
		[[ ${f[0]:-} =~ ^[0-9]+$ && ${f[1]:-} =~ ^[0-9]+$ ]] || continue
		[ ${#f[@]} -ge 4 ] && [[ ${f[1]} =~ [1-9] ]] && return 0
	done <"$1"
	return 1
}

# xp_perf_value FILE FIELD: field FIELD of perftest's result line
xp_perf_value() {
	awk -v f="$2" '/^ *#bytes/ { h = 1; next }
	     h && $1 ~ /^[0-9]+$/ && NF >= f { print $f; exit }' "$1"
}

# Tallies for tests that run many cases and report them all at the end:
# xp_case NAME CMD... runs CMD, records pass/fail; after XP_MAX_FAIL failures
# (default 3) further cases are not run but recorded as "not run" (a dead
# transport would otherwise spend a timeout on every case).  xp_summary
# prints the table and fails the test if anything failed.
XP_MAX_FAIL=${XP_MAX_FAIL:-3}
_xp_pass=() _xp_fail=() _xp_notrun=()
xp_case() {
	local name=$1 t0
	shift
	if [ ${#_xp_fail[@]} -ge "$XP_MAX_FAIL" ]; then
		_xp_notrun+=("$name")
		return 0
	fi
	t0=$EPOCHSECONDS
	if "$@"; then
		_xp_pass+=("$name ($((EPOCHSECONDS - t0))s)")
	else
		_xp_fail+=("$name: $*")
	fi
}
xp_summary() {
	local c
	echo "=== summary: ${#_xp_pass[@]} passed, ${#_xp_fail[@]} failed, ${#_xp_notrun[@]} not run"
	for c in "${_xp_pass[@]}"; do echo "pass: $c"; done
	for c in "${_xp_fail[@]}"; do echo "FAILED: $c"; done
	for c in "${_xp_notrun[@]}"; do echo "not run (after $XP_MAX_FAIL failures): $c"; done
	[ ${#_xp_fail[@]} -eq 0 ] || sv_fail "${#_xp_fail[@]} case(s) failed: ${_xp_fail[0]}"
}

# xp_tools_suite FAM SRV CLI [quick]: the distro verbs tools between two
# sides: ibverbs-utils pingpongs with data checks (-c), then perftest
# bandwidth tests.  "quick" runs a subset: rc and ud pingpong, ib_write_bw
# and ib_read_bw (a second address family or direction costs less).  Under
# SV_QUICK each list shrinks one step: the full one to "quick", "quick" to
# rc pingpong and ib_read_bw.
xp_tools_suite() {
	local f=$1 s=$2 c=$3 q=${4:-} tag="IPv$1 $2<-$3"
	if [ -n "$SV_QUICK" ] && [ -n "$q" ]; then
		xp_case "$tag rc_pingpong" xp_pair "$f" "$s" "$c" ibv_rc_pingpong -n 20 -s 4096 -c
		xp_case "$tag ib_read_bw" xp_pair "$f" "$s" "$c" ib_read_bw -F -n 20 -s 65536
		return 0
	fi
	q=$q$SV_QUICK
	local n=100
	[ -z "$SV_QUICK" ] || n=20
	xp_case "$tag rc_pingpong" xp_pair "$f" "$s" "$c" ibv_rc_pingpong -n 50 -s 4096 -c
	[ -n "$q" ] || xp_case "$tag uc_pingpong" xp_pair "$f" "$s" "$c" ibv_uc_pingpong -n 50 -s 1024 -c
	xp_case "$tag ud_pingpong" xp_pair "$f" "$s" "$c" ibv_ud_pingpong -n 50 -s 512 -c
	[ -n "$q" ] || xp_case "$tag srq_pingpong" xp_pair "$f" "$s" "$c" ibv_srq_pingpong -n 20 -s 1024 -q 4 -c
	[ -n "$q" ] || xp_case "$tag rc_pingpong events" xp_pair "$f" "$s" "$c" ibv_rc_pingpong -n 20 -s 100000 -e -c
	[ -n "$q" ] || xp_case "$tag ib_send_bw" xp_pair "$f" "$s" "$c" ib_send_bw -F -n $n -s 65536
	xp_case "$tag ib_write_bw" xp_pair "$f" "$s" "$c" ib_write_bw -F -n $n -s 65536
	xp_case "$tag ib_read_bw" xp_pair "$f" "$s" "$c" ib_read_bw -F -n $n -s 65536
	[ -n "$q" ] || xp_case "$tag ib_atomic_bw" xp_pair "$f" "$s" "$c" ib_atomic_bw -F -n $n
	return 0
}
