#!/bin/bash
# guest-tests.sh [-m MODULE] [-k KUNIT_KO] [-t SECONDS] [FILTER]: run the softverbs
# tests inside the test VM (or on a scratch host, as root) and print TAP 13.
#
#   -m MODULE    softverbs.ko to test (default $SV_MODULE; empty: tests modprobe it)
#   -k KUNIT_KO  KUnit module to run first through tests/kernel/kunit-collect.sh
#                (default $SV_KUNIT_MODULE, else tests/kunit/softverbs_kunit.ko
#                next to MODULE's build dir if it exists)
#   -t SECONDS   per-test timeout (default $SV_TEST_TIMEOUT, else 600, 1800 on a
#                KASAN kernel: TCG on a busy 2-core host runs a 20-second test
#                for minutes)
#   FILTER       extended regex; only tests whose name matches run (kunit and
#                tests/user names; the final kmemleak and taint checks always run);
#                "!REGEX" runs the tests whose name does not match
#
# Each tests/user/[0-9]*.sh runs in name order, from a cleared kernel log:
# exit 0 = ok, 4 = skip (reason: its last "SKIP: ..." line), else not ok. A
# test whose run left a kernel report in dmesg (BUG, WARNING, lockdep, KASAN,
# ...) or set a new taint bit fails too. Then, if the kernel has kmemleak, a
# "kmemleak" test scans for leaks, and a "taint" test checks the final taint
# mask. Output: "ok N - name", "not ok N - name", "ok N - name # SKIP why",
# a failing test's output as "# " diagnostic lines, a test's "SV_SUMMARY: X"
# lines as "# summary: X" (always), "# time: NAME MS ms" after each test,
# the plan "1..N" last.
# KUnit output is always printed as diagnostics, so the host can feed it to
# tests/kernel/kunit-parse.sh after stripping the "# ".
# Exported to the tests: SV_ROOT, SV_MODULE, SV_TOOLS, SV_KVER.
# Exit status: 0 if nothing failed, 1 otherwise.
set -uo pipefail

SV_ROOT=${SV_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SV_MODULE=${SV_MODULE:-}
SV_KUNIT_MODULE=${SV_KUNIT_MODULE:-}
timeout_s=${SV_TEST_TIMEOUT:-600}
# A KASAN kernel (the debug kernel) runs everything several times slower.
# (Command output is grepped as a copy, <<<"$(CMD)", here and below: with
# pipefail, "CMD | grep -q" is false when CMD still writes after grep's
# match and dies of SIGPIPE; see tests/user/lib.sh.)
if [ -z "${SV_TEST_TIMEOUT:-}" ] && [ -r /proc/config.gz ] &&
	grep -qx 'CONFIG_KASAN=y' <<<"$(zcat /proc/config.gz 2>/dev/null)"; then
	timeout_s=1800
fi
while getopts m:k:t: opt; do
	case $opt in
	m) SV_MODULE=$OPTARG ;;
	k) SV_KUNIT_MODULE=$OPTARG ;;
	t) timeout_s=$OPTARG ;;
	*) sed -n '2,/^set -uo/{/^set/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
filter=${1:-}

[ -z "$SV_MODULE" ] || SV_MODULE=$(realpath -m "$SV_MODULE")
# build/KVER/kmod/softverbs.ko -> build/KVER/tests/kunit/softverbs_kunit.ko
if [ -z "$SV_KUNIT_MODULE" ] && [ -n "$SV_MODULE" ]; then
	k=$(dirname "$(dirname "$SV_MODULE")")/tests/kunit/softverbs_kunit.ko
	[ -f "$k" ] && SV_KUNIT_MODULE=$k
fi
SV_TOOLS=${SV_TOOLS:-$SV_ROOT}
SV_KVER=$(uname -r)
export SV_ROOT SV_MODULE SV_TOOLS SV_KVER
cd "$SV_ROOT" || exit 1

