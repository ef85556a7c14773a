#!/bin/bash
# test-durations.sh [RESULTS_DIR [DURATIONS]]: DURATIONS (default
# tests/user/durations) updated with the times measured in RESULTS_DIR
# (default results/), printed on stdout.
#
# The times are the "# time: NAME MS ms" lines tests/vm/guest-tests.sh prints
# after each test into every VM's results/*/tap.txt.  A VM whose TAP says
# "# kernel KVER-svdebug" is the debug kernel (its LOCALVERSION in
# tests/kernel/debug.config), any other a stock kernel (a cloud kernel
# too); the stock column is the slowest stock kernel's time.  A test the run
# did not measure keeps its old times, so a targeted run (SV_TESTS)
# refreshes only what it ran; a test that no longer exists is dropped.  check.sh writes results/durations.new
# this way at the end of every run; to adopt it:
#
#   cp results/durations.new tests/user/durations
#
# Whole seconds are enough: they size the debug kernel's shards, whose VMs
# take 10-15 minutes, and TCG on a shared host varies by more than that.
set -euo pipefail

root=$(realpath "$(dirname "$0")/..")
results=${1:-$root/results}
old=${2:-$root/tests/user/durations}

# the tests that exist: kunit and tests/user/NAME.sh
names=kunit
for t in "$root"/tests/user/[0-9]*.sh; do
	[ -e "$t" ] || continue
	names+=" $(basename "$t" .sh)"
done

taps=()
for t in "$results"/*/tap.txt; do
	[ -f "$t" ] && taps+=("$t")
done

cat <<'EOF'
# Seconds each test took in make check's VMs: the debug kernel, and the
# slowest stock kernel ("-": not measured there).  check.sh sizes the debug
# kernel's shards from them; scripts/test-durations.sh refreshes this file
# from a run's results/ (check.sh leaves the refreshed copy in
# results/durations.new).  A test missing here is sized by its cost class.
EOF
printf '%-22s %6s %6s\n' '# name' debug stock
# The old file first (FILENAME "-"), then each TAP; a measurement replaces
# the old value of its column, the largest one if several VMs measured it.
awk -v names="$names" '
	BEGIN { n = split(names, list, " ") }
	FILENAME == "-" {
		if ($0 ~ /^#/ || NF < 3) next
		old_d[$1] = $2; old_s[$1] = $3
		next
	}
	FNR == 1 { cls = "stock" }
	/^# kernel / { cls = ($3 ~ /-svdebug,?$/) ? "debug" : "stock"; next }
	/^# time: / && $5 == "ms" {
		s = int($4 / 1000 + 0.5)
		if (cls == "debug") { if (!($3 in new_d) || s > new_d[$3]) new_d[$3] = s }
		else if (!($3 in new_s) || s > new_s[$3]) new_s[$3] = s
	}
	END {
		for (i = 1; i <= n; i++) {
			t = list[i]
			d = (t in new_d) ? new_d[t] : ((t in old_d) ? old_d[t] : "-")
			s = (t in new_s) ? new_s[t] : ((t in old_s) ? old_s[t] : "-")
			if (d == "-" && s == "-") continue
			printf "%-22s %6s %6s\n", t, d, s
		}
	}' - ${taps[@]+"${taps[@]}"} <"$( [ -f "$old" ] && echo "$old" || echo /dev/null)"
