#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# soak-guest.sh MINUTES: the guest half of `make soak` (scripts/soak.sh;
# Documentation/reliability.md).  Runs as root in a VM.
#
#   netns sv-90a  sv90a on x90a 10.190.0.1 ==== x90b 10.190.0.2 sv90b  netns sv-90b
#                 RC, UD and ODP ping-pong with data checks (-c)
#   init_net      sv91a on x91a 10.191.0.1 (== x91b, carrier only)
#                 nvmet-rdma target + nvme-rdma host on the same device,
#                 fio write+verify (crc32c) on the namespace
#
# Every workload is a loop of rounds; each round checks its data and is
# counted ok, failed (an error the program reported: a clean failure) or
# a data error (the check found wrong bytes).  A fault loop picks a kind
# at random, injects it for a few seconds, removes it and then waits for
# every workload to complete a round that began after the fault ended
# (survived), and reads the kernel log for reports (attributed to the
# kind).  At the end: workloads stopped, the objects of each device back
# to their count before the workloads (rdma resource), devices deleted,
# the module unloaded, kmemleak scanned (where it is on), unreclaimable
# slab + vmalloc back to their level before the module within a
# tolerance.  The last lines are the table (lines "row|...").
# Exit 0 when every check holds, 1 otherwise.
. "$(dirname "$0")/../user/lib.sh"
. "$sv_lib/storage.sh"

minutes=${1:-${SV_SOAK_MINUTES:-30}}
mem_tol_kb=${SV_SOAK_MEM_TOL_KB:-8192}
kinds=(netem-loss netem-reorder netem-dup svctl-fault link-flap dev-readd kill)
works=(rc ud odp nvme)

sv_need ip rdma tc nvme fio ibv_rc_pingpong ibv_ud_pingpong
svctl=$SV_TOOLS/tools/svctl
[ -x "$svctl" ] || sv_fail "$svctl is not built"

W=$(mktemp -d /tmp/soak.XXXXXX)
log() { printf '[%5ds] %s\n' $((${EPOCHREALTIME%[.,]*} - t_start)) "$*"; }
t_start=${EPOCHREALTIME%[.,]*}

# memory baseline before softverbs: unreclaimable slab + vmalloc (kB)
mem_now() {
	local k v u s=0 vm=0
	echo 3 >/proc/sys/vm/drop_caches
	while read -r k v u; do
		case $k in
		SUnreclaim:) s=$v ;;
		VmallocUsed:) vm=$v ;;
		esac
	done </proc/meminfo
	echo $((s + vm))
}
# the NVMe and RDMA core modules first, so that their own allocations are
# in the baseline
for m in nvmet nvmet_rdma nvme_rdma; do
	modinfo "$m" >/dev/null 2>&1 || sv_skip "no $m module for $SV_KVER"
done
[ ! -d /sys/module/rdma_rxe ] || modprobe -r rdma_rxe
modprobe -a ib_core ib_uverbs rdma_cm nvmet nvmet_rdma nvme_rdma loop sch_netem
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
kmemleak=/sys/kernel/debug/kmemleak
have_kmemleak=0
if [ -e $kmemleak ] && echo clear >$kmemleak 2>/dev/null; then have_kmemleak=1; fi
mem0=$(mem_now)
dmesg_base=$(dmesg | wc -l)
taint0=$(</proc/sys/kernel/tainted)
log "baseline: SUnreclaim+VmallocUsed ${mem0} kB, kmemleak $have_kmemleak, ${minutes} min"

# --- devices ------------------------------------------------------------------
sv_xport_setup 90 softverbs softverbs
sv_netns_add sv-91b
sv_veth_pair x91a x91b sv-91b
ip addr add 10.191.0.1/24 dev x91a
rdma link add sv91a type softverbs netdev x91a
sv_on_exit "rdma link delete sv91a 2>/dev/null"
sv_wait_for "st= && read -r st </sys/class/infiniband/sv91a/ports/1/state && [[ \$st == *ACTIVE ]]" 20 ||
	sv_fail "sv91a not ACTIVE"
