#!/bin/bash
# make bench: softverbs next to Soft-RoCE (rdma_rxe) doing the same perftest
# runs, under Debian's kernel in qemu; prints tables with both numbers and
# the ratio softverbs/rxe.  A benchmark, not a test: it never fails on
# numbers (only when it cannot run at all).  Two parts:
#
#   loopback   one VM, each provider's device talking to itself (below)
#   cost       one single-threaded TCG VM: kernel instructions per message
#              and per NVMe-oF I/O, counted by the TCG plugin
#              tests/tools/kcount, Soft-RoCE and softverbs on the same
#              netdevs in turn (scripts/bench-cost.sh)
#   sweep      the same VM set-up, ib_write_bw at every power of two from
#              8 B to 1 MiB on both: a table, build/bench-sweep.dat and a
#              plot of bandwidth and message rate against message size,
#              build/bench-sweep.png (gnuplot)
#   scale      the same VM set-up: aggregate 64 B message rate and 64 KiB
#              bandwidth over 1, 8 and 64 QPs (-q), two client processes
#              on two CPUs, SV_BENCH_CONNS (1000) rdma_cm connections set
#              up and torn down (ucmatose), memory per idle QP
#   ulp        one VM: fio over NVMe-oF and over NFS/RDMA, each provider's
#              device talking to itself in init_net (scripts/bench-ulp.sh)
#   two hosts  two VMs joined by a virtual wire, rxe <-> rxe then
#              softverbs <-> softverbs (scripts/bench-wire.sh)
#   ab         not part of "all": the loopback tests (or with
#              SV_BENCH_AB_PART=ulp the storage jobs) on softverbs as built
#              from git revision SV_BENCH_AB_BASE (A) and from this tree
#              (B), in one VM, the two modules loaded in turn each round;
#              a table of both and B/A.  How a change is measured before
#              it lands (Documentation/performance.md cites such runs).
#
#   scripts/bench.sh             build softverbs, boot the VM(s), run the guest halves
#   scripts/bench.sh --guest     the loopback guest half (as root, in the VM or a scratch host)
#
#   SV_BENCH=loop|cost|sweep|scale|ulp|wire|all|ab  which part (default
#                        all: loopback, counts, the sweep, scaling, storage,
#                        two hosts)
#   SV_BENCH_COST_SMP=N  cost: vCPUs (default 1)
#   SV_BENCH_COST_MSGS="N1 N2", SV_BENCH_COST_MSGS_BIG="N1 N2"
#                        cost: the two lengths of the 64 B cases (default
#                        "5000 25000") and of the 64 KiB case ("200 1000")
#   SV_BENCH_COST_IOS="N1 N2"  cost: the two lengths of the NVMe-oF 4 KiB
#                        cases (default "1000 5000")
#   SV_BENCH_COST_TOPO=loop|veth|both  cost: one device talking to itself,
#                        two devices across a veth between two namespaces,
#                        or both (default both)
#   SV_BENCH_COST_ICOUNT=OPTS  cost: qemu -icount OPTS (e.g.
#                        shift=0,sleep=off): guest time from instructions
#   SV_BENCH_COST_SYMS=1 cost: also count each kernel block and print where
#                        a message's instructions go, by area and function
#                        (scripts/bench-cost-attr.py)
#   SV_BENCH_AB_BASE=REV ab: the revision to compare with (default HEAD:
#                        what the uncommitted changes do)
#   SV_BENCH_AB_PART=loop|ulp  ab: what to compare (default loop)
#   SV_BENCH_FIO_SECS=S  ulp: seconds per fio job (default 10)
#   SV_BENCH_ULP_JOBS=REGEX  ulp: only the fio jobs that match (e.g. 4k)
#   SV_BENCH_KVER=KVER   kernel to boot (default: the newest installed 6.1; or
#                        Debian 13's, unpacked by scripts/trixie-kernel.sh fetch)
#   SV_BENCH_ITERS=N     iterations of the bandwidth tests (default 1000;
#                        loopback latency tests use N/2)
#   SV_BENCH_SIZE=B      loopback: message size of the bandwidth tests
#                        (default 65536; latency tests use 64 bytes)
#   SV_BENCH_TIMEOUT=S   limit per perftest run (default 120 s)
#   SV_BENCH_ROUNDS=N    rounds (default 3); the tables show each median
#   SV_BENCH_PIN=0|1     loopback: 1 (default): perftest server on CPU 0,
#                        client on CPU 1
#   SV_BENCH_MSGS=N, SV_BENCH_LAT_ITERS=N, SV_BENCH_SMP=N
#                        two hosts: iterations of the 64 B message-rate
#                        tests (default 20000) and of the latency tests
#                        (default 2000); vCPUs per VM (default: half the
#                        host's CPUs, at least 1, so that the two VMs
#                        never hold more vCPUs than the host has CPUs)
#   SV_BENCH_TESTS=REGEX loopback: only the tests whose command line
#                        (e.g. "ib_send_lat -s 64 -n 500 -e") matches;
#                        two hosts: a subset of the tests (scripts/bench-wire.sh)
#   SV_BENCH_PROFILE=T   loopback: after the rounds, one more softverbs run
#                        of test T (its command line as the table prints
#                        it, e.g. "ib_write_bw -s 64 -n 20000") under
#                        perf record -a -g, and its top symbols;
#                        two hosts: a profiled extra run of the test named
#                        T there (scripts/bench-wire.sh)
#
# Loopback topology: the same for both, one device talking to itself, so
# neither pays for a veth hop the other does not:
#
#   init_net                              netns sv-bench
#   rxeb0 (rdma_rxe) on xb0 10.199.0.1    svb0 (softverbs) on xb2 10.199.1.1
#     (xb1: carrier, in sv-bench-c)         (xb3: carrier, in sv-bench-c)
#
# rdma_rxe owns UDP 4791 in init_net, so softverbs sits in a namespace (its
# socket is per namespace).  Soft-RoCE short-cuts a packet to its own address
# inside the driver (rxe_loopback); softverbs' own loopback path is whatever
# it implements.  perftest server and client run on the same device through
# the RoCE v2 GID of the address; the numbers are TCG
# numbers (a slow emulated CPU shared with whatever else runs on the host):
# compare the columns, not the absolute values.
#
# The two-host topology, protocol and tests are described in
# scripts/bench-wire.sh.  The two VMs run at the same time: on a host that
# limits concurrent VMs, give the benchmark room for two.
set -euo pipefail

