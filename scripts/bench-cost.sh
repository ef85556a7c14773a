#!/bin/bash
# bench-cost.sh: make bench's counted part (SV_BENCH=cost): kernel
# instructions per message, softverbs beside Soft-RoCE, counted by the TCG
# plugin tests/tools/kcount in a single-threaded TCG guest.
#
#   bench-cost.sh                      the guest half (run by scripts/bench.sh
#                                      in the VM, as root)
#   bench-cost.sh --report MARKS LOG   the table, on the host: MARKS is the
#                                      plugin's out= file, LOG the guest's output
#
#   loop (SV_BENCH_COST_TOPO loop or both):
#     init_net: cost0 (rdma_rxe, then softverbs) on veth xc0 10.196.0.1,
#               server and client on it (the device talks to itself)
#   veth (SV_BENCH_COST_TOPO veth or both):
#     init_net  cost0 on xc0 10.196.0.1 ==== xc1 10.196.0.2 cost1  netns sv-cost-c
#               server                                      client (ip netns exec)
#   nvmeof (with loop): nvmet-rdma on 10.196.0.1:4420 over null_blk,
#               nvme-rdma connected to it, both in init_net on cost0
#
# rdma_rxe binds UDP 4791 in init_net, so the two providers take the same
# netdevs in turn: load, create the devices, run every case, delete them,
# unload; Soft-RoCE first in odd rounds, softverbs first in even ones.
# Each perftest case is a server and a client, run at two lengths N1 and
# N2, each run between two marks (the marker program SV_KCOUNT_MARK); an
# NVMe-oF case is one dd of N1 and one of N2 4 KiB O_DIRECT I/Os on the
# connected namespace.  The set-up (exec, device open, QP, connection,
# teardown) is in both runs and cancels:
#
#   cost per message = (kernel(N2 run) - kernel(N1 run)) / (N2 - N1)
#
# Cases: ib_write_bw, ib_send_bw, ib_read_bw at 64 B (SV_BENCH_COST_MSGS
# messages, default "5000 25000") and ib_write_bw at 64 KiB
# (SV_BENCH_COST_MSGS_BIG, default "200 1000"), on cost0 alone (loop) and
# from cost1 to cost0 (veth: NAME-veth, every packet crosses the veth and
# each end computes and checks the ICRC); NVMe-oF 4 KiB reads and writes
# (nvmeof-read-4KiB, nvmeof-write-4KiB; SV_BENCH_COST_IOS, default
# "1000 5000").  SV_BENCH_COST_TOPO=loop|veth|both (default both) picks
# the topologies; the NVMe-oF cases go with loop.  Soft-RoCE takes part in
# veth only where the booted kernel gives rdma_rxe a UDP 4791 socket in
# sv-cost-c (per-namespace sockets, newer kernels); elsewhere it says so
# and counts softverbs alone.  SV_BENCH_ROUNDS rounds (default 3), the
# table gives the median and the range of the rounds.
# Before each provider's cases, one short unmarked run of every case warms
# the page cache and the slab caches.  With two or more vCPUs the server
# runs on CPU 0 and the client on CPU 1.
#
# The guest half prints "kcount-label SEQ PROVIDER CASE ROUND N begin|end
# [ok|fail] [MPPS]" for every mark, in the order the marks were executed;
# --report pairs them with the plugin's "kcount SEQ KERNEL ALL" lines.
# With SV_BENCH_COST_SYMS=1 it also prints "kcount-syms SEQ BASE64" lines:
# the text symbols of /proc/kallsyms (gzip, base64), the kernel's once (SEQ
# 0) and the modules' before each provider's first mark (SEQ that mark's),
# for scripts/bench-cost-attr.py.
set -uo pipefail

