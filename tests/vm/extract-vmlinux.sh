#!/bin/bash
# extract-vmlinux.sh BZIMAGE OUT: write the uncompressed ELF kernel inside a bzImage to OUT.
#
# Why: under TCG the guest decompressing its own kernel is slow; booting the
# ELF vmlinux directly (qemu's PVH entry) takes a 6.1 kernel to userspace in
# ~2.2 s instead of ~6 s. Debian's headers packages do not ship the kernel's
# scripts/extract-vmlinux, so this reads the boot protocol header instead of
# scanning for compression magics: the payload sits at
# (setup_sects + 1) * 512 + payload_offset and is payload_length bytes long
# (boot protocol >= 2.08, Documentation/x86/boot.rst).
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 BZIMAGE OUT" >&2
	exit 2
fi
img=$1 out=$2

# le32 FILE OFFSET [BYTES]: little-endian unsigned integer at OFFSET.
le() { od -An -t "u$3" -j "$2" -N "$3" --endian=little "$1" | tr -d ' '; }

if [ "$(dd if="$img" bs=1 skip=$((0x202)) count=4 status=none)" != HdrS ]; then
	echo "extract-vmlinux.sh: $img is not a bzImage" >&2
	exit 1
fi
setup_sects=$(le "$img" $((0x1f1)) 1)
[ "$setup_sects" -eq 0 ] && setup_sects=4	# boot.rst: 0 means 4
payload_offset=$(le "$img" $((0x248)) 4)
payload_length=$(le "$img" $((0x24c)) 4)
start=$(((setup_sects + 1) * 512 + payload_offset))

payload() { tail -c +$((start + 1)) "$img" | head -c "$payload_length"; }

# The payload has the kernel's 4-byte size appended, which some decompressors
# call trailing garbage; so ignore their exit code and check for an ELF instead.
magic=$(od -An -t x1 -j "$start" -N 4 "$img" | tr -d ' ')
case $magic in
1f8b*) dec=(gzip -dc) ;;
fd377a58) dec=(xz -dc --single-stream) ;;
28b52ffd) dec=(zstd -dcq) ;;
425a68*) dec=(bzip2 -dc) ;;
5d0000*) dec=(lzma -dc) ;;
894c5a4f) dec=(lzop -dc) ;;
02214c18) dec=(lz4 -dc) ;;
*) echo "extract-vmlinux.sh: unknown compression (magic $magic) in $img" >&2; exit 1 ;;
esac

tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
payload | "${dec[@]}" >"$tmp" 2>/dev/null || true
if [ "$(od -An -t x1 -N 4 "$tmp" | tr -d ' ')" != 7f454c46 ]; then
	echo "extract-vmlinux.sh: ${dec[0]} did not produce an ELF from $img" >&2
	exit 1
fi
mv "$tmp" "$out"
