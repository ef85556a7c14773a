#!/bin/bash
# check.sh: the whole softverbs test matrix, one verdict (the engine of `make check`).
#
#   1. scripts/deps.sh                      packages present (installs them as root)
#   2. make -C ulib, make -C tools          userspace, where a Makefile exists
#   3. make -C ulib test                    host unit tests, if the target exists
#   4. for each stock kernel with /boot/vmlinuz-KVER and /lib/modules/KVER/build:
#        scripts/build-kmod.sh -> build/KVER/, then a VM (tests/vm/run.sh) running
#        tests/vm/guest-tests.sh: KUnit (if built), tests/user/*, leak/taint checks
#   5. the debug kernel (scripts/debug-kernel.sh build: KASAN, lockdep, kmemleak,
#      KUnit), the same way, booted with kmemleak=on
#
# Every build step and every test counts: a build is one test (passed or failed),
# a VM contributes its TAP results (KUnit cases counted one by one), a VM that
# times out or dies adds one failure. Logs go to results/ (console, TAP, build
# logs per kernel). The last line is exactly "N passed, N failed[, N skipped]";
# the exit status is 1 if anything failed.
#
# Environment:
#   SV_KERNELS="KVER..."  stock kernels to test (default: all installed with headers;
#                         "none": only the debug kernel)
#   SV_DEBUG_KERNEL=0     skip the debug kernel (its first build takes ~13 min)
#   SV_LINT=0             skip scripts/lint.sh (checkpatch, sparse, cppcheck)
#   SV_TESTS=REGEX        only the tests whose name matches (tests/user/NAME.sh, kunit)
#   SV_DEBUG_TESTS=REGEX  the debug kernel's selection (default: KUnit, 1x, 2x, 43, 55)
#   SV_VM_TIMEOUT=SEC     per-VM timeout (default: 600 + 600 per test; x2 for the
#                         debug kernel). Only a backstop for a guest that hangs
#                         whole: each test also has its own timeout in the guest.
#   SV_DKMS=0             skip the DKMS install (as root it installs through DKMS
#                         for tests/user/16-dkms.sh and removes it at exit)
#   SV_HOST_TIMEOUT=SEC   timeout of the host unit tests (default 600)
#   CC                    e.g. "ccache gcc-12", passed to the module build
set -euo pipefail

root=$(realpath "$(dirname "$0")/..")
cd "$root"
# Two checks at once would clobber each other's build/ and results/: queue up.
mkdir -p build
exec 9>build/.check.lock
if ! flock -n 9; then
	echo "[check] another check.sh is running in $root; waiting for it" >&2
	flock 9
fi
results=$root/results
rm -rf "$results"
mkdir -p "$results"

# --- bookkeeping -------------------------------------------------------------

total_pass=0 total_fail=0 total_skip=0
rows=()		# "suite|passed|failed|skipped|seconds|note" for the summary
timings=()	# "stage|seconds"

now() { date +%s.%N; }
secs() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }
say() { printf '[check] %s\n' "$*"; }

# row SUITE PASSED FAILED SKIPPED SECONDS [NOTE]
row() {
	rows+=("$1|$2|$3|$4|$5|${6:-}")
	total_pass=$((total_pass + $2))
	total_fail=$((total_fail + $3))
	total_skip=$((total_skip + $4))
}

# stage NAME CMD...: run one timed step, its output to results/NAME.log.
stage() {
	local name=$1 t0 rc=0
	shift
	t0=$(now)
	"$@" >"$results/$name.log" 2>&1 || rc=$?
	stage_secs=$(secs "$t0")
	timings+=("$name|$stage_secs")
	if [ $rc -eq 0 ]; then
		say "$name: ok (${stage_secs}s)"
	else
		say "$name: FAILED, exit $rc (${stage_secs}s), log: results/$name.log"
		tail -n 20 "$results/$name.log" | sed 's/^/    /'
	fi
	return $rc
}

# count_tap FILE: "passed failed skipped" of the TAP result lines in FILE.
count_tap() {
	awk '/^ok [0-9]+ .*# SKIP/ { s++; next }
	     /^ok [0-9]+/ { p++ }
	     /^not ok [0-9]+/ { f++ }
	     END { print p + 0, f + 0, s + 0 }' "$1"
}

