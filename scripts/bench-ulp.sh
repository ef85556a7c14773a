#!/bin/bash
# bench-ulp.sh: the guest half of make bench's storage part (SV_BENCH=ulp):
# fio over NVMe-oF (nvme-rdma to nvmet-rdma) and over NFS/RDMA, first on a
# Soft-RoCE device, then on a softverbs device, in one VM.  Run by
# scripts/bench.sh in the VM, as root.
#
#   init_net: DEV (rxe, then softverbs) on veth xu0 10.197.0.1
#             (xu1, its carrier, in netns sv-ulp-c)
#     NVMe-oF: nvmet-rdma port 10.197.0.1:4420 over null_blk (no data
#              kept: the transport is what is measured), nvme connect to it
#     NFS:     nfsd's RDMA listener 20049 exporting a tmpfs, mounted from
#              10.197.0.1 with proto rdma (v4.2)
#
# nvmet-rdma, nvme-rdma, nfsd and the NFS client make their rdma_cm IDs in
# init_net, and rdma_rxe binds UDP 4791 there only, so each provider's
# device talks to itself in init_net, one provider after the other (rxe
# unloaded before softverbs loads), for SV_BENCH_ROUNDS rounds (default
# 3).  fio jobs (SV_BENCH_FIO_SECS each, default 10, no ramp): 4 KiB random
# read and write at iodepth 32 (IOPS), 128 KiB sequential read and write
# at iodepth 8 (MB/s), libaio, O_DIRECT; SV_BENCH_ULP_JOBS=REGEX keeps the
# jobs ("randwrite 4k 32", ...) it matches.  Prints "ulp TARGET JOB
# PROVIDER VALUE" lines, each with what the job cost per I/O (packets,
# context switches, function-call IPIs: the VM's, over the job), and the
# table of medians.
#
# A/B (scripts/bench.sh, SV_BENCH=ab SV_BENCH_AB_PART=ulp): with
# SV_BENCH_AB_MODULE set, the two providers are softverbs built from
# revision SV_BENCH_AB_REV (A, that module) and from this tree (B,
# SV_MODULE), loaded in turn each round, and the table gives B/A.
set -uo pipefail
cd "$(dirname "$0")/.."
. tests/user/lib.sh
# shellcheck source=tests/user/lib/storage.sh
. tests/user/lib/storage.sh

secs=${SV_BENCH_FIO_SECS:-10}
rounds=${SV_BENCH_ROUNDS:-3}
jobs=()
for j in "randread 4k 32" "randwrite 4k 32" "read 128k 8" "write 128k 8"; do
	[[ ! $j =~ ${SV_BENCH_ULP_JOBS:-.} ]] || jobs+=("$j")
