#!/bin/bash
# profile-test.sh [-m MODULE] TEST...: run tests/user/TEST.sh with a timestamped
# xtrace of the test's own shell (not its children) and print where the time
# went, per source line: the seconds from each traced line to the next one,
# summed over the run, largest first.  Meant for the VM, e.g.
#
#   tests/vm/run.sh --kernel "$KERNEL" --modules "$MODULES" --append "kmemleak=on pci=noacpi" \
#       -- tests/vm/profile-test.sh -m build/6.1.192-svdebug/kmod/softverbs.ko 13-port
#
# Under the debug kernel every fork+exec costs 0.2-0.5 s (KASAN, kmemleak and
# lockdep on each allocation, under TCG), so a shell loop that runs grep or
# date per iteration, or a fixed-length wait scaled by SV_TIME_SCALE, shows
# up here as the top line.  The test's output is in /tmp/profile.TEST.out.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
SV_MODULE=${SV_MODULE:-}
if [ "${1:-}" = -m ]; then
	SV_MODULE=$(realpath "$2")
	shift 2
fi
SV_KVER=$(uname -r)
export SV_ROOT=$root SV_MODULE SV_TOOLS=${SV_TOOLS:-$root} SV_KVER
ip link set lo up 2>/dev/null
env=$(mktemp)
# bash ignores PS4 from the environment when run as root, so the trace is set
# up from BASH_ENV, in the test's top-level shell only (XT_FILE is unset
# before any child starts).
cat >"$env" <<'EOT'
if [ -n "${XT_FILE:-}" ]; then
	exec 7>>"$XT_FILE"
	unset XT_FILE
	PS4='+${EPOCHREALTIME} ${BASH_SOURCE##*/}:${LINENO} '
	BASH_XTRACEFD=7
	set -x
fi
EOT
for t in "$@"; do
	trace=/tmp/profile.$t.trace out=/tmp/profile.$t.out
	: >"$trace"
	start=$EPOCHREALTIME
	XT_FILE=$trace BASH_ENV=$env bash "tests/user/$t.sh" >"$out" 2>&1
	rc=$?
	echo "=== $t: exit $rc, $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
	tail -n 3 "$out" | sed 's/^/    /'
	awk '
	match($0, /^\++[0-9]+\.[0-9]+ [^ ]+ /) {
		split(substr($0, 1, RLENGTH - 1), f, " ")
		ts = f[1]; gsub(/^\++/, "", ts)
		if (prev != "") { sum[prev] += ts - pts; n[prev]++ }
		if (!(f[2] in ex)) ex[f[2]] = substr($0, RLENGTH + 1, 80)
		prev = f[2]; pts = ts
	}
	END { for (k in sum) printf "%8.1f s %5dx %-24s %s\n", sum[k], n[k], k, ex[k] }
	' "$trace" | sort -rn | head -n "${PROFILE_LINES:-20}"
done
rm -f "$env"