# --- host: dependencies, userspace build, unit tests -------------------------

stage deps bash scripts/deps.sh || { row deps 0 1 0 "$stage_secs" "missing packages"; }

for dir in ulib tools; do
	[ -f "$dir/Makefile" ] || continue
	if stage "build-$dir" make -C "$dir" -j"$(nproc)"; then
		row "host: $dir build" 1 0 0 "$stage_secs"
	else
		row "host: $dir build" 0 1 0 "$stage_secs" "build failed"
	fi
done

if [ -f ulib/Makefile ] && grep -q '^test:' ulib/Makefile; then
	rc=0
	# A hung host test must not hang the whole check.
	stage host-tests timeout -k 10 "${SV_HOST_TIMEOUT:-600}" make -C ulib test || rc=$?
	log=$results/host-tests.log
	# The suite's closing "N passed, N failed" line if it prints one, else TAP.
	counts=$(sed -n 's/^.*\b\([0-9]\+\) passed, \([0-9]\+\) failed\(, \([0-9]\+\) skipped\)\?.*$/\1 \2 \4/p' "$log" | tail -n 1)
	[ -n "$counts" ] || counts=$(count_tap "$log")
	read -r p f s <<<"$counts"
	s=${s:-0}
	# A failing run that reported no failure (crash, build error) still failed.
	[ $rc -eq 0 ] || [ "$f" -gt 0 ] || f=1
	[ $rc -ne 0 ] || [ $((p + f + s)) -gt 0 ] || p=1
	row "host: ulib tests" "$p" "$f" "$s" "$stage_secs" "$([ $rc -eq 0 ] || echo "exit $rc")"
fi

# --- svctl offline checks (tools/selftest.sh; management plane, mg) ---
if [ -f tools/Makefile ] && grep -q '^test:' tools/Makefile; then
	if stage svctl-selftest make -C tools test; then
		row "host: svctl selftest" 1 0 0 "$stage_secs"
	else
		row "host: svctl selftest" 0 1 0 "$stage_secs" "$(grep -c '^FAIL' "$results/svctl-selftest.log" 2>/dev/null) failed"
	fi
fi
# --- end svctl offline checks ---

# --- kernels -----------------------------------------------------------------