# --- host: the table -----------------------------------------------------------
if [ "${1:-}" = --report ]; then
	marks=$2 log=$3
	awk '
	# median and range of the numbers in string S: sets med, lo, hi
	function stats(s,   v, n, i, j, t) {
		n = split(s, v, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		if (!n) { med = lo = hi = ""; return 0 }
		med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		lo = v[1]; hi = v[n]
		return n
	}
	FILENAME == ARGV[1] && $1 == "kcount" {
		kern[$2] = $3; siter[$2] = $5; sbyte[$2] = $6; nmarks++
		if (NF >= 6) nstr = 1
	}
	FILENAME == ARGV[2] && $1 == "kcount-label" {
		nlabels++
		k = $3 SUBSEP $4 SUBSEP $5
		if ($7 == "begin") { b[k, $6] = $2; next }
		e[k, $6] = $2
		ok[k, $6] = $8 == "ok"
		if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
		ns[k] = ns[k] " " $6
		if (!($4 in caseseen)) { caseseen[$4] = 1; cases[++ncases] = $4 }
	}
	END {
		# the guest labels each block after it: a block cut short
		# leaves marks without labels, only at the end
		if (nmarks < nlabels || !nlabels) {
			printf "bench-cost: %d marks counted, %d labelled: no table\n", nmarks, nlabels
			exit 1
		}
		if (nmarks > nlabels)
			printf "bench-cost: %d marks without a label (a block cut short)\n", nmarks - nlabels
		for (i = 1; i <= nk; i++) {
			k = keys[i]
			split(k, p, SUBSEP)
			if (split(ns[k], n, " ") != 2) continue
			n1 = n[1] + 0; n2 = n[2] + 0
			if (n1 == n2 || !ok[k, n[1]] || !ok[k, n[2]]) {
				printf "cost %s %s round %s: a run failed\n", p[1], p[2], p[3]
				continue
			}
			k1 = kern[e[k, n[1]]] - kern[b[k, n[1]]]
			k2 = kern[e[k, n[2]]] - kern[b[k, n[2]]]
			v = (k2 - k1) / (n2 - n1)
			printf "cost %s %s round %s: %d kernel instructions per message (runs of %d and %d: %.0f and %.0f M)\n",
				p[1], p[2], p[3], v, n1, n2, k1 / 1e6, k2 / 1e6
			per[p[1], p[2]] = per[p[1], p[2]] " " v
			# rep string instructions: iterations and bytes per message
			i1 = siter[e[k, n[1]]] - siter[b[k, n[1]]]
			i2 = siter[e[k, n[2]]] - siter[b[k, n[2]]]
			y1 = sbyte[e[k, n[1]]] - sbyte[b[k, n[1]]]
			y2 = sbyte[e[k, n[2]]] - sbyte[b[k, n[2]]]
			striter[p[1], p[2]] = striter[p[1], p[2]] " " (i2 - i1) / (n2 - n1)
			strbyte[p[1], p[2]] = strbyte[p[1], p[2]] " " (y2 - y1) / (n2 - n1)
		}
		# the tables list loopback cases, then -veth, then NVMe-oF, each in
		# the order first met (a kernel without Soft-RoCE -veth rows meets
		# them after the NVMe-oF ones)
		m = 0
		for (g = 1; g <= 3; g++)
			for (i = 1; i <= ncases; i++) {
				c = cases[i]
				if ((c ~ /^nvmeof-/ ? 3 : c ~ /-veth$/ ? 2 : 1) == g)
					sorted[++m] = c
			}
		for (i = 1; i <= ncases; i++)
			cases[i] = sorted[i]
		printf "\n%-22s %11s %11s %6s %17s %17s\n", "kernel insns/message", "softverbs", "Soft-RoCE", "ratio", "softverbs range", "Soft-RoCE range"
		for (i = 1; i <= ncases; i++) {
			c = cases[i]
			sm = sr = rm = rr = "-"
			if (stats(per["sv", c])) { sm = sprintf("%d", med); sr = sprintf("%d-%d", lo, hi); s = med } else s = 0
			if (stats(per["rxe", c])) { rm = sprintf("%d", med); rr = sprintf("%d-%d", lo, hi); r = med } else r = 0
			ratio = s > 0 && r > 0 ? sprintf("%.2f", s / r) : "-"
			printf "%-22s %11s %11s %6s %17s %17s\n", c, sm, rm, ratio, sr, rr
		}
		# older plugins write no string counts
		if (!nstr) exit
		printf "\n%-22s %23s %23s\n", "rep string insns/msg", "softverbs (bytes)", "Soft-RoCE (bytes)"
		for (i = 1; i <= ncases; i++) {
			c = cases[i]
			sv = rx = "-"
			if (stats(striter["sv", c])) { t = med; stats(strbyte["sv", c]); sv = sprintf("%d (%d)", t, med) }
			if (stats(striter["rxe", c])) { t = med; stats(strbyte["rxe", c]); rx = sprintf("%d (%d)", t, med) }
			printf "%-22s %23s %23s\n", c, sv, rx
		}
	}' "$marks" "$log"
	exit
fi

# --- guest ---------------------------------------------------------------------
cd "$(dirname "$0")/.." || exit 1
. tests/user/lib.sh
# shellcheck source=tests/user/lib/storage.sh
. tests/user/lib/storage.sh
set +e
mark=${SV_KCOUNT_MARK:?the marker program (tests/tools/kcount/mark.c, built by scripts/bench.sh)}
rounds=${SV_BENCH_ROUNDS:-3}
to=${SV_BENCH_TIMEOUT:-120}
topo=${SV_BENCH_COST_TOPO:-both}
read -r small1 small2 <<<"${SV_BENCH_COST_MSGS:-5000 25000}"
read -r big1 big2 <<<"${SV_BENCH_COST_MSGS_BIG:-200 1000}"
read -r ios1 ios2 <<<"${SV_BENCH_COST_IOS:-1000 5000}"
addr=10.196.0.1 addr_c=10.196.0.2 ns=sv-cost-c
nqn=nqn.2026-11.org.softverbs:cost
hostnqn=nqn.2014-08.org.nvmexpress:uuid:5e5e5e56-0000-4000-8000-0000000000c1
# case name (without -veth): program or I/O direction, message size, the
# two lengths
declare -A cases=(
	[write-64B]="ib_write_bw 64 $small1 $small2"
	[send-64B]="ib_send_bw 64 $small1 $small2"
	[read-64B]="ib_read_bw 64 $small1 $small2"
	[write-64KiB]="ib_write_bw 65536 $big1 $big2"
	[nvmeof-read-4KiB]="read 4096 $ios1 $ios2"
	[nvmeof-write-4KiB]="write 4096 $ios1 $ios2"
)
order_rc=() order_nvme=()
case $topo in
loop | both) order_rc+=(write-64B send-64B read-64B write-64KiB) ;;&
veth | both) order_rc+=(write-64B-veth send-64B-veth read-64B-veth write-64KiB-veth) ;;&
loop | both) order_nvme=(nvmeof-read-4KiB nvmeof-write-4KiB) ;;
veth) ;;
*) echo "bench-cost: SV_BENCH_COST_TOPO=loop, veth or both" >&2; exit 2 ;;
esac
port=27000 seq=0 gid='' gid_c='' nvme=''
tmp=$(mktemp -d)
pin_s=() pin_c=()
if [ "$(nproc)" -ge 2 ]; then
	pin_s=(taskset -c 0) pin_c=(taskset -c 1)
