#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of the KUnit run: turn the KTAP printed by kunit-collect.sh
# (inside the guest) into per-case pass/fail counts and a verdict.
#
# usage: kunit-parse.sh [--kunit-py] [-v] FILE
#
#   FILE        kunit-collect.sh output, possibly with other output around it
#               (a serial log): the part between "# softverbs-kunit-begin"
#               and "# softverbs-kunit-end" is used when the markers are
#               there (the last such block), the whole file otherwise.  A
#               prefix before the begin marker (guest-tests.sh prints the
#               block as "# " TAP diagnostics) is stripped from the block.
#               "-" reads standard input.
#   -v          list every case, not only the failed ones
#   --kunit-py  also run the kernel's tools/testing/kunit/kunit.py parse on
#               it (from the debug kernel's extracted source, or $KUNIT_PY)
#               and fail if it disagrees
#
# Output: one line per suite, each failed case with its diagnostics, and
# as the last line
#   kunit: N passed, N failed, N skipped
# Counting: one per test case (a parameterised case counts once); a
# top-level test without cases (kernel_log, insmod) counts as one case.
# A case missing from a suite's plan, a suite missing from the top-level
# plan, or a file with no KTAP at all counts as a failure: a crash in the
# middle of a run must never read as a pass.
# Exit status: 0 when nothing failed and at least one case passed.

set -euo pipefail

verbose=0
kunit_py=0
while [ $# -gt 0 ]; do
	case "$1" in
	-v) verbose=1; shift ;;
	--kunit-py) kunit_py=1; shift ;;
	-h|--help) sed -n '3,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-) break ;;
	-*) echo "kunit-parse: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: kunit-parse.sh [--kunit-py] [-v] FILE" >&2; exit 2; }
input=$1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Normalise: CRs from a serial console go, the last marked block is kept.
cat -- "$input" | tr -d '\r' > "$tmp/raw"
# The block may arrive nested with a prefix on every line, e.g. as TAP
# diagnostics ("# ") of tests/vm/guest-tests.sh: whatever stands before the
# begin marker is stripped from each line of the block.
if grep -q '# softverbs-kunit-begin$' "$tmp/raw"; then
	awk '/# softverbs-kunit-begin$/ {
		n = 0; delete buf; on = 1
		pfx = substr($0, 1, length($0) - length("# softverbs-kunit-begin"))
		next
	     }
	     on && $0 == pfx "# softverbs-kunit-end" { on = 0; next }
	     on {
		line = $0
		if (substr(line, 1, length(pfx)) == pfx)
			line = substr(line, length(pfx) + 1)
		else if (pfx ~ / $/ && line == substr(pfx, 1, length(pfx) - 1))
			line = ""	# an empty line with its prefix trimmed
		buf[n++] = line
	     }
	     END { for (i = 0; i < n; i++) print buf[i] }' "$tmp/raw" > "$tmp/ktap"
else
	cp "$tmp/raw" "$tmp/ktap"
fi

rc=0
awk -v verbose="$verbose" '
function flush_suite() {
	if (suite == "")
		return
	if (splan > sseen) {
		printf "kunit: FAIL %s: %d of %d cases have no result (crash or truncated log)\n", \
		       suite, splan - sseen, splan
		failed += splan - sseen
		sfail += splan - sseen
	}
	printf "kunit: %s: %d passed, %d failed, %d skipped\n", suite, spass, sfail, sskip
}
function case_result(line, name, indent,    ok, skip, desc) {
	ok = (line !~ /^not ok/)
	skip = (line ~ /# SKIP/)
	desc = line
	sub(/^(not )?ok [0-9]+ /, "", desc)
	sub(/ # SKIP.*/, "", desc)
	if (skip) {
		skipped++; sskip++
		if (verbose) printf "kunit:   SKIP %s%s\n", name, desc
	} else if (ok) {
		passed++; spass++
		if (verbose) printf "kunit:   ok   %s%s\n", name, desc
	} else {
		failed++; sfail++
		printf "kunit: FAIL %s%s\n", name, desc
		if (diag != "") printf "%s", diag
	}
	diag = ""
}
BEGIN { suite = ""; top_plan = -1; top_seen = 0; header = 0 }
/^KTAP version [0-9]+$/ || /^TAP version [0-9]+$/ { header = 1; next }
/^1\.\.[0-9]+$/ && top_plan < 0 { top_plan = substr($0, 4) + 0; next }
/^    # Subtest: / {
	flush_suite()
	suite = substr($0, 16); splan = 0; sseen = 0; spass = sfail = sskip = 0
	diag = ""; in_suite = 1
	next
}
/^    1\.\.[0-9]+$/ && in_suite { splan = substr($0, 8) + 0; next }
/^    (not )?ok [0-9]+ / && in_suite {
	sseen++
	line = substr($0, 5)
	case_result(line, suite ".", "    ")
	next
}
/^    / && in_suite {		# case diagnostics and parameter results
	diag = diag "kunit:     " substr($0, 5) "\n"
	next
}
/^(not )?ok [0-9]+ / {
	top_seen++
	name = $0
	sub(/^(not )?ok [0-9]+ /, "", name)
	sub(/ # SKIP.*/, "", name)
	if (in_suite) {
		# End of a suite: its own verdict must agree with its cases.
		flush_suite()
		if ($0 ~ /^not ok/ && sfail == 0) {
			printf "kunit: FAIL %s: suite failed outside its cases (init/exit)\n", suite
			failed++
		}
		suite = ""; in_suite = 0
	} else {
		# A top-level test without cases (kernel_log, insmod).
		spass = sfail = sskip = 0
		case_result($0, "", "")
		if ($0 ~ /^not ok/) printf "%s", topdiag
		else if (!verbose) printf "kunit: %s: ok\n", name
	}
	topdiag = ""
	next
}
/^# / && !in_suite { topdiag = topdiag "kunit:     " substr($0, 3) "\n"; next }
END {
	if (in_suite) {
		flush_suite()
		printf "kunit: FAIL %s: suite has no result line (crash?)\n", suite
		failed++
	}
	if (!header) {
		print "kunit: FAIL no KTAP document found (module not run, or guest crashed)"
		failed++
	} else if (top_plan > top_seen) {
		printf "kunit: FAIL %d of %d top-level tests have no result (crash?)\n", \
		       top_plan - top_seen, top_plan
		failed += top_plan - top_seen
	}
	printf "kunit: %d passed, %d failed, %d skipped\n", passed, failed, skipped
	exit (failed > 0 || passed == 0)
}' "$tmp/ktap" || rc=1

if [ $kunit_py -eq 1 ]; then
	py=${KUNIT_PY:-}
	if [ -z "$py" ]; then
		py=$(ls -1d "${SV_CACHE:-/var/tmp/softverbs-cache}"/linux-source-*/tools/testing/kunit/kunit.py \
			2>/dev/null | tail -n1 || true)
	fi
	if [ -z "$py" ] || [ ! -f "$py" ]; then
		echo "kunit-parse: --kunit-py: kunit.py not found (set KUNIT_PY)" >&2
		rc=1
	elif ! python3 "$py" parse "$tmp/ktap" > "$tmp/kunit-py.out" 2>&1; then
		echo "kunit-parse: kunit.py parse reports failure:" >&2
		sed 's/^/  /' "$tmp/kunit-py.out" >&2
		rc=1
	fi
fi
exit $rc
