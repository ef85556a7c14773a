#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run a KUnit test module inside the debug-kernel guest and print its results
# as one KTAP document on stdout (parse it on the host with kunit-parse.sh).
#
# usage: kunit-collect.sh [-o DIR] [-k] MODULE.ko [MODULE_PARAM...]
#
#   -o DIR   also copy each suite's KTAP document to DIR/<suite>.ktap and the
#            kernel log of the run to DIR/dmesg.txt
#   -k       kmemleak: clear before loading, scan after unloading, and fail
#            on new unreferenced objects (needs kmemleak=on on the command
#            line; slow under TCG, so off by default)
#
# What it does: insmod MODULE (its suites run at load time), copy every new
# /sys/kernel/debug/kunit/<suite>/results before anything can remove it,
# rmmod, and print
#
#   # softverbs-kunit-begin
#   KTAP version 1
#   1..N+1
#       <suite 1 as a KTAP subtest> ... ok 1 <suite>
#       ...
#   ok N+1 kernel_log          (or "not ok" with the offending lines)
#   # softverbs-kunit-end
#
# The extra last test, kernel_log, exists because in 6.1 lockdep, kmemleak,
# UBSAN and WARN() reports never fail a KUnit case: they only reach the
# kernel log.  It fails when the log of the run has such a report or when a
# new warning/bug taint bit appears.
#
# debugfs keeps only 512 bytes of log per test case (KUNIT_LOG_SIZE in 6.1):
# a case with long failure messages, or a parameterised case with many
# parameters, loses its final "ok" line there.  Such a suite is taken from
# the kernel log instead, where nothing is truncated.
#
# POSIX sh + awk: runs under busybox as well as a full distribution.
# Exit status: 0 all passed, 1 a test failed or the module did not load,
# 2 usage or environment error.

set -u

outdir=
kmemleak=0
while [ $# -gt 0 ]; do
	case "$1" in
	-o) outdir=$2; shift 2 ;;
	-k) kmemleak=1; shift ;;
	-h|--help) sed -n '3,40p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "kunit-collect: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: kunit-collect.sh [-o DIR] [-k] MODULE.ko [PARAM...]" >&2; exit 2; }
module=$1; shift
[ -r "$module" ] || { echo "kunit-collect: cannot read $module" >&2; exit 2; }

dbg=/sys/kernel/debug
kunit_dir=$dbg/kunit
if [ ! -d "$dbg/kunit" ] && ! grep -q " $dbg debugfs " /proc/mounts; then
	mount -t debugfs debugfs "$dbg" 2>/dev/null
fi
if [ ! -d "$kunit_dir" ]; then
	echo "kunit-collect: no $kunit_dir: kernel without CONFIG_KUNIT_DEBUGFS?" >&2
	exit 2
fi