g4a=0000:0000:0000:0000:0000:ffff:0abe:0001
g4b=0000:0000:0000:0000:0000:ffff:0abe:0002

# res_sum NS DEV [KIND]: the sum of DEV's object counts (rdma resource show),
# KIND's left out
res_sum() {
	local out s=0 w prev= skip=${3:-}
	out=$(ip netns exec "$1" rdma resource show "$2" 2>/dev/null) || out=$(rdma resource show "$2" 2>/dev/null) || true
	for w in $out; do
		[[ $w =~ ^[0-9]+$ ]] && [ "$prev" != "$skip" ] && s=$((s + w))
		prev=$w
	done
	echo "$s $out"
}
read -r res0a _ <<<"$(res_sum sv-90a sv90a)"
read -r res0b _ <<<"$(res_sum sv-90b sv90b)"
# The NVMe device's CQs are left out: the ULPs take theirs from ib_core's
# per-device CQ pool (ib_cq_pool_get()), which keeps them until the device
# is unregistered; the device's deletion, softverbs' unload and the
# memory and kmemleak checks below cover them.
read -r res0n _ <<<"$(res_sum - sv91a cq)"

# --- NVMe-oF --------------------------------------------------------------------
img=/tmp/soak-nvme.img
truncate -s 32M $img
loopdev=$(losetup -f --show $img)
sv_on_exit "losetup -d $loopdev"
nqn=nqn.2026-11.org.softverbs:soak
hostnqn=nqn.2014-08.org.nvmexpress:uuid:5e5e5e90-0000-4000-8000-000000000090
sv_on_exit "sv_nvmet_del $nqn 91"
sv_nvmet_add $nqn "$loopdev" 10.191.0.1 91 || sv_fail "nvmet target setup failed"
sv_on_exit "nvme disconnect -n $nqn >/dev/null 2>&1"
# a controller that reconnects for ever (a link flap must not remove it)
timeout "$(sv_t 120)" nvme connect -t rdma -a 10.191.0.1 -s 4420 -n $nqn --hostnqn=$hostnqn \
	--ctrl-loss-tmo=-1 --reconnect-delay=2 >/dev/null || sv_fail "nvme connect failed"
sv_wait_for "sv_nvme_ns $nqn" 30 || sv_fail "no NVMe namespace"
ns=$(sv_nvme_ns $nqn)
log "nvme: /dev/$ns over sv91a"

# --- workloads ------------------------------------------------------------------
rt=$(sv_t 30)
[ "$rt" -le 240 ] || rt=240
grace=$(sv_t 3)
# smaller rounds where everything is 5-10 times slower (the debug kernel)
# (a round must fit its timeout, twice over in the recovery window, even at
# the 1 MB/s a loaded 2-core test bed gives NVMe-oF)
if [ "$SV_TIME_SCALE" -gt 1 ]; then iters=20 fio_size=4M; else iters=100 fio_size=8M; fi

