#!/bin/bash
# bench-wire.sh: the guest halves of make bench's two-host benchmark
# (scripts/bench.sh boots the two VMs; this runs inside them, as root).
#
#   bench-wire.sh a        VM A: waits for B on the control port, then serves
#   bench-wire.sh b        VM B: drives the rounds, runs the perftest clients,
#                          prints the table
#   bench-wire.sh agent    (A, internal) the control loop, stdin/fd 3 = B's
#                          control connection
#
# Topology: two VMs, each with one virtio-net NIC on a point-to-point wire
# (tests/vm/run.sh --wire: qemu's dgram netdev), nothing else on it:
#
#   VM A  10.198.0.1/24  ---- wire ----  10.198.0.2/24  VM B
#   perftest servers                     perftest clients, the table
#
# Both providers use the same NIC, the same perftest binaries and the same
# addresses, one after the other: Soft-RoCE (rdma_rxe, device rxw0) in each
# VM, then softverbs (svw0).  rdma_rxe binds UDP 4791 in init_net while it
# is loaded, and softverbs' socket lives while it has a device, so each phase
# loads/creates its provider and the next one's starts only after
# "rdma link delete" + "modprobe -r rdma_rxe".  Every packet crosses the
# guests' real UDP/IP stacks and virtio-net, and both providers compute and
# check the ICRC of every packet.
#
# Sequencing: B connects to A's control port (TCP on the same wire) and sends
# one command a line; A answers one line each:
#   up KIND            create A's device of KIND (rxe|softverbs) -> "ok"
#   down KIND          delete it (and unload rdma_rxe)          -> "ok"
#   serve PORT ARGS..  start the perftest server ARGS on PORT,
#                      answer once it listens                   -> "listening"
#   reap               wait for that server                     -> "done RC"
#   profile on|off     serve under "perf record -a -g" (or not); reap
#                      then prints the profile to A's output    -> "ok"
#   quit               end A's run
# Any failure is answered "err TEXT".  perftest's own TCP exchange (QP
# numbers, PSNs, GIDs, buffer addresses) also runs over the wire.
#
# Env (passed on by scripts/bench.sh):
#   SV_MODULE             softverbs.ko to insmod
#   SV_BENCH_ROUNDS=N     rounds (default 3); the table shows each median
#   SV_BENCH_ITERS=N      iterations of the 64 KiB bandwidth test (default 1000)
#   SV_BENCH_MSGS=N       iterations of the 64 B message-rate tests (default 20000)
#   SV_BENCH_LAT_ITERS=N  iterations of the latency tests (default 2000)
#   SV_BENCH_TIMEOUT=S    limit per perftest run (default 120 s)
#   SV_BENCH_WAIT=S       how long A waits for B to connect (default 900 s)
#   SV_BENCH_TESTS=REGEX  only the tests whose name (the table's first
#                         column) matches
#   SV_BENCH_PROFILE=TEST after the rounds, one more softverbs run of the
#                         test named TEST (e.g. "ib_write_bw 64 B (msg rate)")
#                         under "perf record -a -g -e cpu-clock" in both VMs;
#                         each prints its profile (A's: in A's output)
set -uo pipefail

root=$(realpath "$(dirname "$0")/..")
cd "$root" || exit 2
role=${1:-}

addr_a=10.198.0.1 addr_b=10.198.0.2 ctl_port=25999
timeout_s=${SV_BENCH_TIMEOUT:-120}

# shellcheck source=tests/user/lib.sh
. tests/user/lib.sh
set +e
ulimit -l unlimited

log() { echo "[$role $(date +%T)] $*" >&2; }

# dev_name KIND: the device name of KIND in either VM
dev_name() {
	case $1 in
	rxe) echo rxw0 ;;
	softverbs) echo svw0 ;;
	*) return 1 ;;
	esac
}

# wire_nic MAC: the netdev with MAC (the NIC run.sh --wire gave this VM)
wire_nic() {
	local f
	for f in /sys/class/net/*/address; do
		[ "$(cat "$f")" = "$1" ] && { f=${f%/address}; echo "${f##*/}"; return 0; }
	done
	return 1
}