root=$(realpath "$(dirname "$0")/..")
cd "$root"

# loadavg: the host's load average (1, 5, 15 min)
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# bench_loop KVER: the loopback part, one VM
bench_loop() {
	echo "== loopback: one VM of $1 (TCG); the benchmark runs inside the VM"
	echo "== host: $(nproc) CPUs, load average $(loadavg) (other VMs on the host skew every figure)"
	tests/vm/run.sh --kver "$1" --timeout 2400 -- \
		env SV_MODULE="$root/build/$1/kmod/softverbs.ko" \
		SV_BENCH_ITERS="${SV_BENCH_ITERS:-}" SV_BENCH_SIZE="${SV_BENCH_SIZE:-}" SV_BENCH_PIN="${SV_BENCH_PIN:-}" \
		SV_BENCH_ROUNDS="${SV_BENCH_ROUNDS:-}" SV_BENCH_TIMEOUT="${SV_BENCH_TIMEOUT:-}" \
		SV_BENCH_TESTS="${SV_BENCH_TESTS:-}" SV_BENCH_PROFILE="${SV_BENCH_PROFILE:-}" \
		bash scripts/bench.sh --guest
	echo "== host load average after: $(loadavg)"
}

# bench_cost KVER: kernel instructions per message, one single-threaded TCG
# VM with the kcount plugin (built here: gcc, into build/kcount); the marks
# in build/bench-cost.marks, the guest's output in build/bench-cost.log
bench_cost() {
	local kc=$root/build/kcount opts plugin
	mkdir -p "$kc"
	if ! gcc -Wall -O2 -shared -fPIC -o "$kc/kcount.so" tests/tools/kcount/kcount.c ||
		! gcc -Wall -O2 -static -nostdlib -fno-stack-protector -o "$kc/mark" tests/tools/kcount/mark.c; then
		echo "bench: cannot build tests/tools/kcount" >&2
		return 1
	fi
	plugin=$kc/kcount.so,out=$root/build/bench-cost.marks
	[ "${SV_BENCH_COST_SYMS:-0}" != 1 ] || plugin+=,blocks=$root/build/bench-cost.blocks
	opts=(--tcg-single --smp "${SV_BENCH_COST_SMP:-1}" --plugin "$plugin")
	[ -z "${SV_BENCH_COST_ICOUNT:-}" ] || opts+=(--icount "$SV_BENCH_COST_ICOUNT")
	echo "== cost: one VM of $1 (TCG, one thread, ${SV_BENCH_COST_SMP:-1} vCPU${SV_BENCH_COST_ICOUNT:+, -icount $SV_BENCH_COST_ICOUNT}), kernel instructions per message"
	echo "== host: $(nproc) CPUs, load average $(loadavg)"
	rm -f build/bench-cost.marks build/bench-cost.blocks
	tests/vm/run.sh --kver "$1" --timeout 3600 "${opts[@]}" -- \
		env SV_MODULE="$root/build/$1/kmod/softverbs.ko" SV_KCOUNT_MARK="$kc/mark" \
		SV_BENCH_ROUNDS="${SV_BENCH_ROUNDS:-}" SV_BENCH_TIMEOUT="${SV_BENCH_TIMEOUT:-}" \
		SV_BENCH_COST_MSGS="${SV_BENCH_COST_MSGS:-}" SV_BENCH_COST_MSGS_BIG="${SV_BENCH_COST_MSGS_BIG:-}" \
		SV_BENCH_COST_IOS="${SV_BENCH_COST_IOS:-}" SV_BENCH_COST_TOPO="${SV_BENCH_COST_TOPO:-}" \
		SV_BENCH_COST_SYMS="${SV_BENCH_COST_SYMS:-}" bash scripts/bench-cost.sh |
		tee build/bench-cost.log | grep --line-buffered -v '^kcount-syms '
	echo "== host load average after: $(loadavg)"
	bash scripts/bench-cost.sh --report build/bench-cost.marks build/bench-cost.log
	[ "${SV_BENCH_COST_SYMS:-0}" != 1 ] || python3 scripts/bench-cost-attr.py build/bench-cost.blocks build/bench-cost.log
}

