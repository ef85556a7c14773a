#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# soak.sh: `make soak`, the soak with faults (Documentation/reliability.md).
# Boots one VM per kernel (tests/vm/run.sh) and runs tests/soak/soak-guest.sh
# there: RC, UD and ODP ping-pong with data checks and fio verify over
# NVMe-oF at once, while netem, svctl fault injection, link flaps, device
# delete/re-add and kill -9 hit them at random.  Prints each kernel's table
# rows; exit 1 if any kernel's checks failed.  Not part of `make check`.
#
# Env:
#   SV_SOAK_MINUTES=N     minutes of faults per kernel (default 30)
#   SV_SOAK_KERNELS="K.." the kernels: "debug" (the debug kernel of
#                         scripts/debug-kernel.sh, built if needed) and stock
#                         KVERs (default: "debug 6.12.117+deb12-amd64", or
#                         the newest 6.12 in /boot); a KVER not installed is
#                         Debian 13's, unpacked into the cache by
#                         scripts/trixie-kernel.sh fetch
#   SV_SOAK_MEM_TOL_KB=N  memory tolerance after teardown (default 8192)
# Results: results/soak/KVER/{out.txt,console.log,run.err}, and
# results/soak/table.md (the rows, as Documentation/reliability.md has them).
set -euo pipefail
root=$(realpath "$(dirname "$0")/..")
cd "$root"
minutes=${SV_SOAK_MINUTES:-30}
stock612=$(find /boot -maxdepth 1 -name 'vmlinuz-6.12.*' -printf '%f\n' | sed 's/^vmlinuz-//' | sort -V | tail -n 1)
kernels=${SV_SOAK_KERNELS:-debug ${stock612:-}}
out=$root/results/soak
mkdir -p "$out"

make -s -C ulib >/dev/null
make -s -C tools >/dev/null

# wait for room: the VMs are TCG and two cores are the usual budget
wait_cpu() {
	while [ "$(pgrep -c qemu-system || true)" -ge "$(nproc)" ]; do sleep 10; done
}

rc=0
: >"$out/table.md"
for k in $kernels; do
	run=()
	if [ "$k" = debug ]; then
		dk=$(bash scripts/debug-kernel.sh build 2>"$out/debug-kernel.log" | tail -n 20)
		field() { sed -n "s/^$1=//p" <<<"$dk" | tail -n 1; }
		kver=$(field KVER)
		scripts/build-kmod.sh "$(field KDIR)" "build/$kver" >"$out/kmod-$kver.log" 2>&1 ||
			{ echo "soak: module build for $kver failed (results/soak/kmod-$kver.log)" >&2; rc=1; continue; }
		run=(--kernel "$(field KERNEL)" --modules "$(field MODULES)" --mem 2048 --append 'kmemleak=on pci=noacpi')
	else
		kver=$k
		# an installed kernel, or Debian 13's unpacked into the cache
		kdir=$(bash scripts/trixie-kernel.sh kdir "$kver" 2>/dev/null) || kdir=/lib/modules/$kver/build
		scripts/build-kmod.sh "$kdir" "build/$kver" >"$out/kmod-$kver.log" 2>&1 ||
			{ echo "soak: module build for $kver failed (results/soak/kmod-$kver.log)" >&2; rc=1; continue; }
		run=(--kver "$kver" --mem 1536)
	fi
	mkdir -p "$out/$kver"
	wait_cpu
	echo "soak: $kver, $minutes min"
	set +e
	tests/vm/run.sh "${run[@]}" --timeout $((minutes * 60 + 3600)) --log "$out/$kver/console.log" \
		--results "$out/$kver/out.txt" -- \
		env SV_MODULE="$root/build/$kver/kmod/softverbs.ko" SV_SOAK_MINUTES="$minutes" \
		SV_SOAK_MEM_TOL_KB="${SV_SOAK_MEM_TOL_KB:-8192}" \
		bash tests/soak/soak-guest.sh "$minutes" 2>"$out/$kver/run.err" >/dev/null
	vrc=$?
	set -e
	echo "soak: $kver exit $vrc"
	[ $vrc -eq 0 ] || rc=1
	sed -n "s/^row|//p" "$out/$kver/out.txt" | tr -d '\r' | sed 's/|/ | /g; s/^/| /; s/$/ |/' >>"$out/table.md"
	grep -E '^(work|duration)\|' "$out/$kver/out.txt" | tr -d '\r' || true
done
echo "--- results/soak/table.md"
cat "$out/table.md"
exit $rc