# wire_up ADDR MAC: bring the wire NIC up with ADDR; sets $nic
wire_up() {
	modprobe virtio_net
	sv_wait_for "wire_nic $2" 20 || { log "no NIC with MAC $2"; return 1; }
	nic=$(wire_nic "$2")
	ip link set "$nic" up
	ip addr add "$1/24" dev "$nic"
	sv_wait_for "[ \"\$(cat /sys/class/net/$nic/carrier)\" = 1 ]" 20 ||
		{ log "$nic has no carrier"; return 1; }
	modprobe ib_core
	modprobe ib_uverbs
	# shellcheck disable=SC2119 # no module parameters
	sv_load_module
	log "wire: $nic $1 ($(ethtool -i "$nic" 2>/dev/null | sed -n 's/^driver: //p'), mtu $(cat /sys/class/net/"$nic"/mtu))"
}

# prov_up KIND ADDR: KIND's device on the wire NIC; sets $dev and $gid (the
# index of ADDR's RoCE v2 GID)
prov_up() {
	local kind=$1 hex g
	dev=$(dev_name "$kind") || return 1
	gid=
	if [ "$kind" = rxe ]; then
		modprobe rdma_rxe || return 1
	fi
	rdma link add "$dev" type "$kind" netdev "$nic" || { log "cannot create $dev"; return 1; }
	# shellcheck disable=SC2046,SC2183 # the address's four numbers
	hex=$(printf '%02x%02x:%02x%02x' $(tr . ' ' <<<"$2"))
	g=0000:0000:0000:0000:0000:ffff:$hex
	sv_wait_for "_sv_xport_gid $dev $g" 20 || { log "$dev has no RoCE v2 GID for $2"; return 1; }
	sv_wait_for "[[ \$(rdma link show $dev/1) == *'state ACTIVE'* ]]" 20 ||
		{ log "$dev is not ACTIVE"; return 1; }
	gid=$(_sv_xport_gid "$dev" "$g")
}

# prov_down KIND: delete KIND's device (and unload rdma_rxe: it holds UDP
# 4791 in init_net while loaded)
prov_down() {
	local d
	d=$(dev_name "$1") || return 1
	rdma link delete "$d" 2>/dev/null
	if [ "$1" = rxe ] && [ -d /sys/module/rdma_rxe ]; then
		sv_wait_for 'modprobe -r rdma_rxe' 20 || { log "cannot unload rdma_rxe"; return 1; }
	fi
	return 0
}

# The profile: every CPU, call graphs, the cpu-clock software event (TCG has
# no PMU); perf_cmd prefixes the perftest command
perf_data=/tmp/sv-bench.perf
perf_cmd="perf record -q -a -g -e cpu-clock -o $perf_data --"

# profile_show WHO: the recorded profile, by symbol (self time) and by
# command and module
profile_show() {
	local who=$1
	echo "== profile of $who: self time by symbol (all CPUs)"
	perf report -i $perf_data --stdio --no-children --sort sym -g none --percent-limit 0.7 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n 45
	echo "== profile of $who: by command and module"
	perf report -i $perf_data --stdio --no-children --sort comm,dso -g none --percent-limit 1 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n 20
	echo "== profile of $who: call graphs (callers) of entries over 3 % with children"
	perf report -i $perf_data --stdio --children --sort sym -g caller,0.5,callee --percent-limit 3 2>/dev/null |
		grep -v '^$' | head -n 200
}

case $role in
a)
	wire_up $addr_a 52:54:00:5e:00:0a || exit 1
	log "waiting for B on $addr_a:$ctl_port"
	# A one-connection inetd: B's control connection becomes the agent's
	# stdin (commands) and fd 3 (answers).  The agent's stdout and stderr
	# stay on the results port.
	python3 -c '
import os, socket, sys
s = socket.create_server((sys.argv[1], int(sys.argv[2])))
s.settimeout(float(sys.argv[3]))
try:
    c, _ = s.accept()
except socket.timeout:
    sys.exit("bench-wire: B never connected")
s.close()
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
os.dup2(c.fileno(), 0)
os.dup2(c.fileno(), 3)
c.close()
os.execvp(sys.argv[4], sys.argv[4:])
' $addr_a $ctl_port "${SV_BENCH_WAIT:-900}" bash "$0" agent "$nic"
	exit $?
	;;