# bench_ab KVER: softverbs of SV_BENCH_AB_BASE against this tree's, one VM
bench_ab() {
	local kver=$1 rev src out=build/ab-$1 rc=0
	rev=$(git rev-parse --short "${SV_BENCH_AB_BASE:-HEAD}^{commit}") ||
		{ echo "bench: SV_BENCH_AB_BASE is not a revision" >&2; return 1; }
	# outside this work tree: build-kmod.sh takes the files git lists
	# where it finds a repository, and build/ is ignored here
	src=$(mktemp -d "${TMPDIR:-/tmp}/sv-bench-ab.XXXXXX")
	git archive "$rev" | tar -x -C "$src"
	echo "== building softverbs of $rev for $kver (A)"
	# from scratch: git archive stamps every file with its commit's time,
	# so after a newer base the objects of an older one would look up to
	# date and be kept (ccache makes the full build cheap)
	rm -rf "${root:?}/$out"
	bash "$src/scripts/build-kmod.sh" "/lib/modules/$kver/build" "$root/$out" >build/bench-ab-build.log 2>&1 || rc=$?
	rm -rf "$src"
	[ "$rc" = 0 ] || { tail -n 30 build/bench-ab-build.log; return 1; }
	echo "== A/B: one VM of $kver (TCG): softverbs of $rev (A), then of this tree (B), each round"
	echo "== host: $(nproc) CPUs, load average $(loadavg) (other VMs on the host skew every figure)"
	if [ "${SV_BENCH_AB_PART:-loop}" = ulp ]; then
		tests/vm/run.sh --kver "$kver" --mem 2048 --timeout 3600 -- \
			env SV_MODULE="$root/build/$kver/kmod/softverbs.ko" SV_BENCH_AB_MODULE="$root/$out/kmod/softverbs.ko" \
			SV_BENCH_AB_REV="$rev" SV_BENCH_FIO_SECS="${SV_BENCH_FIO_SECS:-}" \
			SV_BENCH_ROUNDS="${SV_BENCH_ROUNDS:-}" SV_BENCH_ULP_JOBS="${SV_BENCH_ULP_JOBS:-}" \
			bash scripts/bench-ulp.sh
		echo "== host load average after: $(loadavg)"
		return
	fi
	tests/vm/run.sh --kver "$kver" --timeout 3600 -- \
		env SV_MODULE="$root/build/$kver/kmod/softverbs.ko" SV_BENCH_AB_MODULE="$root/$out/kmod/softverbs.ko" \
		SV_BENCH_AB_REV="$rev" \
		SV_BENCH_ITERS="${SV_BENCH_ITERS:-}" SV_BENCH_SIZE="${SV_BENCH_SIZE:-}" SV_BENCH_PIN="${SV_BENCH_PIN:-}" \
		SV_BENCH_ROUNDS="${SV_BENCH_ROUNDS:-}" SV_BENCH_TIMEOUT="${SV_BENCH_TIMEOUT:-}" \
		SV_BENCH_TESTS="${SV_BENCH_TESTS:-}" bash scripts/bench.sh --guest
	echo "== host load average after: $(loadavg)"
}

# bench_sweep KVER: the message-size sweep, one VM; its table on stdout,
# the figures in build/bench-sweep.dat, the plot in build/bench-sweep.png
bench_sweep() {
	local log=build/bench-sweep.log dat=build/bench-sweep.dat
	echo "== sweep: one VM of $1 (TCG), ib_write_bw from 8 B to 1 MiB, rxe then softverbs per size"
	echo "== host: $(nproc) CPUs, load average $(loadavg) (other VMs on the host skew every figure)"
	tests/vm/run.sh --kver "$1" --timeout 3600 -- \
		env SV_MODULE="$root/build/$1/kmod/softverbs.ko" SV_BENCH_SWEEP=1 SV_BENCH_PIN="${SV_BENCH_PIN:-}" \
		SV_BENCH_TIMEOUT="${SV_BENCH_TIMEOUT:-}" bash scripts/bench.sh --guest | tee "$log"
	echo "== host load average after: $(loadavg)"
	{
		echo "# kernel $1, $(date -u '+%Y-%m-%d %H:%M UTC'), host load average $(loadavg)"
		echo "# bytes rxe_MBps rxe_Mpps softverbs_MBps softverbs_Mpps"
		sed -n 's/^sweep //p' "$log"
	} >"$dat"
	if ! command -v gnuplot >/dev/null; then
		echo "== no gnuplot: figures in $dat, no plot"
		return 0
	fi
	# two panels over one log-2 size axis; "-" (no result) is a gap
	gnuplot <<-EOF
		set terminal pngcairo size 900,700 font ",10"
		set output "build/bench-sweep.png"
		set datafile missing "-"
		set termoption noenhanced
		set multiplot layout 2,1 title "ib_write_bw, one device to itself, kernel $1 (TCG)"
		set logscale x 2
		set logscale y 10
		set format y "%g"
		set format x "%.0b%B"
		set grid
		set key top left
		set ylabel "bandwidth, MB/s"
		plot "$dat" using 1:4 with linespoints title "softverbs", "" using 1:2 with linespoints title "Soft-RoCE"
		set ylabel "message rate, Mpps"
		set xlabel "message size"
		plot "$dat" using 1:5 with linespoints title "softverbs", "" using 1:3 with linespoints title "Soft-RoCE"
		unset multiplot
	EOF
	echo "== plot: build/bench-sweep.png; figures: $dat"
}