# test_kernel LABEL KVER KDIR TIMEOUT RUN_ARGS...: build the module for one
# kernel, boot it, run the guest tests, account for everything.
test_kernel() {
	local label=$1 kver=$2 kdir=$3 timeout=$4 out=build/$2 dir=$results/$2
	shift 4
	local p=0 f=0 s=0 t0 note=() rc=0 counts
	mkdir -p "$dir"
	t0=$(now)

	if stage "kmod-$kver" scripts/build-kmod.sh "$kdir" "$out"; then
		p=$((p + 1))
	else
		f=$((f + 1))
		note+=("kmod build failed")
	fi
	mv "$results/kmod-$kver.log" "$dir/kmod-build.log"

	# Boot even without a module: the tests that do not need it still run,
	# and those that do fail loudly instead of vanishing from the count.
	local vt0
	vt0=$(now)
	say "vm $label: booting"
	set +e
	tests/vm/run.sh "$@" --timeout "$timeout" --log "$dir/console.log" --results "$dir/tap.txt" \
		-- tests/vm/guest-tests.sh -m "$root/$out/kmod/softverbs.ko" ${tests_filter:+"$tests_filter"} \
		2>"$dir/run.err" | grep --line-buffered -E '^(not )?ok [0-9]+ |^# time: ' | sed -u "s/^/    [$label] /"
	rc=${PIPESTATUS[0]}
	set -e
	timings+=("vm-$kver|$(secs "$vt0")")
	say "vm $label: exit $rc ($(secs "$vt0")s)"

	read -r tp tf ts <<<"$(count_tap "$dir/tap.txt")"

	# KUnit: count its cases, not the one "kunit" line (tests/kernel/kunit-parse.sh
	# reads the KTAP that guest-tests.sh printed as "# " diagnostics).
	if grep -Eq '^(not )?ok [0-9]+ - kunit$' "$dir/tap.txt" && [ -x tests/kernel/kunit-parse.sh ]; then
		sed -n 's/^# \{0,1\}//p' "$dir/tap.txt" >"$dir/kunit.ktap"
		tests/kernel/kunit-parse.sh "$dir/kunit.ktap" >"$dir/kunit.txt" 2>&1 || true
		counts=$(sed -n 's/^kunit: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$dir/kunit.txt" | tail -n 1)
		if [ -n "$counts" ]; then
			read -r kp kf ks <<<"$counts"
			if grep -Eq '^ok [0-9]+ - kunit$' "$dir/tap.txt"; then tp=$((tp - 1)); else tf=$((tf - 1)); fi
			# The runner failed "kunit" but the parser found no failed case:
			# keep one failure (module did not load, kernel report, ...).
			if grep -Eq '^not ok [0-9]+ - kunit$' "$dir/tap.txt" && [ "$kf" -eq 0 ]; then kf=1; fi
			tp=$((tp + kp)) tf=$((tf + kf)) ts=$((ts + ks))
			note+=("kunit: $kp/$((kp + kf + ks)) cases")
		fi
	fi
	p=$((p + tp)) f=$((f + tf)) s=$((s + ts))

	# A VM that never finished its TAP (no plan line) crashed or hung: that is
	# a failure of its own, whatever the tests before it said.
	case $rc in
	124) f=$((f + 1)); note+=("VM timeout after ${timeout}s") ;;
	125) f=$((f + 1)); note+=("guest died: see $dir/console.log") ;;
	*)
		if ! grep -Eq '^1\.\.[0-9]+$' "$dir/tap.txt"; then
			f=$((f + 1))
			note+=("incomplete TAP (exit $rc)")
		fi
		;;
	esac
	local joined
	joined=$(printf '%s; ' "${note[@]}")
	row "$label" $p $f $s "$(secs "$t0")" "${joined%; }"
}

# DKMS: as root (CI, a test machine) install the module through DKMS for every
# installed kernel; tests/user/16-dkms.sh then checks that a plain "modprobe
# softverbs" in the VM loads it. Removed again when check.sh exits.
if [ "$(id -u)" = 0 ] && [ "${SV_DKMS:-1}" != 0 ]; then
	trap 'make -s dkms-remove >/dev/null 2>&1 || true' EXIT
	if stage dkms make dkms-install; then
		row "host: dkms install" 1 0 0 "$stage_secs"
	else
		row "host: dkms install" 0 1 0 "$stage_secs" "see results/dkms.log"
	fi
fi

# which tests a VM runs (test_kernel reads it); all of them on stock kernels
tests_filter=${SV_TESTS:-}

