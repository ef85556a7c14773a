#!/bin/bash
# mkinitramfs.sh --kver KVER [--root DIR] [--fs 9p|virtiofs] | --builtin: build
# (or reuse) the test VM's initramfs and print its path.
#
#   --kver KVER  a stock kernel with /lib/modules/KVER: packs the modules that
#                the guest's share of the host root (9p or virtio-fs) and
#                overlayfs need, in the order modprobe would load them
#   --root DIR   the kernel's modules are DIR/lib/modules/KVER (a kernel
#                unpacked by scripts/cloud-kernel.sh); default /
#   --fs FS      how the guest mounts the host root: 9p (default) or
#                virtiofs (Debian's cloud kernels have no 9p)
#   --builtin    a kernel with 9p, virtio and overlayfs built in: no modules
#
# The initramfs is only busybox-static, tests/vm/init and those modules; the
# real userland is the host's, mounted over 9p by init. It is cached in
# ${SV_CACHE:-/var/tmp/softverbs-cache}, keyed by kernel version and a hash of
# everything that goes into it, so a changed init or kernel update rebuilds it.
set -euo pipefail

here=$(dirname "$(realpath "$0")")
cache=${SV_CACHE:-/var/tmp/softverbs-cache}
kver= modroot=/ fs=9p builtin=0

usage() { echo "usage: $0 --kver KVER [--root DIR] [--fs 9p|virtiofs] | --builtin" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=${2:?--kver needs a kernel version}; shift 2 ;;
	--root) modroot=${2:?--root needs a directory}; shift 2 ;;
	--fs) fs=${2:?--fs needs 9p or virtiofs}; shift 2 ;;
	--builtin) builtin=1; shift ;;
	*) usage ;;
	esac
done
[ -n "$kver" ] || [ $builtin = 1 ] || usage
case $fs in
9p) fs_mods=(9p 9pnet_virtio) ;;
virtiofs) fs_mods=(virtiofs) ;;
*) usage ;;
esac

busybox=/bin/busybox
# (a copy, not "file | grep -q": with pipefail a SIGPIPE of file's would
# count as no match)
if ! grep -q 'statically linked' <<<"$(file -L "$busybox" 2>/dev/null)"; then
	echo "mkinitramfs.sh: $busybox is not static (install busybox-static)" >&2
	exit 1
fi

# The modules and their load order. -a: without it modprobe takes the second
# and later names as *parameters* of the first module. Dependencies shared by
# several modules are listed once per module, so keep first occurrences only.
# "builtin NAME" lines (6.12 has virtio_pci =y) need nothing.
kos=()
if [ -n "$kver" ]; then
	[ -d "$modroot/lib/modules/$kver" ] || { echo "mkinitramfs.sh: no $modroot/lib/modules/$kver" >&2; exit 1; }
	mapfile -t kos < <(modprobe -a -d "$modroot" -S "$kver" --show-depends virtio_pci "${fs_mods[@]}" overlay |
		awk '$1 == "insmod" && !seen[$2]++ { print $2 }')
fi

key=$( (cat "$here/init" "$0" "$busybox"; for ko in "${kos[@]}"; do stat -c '%n %s %Y' "$ko"; done) |
	sha1sum | cut -c1-12)
name=initramfs-${kver:-builtin}
[ "$fs" = 9p ] || name+=-$fs
out=$cache/$name-$key.cpio
if [ -f "$out" ]; then
	touch "$out"	# mtime = last use, for the clean-up below
	echo "$out"
	exit 0
fi

mkdir -p "$cache"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,modules}
cp "$busybox" "$stage/bin/busybox"
install -m 0755 "$here/init" "$stage/init"

# Busybox insmod hands the file to the kernel as is, and only some kernels
# (CONFIG_MODULE_DECOMPRESS) can unpack it; decompress here so any kernel can.
n=0
for ko in "${kos[@]}"; do
	n=$((n + 1))
	base=$(basename "$ko")
	dst=$(printf '%02d-%s' "$n" "${base%%.ko*}.ko")
	case $ko in
	*.ko) cp "$ko" "$stage/modules/$dst" ;;
	*.ko.xz) xz -dc "$ko" >"$stage/modules/$dst" ;;
	*.ko.zst) zstd -dcq "$ko" >"$stage/modules/$dst" ;;
	*.ko.gz) gzip -dc "$ko" >"$stage/modules/$dst" ;;
	*) echo "mkinitramfs.sh: unknown module format: $ko" >&2; exit 1 ;;
	esac
	echo "$dst" >>"$stage/modules/order"
done

# Uncompressed: the kernel unpacks it faster than it could decompress it under TCG.
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) >"$out.tmp.$$"
mv "$out.tmp.$$" "$out"
# Older versions for the same kernel are dead weight, but a run from another
# checkout may be booting one right now: only remove those unused for a day.
find "$cache" -maxdepth 1 -name "$name-*.cpio" ! -name "$(basename "$out")" -mmin +1440 -delete
echo "$out"