# bench_scale KVER: the scaling part, one VM
bench_scale() {
	echo "== scale: one VM of $1 (TCG): QPs, processes, rdma_cm connections, memory per QP"
	echo "== host: $(nproc) CPUs, load average $(loadavg) (other VMs on the host skew every figure)"
	tests/vm/run.sh --kver "$1" --timeout 3600 -- \
		env SV_MODULE="$root/build/$1/kmod/softverbs.ko" SV_BENCH_SCALE=1 \
		SV_BENCH_TIMEOUT="${SV_BENCH_TIMEOUT:-}" SV_BENCH_CONNS="${SV_BENCH_CONNS:-}" bash scripts/bench.sh --guest
	echo "== host load average after: $(loadavg)"
}

# bench_ulp KVER: the storage part, one VM
bench_ulp() {
	echo "== ulp: one VM of $1 (TCG): fio over NVMe-oF and NFS/RDMA, rxe then softverbs"
	echo "== host: $(nproc) CPUs, load average $(loadavg) (other VMs on the host skew every figure)"
	tests/vm/run.sh --kver "$1" --mem 2048 --timeout 3600 -- \
		env SV_MODULE="$root/build/$1/kmod/softverbs.ko" SV_BENCH_FIO_SECS="${SV_BENCH_FIO_SECS:-}" \
		SV_BENCH_ROUNDS="${SV_BENCH_ROUNDS:-}" SV_BENCH_ULP_JOBS="${SV_BENCH_ULP_JOBS:-}" \
		bash scripts/bench-ulp.sh
	echo "== host load average after: $(loadavg)"
}

# bench_wire KVER: the two-host part, VM A (servers) in the background, VM B
# (clients, the table) in the foreground
bench_wire() {
	local kver=$1 w pa rc=0 arc=0 envs i smp
	# Two busy-polling VMs with more vCPUs than the host has CPUs time-share
	# them, and the host's scheduler, not either provider, then sets every
	# figure (Documentation/performance.md, "Two hosts").
	smp=${SV_BENCH_SMP:-$(($(nproc) / 2))}
	[ "$smp" -ge 1 ] || smp=1
	w=$(mktemp -d "${TMPDIR:-/tmp}/sv-bench.XXXXXX")
	envs=(env SV_MODULE="$root/build/$kver/kmod/softverbs.ko"
		SV_BENCH_ITERS="${SV_BENCH_ITERS:-}" SV_BENCH_MSGS="${SV_BENCH_MSGS:-}"
		SV_BENCH_LAT_ITERS="${SV_BENCH_LAT_ITERS:-}" SV_BENCH_ROUNDS="${SV_BENCH_ROUNDS:-}"
		SV_BENCH_TIMEOUT="${SV_BENCH_TIMEOUT:-}" SV_BENCH_TESTS="${SV_BENCH_TESTS:-}"
		SV_BENCH_PROFILE="${SV_BENCH_PROFILE:-}")
	echo "== two hosts: two VMs of $kver (TCG, $smp vCPUs each) on a virtual wire"
	echo "== host: $(nproc) CPUs, load average $(loadavg) (other VMs on the host skew every figure)"
	tests/vm/run.sh --kver "$kver" --smp "$smp" --timeout 3600 --wire "$w/wire:a" \
		--append sv.hostname=bench-a -- "${envs[@]}" bash scripts/bench-wire.sh a >"$w/a.log" 2>&1 &
	pa=$!
	tests/vm/run.sh --kver "$kver" --smp "$smp" --timeout 3600 --wire "$w/wire:b" \
		--append sv.hostname=bench-b -- "${envs[@]}" bash scripts/bench-wire.sh b || rc=$?
	echo "== host load average after: $(loadavg)"
	# B said quit: A powers off within seconds; if B died, A waits for a
	# connection that will not come
	for ((i = 0; i < 60; i++)); do
		kill -0 $pa 2>/dev/null || break
		sleep 1
	done
	kill $pa 2>/dev/null || true
	wait $pa || arc=$?
	echo "== VM A's output (exit $arc):"
	sed 's/^/  A| /' "$w/a.log"
	rm -rf "$w"
	return "$rc"
}