agent)
	nic=$2 kind='' spid='' perf=''
	sv_on_exit 'prov_down rxe; prov_down softverbs'
	while read -r cmd args; do
		case $cmd in
		up)
			kind=$args
			if prov_up "$kind" $addr_a; then echo ok >&3; else echo "err up $kind" >&3; fi
			;;
		down)
			if prov_down "$args"; then echo ok >&3; else echo "err down $args" >&3; fi
			kind=
			;;
		serve)
			# shellcheck disable=SC2086 # ARGS: the perftest command line
			set -- $args
			port=$1
			shift
			sout=$(mktemp)
			$perf timeout "$timeout_s" stdbuf -oL "$1" -d "$dev" -x "$gid" -p "$port" -F "${@:2}" >"$sout" 2>&1 &
			spid=$!
			if sv_wait_for "sv_tcp_listening $port" 30; then
				echo listening >&3
			else
				log "server $* did not listen:"
				tail -n 5 "$sout" >&2
				echo "err not listening" >&3
			fi
			;;
		reap)
			wait "$spid"
			rc=$?
			if [ $rc -ne 0 ]; then
				log "server on $dev exited $rc:"
				tail -n 8 "$sout" | sed 's/^/  server: /' >&2
			fi
			rm -f "$sout"
			[ -z "$perf" ] || profile_show "VM A (server)"
			echo "done $rc" >&3
			;;
		profile)
			perf=
			[ "$args" != on ] || perf=$perf_cmd
			echo ok >&3
			;;
		quit)
			echo ok >&3
			exit 0
			;;
		*) echo "err unknown command $cmd" >&3 ;;
		esac
	done
	log "B hung up"
	exit 1
	;;
b) ;;
*)
	echo "usage: bench-wire.sh a|b" >&2
	exit 2
	;;
esac

# --- B: the driver -------------------------------------------------------------
wire_up $addr_b 52:54:00:5e:00:0b || exit 1
ctl=
for ((i = 0; i < ${SV_BENCH_WAIT:-900}; i += 2)); do
	# (a redirection on exec itself would stay: stderr gone for good)
	{ exec {ctl}<>"/dev/tcp/$addr_a/$ctl_port"; } 2>/dev/null && break
	ctl=
	sleep 2
done
[ -n "$ctl" ] || { log "cannot reach A at $addr_a:$ctl_port"; exit 1; }
log "connected to A"
# The wire's own round trip (virtio-net, qemu, the host's unix sockets,
# both guests' IP stacks) when idle: 5 ms apart, both guests halt between
# pings and each ping pays for waking them, which busy-polled perftest does
# not (its latencies can come in below this)
# (busybox's ping: the host need not have iputils)
log "wire: ping round trip $(busybox ping -q -c 200 -i 0.005 $addr_a 2>&1 | tail -n 1 | sed 's/^round-trip //')"

# ask CMD...: send CMD to A, print its answer (empty when A is gone)
ask() {
	local reply=
	echo "$*" >&"$ctl"
	read -r -t $((timeout_s + 60)) reply <&"$ctl"
	echo "$reply"
}

# both KIND up|down: KIND's device in B and in A
both() {
	local r
	if [ "$2" = up ]; then
		prov_up "$1" $addr_b || return 1
		r=$(ask up "$1")
	else
		prov_down "$1"
		r=$(ask down "$1")
	fi
	[ "$r" = ok ] || { log "A: $2 $1: ${r:-no answer}"; return 1; }
}

# run PORT FIELD PROG ARGS...: one perftest run on PORT with the server in A
# and the client here; prints field FIELD of its result line, or "-"
run() {
	local port=$1 field=$2 out r v
	shift 2
	r=$(ask serve "$port" "$@")
	if [ "$r" != listening ]; then
		log "A: serve $*: ${r:-no answer}"
		echo -
		return
	fi
	out=$(mktemp)
	# line-buffered: a run the timeout ends still leaves what it printed
	$perf timeout "$timeout_s" stdbuf -oL "$1" -d "$dev" -x "$gid" -p "$port" -F "${@:2}" $addr_a >"$out" 2>&1
	r=$(ask reap)
	v=$(xp_perf_value "$out" "$field")
	if ! [[ $v =~ ^[0-9.]+$ ]]; then
		log "$1 on $dev produced no result (A: $r; field $field: '$v'):"
		tail -n 8 "$out" | sed 's/^/  client: /' >&2
		v=-
	fi
	rm -f "$out"
	echo "$v"
}