# round_pp NAME PORT PROG ARGS...: one ping-pong, server on B, client on A;
# returns 0 ok, 1 failed, 2 data error
round_pp() {
	local name=$1 port=$2 prog=$3 spid cpid rs=0 rc=0 i ga gb
	shift 3
	_sv_gid_find sv90a $g4a || return 1
	ga=$_sv_gid
	_sv_gid_find sv90b $g4b || return 1
	gb=$_sv_gid
	exec ip netns exec sv-90b timeout -k 2 $rt "$prog" -d sv90b -g "$gb" -p "$port" "$@" >"$W/$name.srv" 2>&1 &
	spid=$!
	echo "$spid" >"$W/$name.pids"
	sv_wait_for "sv_tcp_listening $port $spid || ! kill -0 $spid" 20 || true
	if ! kill -0 $spid 2>/dev/null; then
		wait $spid
		return 1
	fi
	exec ip netns exec sv-90a timeout -k 2 $rt "$prog" -d sv90a -g "$ga" -p "$port" "$@" 10.190.0.2 >"$W/$name.cli" 2>&1 &
	cpid=$!
	echo "$spid $cpid" >"$W/$name.pids"
	wait $cpid || rc=$?
	for ((i = 0; i < grace * 10; i++)); do
		kill -0 $spid 2>/dev/null || break
		sv_sleep 0.1
	done
	kill $spid 2>/dev/null
	wait $spid || rs=$?
	: >"$W/$name.pids"
	if sv_file_has "$W/$name.srv" 'invalid data' || sv_file_has "$W/$name.cli" 'invalid data'; then
		cat "$W/$name.srv" "$W/$name.cli" >>"$W/$name.dataerr.log"
		return 2
	fi
	[ $rc -eq 0 ] && [ $rs -eq 0 ] && return 0
	{ echo "--- round failed: server $rs client $rc"; tail -n 3 "$W/$name.srv" "$W/$name.cli"; } >>"$W/$name.fail.log"
	return 1
}

round_nvme() {
	local rc=0
	exec timeout -k 2 $rt fio --name=soak --filename=/dev/$ns --rw=randwrite --bs=4k --size=$fio_size \
		--direct=1 --ioengine=libaio --iodepth=8 --verify=crc32c --do_verify=1 --verify_fatal=1 \
		--randrepeat=0 >"$W/nvme.out" 2>&1 &
	echo $! >"$W/nvme.pids"
	wait $! || rc=$?
	: >"$W/nvme.pids"
	if sv_file_has "$W/nvme.out" 'verify:' || sv_file_has "$W/nvme.out" 'bad magic' ||
		sv_file_has "$W/nvme.out" 'crc32c'; then
		if grep -Eq 'verify: bad|bad magic|crc32c.*(fail|wanted)|verify failed' "$W/nvme.out"; then
			cat "$W/nvme.out" >>"$W/nvme.dataerr.log"
			return 2
		fi
	fi
	[ $rc -eq 0 ] && return 0
	{ echo "--- round failed: $rc"; tail -n 5 "$W/nvme.out"; } >>"$W/nvme.fail.log"
	return 1
}

# worker NAME: rounds until $W/stop; counters in $W/NAME.{ok,fail,derr},
# the start time (us) of the last ok round in $W/NAME.last
worker() {
	local name=$1 ok=0 fail=0 derr=0 r t0 port=$((19000 + RANDOM % 500 * 2))
	trap - EXIT
	echo 0 >"$W/$name.last"
	while [ ! -e "$W/stop" ]; do
		t0=${EPOCHREALTIME/[.,]/}
		r=0
		case $name in
		rc) round_pp rc $port ibv_rc_pingpong -e -c -n $iters -s 4096 || r=$? ;;
		ud) round_pp ud $port ibv_ud_pingpong -e -c -n $iters -s 1024 || r=$? ;;
		odp) round_pp odp $port ibv_rc_pingpong -e -c -o -n $iters -s 16384 || r=$? ;;
		nvme) round_nvme || r=$? ;;
		esac
		case $r in
		0) ok=$((ok + 1)); echo "$t0" >"$W/$name.last" ;;
		2) derr=$((derr + 1)); echo "$t0" >"$W/$name.derr_t.$derr" ;;
		*) fail=$((fail + 1)); sv_sleep 0.5 ;;
		esac
		echo "$ok $fail $derr" >"$W/$name.cnt"
		# a fresh port per round: no TIME_WAIT, no stale server
		port=$((port + 1)); [ $port -lt 19990 ] || port=19000
	done
}
wpids=()
for w in "${works[@]}"; do
	worker "$w" </dev/null >/dev/null 2>&1 &
	wpids+=($!)
done
log "workloads: ${works[*]}"

