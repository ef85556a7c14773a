#!/bin/bash
# make bench: softverbs next to Soft-RoCE (rdma_rxe) doing the same perftest
# runs, in one VM of Debian's kernel; prints a table with both numbers and
# the ratio softverbs/rxe.  A benchmark, not a test: it never fails on
# numbers (only when it cannot run at all).
#
#   scripts/bench.sh             build softverbs, boot the VM, run the guest half
#   scripts/bench.sh --guest     the guest half (as root, in the VM or a scratch host)
#
#   SV_BENCH_KVER=KVER   kernel to boot (default: the newest installed 6.1)
#   SV_BENCH_ITERS=N     iterations of the bandwidth tests (default 1000;
#                        latency tests use N/2)
#   SV_BENCH_SIZE=B      message size of the bandwidth tests (default 65536;
#                        latency tests use 64 bytes)
#   SV_BENCH_TIMEOUT=S   limit per perftest run (default 120 s); after a run
#                        without a result the device's remaining runs are skipped
#
# Topology: the same for both, one device talking to itself, so neither pays
# for a veth hop the other does not:
#
#   init_net                              netns sv-bench
#   rxeb0 (rdma_rxe) on xb0 10.199.0.1    svb0 (softverbs) on xb2 10.199.1.1
#     (xb1: carrier, in sv-bench-c)         (xb3: carrier, in sv-bench-c)
#
# rdma_rxe owns UDP 4791 in init_net, so softverbs sits in a namespace (its
# socket is per namespace).  Soft-RoCE short-cuts a packet to its own address
# inside the driver (rxe_loopback); softverbs' own loopback path is whatever
# it implements.  perftest server and client run on the same device through
# the RoCE v2 GID of the address, pinned to nothing; the numbers are TCG
# numbers (a slow emulated CPU shared with whatever else runs on the host):
# compare the columns, not the absolute values.
set -euo pipefail

root=$(realpath "$(dirname "$0")/..")
cd "$root"

if [ "${1:-}" != --guest ]; then
	bash scripts/deps.sh
	kver=${SV_BENCH_KVER:-$(ls /lib/modules | grep '^6\.1\.' | sort -V | tail -n 1)}
	[ -n "$kver" ] && [ -d "/lib/modules/$kver/build" ] ||
		{ echo "bench: no Debian 6.1 kernel with headers installed" >&2; exit 1; }
	mkdir -p build
	echo "== building softverbs for $kver"
	bash scripts/build-kmod.sh "/lib/modules/$kver/build" "build/$kver" >build/bench-build.log 2>&1 ||
		{ tail -n 30 build/bench-build.log; exit 1; }
	echo "== booting $kver under qemu (TCG); the benchmark runs inside the VM"
	exec tests/vm/run.sh --kver "$kver" --timeout 1200 -- \
		env SV_MODULE="$root/build/$kver/kmod/softverbs.ko" \
		SV_BENCH_ITERS="${SV_BENCH_ITERS:-}" SV_BENCH_SIZE="${SV_BENCH_SIZE:-}" SV_BENCH_PIN="${SV_BENCH_PIN:-}" \
		bash scripts/bench.sh --guest
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
pin_s= pin_c=
if [ -n "${SV_BENCH_PIN:-}" ]; then pin_s="taskset -c 0"; pin_c="taskset -c 1"; fi

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
# result value (BW average MB/s for *_bw, t_typical usec for *_lat) or "-"
perf() {
	local ns=$1 dev=$2 gid=$3 addr=$4 prog=$5 out sout pid field=4 v
	shift 5
	port=$((port + 1))
	out=$(mktemp)
	sout=$(mktemp)
	local ex=()
	[ -z "$ns" ] || ex=(ip netns exec "$ns")
	"${ex[@]}" ${pin_s} timeout "${SV_BENCH_TIMEOUT:-120}" "$prog" -d "$dev" -x "$gid" -p $port -F "$@" >"$sout" 2>&1 &
	pid=$!
	sv_wait_for "[ -n \"\$(${ex[*]} ss -Hltn sport = :$port)\" ]" 30
	"${ex[@]}" ${pin_c} timeout "${SV_BENCH_TIMEOUT:-120}" "$prog" -d "$dev" -x "$gid" -p $port -F "$@" "$addr" >"$out" 2>&1
	wait $pid 2>/dev/null
	[[ $prog == *_lat ]] && field=5	# t_typical
	v=$(xp_perf_value "$out" $field)
	if [ -z "$v" ]; then
		echo "bench: $prog on $dev produced no result:" >&2
		tail -n 5 "$out" | sed 's/^/  client: /' >&2
		tail -n 5 "$sout" | sed 's/^/  server: /' >&2
		v=-
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
)
declare -A res

ip netns add sv-bench-c
sv_on_exit 'ip netns del sv-bench-c'

echo "== Soft-RoCE: rxeb0 in init_net, talking to itself"
if modinfo rdma_rxe >/dev/null 2>&1; then
	modprobe rdma_rxe
	setup rxe rxeb0 xb0 xb1 10.199.0.1 "" &&
		for t in "${tests[@]}"; do
			# shellcheck disable=SC2086
			res[rxe,$t]=$(perf "" rxeb0 "$gid" 10.199.0.1 $t)
			echo "  $t: ${res[rxe,$t]}"
			[ "${res[rxe,$t]}" != - ] || break
		done
	rdma link delete rxeb0
	modprobe -r rdma_rxe
else
	echo "  no rdma_rxe module: no baseline"
fi

echo "== softverbs: svb0 in netns sv-bench, talking to itself"
sv_load_module
sv_on_exit sv_unload_module
ip netns add sv-bench
sv_on_exit 'ip netns del sv-bench'
ip -n sv-bench link set lo up
setup softverbs svb0 xb2 xb3 10.199.1.1 sv-bench &&
	for t in "${tests[@]}"; do
		# shellcheck disable=SC2086
		res[sv,$t]=$(perf sv-bench svb0 "$gid" 10.199.1.1 $t)
		echo "  $t: ${res[sv,$t]}"
		[ "${res[sv,$t]}" != - ] || break
	done
ip netns exec sv-bench rdma link delete svb0

echo
echo "== results (kernel $(uname -r), TCG, $(nproc) vCPUs; bandwidth: BW average MB/s,"
echo "   higher is better; latency: t_typical usec, lower is better)"
printf '%-34s %12s %12s %10s\n' test softverbs rxe sv/rxe
for t in "${tests[@]}"; do
	s=${res[sv,$t]:--} r=${res[rxe,$t]:--} ratio=-
	if [[ $s =~ ^[0-9.]+$ ]] && [[ $r =~ ^[0-9.]+$ ]]; then
		ratio=$(awk -v s="$s" -v r="$r" 'BEGIN { if (r > 0) printf "%.2f", s / r; else print "-" }')
	fi
	printf '%-34s %12s %12s %10s\n' "$t" "$s" "$r" "$ratio"
done
exit 0