fi

ulimit -l unlimited
modprobe ib_core
modprobe ib_uverbs
modprobe rdma_cm
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
ip netns add $ns
sv_on_exit "ip netns del $ns; rm -rf '$tmp'"
# fixed MACs and permanent neighbour entries: no ARP inside a window
ip link add xc0 address 02:5f:00:00:c4:01 type veth peer name xc1 address 02:5f:00:00:c4:02 netns $ns
ip -n $ns link set lo up
ip -n $ns link set xc1 up
ip -n $ns addr add $addr_c/24 dev xc1
ip -n $ns neigh replace $addr lladdr 02:5f:00:00:c4:01 dev xc1 nud permanent
ip link set xc0 up
ip addr add $addr/24 dev xc0
ip neigh replace $addr_c lladdr 02:5f:00:00:c4:02 dev xc0 nud permanent

# syms SEQ FILTER: the text symbols that FILTER (an awk condition on
# /proc/kallsyms' fields) keeps, as one kcount-syms line valid from mark SEQ
syms() {
	[ "${SV_BENCH_COST_SYMS:-0}" = 1 ] || return 0
	echo "kcount-syms $1 $(awk "\$2 ~ /^[tT]\$/ && $2 { print \$1, \$3, \$4 }" /proc/kallsyms | gzip -1 | base64 -w0)"
}
syms 0 'NF == 3'