# Kernel reports that mean a bug even when the test itself passed.
reports='BUG:|WARNING:|Oops|general protection|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|sleeping function called from invalid context|refcount_t|list_add corruption|list_del corruption|unreferenced object|Call Trace'
# Taint bits that are expected: O (12) out-of-tree module, E (13) unsigned
# module, N (18) a KUnit test module was loaded. Any other bit (W = warning,
# D = oops, B = bad page, L = soft lockup, ...) means something went wrong.
ok_taint=$(((1 << 12) | (1 << 13) | (1 << 18)))

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

echo "TAP version 13"
echo "# kernel $SV_KVER, module ${SV_MODULE:-(modprobe)}"

# One TCP connection over lo, IPv4 and IPv6, before any test.  The first
# one enables static keys (inet_ehashfn()'s DO_ONCE of its hash secret) by
# patching kernel text with int3 breakpoints.  Under TCG a second vCPU once
# took such a breakpoint after the patching was done: a panic in
# inet_ehashfn(), "Fatal exception in interrupt", at the first TCP connect
# of 33-ulib-stock while the other CPU ran softirqs (6.12, 2026-11-26; one
# run in many).  Here nothing else runs yet.
python3 - <<'PY' >/dev/null 2>&1 || true
import socket
for fam, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    s = socket.socket(fam)
    s.bind((host, 0))
    s.listen(1)
    c = socket.create_connection(s.getsockname()[:2])
    a, _ = s.accept()
    c.sendall(b"x")
    a.recv(1)
    for x in (c, a, s):
        x.close()
PY

# A memory cgroup made and removed, for the same reason: the first one
# enables the kernel's kmem-accounting static key, patching every
# kmem_cache_alloc() site the same way.  When 18-links' systemd made its
# cgroups a second vCPU took such a breakpoint in kmem_cache_alloc_noprof(),
# an int3 Oops (6.12, 2026-11-30).  The key stays on, as on any host whose
# systemd made cgroups; the hierarchy is left as it was.
if [ "$(awk '$1 == "memory" { print $4 }' /proc/cgroups 2>/dev/null)" = 1 ] &&
	mkdir -p "$tmp/cg" && mount -t cgroup2 none "$tmp/cg" 2>/dev/null; then
	had=$(grep -cw memory "$tmp/cg/cgroup.subtree_control")
	echo +memory >"$tmp/cg/cgroup.subtree_control" 2>/dev/null
	mkdir "$tmp/cg/sv-warm" 2>/dev/null && rmdir "$tmp/cg/sv-warm"
	[ "$had" != 0 ] || echo -memory >"$tmp/cg/cgroup.subtree_control" 2>/dev/null
	umount "$tmp/cg"
fi

# diag FILE [MAX_LINES]: a file as TAP diagnostics (capped: a runaway test
# must not flood the serial port).
diag() { head -n "${2:-200}" "$1" | sed 's/^/# /'; }

# result NAME RC OUTPUT_FILE [always]: print the TAP line for one test, and
# its output as diagnostics if it failed (or always, with "always").
result() {
	local name=$1 rc=$2 out=$3 show=${4:-} why
	n=$((n + 1))
	case $rc in
	0) echo "ok $n - $name" ;;
	4)
		why=$(sed -n 's/^SKIP: //p' "$out" | tail -n 1)
		echo "ok $n - $name # SKIP ${why:-no reason given}"
		;;
	*)
		failed=$((failed + 1))
		echo "not ok $n - $name"
		show=always
		;;
	esac
	[ "$show" != always ] || diag "$out" 2000
	# a test's own counts (e.g. a third-party suite's) go out even when
	# it passes: the host shows them in its summary
	sed -n 's/^SV_SUMMARY: /# summary: /p' "$out"
}

# kernel_check OUT TAINT_BEFORE: append kernel reports and new taint bits
# from the test's run to OUT; fails if there were any.
kernel_check() {
	local out=$1 before=$2 after new bad=0
	if grep -Eq "$reports" <<<"$(dmesg)"; then
		echo "--- kernel log of this test (it has reports):" >>"$out"
		dmesg | tail -n 150 >>"$out"
		bad=1
	fi
	after=$(cat /proc/sys/kernel/tainted)
	new=$(((after & ~before) & ~ok_taint))
	if [ $new -ne 0 ]; then
		echo "--- new taint bits $new (tainted=$after)" >>"$out"
		bad=1
	fi
	return $bad
}