if [ "${1:-}" != --guest ]; then
	mode=${SV_BENCH:-all}
	case $mode in
	loop | cost | sweep | scale | ulp | wire | all | ab) ;;
	*) echo "bench: SV_BENCH=loop, cost, sweep, scale, ulp, wire, all or ab" >&2; exit 2 ;;
	esac
	case ${SV_BENCH_AB_PART:-loop} in
	loop | ulp) ;;
	*) echo "bench: SV_BENCH_AB_PART=loop or ulp" >&2; exit 2 ;;
	esac
	bash scripts/deps.sh bench
	kver=${SV_BENCH_KVER:-$(ls /lib/modules | grep '^6\.1\.' | sort -V | tail -n 1)}
	# an installed kernel, or Debian 13's unpacked into the cache
	kdir=$(bash scripts/trixie-kernel.sh kdir "$kver" 2>/dev/null) || kdir=
	[ -n "$kver" ] && [ -d "$kdir" ] ||
		{ echo "bench: no headers for ${kver:-a Debian 6.1 kernel} (installed, or scripts/trixie-kernel.sh fetch)" >&2; exit 1; }
	mkdir -p build
	echo "== building softverbs for $kver"
	bash scripts/build-kmod.sh "$kdir" "build/$kver" >build/bench-build.log 2>&1 ||
		{ tail -n 30 build/bench-build.log; exit 1; }
	rc=0
	if [ "$mode" = loop ] || [ "$mode" = all ]; then
		bench_loop "$kver" || rc=$?
	fi
	if [ "$mode" = cost ] || [ "$mode" = all ]; then
		bench_cost "$kver" || rc=$?
	fi
	if [ "$mode" = sweep ] || [ "$mode" = all ]; then
		bench_sweep "$kver" || rc=$?
	fi
	if [ "$mode" = scale ] || [ "$mode" = all ]; then
		bench_scale "$kver" || rc=$?
	fi
	if [ "$mode" = ulp ] || [ "$mode" = all ]; then
		bench_ulp "$kver" || rc=$?
	fi
	if [ "$mode" = wire ] || [ "$mode" = all ]; then
		bench_wire "$kver" || rc=$?
	fi
	if [ "$mode" = ab ]; then
		bench_ab "$kver" || rc=$?
	fi
	exit "$rc"
fi

# --- guest half ----------------------------------------------------------------
. tests/user/lib.sh
set +e
iters=${SV_BENCH_ITERS:-1000}
size=${SV_BENCH_SIZE:-65536}
lat_iters=$((iters / 2))
[ $lat_iters -ge 5 ] || lat_iters=5
ulimit -l unlimited
modprobe ib_core
modprobe ib_uverbs
port=26000
pin_s='' pin_c=''
if [ "${SV_BENCH_PIN:-1}" = 1 ] && [ "$(nproc)" -ge 2 ]; then
	pin_s="taskset -c 0" pin_c="taskset -c 1"
fi

# setup KIND DEV IF_A IF_B ADDR NS: a device of KIND on veth IF_A (with ADDR,
# in NS or init_net), IF_B in the carrier namespace; sets $gid to the index
# of ADDR's RoCE v2 GID (empty if it never shows)
setup() {
	local kind=$1 dev=$2 a=$3 b=$4 addr=$5 ns=$6 hex g
	gid=
	ip link add "$a" type veth peer name "$b" netns sv-bench-c
	ip -n sv-bench-c link set "$b" up
	if [ -n "$ns" ]; then ip link set "$a" netns "$ns"; fi
	ip ${ns:+-n "$ns"} link set "$a" up
	ip ${ns:+-n "$ns"} addr add "$addr/24" dev "$a"
	if [ -n "$ns" ]; then
		ip netns exec "$ns" rdma link add "$dev" type "$kind" netdev "$a"
	else
		rdma link add "$dev" type "$kind" netdev "$a"
	fi || { echo "bench: cannot create $dev" >&2; return 1; }
	sv_on_exit "rdma link delete $dev 2>/dev/null"
	# shellcheck disable=SC2046
	hex=$(printf '%02x%02x:%02x%02x' $(tr . ' ' <<<"$addr"))
	g=0000:0000:0000:0000:0000:ffff:$hex
	sv_wait_for "_sv_xport_gid $dev $g" 20 ||
		{ echo "bench: $dev has no RoCE v2 GID for $addr" >&2; return 1; }
	gid=$(_sv_xport_gid "$dev" "$g")
}

# perf NS DEV GID ADDR PROG ARGS...: server and client on DEV; prints the
# result value (BW average MB/s for *_bw, t_typical usec for *_lat) or "-";
# with perf_fields set (e.g. "4 5"), those fields of the result line instead;
# perf_prefix, if set, goes in front of the client's command
perf() {
	local ns=$1 dev=$2 gid=$3 addr=$4 prog=$5 out sout pid field=4 v f try
	shift 5
	out=$(mktemp)
	sout=$(mktemp)
	local ex=()
	[ -z "$ns" ] || ex=(ip netns exec "$ns")
	[[ $prog == *_lat ]] && field=5	# t_typical
	# A run that reports a rate of zero is perftest's clock, not the
	# device: it times with the TSC, and one 4 KiB softverbs run of the
	# 2026-11-27 sweep printed "0.00" beside sane neighbours.  Such a run
	# is said and run once more.
	for try in 1 2; do
		port=$((port + 1))
		"${ex[@]}" ${pin_s} timeout "${SV_BENCH_TIMEOUT:-120}" "$prog" -d "$dev" -x "$gid" -p $port -F "$@" >"$sout" 2>&1 &
		pid=$!
		sv_wait_for "[ -n \"\$(${ex[*]} ss -Hltn sport = :$port)\" ]" 30
		# shellcheck disable=SC2086 # perf_prefix is a command line
		"${ex[@]}" ${pin_c} ${perf_prefix:-} timeout "${SV_BENCH_TIMEOUT:-120}" "$prog" -d "$dev" -x "$gid" -p $port -F "$@" "$addr" >"$out" 2>&1
		wait $pid 2>/dev/null
		v=$(xp_perf_value "$out" $field)
		if [ $try = 2 ] || [ -z "$v" ] || [[ ! $v =~ ^0*\.?0*$ ]]; then break; fi
		echo "bench: $prog $* on $dev reported $v, once more; its output:" >&2
		sed 's/^/  client: /' "$out" >&2
	done
	if [ -n "$v" ] && [ -n "${perf_fields:-}" ]; then
		v=
		for f in $perf_fields; do v+="$(xp_perf_value "$out" "$f") "; done
		v=${v% }
	fi
	if [ -z "$v" ]; then
		echo "bench: $prog on $dev produced no result:" >&2
		tail -n 5 "$out" | sed 's/^/  client: /' >&2
		tail -n 5 "$sout" | sed 's/^/  server: /' >&2
		v=-
		[ -z "${perf_fields:-}" ] || v=$(for f in $perf_fields; do printf -- '- '; done)
		v=${v% }
	fi
	rm -f "$out" "$sout"
	echo "$v"
}