# --- faults ---------------------------------------------------------------------
declare -A inj=() surv=() derr=() krep=()
for k in "${kinds[@]}"; do inj[$k]=0 surv[$k]=0 derr[$k]=0 krep[$k]=0; done
netem_set() {	# netem_set ARGS|off on both ends of x90
	local s ns
	for s in a b; do
		ns=sv-90$s
		if [ "$1" = off ]; then
			tc -n $ns qdisc del dev x90$s root 2>/dev/null || true
		else
			tc -n $ns qdisc replace dev x90$s root netem "$@" || echo "tc netem $* on x90$s refused"
		fi
	done
}
derr_total() {
	local w s=0 a b c
	for w in "${works[@]}"; do
		read -r a b c 2>/dev/null <"$W/$w.cnt" || c=0
		s=$((s + ${c:-0}))
	done
	echo $s
}
dmesg_seen=$dmesg_base
new_reports() {	# the kernel reports since the last call, counted; saved
	local out n
	out=$(dmesg | tail -n +$((dmesg_seen + 1)))
	n=$(grep -cE 'BUG:|WARNING:|Oops|KASAN|UBSAN|circular locking|possible recursive locking|hung_task|blocked for more than|refcount_t|list_(add|del) corruption' <<<"$out" || true)
	dmesg_seen=$((dmesg_seen + $(wc -l <<<"$out")))
	[ "$n" -eq 0 ] || echo "$out" >>"$W/kernel-reports.log"
	echo "$n"
}
kill_children() {	# kill_children PID: SIGKILL to PID's descendants
	local c
	for c in $(pgrep -P "$1"); do
		kill_children "$c"
		kill -KILL "$c" 2>/dev/null || true
	done
}
hold() { sv_sleep $((2 + RANDOM % 5)); }
recover_t=$(sv_t 60)
[ "$recover_t" -le 400 ] || recover_t=400