done
[ ${#jobs[@]} -gt 0 ] || { echo "bench-ulp: SV_BENCH_ULP_JOBS matches no job"; exit 1; }
addr=10.197.0.1
nqn=nqn.2026-11.org.softverbs:bench
hostnqn=nqn.2014-08.org.nvmexpress:uuid:5e5e5e56-0000-4000-8000-0000000000b1
declare -A res
mtu=1024
tmp=$(mktemp -d)

command -v fio >/dev/null || { echo "bench-ulp: no fio (scripts/deps.sh bench installs it)"; exit 1; }
ulimit -l unlimited
modprobe rdma_cm
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
ip netns add sv-ulp-c
sv_on_exit "ip netns del sv-ulp-c; rm -rf '$tmp'"
ip link add xu0 type veth peer name xu1 netns sv-ulp-c
ip -n sv-ulp-c link set xu1 up
ip link set xu0 up
ip addr add $addr/24 dev xu0

# sched_counts: the VM's context switches and function-call IPIs so far
sched_counts() {
	awk '/^ctxt / { c = $2 } END { print c }' /proc/stat
	awk '$1 == "CAL:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' \
		/proc/interrupts
}

# fio_job DEV FILE JOB: one fio run of JOB ("rw bs iodepth") on FILE, with
# the RDMA device DEV's packet counters read before and after it.  Prints
# the figure (IOPS for 4k jobs, MB/s for the others, or "-") and, on a
# second line, what crossed DEV per I/O: packets sent (and bytes, where the
# device counts them), and whether that is at least one packet per MTU of
# the I/O's data, then the VM's context switches and IPIs per I/O.  A
# figure whose data did not cross the device (a page cache, a local
# shortcut) fails that check and is not reported: the figure is then "-".
# No ramp time, so every packet counted belongs to an I/O fio counted.
fio_job() {
	local dev=$1 file=$2 rw bs qd out
	read -r rw bs qd <<<"$3"
	rdma -j statistic show link "$dev/1" >"$tmp/before" || { echo -; return; }
	sched_counts >"$tmp/sched-before"
	out=$(timeout $((secs + 60)) fio --name=b --filename="$file" --rw="$rw" --bs="$bs" \
		--iodepth="$qd" --ioengine=libaio --direct=1 --time_based --runtime="$secs" \
		--size=48m --output-format=json 2>/dev/null) || { echo -; return; }
	sched_counts >"$tmp/sched-after"
	rdma -j statistic show link "$dev/1" >"$tmp/after" || { echo -; return; }
	python3 -c '
import json, sys
rw, bs, tmp, mtu = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
j = json.loads(sys.stdin.read())["jobs"][0]
d = j["write" if "write" in rw else "read"]
ios = j["read"]["total_ios"] + j["write"]["total_ios"]
b, a = (json.load(open(f"{tmp}/{x}"))[0] for x in ("before", "after"))
delta = {k: a[k] - b[k] for k in a if isinstance(a[k], int) and k in b}
pkts = delta.get("tx_packets", delta.get("sent_pkts"))
size = int(bs[:-1]) * 1024
fig = "%.0f" % d["iops"] if bs == "4k" else "%.2f" % (d["bw_bytes"] / 1e6)
need = (size + mtu - 1) // mtu
ok = ios > 0 and pkts is not None and pkts >= ios * need
if "tx_bytes" in delta and ios:
    ok = ok and delta["tx_bytes"] >= ios * size
print(fig if ok else "-")
per = "%.1f packets" % (pkts / ios) if ios and pkts is not None else "no packet count"
if "tx_bytes" in delta and ios:
    per += ", %.0f bytes" % (delta["tx_bytes"] / ios)
sb, sa = ([int(v) for v in open(f"{tmp}/sched-{x}")] for x in ("before", "after"))
sched = ("; per I/O %.2f context switches, %.2f IPIs" %
         ((sa[0] - sb[0]) / ios, (sa[1] - sb[1]) / ios) if ios else "")
print("%d I/Os, %s sent per I/O (data needs >= %d packets, %d bytes): %s%s" %
      (ios, per, need, size, "crossed the device" if ok else "DID NOT cross the device", sched))
' "$rw" "$bs" "$tmp" "$mtu" <<<"$out" 2>/dev/null || echo -
}

# job_result TARGET JOB PROV FILE: fio_job on the current device, its figure
# kept for the table and printed with what crossed the device
job_result() {
	local out
	out=$(fio_job "$dev" "$4" "$2")
	res[$1,$2,$3]+=" ${out%%$'\n'*}"
	echo "ulp $1 ${2// /_} $3 ${out%%$'\n'*}"
	[ "$out" = "${out#*$'\n'}" ] || echo "    ${out#*$'\n'}"
}

# nvme_run PROV: the NVMe-oF jobs over the device of PROV
nvme_run() {
	local prov=$1 ns j
	modprobe null_blk nr_devices=1 gb=1 || return 1
	modprobe nvmet && modprobe nvmet_rdma && modprobe nvme_rdma || return 1
	if sv_nvmet_add $nqn /dev/nullb0 $addr 97 && ns=$(sv_nvme_connect $nqn $addr $hostnqn); then
		for j in "${jobs[@]}"; do
			job_result nvme "$j" "$prov" "/dev/$ns"
		done
	fi
	nvme disconnect -n $nqn >/dev/null 2>&1
	sv_nvmet_del $nqn 97
	sleep 1
	modprobe -r nvme_rdma nvmet_rdma nvmet null_blk
}

# nfs_run PROV: the NFS/RDMA jobs over the device of PROV (server and
# client both in init_net: the device talks to itself)
nfs_run() {
	local prov=$1 exp mnt j
	exp=$(mktemp -d /tmp/sv-ulp-exp.XXXXXX) mnt=$(mktemp -d /tmp/sv-ulp-mnt.XXXXXX)
	mount -t tmpfs -o size=128m svulp "$exp"
	if sv_nfsd_start $addr "$exp" &&
		timeout 60 mount -t nfs -o rdma,port=20049,vers=4.2 "$addr:/" "$mnt"; then
		for j in "${jobs[@]}"; do
			job_result nfs "$j" "$prov" "$mnt/f"
		done
		umount -f "$mnt"
	fi
	sv_nfsd_stop
	umount "$exp"
	rmdir "$exp" "$mnt"
	sleep 1
	sv_wait_for 'modprobe -r rpcrdma' 30
}

# provider PROV KIND DEV: both workloads on a fresh device of KIND
provider() {
	local prov=$1 kind=$2 dev=$3
	rdma link add "$dev" type "$kind" netdev xu0 || { echo "bench-ulp: no $kind device"; return 1; }
	sv_wait_for "[[ \"\$(rdma link show $dev/1)\" == *'state ACTIVE'* ]]" 20
	mtu=$(ibv_devinfo -d "$dev" | awk '/active_mtu/ { print $2; exit }')
	[ -n "$mtu" ] || mtu=1024
	echo "== $prov ($dev): NVMe-oF"
	nvme_run "$prov"
	echo "== $prov ($dev): NFS/RDMA"
	nfs_run "$prov"
	rdma link delete "$dev"
}

# softverbs_run NAME MODULE: both workloads on softverbs loaded from MODULE
softverbs_run() {
	SV_MODULE=$2
	sv_load_module
	provider "$1" softverbs svu0
	sv_unload_module
}

# The two providers: b (the table's first column) against a (the base);
# a is Soft-RoCE unless this is an A/B of two softverbs builds
module_b=${SV_MODULE:-} rxe=
if [ -n "${SV_BENCH_AB_MODULE:-}" ]; then
	pa=A pb=B ratio=B/A
	echo "== A: softverbs of ${SV_BENCH_AB_REV:-the base}, B: this tree"
else
	pa=rxe pb=softverbs ratio=sv/rxe
	if modinfo rdma_rxe >/dev/null 2>&1; then
		rxe=1
	else
		echo "== no rdma_rxe module: no baseline"
	fi
fi
for ((round = 1; round <= rounds; round++)); do
	echo "== round $round of $rounds"
	if [ -n "${SV_BENCH_AB_MODULE:-}" ]; then
		softverbs_run A "$SV_BENCH_AB_MODULE"
	elif [ -n "$rxe" ]; then
		modprobe rdma_rxe
		provider rxe rxe rxeu0
		modprobe -r rdma_rxe
	fi
	softverbs_run $pb "$module_b"
done

# median VALUES...: the median of the figures that are numbers, or "-"
median() {
	printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -g |
		awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo
echo "== results: medians of $rounds rounds, fio $secs s per job, each checked against the"
echo "   device counters (kernel $(uname -r), TCG, $(nproc) vCPUs; 4k: IOPS, 128k: MB/s; higher is better)"
printf '%-24s %12s %12s %8s   %s\n' test $pb $pa $ratio "rounds ($pb | $pa)"
for t in nvme nfs; do
	for j in "${jobs[@]}"; do
		# shellcheck disable=SC2086 # the rounds' figures, one word each
		s=$(median ${res[$t,$j,$pb]:-}) r=$(median ${res[$t,$j,$pa]:-})
		q=$(awk -v s="$s" -v r="$r" 'BEGIN { if (s + 0 > 0 && r + 0 > 0) printf "%.2f", s / r; else print "-" }')
		printf '%-24s %12s %12s %8s   %s |%s\n' "$t ${j% *} qd${j##* }" "$s" "$r" "$q" \
			"${res[$t,$j,$pb]:-}" "${res[$t,$j,$pa]:-}"
	done
done
exit 0