tests=(
	"ib_send_bw -s $size -n $iters"
	"ib_write_bw -s $size -n $iters"
	"ib_read_bw -s $size -n $iters"
	"ib_send_lat -s 64 -n $lat_iters"
	"ib_write_lat -s 64 -n $lat_iters"
	"ib_send_lat -s 64 -n $lat_iters -e"
)
if [ -n "${SV_BENCH_TESTS:-}" ]; then
	sel=()
	for t in "${tests[@]}"; do
		[[ $t =~ $SV_BENCH_TESTS ]] && sel+=("$t")
	done
	tests=("${sel[@]}")
fi
declare -A res
rounds=${SV_BENCH_ROUNDS:-3}

# median of the numeric arguments ("-" when there is none)
median() {
	printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -g |
		awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ip netns add sv-bench-c
sv_on_exit 'ip netns del sv-bench-c'

# ratio S R: S / R to two places, "-" without two figures
ratio() { awk -v s="$1" -v r="$2" 'BEGIN { if (s + 0 > 0 && r + 0 > 0) printf "%.2f", s / r; else print "-" }'; }

# results TITLE NUM DEN NUM_NAME DEN_NAME RATIO_NAME [NOTE]: the table of
# medians of res[NUM,test] and res[DEN,test] and their ratio, per test
results() {
	local t n d pinned="not pinned"
	[ -z "$pin_s" ] || pinned="pinned to CPUs 0 and 1"
	echo
	echo "== $1: median of $rounds rounds (kernel $(uname -r), TCG, $(nproc) vCPUs,"
	[ -z "${7:-}" ] || echo "   $7;"
	echo "   server and client $pinned; bandwidth: BW average MB/s,"
	echo "   higher is better; latency: t_typical usec, lower is better)"
	printf '%-34s %12s %12s %10s\n' test "$4" "$5" "$6"
	for t in "${tests[@]}"; do
		# shellcheck disable=SC2086
		n=$(median ${res[$2,$t]}) d=$(median ${res[$3,$t]})
		printf '%-34s %12s %12s %10s\n' "$t" "$n" "$d" "$(ratio "$n" "$d")"
	done
}

# A/B (SV_BENCH=ab): the base revision's module (A) and this tree's (B)
# in turn, each round, on the same device set-up; only one can be loaded
if [ -n "${SV_BENCH_AB_MODULE:-}" ]; then
	ip netns add sv-bench
	sv_on_exit 'ip netns del sv-bench'
	ip -n sv-bench link set lo up
	sv_on_exit sv_unload_module
	declare -A mods=([a]=$SV_BENCH_AB_MODULE [b]=$SV_MODULE)
	echo "== A: softverbs of $SV_BENCH_AB_REV, B: this tree"
	for ((r = 1; r <= rounds; r++)); do
		# A first in odd rounds, B first in even ones: whatever favours
		# the first (or second) run of a round lands on both
		order="a b"
		[ $((r % 2)) = 1 ] || order="b a"
		echo "== round $r of $rounds (${order^^})"
		for m in $order; do
			SV_MODULE=${mods[$m]} sv_load_module
			if setup softverbs svb0 xb2 xb3 10.199.1.1 sv-bench; then
				for t in "${tests[@]}"; do
					# shellcheck disable=SC2086
					v=$(perf sv-bench svb0 "$gid" 10.199.1.1 $t)
					res[$m,$t]+=" $v"
					printf '  %-32s %s %10s\n' "$t" "${m^^}" "$v"
				done
				ip netns exec sv-bench rdma link delete svb0
			fi
			ip -n sv-bench link del xb2 2>/dev/null
			sv_unload_module
		done
	done
	results "A/B results" b a B A B/A "A: softverbs of $SV_BENCH_AB_REV, B: this tree"
	exit 0
fi

# Both devices exist for the whole run (rxe's socket is in init_net,
# softverbs' in sv-bench), and each round runs every test on rxe and then on
# softverbs, so drift on a shared host lands on both columns alike.
have_rxe=
if modinfo rdma_rxe >/dev/null 2>&1; then
	modprobe rdma_rxe
	sv_on_exit 'modprobe -r rdma_rxe'
	if setup rxe rxeb0 xb0 xb1 10.199.0.1 ""; then
		have_rxe=1 rxe_gid=$gid
	fi
else
	echo "== no rdma_rxe module: no baseline"
fi
sv_load_module
sv_on_exit sv_unload_module
ip netns add sv-bench
sv_on_exit 'ip netns del sv-bench'
ip -n sv-bench link set lo up
have_sv=
if setup softverbs svb0 xb2 xb3 10.199.1.1 sv-bench; then
	have_sv=1 sv_gid=$gid
fi

# The sweep: each size once on rxe, then on softverbs; iterations so that
# each run moves about 16 MiB (at least 50, at most 2000 messages)
if [ "${SV_BENCH_SWEEP:-0}" = 1 ]; then
	perf_fields="4 5"
	printf '%-10s %12s %12s %12s %12s %8s %8s\n' bytes "sv MB/s" "rxe MB/s" "sv Mpps" "rxe Mpps" "bw x" "rate x"
	for ((sz = 8; sz <= 1048576; sz *= 2)); do
		n=$((16777216 / sz))
		[ $n -ge 50 ] || n=50
		[ $n -le 2000 ] || n=2000
		rv="- -" sv="- -"
		[ -z "$have_rxe" ] || rv=$(perf "" rxeb0 "$rxe_gid" 10.199.0.1 ib_write_bw -s $sz -n $n)
		[ -z "$have_sv" ] || sv=$(perf sv-bench svb0 "$sv_gid" 10.199.1.1 ib_write_bw -s $sz -n $n)
		read -r rb rm <<<"$rv"
		read -r sb sm <<<"$sv"
		echo "sweep $sz $rb $rm $sb $sm"
		printf '%-10s %12s %12s %12s %12s %8s %8s\n' "$sz" "$sb" "$rb" "$sm" "$rm" \
			"$(ratio "$sb" "$rb")" "$(ratio "$sm" "$rm")"
	done
	exit 0
fi

# perf_two NS DEV GID ADDR ARGS...: two ib_write_bw pairs at once, the
# clients pinned to CPUs 0 and 1; prints the sum of their message rates
# (Mpps) or "-"
perf_two() {
	local ns=$1 dev=$2 gid=$3 addr=$4 i p=() out=() pids=() v sum=0
	shift 4
	local ex=()
	[ -z "$ns" ] || ex=(ip netns exec "$ns")
	for i in 0 1; do
		port=$((port + 1)) p[i]=$port out[i]=$(mktemp)
		"${ex[@]}" timeout "${SV_BENCH_TIMEOUT:-120}" ib_write_bw -d "$dev" -x "$gid" -p "${p[i]}" -F "$@" >/dev/null 2>&1 &
	done
	for i in 0 1; do
		sv_wait_for "[ -n \"\$(${ex[*]} ss -Hltn sport = :${p[i]})\" ]" 30
	done
	for i in 0 1; do
		"${ex[@]}" taskset -c "$i" timeout "${SV_BENCH_TIMEOUT:-120}" ib_write_bw -d "$dev" -x "$gid" -p "${p[i]}" -F "$@" "$addr" >"${out[i]}" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	for i in 0 1; do
		v=$(xp_perf_value "${out[i]}" 5)
		rm -f "${out[i]}"
		[ -n "$v" ] || { echo -; return; }
		sum=$(awk -v a="$sum" -v b="$v" 'BEGIN { printf "%.6f", a + b }')
	done
	echo "$sum"
}

# cm_conns NS ADDR N: N rdma_cm connections to ADDR with ucmatose (server
# and client on the one device), one 64 B message each, then torn down;
# prints the client's wall seconds, or "-"
cm_conns() {
	local ns=$1 addr=$2 n=$3 spid t0 t1 rc=0
	local ex=()
	[ -z "$ns" ] || ex=(ip netns exec "$ns")
	"${ex[@]}" timeout 900 ucmatose -b "$addr" -c "$n" -C 1 -S 64 >/dev/null 2>&1 &
	spid=$!
	sv_wait_for "[ -n \"\$(${ex[*]} rdma res show cm_id 2>/dev/null | grep -w LISTEN)\" ]" 30
	t0=$(date +%s.%N)
	"${ex[@]}" timeout 900 ucmatose -s "$addr" -c "$n" -C 1 -S 64 >/dev/null 2>&1 || rc=$?
	t1=$(date +%s.%N)
	wait $spid 2>/dev/null
	[ $rc -eq 0 ] || { echo -; return; }
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }'
}