tmp=$(mktemp -d /tmp/kunit-collect.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# Taint bits that mean a report happened: B(5) bad page, D(7) oops,
# W(9) warning, L(14) soft lockup.  O, E and N (test) are expected.
BAD_TAINT=$(( (1 << 5) | (1 << 7) | (1 << 9) | (1 << 14) ))
taint_before=$(cat /proc/sys/kernel/tainted)

ls -1 "$kunit_dir" | sort > "$tmp/suites.before"

if [ $kmemleak -eq 1 ]; then
	if ! echo clear > "$dbg/kmemleak" 2>/dev/null; then
		echo "kunit-collect: -k but kmemleak is not active (boot with kmemleak=on)" >&2
		exit 2
	fi
fi

# A marker in the kernel log: everything after it belongs to this run.
marker="softverbs-kunit-collect: start $$-$(date +%s)"
echo "$marker" > /dev/kmsg

insmod_rc=0
# insmod resolves no dependencies: load the modules the suites' code under
# test links against first (udp_tunnel, ...), as modprobe would.
for dep in $(modinfo -F depends "$module" 2>/dev/null | tr ',' ' '); do
	modprobe -q "$dep" 2>> "$tmp/insmod.err" || true
done
insmod "$module" "$@" 2>> "$tmp/insmod.err" || insmod_rc=$?

ls -1 "$kunit_dir" | sort > "$tmp/suites.after"
suites=$(comm -13 "$tmp/suites.before" "$tmp/suites.after")
for s in $suites; do
	cp "$kunit_dir/$s/results" "$tmp/$s.ktap"
done

if [ $insmod_rc -eq 0 ]; then
	modname=$(basename "$module" .ko | tr - _)
	rmmod "$modname" 2>> "$tmp/insmod.err" || echo "kunit-collect: rmmod $modname failed" >&2
fi

if [ $kmemleak -eq 1 ]; then
	# Two scans: an object freed late can look leaked in the first one.
	echo scan > "$dbg/kmemleak"
	echo scan > "$dbg/kmemleak"
	cat "$dbg/kmemleak" > "$tmp/kmemleak.txt"
fi

# Kernel log since the marker, timestamps stripped.
dmesg | awk -v m="$marker" '
	{ sub(/^(<[0-9]+>)?\[ *[0-9.]+\] ?/, "") }
	found { print }
	index($0, m) { found = 1 }' > "$tmp/dmesg.txt"

taint_after=$(cat /proc/sys/kernel/tainted)
new_taint=$(( (taint_after & ~taint_before) & BAD_TAINT ))

# Is a suite's debugfs document complete?  It is when the number of case
# result lines at one level of indentation equals the plan.
complete() {
	awk '
		/^    1\.\.[0-9]+$/ && !plan { plan = substr($0, 8) + 0 }
		/^    (not )?ok [0-9]+ / { n++ }
		END { exit !(plan > 0 && n == plan) }' "$1"
}

# The same suite from the kernel log, as a complete KTAP document.
from_dmesg() {
	awk -v s="$1" '
		$0 == "    # Subtest: " s { on = 1; print "KTAP version 1"; print "1..1"
				       print "    KTAP version 1" }
		on { print }
		on && $0 ~ ("^(not )?ok [0-9]+ " s "( |$)") { exit }' "$tmp/dmesg.txt"
}

# Patterns of reports that do not fail a KUnit case by themselves.
REPORTS='BUG:|WARNING:|INFO: possible|possible circular locking|possible recursive locking|inconsistent lock state|unreferenced object|UBSAN:|KASAN:|general protection fault|Oops|Call Trace:|ODEBUG:|list_add corruption|list_del corruption|kernel BUG at|refcount_t:'

n=0
for s in $suites; do n=$((n + 1)); done
nplan=$((n + 1))			# the suites + kernel_log
[ $insmod_rc -ne 0 ] && nplan=$((nplan + 1))	# + insmod

{
	echo "# softverbs-kunit-begin"
	echo "KTAP version 1"
	echo "1..$nplan"
	i=0
	for s in $suites; do
		i=$((i + 1))
		doc=$tmp/$s.ktap
		if ! complete "$doc"; then
			echo "# $s: debugfs log truncated (512 bytes per case), using the kernel log"
			from_dmesg "$s" > "$tmp/$s.dmesg.ktap"
			if complete "$tmp/$s.dmesg.ktap"; then
				doc=$tmp/$s.dmesg.ktap
				cp "$doc" "$tmp/$s.ktap"
			fi
		fi
		# Drop the per-document header, renumber the suite's result line.
		awk -v i="$i" '
			NR <= 2 && (/^KTAP version/ || /^1\.\./) { next }
			/^(not )?ok [0-9]+ / { sub(/ok [0-9]+ /, "ok " i " ") }
			{ print }' "$doc"
	done
	i=$((i + 1))
	if [ $insmod_rc -ne 0 ]; then
		echo "# insmod $module failed (exit $insmod_rc):"
		sed 's/^/# /' "$tmp/insmod.err"
		echo "not ok $i insmod"
		i=$((i + 1))
	fi
	bad_log=$(grep -E "$REPORTS" "$tmp/dmesg.txt" | head -n 40)
	leaks=
	if [ $kmemleak -eq 1 ] && [ -s "$tmp/kmemleak.txt" ]; then
		leaks=$(grep -c 'unreferenced object' "$tmp/kmemleak.txt")
	fi
	if [ -n "$bad_log" ] || [ $new_taint -ne 0 ] || [ -n "$leaks" ]; then
		[ -n "$bad_log" ] && printf '%s\n' "$bad_log" | sed 's/^/# kernel: /'
		[ $new_taint -ne 0 ] && echo "# new taint bits: $new_taint (tainted=$taint_after)"
		[ -n "$leaks" ] && { echo "# kmemleak: $leaks unreferenced object(s):"
				     head -n 60 "$tmp/kmemleak.txt" | sed 's/^/# /'; }
		echo "not ok $i kernel_log"
	else
		echo "ok $i kernel_log"
	fi
	echo "# softverbs-kunit-end"
} > "$tmp/all.ktap"

cat "$tmp/all.ktap"

if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	for s in $suites; do cp "$tmp/$s.ktap" "$outdir/$s.ktap"; done
	cp "$tmp/dmesg.txt" "$outdir/dmesg.txt"
	cp "$tmp/all.ktap" "$outdir/all.ktap"
	[ -f "$tmp/kmemleak.txt" ] && cp "$tmp/kmemleak.txt" "$outdir/kmemleak.txt"
fi

# Verdict: any top-level "not ok", or no suite at all.
if [ $n -eq 0 ] || grep -q '^not ok ' "$tmp/all.ktap"; then
	exit 1
fi
exit 0
