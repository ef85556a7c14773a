#!/bin/bash
# Build softverbs.ko out of tree for one kernel: build-kmod.sh KDIR OUTDIR
#
#   KDIR    kernel build tree (/lib/modules/KVER/build, or a debug kernel's O= dir)
#   OUTDIR  where the module is built; the result is OUTDIR/kmod/softverbs.ko
#           (and OUTDIR/tests/kunit/*.ko when the KUnit suites are present)
#
# The sources are copied into OUTDIR first so builds for several kernels never
# share objects and the source tree stays clean. The top-level Kbuild is the
# same entry point DKMS uses, so this exercises the packaging path too.
# Env: CC (e.g. "ccache gcc-12") is passed to kbuild if set; JOBS (default nproc);
# SV_KBUILD_ARGS adds kbuild arguments (C=2 runs sparse on every file).
# Fails on any compiler or modpost warning.
#
# The compiler is the one the kernel was built with, as its configuration
# names it: when the host lacks it (Debian 13's kernels on a Debian 12
# host), the build runs in the Debian 13 root of scripts/trixie-root.sh
# (scripts/kbuild-runner.sh).  With CC set, or the compiler on the host (a
# Debian 13 host), it runs natively.
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 KDIR OUTDIR" >&2
	exit 2
fi
kdir=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
root=$(realpath "$(dirname "$0")/..")

[ -f "$kdir/Makefile" ] || { echo "build-kmod.sh: $kdir is not a kernel build tree" >&2; exit 1; }
[ -f "$root/Kbuild" ] || { echo "build-kmod.sh: $root/Kbuild does not exist" >&2; exit 1; }

# The source list: what git tracks plus new files not yet committed, minus
# anything .gitignore'd. That keeps build products and generated headers from
# an in-tree build (kmod/compat/config.h probed for some other kernel) out of OUTDIR.
list_sources() {
	local dirs=(Kbuild dkms.conf kmod uapi)
	[ -d "$root/tests/kunit" ] && dirs+=(tests/kunit)
	if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$root" ls-files --cached --others --exclude-standard -- "${dirs[@]}"
	else
		(cd "$root" && find "${dirs[@]}" -type f ! -name '*.o' ! -name '*.ko' ! -name '.*')
	fi
}

# Copy only changed files, keeping their mtimes, so kbuild's incremental
# rebuild still works; delete files that vanished from the source since the
# last run (recorded in a manifest), so a removed .c or .h cannot linger.
manifest="$out/.sv-sources"
new_manifest=$(mktemp)
trap 'rm -f "$new_manifest"' EXIT
list_sources | sort -u | while read -r f; do
	[ -f "$root/$f" ] || continue	# tracked but deleted in the work tree
	echo "$f" >>"$new_manifest"
	if ! cmp -s "$root/$f" "$out/$f"; then
		mkdir -p "$out/$(dirname "$f")"
		cp --preserve=timestamps "$root/$f" "$out/$f"
	fi
done
if [ -f "$manifest" ]; then
	comm -23 "$manifest" "$new_manifest" | while read -r f; do rm -f "$out/$f"; done
fi
cp "$new_manifest" "$manifest"

# Debian 13's kernels on a Debian 12 host: make runs in the Debian 13 root
mapfile -t runner < <("$root/scripts/kbuild-runner.sh" "$kdir" "$out")

make_args=(-C "$kdir" M="$out" W=1 -j"${JOBS:-$(nproc)}")
[ -n "${CC:-}" ] && make_args+=(CC="$CC")
# W=1 runs the kernel's kernel-doc (Python: through its #! line up to 6.17,
# as $(PYTHON3) $(KERNELDOC) in 6.18) on each file, and the Debian 13 build
# root has no Python: skip that one check there rather than fail every file
if [ ${#runner[@]} -gt 0 ] && ! "${runner[@]}" sh -c 'command -v python3' >/dev/null 2>&1; then
	echo "build-kmod.sh: no python3 where kbuild runs: W=1 without kernel-doc" >&2
	make_args+=(KERNELDOC=true PYTHON3=true)
fi
# SV_KBUILD_ARGS: extra kbuild arguments, e.g. "C=2" for sparse (scripts/lint.sh)
# shellcheck disable=SC2206
[ -n "${SV_KBUILD_ARGS:-}" ] && make_args+=($SV_KBUILD_ARGS)

log="$out/build.log"
echo "build-kmod.sh: make ${make_args[*]} modules" >&2
# pipefail makes a make failure fail the pipeline; the log keeps the output
# for the warning scan below and for check.sh's report.
# A failed build must not leave the previous run's .ko behind for the tests.
if ! ${runner[@]+"${runner[@]}"} make "${make_args[@]}" modules 2>&1 | tee "$log"; then
	echo "build-kmod.sh: build failed for $kdir (log: $log)" >&2
	find "$out" -name '*.ko' -delete
	exit 1
fi

# Compiler warnings are "warning:", modpost's are "WARNING:"; both fail the
# build. The objects were still written, so clean them: otherwise the next
# incremental run would not recompile the file and would pass silently.
if grep -qi 'warning:' "$log"; then
	echo "build-kmod.sh: warnings in the build (log: $log):" >&2
	grep -i 'warning:' "$log" >&2
	${runner[@]+"${runner[@]}"} make "${make_args[@]}" clean >/dev/null 2>&1 || true
	exit 1
fi