iters=${SV_BENCH_ITERS:-1000}
msgs=${SV_BENCH_MSGS:-20000}
lat=${SV_BENCH_LAT_ITERS:-2000}
rounds=${SV_BENCH_ROUNDS:-3}
# name|result field|unit|target|perftest command.  Field 4 of a *_bw result
# line is BW average (MB/s), 5 MsgRate (Mpps); field 5 of a *_lat line is
# t_typical (usec).  target: issue 21's goal for softverbs/rxe.
tests=(
	"ib_write_bw 64 KiB|4|MB/s|>= 2|ib_write_bw -s 65536 -n $iters"
	"ib_write_bw 64 B (msg rate)|5|Mpps|>= 2|ib_write_bw -s 64 -n $msgs"
	"ib_send_bw 64 B (msg rate)|5|Mpps||ib_send_bw -s 64 -n $msgs"
	"ib_send_lat 8 B|5|usec|<= 0.6|ib_send_lat -s 8 -n $lat"
	"ib_send_lat -e 8 B|5|usec||ib_send_lat -s 8 -n $lat -e"
)
all_tests=("${tests[@]}")
# SV_BENCH_TESTS=REGEX: only the tests whose name matches (none: only the
# profiled run, if any)
if [ -n "${SV_BENCH_TESTS:-}" ]; then
	sel=()
	for t in "${tests[@]}"; do
		[[ ${t%%|*} =~ $SV_BENCH_TESTS ]] && sel+=("$t")
	done
	tests=("${sel[@]}")
	[ ${#tests[@]} -gt 0 ] || rounds=0
fi
declare -A res
port=26000 perf=''

for ((r = 1; r <= rounds; r++)); do
	for kind in rxe softverbs; do
		echo "== round $r of $rounds: $kind <-> $kind"
		if ! both $kind up; then
			log "no $kind devices: no figures for $kind this round"
			both $kind down
			continue
		fi
		for t in "${tests[@]}"; do
			IFS='|' read -r name field _ _ cmd <<<"$t"
			port=$((port + 1))
			# shellcheck disable=SC2086 # cmd: the perftest command line
			v=$(run $port "$field" $cmd)
			res[$kind,$name]+=" $v"
			printf '  %-30s %-10s %10s\n' "$name" "$kind" "$v"
		done
		both $kind down
	done
done

# One more softverbs run of SV_BENCH_PROFILE, profiled on both sides
if [ -n "${SV_BENCH_PROFILE:-}" ]; then
	cmd='' pfield=''
	for t in "${all_tests[@]}"; do
		IFS='|' read -r name field _ _ c <<<"$t"
		[ "$name" != "$SV_BENCH_PROFILE" ] || cmd=$c pfield=$field
	done
	if [ -z "$cmd" ]; then
		log "SV_BENCH_PROFILE: no test named $SV_BENCH_PROFILE"
	elif both softverbs up && [ "$(ask profile on)" = ok ]; then
		port=$((port + 1)) perf=$perf_cmd
		# shellcheck disable=SC2086 # cmd: the perftest command line
		v=$(run $port "$pfield" $cmd)
		perf=''
		ask profile off >/dev/null
		echo "== profiled run: $SV_BENCH_PROFILE on softverbs: $v"
		profile_show "VM B (client)"
	fi
	both softverbs down
fi
ask quit >/dev/null

# median of the numeric arguments ("-" when there is none)
median() {
	printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -g |
		awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

[ "$rounds" -gt 0 ] || exit 0
echo
echo "== two hosts: median of $rounds rounds (kernel $(uname -r), TCG, $(nproc) vCPUs"
echo "   per VM, virtio-net on a qemu dgram wire; ratio = softverbs/rxe;"
echo "   MB/s and Mpps: higher is better; usec (t_typical): lower is better)"
printf '| %-28s | %-4s | %9s | %9s | %6s | %-6s |\n' test unit softverbs rxe ratio target
printf '|%s|%s|%s|%s|%s|%s|\n' ------------------------------ ------ ----------- ----------- -------- --------
for t in "${tests[@]}"; do
	IFS='|' read -r name _ unit target _ <<<"$t"
	# shellcheck disable=SC2086
	s=$(median ${res[softverbs,$name]}) rr=$(median ${res[rxe,$name]}) ratio=-
	if [[ $s =~ ^[0-9.]+$ ]] && [[ $rr =~ ^[0-9.]+$ ]]; then
		ratio=$(awk -v s="$s" -v r="$rr" 'BEGIN { if (r > 0) printf "%.2f", s / r; else print "-" }')
	fi
	printf '| %-28s | %-4s | %9s | %9s | %6s | %-6s |\n' "$name" "$unit" "$s" "$rr" "$ratio" "$target"
done
exit 0