# up PROVIDER: load it, cost0 on xc0 (sets gid, the RoCE v2 GID index of
# addr) and, unless loop alone, cost1 on xc1 in ns (sets gid_c; left empty
# where the provider cannot work there)
up() {
	local g=0000:0000:0000:0000:0000:ffff:0ac4:0001	# 10.196.0.1
	local g_c=0000:0000:0000:0000:0000:ffff:0ac4:0002	# 10.196.0.2
	local kind=rxe
	gid='' gid_c=''
	if [ "$1" = rxe ]; then
		modprobe rdma_rxe
	else
		kind=softverbs
		# shellcheck disable=SC2119 # no module parameters
		sv_load_module
	fi && rdma link add cost0 type $kind netdev xc0 || return 1
	sv_wait_for "_sv_xport_gid cost0 $g" 20 || return 1
	gid=$(_sv_xport_gid cost0 $g)
	[ "$topo" != loop ] || return 0
	# rdma link add finds the netdev in the caller's namespace
	if ! ip netns exec $ns rdma link add cost1 type $kind netdev xc1; then
		echo "bench-cost: $1: no device on xc1 in $ns, veth cases skipped" >&2
		return 0
	fi
	# rdma_rxe without per-namespace sockets listens in init_net alone:
	# cost1 would never see a packet (UDP port 4791 is 12B7 in /proc/net/udp)
	if [ "$1" = rxe ] && ! ip netns exec $ns grep -qi ':12B7 ' /proc/net/udp /proc/net/udp6; then
		echo "rxe: no netns support on this kernel, veth case skipped for Soft-RoCE"
		return 0
	fi
	# sysfs shows the devices of every namespace (shared mode)
	sv_wait_for "_sv_xport_gid cost1 $g_c" 20 ||
		{ echo "bench-cost: $1: cost1 has no GID for $addr_c, veth cases skipped" >&2; return 0; }
	gid_c=$(_sv_xport_gid cost1 $g_c)
}

# down PROVIDER: delete cost0 and cost1, unload the provider
down() {
	rdma link delete cost0 2>/dev/null
	ip netns exec $ns rdma link delete cost1 2>/dev/null
	if [ "$1" = rxe ]; then modprobe -r rdma_rxe; else sv_unload_module; fi
}

# nvme_up: nvmet-rdma over null_blk on addr:4420 and nvme-rdma connected
# to it; sets nvme (the namespace's block device)
nvme_up() {
	local b
	nvme=
	modprobe null_blk nr_devices=1 gb=1 && modprobe nvmet && modprobe nvmet_rdma &&
		modprobe nvme_rdma && sv_nvmet_add $nqn /dev/nullb0 $addr 96 &&
		b=$(sv_nvme_connect $nqn $addr $hostnqn) && nvme=/dev/$b
}

# nvme_down: undo nvme_up, whatever part of it exists
nvme_down() {
	nvme disconnect -n $nqn >/dev/null 2>&1
	sv_nvmet_del $nqn 96
	sleep 1
	modprobe -r nvme_rdma nvmet_rdma nvmet null_blk 2>/dev/null
	nvme=
}

# io RW N: N 4 KiB O_DIRECT I/Os (RW read or write) on nvme, one at a
# time; fails unless all N were done
io() {
	local out
	if [ "$1" = read ]; then
		out=$(dd if="$nvme" of=/dev/null bs=4096 count="$2" iflag=direct 2>&1)
	else
		out=$(dd if=/dev/zero of="$nvme" bs=4096 count="$2" oflag=direct 2>&1)
	fi && [[ $out == *"$2+0 records out"* ]] && return 0
	echo "bench-cost: dd $1 of $2 on $nvme: $out" >&2
	return 1
}