cycle=()
end_us=$((${EPOCHREALTIME/[.,]/} + minutes * 60 * 1000000))
# the workloads get going before the first fault
sv_sleep $(sv_t 5)
while [ ${EPOCHREALTIME/[.,]/} -lt $end_us ]; do
	# every kind once per cycle, in a random order: a short run covers all
	[ ${#cycle[@]} -gt 0 ] || mapfile -t cycle < <(printf '%s\n' "${kinds[@]}" | shuf)
	k=${cycle[0]}
	cycle=("${cycle[@]:1}")
	d0=$(derr_total)
	what=
	case $k in
	netem-loss) p=$((1 + RANDOM % 10)); what="loss $p%"; netem_set loss $p%; hold; netem_set off ;;
	netem-reorder) what="delay 5ms reorder 25%"; netem_set delay 5ms reorder 25% 50%; hold; netem_set off ;;
	netem-dup) what="duplicate 10%"; netem_set duplicate 10%; hold; netem_set off ;;
	svctl-fault)
		dev=(sv90a sv90b sv91a); dev=${dev[RANDOM % 3]}
		case $dev in sv90a) n=(-n sv-90a) ;; sv90b) n=(-n sv-90b) ;; *) n=() ;; esac
		what="$dev tx drop 5% dup 1% rx reorder 2% corrupt 1%"
		"$svctl" "${n[@]}" fault $dev tx drop 5% dup 1% rx reorder 2% corrupt 1% seed $RANDOM >/dev/null ||
			what+=" (refused)"
		hold
		"$svctl" "${n[@]}" fault $dev off >/dev/null || what+=" (off refused)"
		;;
	link-flap)
		i=$((RANDOM % 3))
		case $i in
		0) what="x90a down/up"; ip -n sv-90a link set x90a down; hold; ip -n sv-90a link set x90a up || true ;;
		1) what="x90b down/up"; ip -n sv-90b link set x90b down; hold; ip -n sv-90b link set x90b up || true ;;
		2) what="x91a down/up"; ip link set x91a down; hold; ip link set x91a up
			ip addr replace 10.191.0.1/24 dev x91a || true ;;
		esac
		;;
	dev-readd)
		s=a; [ $((RANDOM % 2)) -eq 0 ] || s=b
		what="rdma link delete sv90$s + add"
		ip netns exec sv-90$s rdma link delete sv90$s || what+=" (delete failed)"
		sv_sleep 1
		ip netns exec sv-90$s rdma link add sv90$s type softverbs netdev x90$s || what+=" (add failed)"
		;;
	kill)
		w=${works[RANDOM % ${#works[@]}]}
		pids=
		read -r pids <"$W/$w.pids" 2>/dev/null || true
		what="kill -9 $w (${pids:-between rounds})"
		# the programs under the round's timeout(1) processes
		for p in $pids; do kill_children "$p"; done
		;;
	esac
	inj[$k]=$((inj[$k] + 1))
	t_end=${EPOCHREALTIME/[.,]/}
	log "inject $k: $what"
	# survived: every workload completes a round begun after the fault
	deadline=$((t_end + recover_t * 1000000))
	ok=0
	while [ ${EPOCHREALTIME/[.,]/} -lt $deadline ]; do
		ok=1
		for w in "${works[@]}"; do
			l=0; read -r l <"$W/$w.last" 2>/dev/null || true
			[ "${l:-0}" -gt "$t_end" ] || { ok=0; break; }
		done
		[ $ok -eq 0 ] || break
		sv_sleep 0.5
	done
	if [ $ok -eq 1 ]; then
		surv[$k]=$((surv[$k] + 1))
	else
		lag=
		for w in "${works[@]}"; do
			l=0; read -r l <"$W/$w.last" 2>/dev/null || true
			[ "${l:-0}" -gt "$t_end" ] || lag+=" $w"
		done
		log "  NOT recovered within ${recover_t}s:$lag"
		for w in $lag; do tail -n 8 "$W/$w.fail.log" 2>/dev/null | sed "s/^/  $w| /"; done
	fi
	derr[$k]=$((derr[$k] + $(derr_total) - d0))
	r=$(new_reports)
	krep[$k]=$((krep[$k] + r))
	[ "$r" -eq 0 ] || log "  $r kernel report line(s) after $k"
done

# --- stop and check -----------------------------------------------------------
log "stopping the workloads"
touch "$W/stop"
for w in "${works[@]}"; do
	read -r pids <"$W/$w.pids" 2>/dev/null || pids=
	for p in $pids; do kill "$p" 2>/dev/null || true; done
done
wait "${wpids[@]}" 2>/dev/null || true
failed=0
for w in "${works[@]}"; do
	read -r a b c 2>/dev/null <"$W/$w.cnt" || { a=0 b=0 c=0; }
	log "workload $w: $a ok rounds, $b failed (cleanly), $c data errors"
	[ "$c" -eq 0 ] || { failed=1; cat "$W/$w.dataerr.log"; }
	[ "$a" -gt 0 ] || failed=1
done

# objects: back to their count before the workloads
leaked=0
nvme disconnect -n $nqn >/dev/null || { log "nvme disconnect failed"; failed=1; }
sv_wait_for "! sv_nvme_ctrl $nqn" 60 || { log "controller still there"; failed=1; }
sv_nvmet_del $nqn 91 || { log "nvmet target does not go away"; failed=1; }
sv_sleep 2
read -r r1a outa <<<"$(res_sum sv-90a sv90a)"
read -r r1b outb <<<"$(res_sum sv-90b sv90b)"
read -r r1n _ <<<"$(res_sum - sv91a cq)"
log "objects: sv90a $res0a -> $r1a, sv90b $res0b -> $r1b, sv91a $res0n -> $r1n"
[ "$r1a" -le "$res0a" ] || { leaked=$((leaked + r1a - res0a)); log "  $outa"; }
[ "$r1b" -le "$res0b" ] || { leaked=$((leaked + r1b - res0b)); log "  $outb"; }
[ "$r1n" -le "$res0n" ] || { leaked=$((leaked + r1n - res0n)); rdma resource show sv91a; }
ip netns exec sv-90a rdma link delete sv90a
ip netns exec sv-90b rdma link delete sv90b
rdma link delete sv91a
modprobe -r nvme_rdma nvmet_rdma nvmet || { log "NVMe modules do not unload"; failed=1; }
if sv_wait_for 'rmmod softverbs' 30; then
	log "softverbs unloaded"
else
	log "cannot rmmod softverbs: $(lsmod | grep softverbs)"
	leaked=$((leaked + 1))
fi
# modules loaded again for the baseline's sake (their own slabs)
modprobe -a nvmet nvmet_rdma nvme_rdma
kleak=-
if [ $have_kmemleak -eq 1 ]; then
	echo scan >$kmemleak
	sv_sleep 5
	echo scan >$kmemleak
	kleak=$(grep -c '^unreferenced object' $kmemleak || true)
	[ "$kleak" -eq 0 ] || { head -n 60 $kmemleak; leaked=$((leaked + kleak)); }
fi
mem1=$(mem_now)
memd=$((mem1 - mem0))
# KASAN's quarantine keeps freed objects in the slab (up to 1/32 of RAM):
# there the totals stay up whatever was freed, and kmemleak is the check
kasan=0
[ ! -r /proc/config.gz ] || ! grep -qx 'CONFIG_KASAN=y' <<<"$(zcat /proc/config.gz 2>/dev/null)" || kasan=1
if [ $kasan -eq 1 ] && [ $have_kmemleak -eq 1 ]; then
	log "memory: SUnreclaim+VmallocUsed $mem0 -> $mem1 kB (delta $memd; KASAN quarantine, kmemleak decides)"
	memtxt="+$memd kB, KASAN quarantine"
else
	memtxt="+$memd kB"
	log "memory: SUnreclaim+VmallocUsed $mem0 -> $mem1 kB (delta $memd, tolerance $mem_tol_kb)"
	[ $memd -le "$mem_tol_kb" ] || leaked=$((leaked + 1))
fi
r=$(new_reports)
[ "$r" -eq 0 ] || log "$r kernel report line(s) during teardown"
taint1=$(</proc/sys/kernel/tainted)
newt=$(((taint1 & ~taint0) & ~((1 << 12) | (1 << 13) | (1 << 18))))
[ $newt -eq 0 ] || { log "new taint bits $newt"; r=$((r + 1)); }
if [ -s "$W/kernel-reports.log" ]; then
	echo "--- kernel reports"
	grep -E -B2 -A20 'BUG:|WARNING:|Oops|KASAN|UBSAN|circular locking|hung_task|blocked for more than' "$W/kernel-reports.log" | head -n 200
fi

# --- the table ------------------------------------------------------------------------
kt=0
echo "row|kernel|fault kind|injected|survived|data errors|kernel reports|leaked objects/memory"
for k in "${kinds[@]}"; do
	echo "row|$SV_KVER|$k|${inj[$k]}|${surv[$k]}|${derr[$k]}|${krep[$k]}|-"
	kt=$((kt + krep[$k]))
	[ "${inj[$k]}" -eq "${surv[$k]}" ] || failed=1
	[ "${derr[$k]}" -eq 0 ] || failed=1
done
echo "row|$SV_KVER|end of run (teardown)|-|-|$(derr_total)|$r|$leaked (objects $((r1a - res0a + r1b - res0b + r1n - res0n)), kmemleak $kleak, memory $memtxt)"
for w in "${works[@]}"; do
	read -r a b c 2>/dev/null <"$W/$w.cnt" || { a=0 b=0 c=0; }
	echo "work|$SV_KVER|$w|$a|$b|$c"
done
echo "duration|$SV_KVER|$minutes"
[ $((kt + r)) -eq 0 ] && [ $leaked -eq 0 ] || failed=1
# the fixture's own teardown must not find the devices again
rm -rf "$W"
exit $failed
