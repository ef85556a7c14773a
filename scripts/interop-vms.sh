#!/bin/bash
# interop-vms.sh: softverbs and Soft-RoCE (rdma_rxe) on two kernels, in two
# VMs on a wire (tests/vm/run.sh --wire), both ways round.
#
#   interop-vms.sh [PAIRING...]    PAIRING: 1, 2 (default: both)
#
#   pairing 1: VM A  softverbs on NEW  ==== wire ====  VM B  rdma_rxe on OLD
#   pairing 2: VM A  rdma_rxe on NEW   ==== wire ====  VM B  softverbs on OLD
#
# A serves and B is the client (tests/vm/interop-guest.sh: the sequencing):
# ibv_rc_pingpong -c and ibv_ud_pingpong -c on the IPv4 address's RoCE v2
# GID, and rping -V (rdma_cm, every ping's data checked).  Both VMs boot at
# once, so a pairing needs two VM slots.  One line per case and pairing,
# "ok N - ..." or "not ok N - ..." (a case passes when both sides say so),
# then the wall time of each pairing and "N passed, N failed"; exit 1 if
# anything failed.
#
# Env:
#   SV_INTEROP_NEW=KVER  the newer kernel (default 7.3.4+deb13-amd64, Debian
#                        13's, unpacked into the cache by scripts/trixie-kernel.sh)
#   SV_INTEROP_OLD=KVER  the older one (default 6.1.0-56-amd64, installed)
#   SV_INTEROP_LOGS=DIR  keep each VM's output there (default: a temp dir,
#                        removed; its logs are shown on failure)
# The module must be built for both (build/KVER/kmod/softverbs.ko); a missing
# one is built here with scripts/build-kmod.sh.
set -uo pipefail

root=$(realpath "$(dirname "$0")/..")
cd "$root" || exit 2
new=${SV_INTEROP_NEW:-7.3.4+deb13-amd64}
old=${SV_INTEROP_OLD:-6.1.0-56-amd64}
pairings=("$@")
[ ${#pairings[@]} -gt 0 ] || pairings=(1 2)
for p in "${pairings[@]}"; do
	case $p in 1 | 2) ;; *) echo "interop-vms: pairing 1 or 2" >&2; exit 2 ;; esac
done

# module KVER: build/KVER/kmod/softverbs.ko, built if missing
module() {
	local kver=$1 kdir
	[ -f "build/$kver/kmod/softverbs.ko" ] && return 0
	kdir=$(bash scripts/trixie-kernel.sh kdir "$kver" 2>/dev/null) || true
	if [ -z "$kdir" ] || [ ! -d "$kdir" ]; then
		echo "interop-vms: no headers for $kver" >&2
		return 1
	fi
	mkdir -p build
	bash scripts/build-kmod.sh "$kdir" "build/$kver" >"build/interop-build-$kver.log" 2>&1 ||
		{ tail -n 20 "build/interop-build-$kver.log" >&2; return 1; }
}

if [ -n "${SV_INTEROP_LOGS:-}" ]; then
	w=$(realpath -m "$SV_INTEROP_LOGS")
	mkdir -p "$w"
else
	w=$(mktemp -d "${TMPDIR:-/tmp}/sv-interop.XXXXXX")
	trap 'rm -rf "$w"' EXIT
fi

n=0 pass=0 fail=0 times=()
# tap OK TEXT: one numbered result line
tap() {
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		pass=$((pass + 1))
		echo "ok $n - $2"
	else
		fail=$((fail + 1))
		echo "not ok $n - $2"
	fi
}

# result FILE NAME: A's or B's word on case NAME ("ok", "fail", or "none")
result() {
	local r
	r=$(sed -n "s/^RESULT $2 \(ok\|fail\)\r\{0,1\}$/\1/p" "$1" | tail -n 1)
	echo "${r:-none}"
}

# pairing KA KVER_A KB KVER_B: one run, A = KA on KVER_A, B = KB on KVER_B
pairing() {
	local ka=$1 kva=$2 kb=$3 kvb=$4 d pa ra=0 rb=0 t0 secs c a b label ok
	d=$w/$ka-$kva--$kb-$kvb
	mkdir -p "$d"
	label="$ka $kva <-> $kb $kvb"
	rm -f "$d"/wire.*
	t0=$(date +%s)
	tests/vm/run.sh --kver "$kva" --timeout 900 --wire "$d/wire:a" --append sv.hostname=interop-a -- \
		env SV_MODULE="$root/build/$kva/kmod/softverbs.ko" bash tests/vm/interop-guest.sh a "$ka" \
		>"$d/a.log" 2>&1 &
	pa=$!
	tests/vm/run.sh --kver "$kvb" --timeout 900 --wire "$d/wire:b" --append sv.hostname=interop-b -- \
		env SV_MODULE="$root/build/$kvb/kmod/softverbs.ko" bash tests/vm/interop-guest.sh b "$kb" \
		>"$d/b.log" 2>&1 || rb=$?
	wait $pa || ra=$?
	secs=$(($(date +%s) - t0))
	times+=("$label: ${secs}s")
	ok=1
	for c in setup rc_pingpong ud_pingpong rping; do
		a=$(result "$d/a.log" "$c")
		b=$(result "$d/b.log" "$c")
		if [ "$a" = ok ] && [ "$b" = ok ]; then
			tap 1 "$label: $c"
		else
			tap 0 "$label: $c (A: $a, B: $b)"
			ok=0
		fi
	done
	if [ $ok = 0 ] || [ $ra != 0 ] || [ $rb != 0 ]; then
		echo "# VM A exit $ra, VM B exit $rb; their output:"
		sed 's/^/# A| /' "$d/a.log" | tail -n 60
		sed 's/^/# B| /' "$d/b.log" | tail -n 60
	fi
}

module "$new" || exit 1
module "$old" || exit 1
for p in "${pairings[@]}"; do
	case $p in
	1) pairing softverbs "$new" rxe "$old" ;;
	2) pairing rxe "$new" softverbs "$old" ;;
	esac
done
for t in "${times[@]}"; do echo "# wall time: $t"; done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