# run CASE N [LABEL]: one run of CASE with N messages (perftest) or I/Os
# (NVMe-oF); with LABEL ("PROVIDER CASE ROUND"), between two marks.  For
# perftest only the client's run and the server's exit lie between the
# marks: the server is listening before the first, and the labels are
# written to a tmpfs file outside.  A -veth case runs its client in ns on
# cost1.
run() {
	local c=$1 n=$2 label=${3:-} prog size pid v cl=() dev_c=cost0 g_c=$gid
	read -r prog size _ <<<"${cases[${c%-veth}]}"
	if [[ $c == nvmeof-* ]]; then
		[ -z "$label" ] || { echo "kcount-label $((++seq)) $label $n begin" >>"$tmp/labels"; "$mark"; }
		io "$prog" "$n"
		v=$?
		[ -z "$label" ] || "$mark"
		if [ -z "$label" ]; then
			:
		elif [ $v = 0 ]; then
			echo "kcount-label $((++seq)) $label $n end ok" >>"$tmp/labels"
		else
			echo "kcount-label $((++seq)) $label $n end fail" >>"$tmp/labels"
		fi
		return $v
	fi
	[[ $c != *-veth ]] || cl=(ip netns exec "$ns") dev_c=cost1 g_c=$gid_c
	port=$((port + 1))
	"${pin_s[@]}" timeout "$to" "$prog" -d cost0 -x "$gid" -p $port -F -s "$size" -n "$n" >"$tmp/s" 2>&1 &
	pid=$!
	if ! sv_wait_for "sv_tcp_listening $port" 30; then
		kill $pid 2>/dev/null
		wait $pid 2>/dev/null
		[ -z "$label" ] || echo "bench-cost: $prog on $label: no server" >&2
		return 1
	fi
	if [ -n "$label" ]; then
		echo "kcount-label $((++seq)) $label $n begin" >>"$tmp/labels"
		"$mark"
	fi
	"${cl[@]}" "${pin_c[@]}" timeout "$to" "$prog" -d $dev_c -x "$g_c" -p $port -F -s "$size" -n "$n" $addr >"$tmp/c" 2>&1
	wait $pid 2>/dev/null
	[ -z "$label" ] || "$mark"
	v=$(xp_perf_value "$tmp/c" 5)
	if [ -z "$label" ]; then
		:
	elif [ -n "$v" ]; then
		echo "kcount-label $((++seq)) $label $n end ok $v" >>"$tmp/labels"
	else
		echo "kcount-label $((++seq)) $label $n end fail" >>"$tmp/labels"
		echo "bench-cost: $prog -s $size -n $n on $label: no result" >&2
		tail -n 5 "$tmp/c" | sed 's/^/  client: /' >&2
		tail -n 5 "$tmp/s" | sed 's/^/  server: /' >&2
	fi
	[ -n "$v" ]
}

# cases_of PROVIDER CASE...: CASEs where the current devices can run them:
# one short unmarked run of each (warming the page and slab caches), then
# the two marked runs of each
cases_of() {
	local p=$1 c n1 n2 todo=()
	shift
	for c; do
		case $c in
		*-veth) [ -n "$gid_c" ] || continue ;;
		nvmeof-*) [ -n "$nvme" ] || continue ;;
		esac
		todo+=("$c")
		run "$c" 200
	done
	[ ${#todo[@]} = 0 ] || syms $((seq + 1)) 'NF == 4'
	for c in "${todo[@]}"; do
		read -r _ _ n1 n2 <<<"${cases[${c%-veth}]}"
		run "$c" "$n1" "$p $c $r"
		run "$c" "$n2" "$p $c $r"
	done
}

for ((r = 1; r <= rounds; r++)); do
	provs="rxe sv"
	[ $((r % 2)) = 1 ] || provs="sv rxe"
	for p in $provs; do
		echo "== round $r of $rounds: $p"
		if ! up "$p"; then
			echo "bench-cost: no $p device" >&2
			down "$p"
			continue
		fi
		# perftest first, then NVMe-oF: no keep-alives in perftest's windows
		cases_of "$p" "${order_rc[@]}"
		if [ ${#order_nvme[@]} -gt 0 ]; then
			if nvme_up; then
				cases_of "$p" "${order_nvme[@]}"
			else
				echo "bench-cost: $p: no NVMe-oF namespace, NVMe-oF cases skipped" >&2
			fi
		fi
		nvme_down
		down "$p"
		# outside every window, and a partial table if a later block hangs
		cat "$tmp/labels" 2>/dev/null
		rm -f "$tmp/labels"
	done
done
echo "== kernel $(uname -r), $(nproc) vCPUs"
exit 0
