#!/bin/bash
# kbuild-runner.sh KDIR [DIR...]: the command prefix that runs kbuild for
# KDIR's kernel with the compiler that kernel was built with, one word a
# line; nothing when the host has that compiler (or CC is set).
#
# The compiler is the one the kernel's configuration names
# (CONFIG_CC_VERSION_TEXT: "gcc-12 (Debian ...)" for Debian 12's kernels,
# "x86_64-linux-gnu-gcc-14 (Debian ...)" for Debian 13's).  When the host
# lacks it (Debian 13's kernels on a Debian 12 host) the prefix runs the
# command in the Debian 13 root of trixie-root.sh (made on first use),
# with KDIR's tree and each DIR (the module's source and output)
# bind-mounted at their own paths.  Debian's headers point at their
# -common headers and kbuild scripts by absolute (/usr/src/...) or
# relative (../../lib/linux-kbuild-*) paths: a tree unpacked into the
# cache (trixie-kernel.sh) is bound whole from the directory that holds
# its usr/, headers installed on the host as their /usr/src and kbuild
# directories.
#
# Used by build-kmod.sh and make kmod:  $(kbuild-runner.sh KDIR OUT) make ...
set -euo pipefail

kdir=$(realpath "${1:?usage: kbuild-runner.sh KDIR [DIR...]}")
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

cc=
for f in "$kdir/include/config/auto.conf" "$kdir/.config"; do
	[ -f "$f" ] || continue
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}\([^ "]*\).*/\1/p' "$f" | head -n 1)
	break
done
if [ -n "${CC:-}" ] || [ -z "$cc" ] || command -v "$cc" >/dev/null; then
	exit 0
fi

binds=()
for d in "$@"; do
	binds+=(--bind "$(realpath "$d")")
done
case $kdir in
*/usr/src/*) prefix=${kdir%%/usr/src/*} ;;
*) prefix=$kdir ;;
esac
if [ -n "$prefix" ]; then
	binds+=(--bind "$prefix")
else
	binds+=(--bind /usr/src)
	for d in /usr/lib/linux-kbuild-*; do
		[ -d "$d" ] && binds+=(--bind "$d")
	done
fi
echo "kbuild-runner.sh: $cc is not on this host: building in the Debian 13 root" >&2
printf '%s\n' "$here/trixie-root.sh" run "${binds[@]}" --