# Setup: the RDMA core every test needs. A failure here is a test failure,
# not a silent skip of everything after it.
{
	modprobe ib_core && modprobe ib_uverbs &&
		{ ! modinfo rdma_ucm >/dev/null 2>&1 || modprobe rdma_ucm; }
} >"$tmp/setup.out" 2>&1
setup_rc=$?
[ $setup_rc -eq 0 ] || result setup $setup_rc "$tmp/setup.out"

# kmemleak: forget whatever the boot leaked, so the final scan reports
# only what the tests did. Writing fails when kmemleak is off (kmemleak=off).
kmemleak=/sys/kernel/debug/kmemleak
have_kmemleak=0
if [ -e $kmemleak ] && echo clear >$kmemleak 2>/dev/null; then
	have_kmemleak=1
fi

# run_test NAME [--show] CMD...: one test, from a cleared kernel log, with a
# timeout; --show prints its output even when it passes.
run_test() {
	local name=$1 out=$tmp/out rc taint show= t0
	shift
	[ "$1" != --show ] || { show=always; shift; }
	case $filter in
	'') ;;
	!*) [[ ! $name =~ ${filter#!} ]] || return 0 ;;
	*) [[ $name =~ $filter ]] || return 0 ;;
	esac
	dmesg -C
	taint=$(cat /proc/sys/kernel/tainted)
	t0=$(date +%s%N)
	timeout -k 10 "$timeout_s" "$@" </dev/null >"$out" 2>&1
	rc=$?
	t0=$((($(date +%s%N) - t0) / 1000000))
	[ $rc -eq 124 ] && echo "--- timed out after ${timeout_s}s" >>"$out"
	if ! kernel_check "$out" "$taint" && [ $rc -eq 0 -o $rc -eq 4 ]; then
		rc=1
	fi
	result "$name" $rc "$out" $show
	echo "# time: $name ${t0} ms"
}

if [ -n "$SV_KUNIT_MODULE" ] && [ -x tests/kernel/kunit-collect.sh ]; then
	# Its KTAP goes out as diagnostics even when it passes: the host counts
	# the KUnit cases from it.
	run_test kunit --show tests/kernel/kunit-collect.sh "$SV_KUNIT_MODULE"
fi

for t in tests/user/[0-9]*.sh; do
	[ -e "$t" ] || continue
	run_test "$(basename "$t" .sh)" bash "$t"
done

if [ $have_kmemleak -eq 1 ]; then
	# Two scans with a pause: objects freed by RCU or a workqueue right
	# after a test can look unreferenced in the first one.
	# A scan refused (kmemleak=off accepts "clear" but not "scan", or
	# kmemleak turned itself off on an internal error) proves nothing: a
	# skip that says so, never an "ok".
	if ! { echo scan >$kmemleak; } 2>"$tmp/leaks"; then
		echo "SKIP: kmemleak refused to scan ($(cat "$tmp/leaks")): off on this boot (kmemleak=off) or disabled after an error" >>"$tmp/leaks"
		result kmemleak 4 "$tmp/leaks"
	else
		sleep 5
		echo scan >$kmemleak
		cat $kmemleak >"$tmp/leaks"
		if [ -s "$tmp/leaks" ]; then
			result kmemleak 1 "$tmp/leaks"
		else
			result kmemleak 0 "$tmp/leaks"
		fi
	fi
fi

taint=$(cat /proc/sys/kernel/tainted)
if [ $((taint & ~ok_taint)) -ne 0 ]; then
	echo "tainted=$taint; unexpected bits $((taint & ~ok_taint)) (see Documentation/admin-guide/tainted-kernels.rst)" >"$tmp/taint"
	result taint 1 "$tmp/taint"
else
	echo "tainted=$taint" >"$tmp/taint"
	result taint 0 "$tmp/taint"
fi

echo "1..$n"
[ $failed -eq 0 ]