# The scaling part: one run each, rxe then softverbs per row
if [ "${SV_BENCH_SCALE:-0}" = 1 ]; then
	perf_fields="4 5"
	printf '%-34s %12s %12s %8s\n' test softverbs rxe sv/rxe
	for q in 1 8 64; do
		for sz in 64 65536; do
			# about the same work whatever the QP count: -n is per QP
			if [ $sz = 64 ]; then n=$((8000 / q)); else n=$((800 / q)); fi
			[ $n -ge 20 ] || n=20
			rv="- -" sv="- -"
			[ -z "$have_rxe" ] || rv=$(perf "" rxeb0 "$rxe_gid" 10.199.0.1 ib_write_bw -s $sz -n $n -q $q)
			[ -z "$have_sv" ] || sv=$(perf sv-bench svb0 "$sv_gid" 10.199.1.1 ib_write_bw -s $sz -n $n -q $q)
			read -r rb rm <<<"$rv"
			read -r sb sm <<<"$sv"
			if [ $sz = 64 ]; then
				printf '%-34s %12s %12s %8s\n' "ib_write_bw 64 B -q $q (Mpps)" "$sm" "$rm" "$(ratio "$sm" "$rm")"
			else
				printf '%-34s %12s %12s %8s\n' "ib_write_bw 64 KiB -q $q (MB/s)" "$sb" "$rb" "$(ratio "$sb" "$rb")"
			fi
		done
	done
	perf_fields=
	rv=- sv=-
	[ -z "$have_rxe" ] || rv=$(perf_two "" rxeb0 "$rxe_gid" 10.199.0.1 -s 64 -n 4000)
	[ -z "$have_sv" ] || sv=$(perf_two sv-bench svb0 "$sv_gid" 10.199.1.1 -s 64 -n 4000)
	printf '%-34s %12s %12s %8s\n' "2 processes x 64 B (Mpps, sum)" "$sv" "$rv" "$(ratio "$sv" "$rv")"
	conns=${SV_BENCH_CONNS:-1000}
	rv=- sv=-
	[ -z "$have_rxe" ] || rv=$(cm_conns "" 10.199.0.1 "$conns")
	[ -z "$have_sv" ] || sv=$(cm_conns sv-bench 10.199.1.1 "$conns")
	printf '%-34s %12s %12s %8s\n' "$conns rdma_cm conns up+down (s)" "$sv" "$rv" "$(ratio "$sv" "$rv")"
	# INIT (created, never connected), then RTS (connected to itself); the
	# accounted figure (slab, vmalloc, page tables, anonymous memory): the
	# page cache moves MemFree by more than the difference (performance.md)
	for st in init rts; do
		rv=- sv=-
		[ -z "$have_rxe" ] || rv=$(python3 scripts/bench-qpmem.py --$st --detail rxeb0 1000 | awk '/^qpmem-accounted / { print $2 }')
		[ -z "$have_sv" ] || sv=$(ip netns exec sv-bench python3 scripts/bench-qpmem.py --$st --detail svb0 1000 | awk '/^qpmem-accounted / { print $2 }')
		printf '%-34s %12s %12s %8s\n' "memory per idle RC QP, ${st^^} (KiB)" "${sv:--}" "${rv:--}" "$(ratio "$sv" "$rv")"
	done
	exit 0