kernels=${SV_KERNELS:-}
if [ -z "$kernels" ]; then
	for k in /boot/vmlinuz-*; do
		kver=${k#/boot/vmlinuz-}
		[ -d "/lib/modules/$kver/build" ] && kernels+=" $kver"
	done
fi
# TCG on 2 busy cores: a single test has taken 200 s where it takes 20 s on an
# idle machine, so a fixed VM budget times out a healthy run.
ntests=$(find tests/user -maxdepth 1 -name '[0-9]*.sh' | wc -l)
vm_timeout=${SV_VM_TIMEOUT:-$((600 + 600 * (ntests + 1)))}
[ "$kernels" != none ] || kernels=
# The first kernel runs everything.  The others skip the long protocol
# suites (50-xport-*, 53-verbs-matrix, 54-netem): the transport's logic does
# not depend on the kernel, while what does (ib_core, uverbs, rdma_cm,
# NVMe-oF, the netdev and UDP tunnel APIs) is covered by the rest,
# 51/52/55/56 included.  This keeps a cold CI run inside its 90 minutes.
first_kernel=1
for kver in $kernels; do
	tests_filter=${SV_TESTS:-}
	[ -n "$first_kernel" ] || tests_filter=${SV_TESTS:-'^(kunit|[0-4][0-9]-|5[1256]-)'}
	first_kernel=
	test_kernel "$kver" "$kver" "/lib/modules/$kver/build" "$vm_timeout" --kver "$kver"
done

# The debug kernel: built (or found in the cache) by its own script, which
# prints KERNEL=, MODULES=, KDIR=, KVER= as its last lines.
if [ -f scripts/debug-kernel.sh ] && [ "${SV_DEBUG_KERNEL:-1}" != 0 ]; then
	if stage debug-kernel bash scripts/debug-kernel.sh build; then
		dk_out=$(tail -n 20 "$results/debug-kernel.log")
		field() { sed -n "s/^$1=//p" <<<"$dk_out" | tail -n 1; }
		dk_kernel=$(field KERNEL) dk_modules=$(field MODULES) dk_kdir=$(field KDIR) dk_kver=$(field KVER)
		if [ -n "$dk_kernel" ] && [ -n "$dk_kdir" ] && [ -n "$dk_kver" ]; then
			# Under KASAN + lockdep + kmemleak on TCG a test runs 5-10 times
			# slower than on a stock kernel: this run covers KUnit, the
			# tests of kernel object life cycles, which is where those
			# checkers find bugs, and a transport subset; the stock
			# kernels run everything.
			# Of the transport, rdma_cm (55-rping: GSI/UD MADs, RC send,
			# read, write) and the genl family (43) run here; the perftest
			# and netem tests are timing-bound and run on the stock kernels.
			tests_filter=${SV_DEBUG_TESTS:-${SV_TESTS:-'^(kunit|1[0-5]-|2[0-6]-|43-|55-)'}}
			# kmemleak scanning is slow under TCG, so only this run turns it on.
			test_kernel "debug $dk_kver" "$dk_kver" "$dk_kdir" $((vm_timeout * 2)) \
				--kernel "$dk_kernel" ${dk_modules:+--modules "$dk_modules"} \
				--mem 2048 --append kmemleak=on
		else
			row "debug kernel" 0 1 0 "$stage_secs" "no KERNEL=/KDIR=/KVER= in its output"
		fi
	else
		row "debug kernel" 0 1 0 "$stage_secs" "build failed"
	fi
fi

# --- source hygiene (scripts/lint.sh) ----------------------------------------
# After the debug kernel: checkpatch comes from the source tree it extracted.
if [ -f scripts/lint.sh ] && [ "${SV_LINT:-1}" != 0 ]; then
	rc=0
	stage lint bash scripts/lint.sh || rc=$?
	read -r p f s <<<"$(awk '/^ok .*# SKIP/ { s++; next } /^ok / { p++ } /^not ok / { f++ }
		END { print p + 0, f + 0, s + 0 }' "$results/lint.log")"
	[ $rc -eq 0 ] || [ "$f" -gt 0 ] || f=1	# it failed without saying what
	row "host: lint" "$p" "$f" "$s" "$stage_secs"
fi

# --- report ------------------------------------------------------------------

echo
echo "Stage timings (s):"
for t in "${timings[@]}"; do
	IFS='|' read -r name sec <<<"$t"
	printf '  %-40s %8s\n' "$name" "$sec"
done
echo
printf '%-34s %6s %6s %7s %8s  %s\n' suite passed failed skipped seconds note
for r in "${rows[@]}"; do
	IFS='|' read -r name p f s sec note <<<"$r"
	printf '%-34s %6s %6s %7s %8s  %s\n' "$name" "$p" "$f" "$s" "$sec" "$note"
done

# Failed tests with their diagnostics, so nobody has to dig through results/.
for tap in "$results"/*/tap.txt; do
	[ -f "$tap" ] || continue
	if grep -q '^not ok' "$tap"; then
		echo
		echo "Failures in $(basename "$(dirname "$tap")") (full log: ${tap#"$root"/}):"
		# At most 60 lines each; the rest is in the file.
		awk '/^not ok/ { on = 1; c = 0; print "  " $0; next }
		     /^(ok|1\.\.)/ { on = 0 }
		     on && /^#/ && c++ < 60 { print "    " $0 }' "$tap"
	fi
done

echo
line="$total_pass passed, $total_fail failed"
[ $total_skip -eq 0 ] || line+=", $total_skip skipped"
echo "$line"
[ $total_fail -eq 0 ]
