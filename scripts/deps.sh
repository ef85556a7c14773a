#!/bin/bash
# Make sure the Debian 12 packages softverbs builds and tests with are installed.
#
# Idempotent and cheap: one dpkg-query call when everything is present, so
# scripts/check.sh can run it every time. Installs only as root; otherwise it
# prints the exact command to run and fails, so nobody wonders why a later
# stage breaks.
set -euo pipefail

packages=(
	# kernels to test against (stock 6.1 via the meta package, and 6.12 from bookworm)
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	# source for the debug kernel (scripts/debug-kernel.sh) and its build tools
	linux-source-6.1 bc flex bison libelf-dev libssl-dev dwarves sparse ccache
	# compilers for the module and userspace; dkms depends on them only loosely
	gcc make libc6-dev pkg-config dkms
	# the Debian 13 root whose gcc-14 builds the module for Debian 13's
	# kernels (scripts/trixie-root.sh), and curl for the header packages
	# Debian's index omits (6.16, 6.17: scripts/trixie-kernel.sh)
	debootstrap curl
	# the VM harness (tests/vm); qemu-system-x86 brings qemu-system-common's
	# virtiofsd, the cloud kernels' share of the host root.  Those kernels
	# are not installed: scripts/cloud-kernel.sh (a stage of check.sh)
	# downloads and unpacks them into the cache
	qemu-system-x86 busybox-static cpio zstd xz-utils kmod iproute2
	# RDMA userspace: the interop peer (rdma_rxe + rdma-core) and test tools
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev perftest
	rdmacm-utils python3-pyverbs libmnl-dev nvme-cli
	# wg, for the WireGuard tunnel of tests/user/19-l3dev.sh
	wireguard-tools
	# third-party RDMA clients (tests/user/64-ucx.sh, 65-libfabric.sh)
	ucx-utils libfabric-bin
	# NFS over RDMA (tests/user/58-nfsrdma.sh): rpc.nfsd, mountd, exportfs,
	# rpcbind, mount.nfs. The test starts its own daemons in the VM. The
	# postinst enables nfs-server and rpcbind; without systemd (this test
	# bed) it starts nothing, on a systemd host stop them if unwanted:
	# systemctl disable --now nfs-server rpcbind.socket rpcbind
	nfs-kernel-server nfs-common rpcbind
	# the Debian packages (make deb) and their check
	debhelper dh-dkms dpkg-dev fakeroot lintian
	# source hygiene (scripts/lint.sh; sparse is listed above)
	cppcheck
	# user-space fuzzing of kmod code (tests/fuzz): clang with libFuzzer
	# and the sanitizer runtimes (only recommended by clang-14), and
	# llvm-14 for llvm-symbolizer (readable sanitizer reports) and llvm-cov
	clang-14 libclang-rt-14-dev llvm-14
)
# "deps.sh bench": also what make bench alone needs (gnuplot draws its
# message-size sweep, fio drives its storage part: scripts/bench.sh)
[ "${1:-}" != bench ] || packages+=(gnuplot-nox fio)

# dpkg-query prints nothing for packages it has never heard of, and "ii" only
# for fully installed ones; anything else (rc, iU, absent) counts as missing.
installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${packages[@]}" 2>/dev/null |
	awk '$2 == "ii" { print $1 }' || true)

missing=()
for p in "${packages[@]}"; do
	grep -qxF "$p" <<<"$installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages: ${missing[*]}" >&2
	echo "deps.sh: run as root:" >&2
	echo "  apt-get update && DEBIAN_FRONTEND=noninteractive ${cmd[*]}" >&2
	exit 1
fi

echo "deps.sh: installing ${missing[*]}" >&2
apt-get update
DEBIAN_FRONTEND=noninteractive "${cmd[@]}"