fi

for ((r = 1; r <= rounds; r++)); do
	echo "== round $r of $rounds (rxe, then softverbs)"
	for t in "${tests[@]}"; do
		rv=- sv=-
		# shellcheck disable=SC2086
		[ -z "$have_rxe" ] || rv=$(perf "" rxeb0 "$rxe_gid" 10.199.0.1 $t)
		# shellcheck disable=SC2086
		[ -z "$have_sv" ] || sv=$(perf sv-bench svb0 "$sv_gid" 10.199.1.1 $t)
		res[rxe,$t]+=" $rv" res[sv,$t]+=" $sv"
		printf '  %-32s rxe %10s   softverbs %10s\n' "$t" "$rv" "$sv"
	done
done
# SV_BENCH_PROFILE=TEST: one more softverbs run of TEST (a command line as
# the results table prints it) while "perf record -a -g -e cpu-clock" (TCG
# has no PMU) samples every CPU; its top symbols and its split by command
# and module follow the run's figure
profile_loop() {
	local t pt= data=/tmp/sv-bench-loop.perf v
	for t in "${tests[@]}"; do
		[ "$t" != "$SV_BENCH_PROFILE" ] || pt=$t
	done
	if [ -z "$pt" ]; then
		echo "bench: SV_BENCH_PROFILE: no loopback test named \"$SV_BENCH_PROFILE\"" >&2
		return
	fi
	# the client runs under perf, which samples all CPUs (the server's
	# too) for as long as the client runs; "command": perf() above is
	# the perftest runner
	# shellcheck disable=SC2086
	v=$(perf_prefix="$(command -v perf) record -q -a -g -e cpu-clock -o $data --" \
		perf sv-bench svb0 "$sv_gid" 10.199.1.1 $pt)
	echo
	echo "== profiled run: $pt on softverbs: $v"
	echo "== profile: self time by symbol (all CPUs)"
	head -n 60 <<<"$(command perf report -i $data --stdio --no-children --sort sym -g none --percent-limit 0.3 2>/dev/null |
		grep -v '^#' | grep -v '^$')"
	echo "== profile: by command and module"
	head -n 20 <<<"$(command perf report -i $data --stdio --no-children --sort comm,dso -g none --percent-limit 1 2>/dev/null |
		grep -v '^#' | grep -v '^$')"
	rm -f $data
}
if [ -n "${SV_BENCH_PROFILE:-}" ] && [ -n "$have_sv" ]; then
	if command -v perf >/dev/null; then
		profile_loop
	else
		echo "bench: SV_BENCH_PROFILE: no perf in the guest (scripts/deps.sh bench)" >&2
	fi
fi
[ -z "$have_rxe" ] || rdma link delete rxeb0
[ -z "$have_sv" ] || ip netns exec sv-bench rdma link delete svb0

results results sv rxe softverbs rxe sv/rxe
exit 0
