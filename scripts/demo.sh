#!/bin/bash
# make demo: build softverbs, boot Debian's kernel in a VM, create devices and
# show them with distro rdma-core tools and with libsoftverbs.
#
#   SV_DEMO_KVER=KVER   the kernel to boot (default: the newest installed 6.1)
set -euo pipefail

root=$(realpath "$(dirname "$0")/..")
cd "$root"

bash scripts/deps.sh
kver=${SV_DEMO_KVER:-$(ls /lib/modules | grep '^6\.1\.' | sort -V | tail -n 1)}
[ -n "$kver" ] && [ -d "/lib/modules/$kver/build" ] ||
	{ echo "demo: no Debian 6.1 kernel with headers installed" >&2; exit 1; }

# a fresh clone has no build/ yet
mkdir -p build
echo "== building softverbs for $kver and libsoftverbs"
bash scripts/build-kmod.sh "/lib/modules/$kver/build" "build/$kver" >build/demo-build.log 2>&1 ||
	{ tail -n 30 build/demo-build.log; exit 1; }
make -s -C ulib >/dev/null

echo "== booting $kver under qemu (TCG); the demo runs inside the VM"
exec tests/vm/run.sh --kver "$kver" --timeout 600 -- \
	env SV_MODULE="$root/build/$kver/kmod/softverbs.ko" bash scripts/demo-guest.sh
