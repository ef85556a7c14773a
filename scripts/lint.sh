#!/bin/bash
# lint.sh: source hygiene, three checks, each a TAP-style line and a verdict.
#
#   checkpatch  the kernel's scripts/checkpatch.pl (from the extracted
#               linux-source-6.1 in the cache, or KSRC=DIR) over the kernel-side
#               C files: kmod/, uapi/, tests/kunit/.  Any ERROR or WARNING fails,
#               except the few listed in scripts/lint-allow.txt with a reason.
#   sparse      kmod built with C=2 (sparse on every file) against KDIR (default
#               the 6.1 headers); any sparse or compiler warning fails.
#   cppcheck    user-space code (ulib/, tools/), warning/portability/performance.
#
# Usage: scripts/lint.sh [checkpatch|sparse|cppcheck ...]   (default: all)
# Exit 0 only when every selected check passed; a check whose tool is missing
# is reported as skipped (scripts/deps.sh installs sparse and cppcheck).
set -uo pipefail

root=$(realpath "$(dirname "$0")/..")
cd "$root" || exit 2
cache=${SV_CACHE:-/var/tmp/softverbs-cache}
checks=("$@")
[ ${#checks[@]} -eq 0 ] && checks=(checkpatch sparse cppcheck)
failed=0 passed=0

verdict() {	# NAME RC [why]
	if [ "$2" -eq 0 ]; then
		echo "ok - lint: $1"
		passed=$((passed + 1))
	elif [ "$2" -eq 4 ]; then
		echo "ok - lint: $1 # SKIP $3"
	else
		echo "not ok - lint: $1${3:+ ($3)}"
		failed=$((failed + 1))
	fi
}

kernel_sources() {
	git ls-files --cached --others --exclude-standard -- kmod uapi tests/kunit |
		grep -E '\.[ch]$' | grep -v '^kmod/compat/config\.h$' |
		grep -v '\.mod\.c$' | while read -r f; do [ -f "$f" ] && echo "$f"; done
}

run_checkpatch() {
	local cp=${KSRC:-}
	if [ -z "$cp" ]; then
		cp=$(ls -d "$cache"/linux-source-*/ 2>/dev/null | tail -1)
	fi
	cp=${cp%/}/scripts/checkpatch.pl
	[ -f "$cp" ] || { verdict checkpatch 4 "no checkpatch.pl (run scripts/debug-kernel.sh config, or set KSRC)"; return; }
	local out allow
	out=$(kernel_sources | xargs perl "$cp" --no-tree --file --terse --show-types \
		--max-line-length=100 2>/dev/null | grep -E '^[^ ]+:[0-9]+: (ERROR|WARNING):')
	allow=$(grep -vE '^\s*(#|$)' scripts/lint-allow.txt | sed 's/[[:space:]]*#.*//')
	if [ -n "$allow" ]; then
		out=$(printf '%s\n' "$out" | grep -vE -f <(printf '%s\n' "$allow"))
	fi
	out=$(printf '%s\n' "$out" | sed '/^$/d')
	if [ -n "$out" ]; then
		printf '# %s\n' "$out"
		verdict checkpatch 1 "$(printf '%s\n' "$out" | wc -l) findings"
	else
		verdict checkpatch 0
	fi
}

run_sparse() {
	local kdir=${KDIR:-}
	if [ -z "$kdir" ]; then
		kdir=$(ls -d /lib/modules/6.1.*/build 2>/dev/null | tail -1)
	fi
	command -v sparse >/dev/null || { verdict sparse 4 "sparse not installed"; return; }
	[ -n "$kdir" ] && [ -d "$kdir" ] || { verdict sparse 4 "no kernel headers"; return; }
	local log=build/lint-sparse.log
	mkdir -p build
	if SV_KBUILD_ARGS=C=2 scripts/build-kmod.sh "$kdir" build/lint-sparse >"$log" 2>&1; then
		verdict sparse 0
	else
		grep -iE 'warning:|error:' "$log" | sed 's/^/# /' | head -40
		verdict sparse 1 "see $log"
	fi
}

run_cppcheck() {
	command -v cppcheck >/dev/null || { verdict cppcheck 4 "cppcheck not installed"; return; }
	local out
	if out=$(cppcheck --enable=warning,portability,performance --error-exitcode=1 \
		--inline-suppr -q -D__linux__ -I uapi -I ulib ulib tools 2>&1); then
		verdict cppcheck 0
	else
		printf '# %s\n' "$out" | head -40
		verdict cppcheck 1
	fi
}

for c in "${checks[@]}"; do
	case $c in
	checkpatch|sparse|cppcheck) "run_$c" ;;
	*) echo "lint.sh: unknown check $c" >&2; exit 2 ;;
	esac
done
echo "lint: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
