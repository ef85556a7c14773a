#!/bin/bash
# check.sh: the whole softverbs test matrix, one verdict (the engine of `make check`).
#
#   1. scripts/deps.sh                      packages present (installs them as root)
#   2. make -C ulib, make -C tools          userspace, where a Makefile exists
#   3. make -C ulib test                    host unit tests, if the target exists;
#      tests/fuzz/run.sh                    kmod's header parser and WQE checks
#                                           under libFuzzer (ASan, UBSan), mutants
#   4. builds: scripts/build-kmod.sh -> build/KVER/ for each stock kernel with
#      /boot/vmlinuz-KVER and /lib/modules/KVER/build, the debug kernel
#      (scripts/debug-kernel.sh build: KASAN, lockdep, kmemleak, UBSAN, KUnit)
#      and the module for it; Debian's cloud kernels, fetched and unpacked
#      into the cache by scripts/cloud-kernel.sh (not installed), the module
#      and its DKMS build for each; scripts/lint.sh
#   5. VMs (tests/vm/run.sh running tests/vm/guest-tests.sh: KUnit if built,
#      tests/user/*, leak/taint checks), SV_VM_JOBS at a time: the debug kernel
#      (kmemleak=on) runs nearly everything, in shards, the long protocol
#      suites as subsets; the first stock kernel (same source) the full
#      protocol lists and what the debug kernel cannot run (DKMS, NFS, SRP);
#      the others what depends on the kernel; the cloud kernels (no rdma_rxe,
#      no 9p: the host root over virtio-fs) a short list; and the README's
#      "make demo" in a fresh clone.  Each test says where it runs in its "# sv-test:" line
#      (Documentation/testing.md, "What runs where"; scripts/svplan.py
#      plans the VMs), the shards are sized from tests/user/durations, and
#      results/durations.new is that file with this run's times
#      (scripts/test-durations.sh)
#   6. once every VM above has ended: scripts/interop-vms.sh, softverbs and
#      Soft-RoCE between Debian 13's 7.3 and the first stock 6.1 kernel, two
#      VMs on a wire, both ways round (when both have a module)
#
# Every build step and every test counts: a build is one test (passed or failed),
# a VM contributes its TAP results (KUnit cases counted one by one), a VM that
# times out or dies adds one failure. Logs go to results/ (console, TAP, build
# logs per kernel). The last line is exactly "N passed, N failed[, N skipped]";
# the exit status is 1 if anything failed.
#
# Environment:
#   SV_TRIXIE=0           skip Debian 13's newer kernels (scripts/trixie-kernel.sh
#                         fetches headers of SV_TRIXIE_SERIES, default every
#                         series from 6.16 to 7.3, and the 7.3 image into the cache; the module is built
#                         for each, in the Debian 13 root of scripts/trixie-root.sh
#                         where the host lacks their compiler, and the 7.3 amd64
#                         kernel's VM runs the stock selection; root only)
#   SV_TRIXIE_DKMS_SERIES="SERIES..."  Debian 13's kernels of headers only
#                         (no image) whose DKMS build runs in the Debian 13
#                         root (default 6.16)
#   SV_TRIXIE_FROM=SERIES Debian 13's own kernel (default 6.12, headers only)
#                         that the Debian 13 root's package install runs
#                         first and upgrades to 7.3 from, through DKMS's
#                         kernel hook (deb-install.sh --from); "" installs
#                         on 7.3 directly
#   SV_CLOUD=0            skip Debian's cloud kernels (scripts/cloud-kernel.sh
#                         fetches and unpacks them into the cache, never into
#                         /boot; their VMs share the host root over virtio-fs,
#                         which needs root: without it they are skipped)
#   SV_KERNELS="KVER..."  stock kernels to test (default: all installed with headers;
#                         "none": only the debug kernel)
#   SV_DEBUG_KERNEL=0     skip the debug kernel (its first build takes ~13 min)
#   SV_LINT=0             skip scripts/lint.sh (checkpatch, sparse, cppcheck)
#   SV_TESTS=REGEX        only the tests whose name matches (tests/user/NAME.sh, kunit),
#                         on every kernel, whatever their sv-test lines say
#   SV_DEBUG_TESTS=REGEX  the debug kernel's selection, in one VM (default: the
#                         tests with "debug" in their sv-test line, in the shards
#                         of SV_DEBUG_SHARDS)
#   SV_DEBUG_SHARDS="REGEX..."  the debug kernel's VMs, one per regex (default:
#                         two, sized from tests/user/durations)
#   SV_PLAN=1             print each VM's selection (guest-tests.sh filter, tests,
#                         estimated seconds) in launch order and exit: no build,
#                         no VM, results/ untouched
#   SV_VM_JOBS=N          VMs running at once (default: nproc)
#   SV_VM_TIMEOUT=SEC     per-VM timeout (default: 600 + 600 per test; x2 for the
#                         debug kernel). Only a backstop for a guest that hangs
#                         whole: each test also has its own timeout in the guest.
#   SV_INTEROP=0          skip the interop of step 6 (also skipped with SV_TESTS
#                         or SV_DEBUG_TESTS unless the regex matches "interop")
#   SV_DEMO=0             skip "make demo" in a fresh clone (also skipped with
#                         SV_TESTS or SV_DEBUG_TESTS)
#   SV_DEB=0              skip "make deb" and its installs (scripts/deb-install.sh,
#                         as root); tests/user/17-deb.sh then skips
#   SV_DKMS=0             skip the DKMS install (as root it installs through DKMS
#                         for tests/user/16-dkms.sh and removes it at exit)
#   SV_HOST_TIMEOUT=SEC   timeout of the host unit tests and of the fuzzing (default 600)
#   SV_FUZZ=0             skip the fuzz targets (tests/fuzz, libFuzzer in user space)
#   SV_FUZZ_SECS=SEC      fuzzing time per target (default 30; 2 targets)
#   CC                    e.g. "ccache gcc-12", passed to the module build
set -euo pipefail

root=$(realpath "$(dirname "$0")/..")
cd "$root"
sv_version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

# --- what runs where -----------------------------------------------------------
#
# scripts/svplan.py plans the VMs (Documentation/testing.md, "What runs
# where"): from each test's "# sv-test:" line and tests/user/durations, each
# VM's guest-tests.sh filter (an anchored alternation of test names,
# '^(kunit|10-link|20-cq)$'), the debug kernel's shards, sized for two
# lanes, and the launch order below.  It reads the SV_* variables and warns
# about the lines; check.sh finds the stock kernels and hands them over.
# SV_PLAN=1 prints its plan and exits before anything is built.

kernels=${SV_KERNELS:-}
if [ -z "$kernels" ]; then
	for k in /boot/vmlinuz-*; do
		kver=${k#/boot/vmlinuz-}
		[ -d "/lib/modules/$kver/build" ] && kernels+=" $kver"
	done
fi
[ "$kernels" != none ] || kernels=
read -ra stock <<<"$kernels"

command -v python3 >/dev/null || { echo "[check] scripts/svplan.py needs python3" >&2; exit 1; }
if [ -n "${SV_PLAN:-}" ]; then
	exec python3 scripts/svplan.py --uid "$(id -u)" plan -- "${stock[@]}"
fi
# The plan, as svplan.py's "shell" mode assigns it:
stock_filter='' first_filter='' cloud_filter='' cloud1_filter='' sid_filter='' troot_filter=''
dk_shard_list=()	# the debug kernel's VMs, one FILTER each
cloud_metas=()		# the cloud kernels' meta packages to fetch
trixie_series=()	# Debian 13's kernel series to build for
sid_kernels=() troot_kernels=()	# the roots' VMs: sid's, Debian 13's
sid_trixie=0 troot_auto=0	# 1: Debian 13's kernels join that lane once fetched
trixie_from=''		# Debian 13's kernel the package install upgrades from
demo_wanted=0
interop_wanted=0 interop_old=''	# scripts/interop-vms.sh after the lanes, the 6.1 side
nic_tests=()		# the tests with needs=nic
plan=$(python3 scripts/svplan.py --uid "$(id -u)" shell -- "${stock[@]}")
eval "$plan"

# filter_runs FILTER NAME: guest-tests.sh given FILTER runs test NAME (an
# empty FILTER runs everything, "!REGEX" what REGEX does not match)
filter_runs() {
	case $1 in
	'') return 0 ;;
	!*) [[ ! $2 =~ ${1#!} ]] ;;
	*) [[ $2 =~ $1 ]] ;;
	esac
}

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
	# The suites' closing "N passed, N failed" lines (ulib's harness, the
	# planner's tests) added up if they print them, else TAP.
	counts=$(sed -n 's/^.*\b\([0-9]\+\) passed, \([0-9]\+\) failed\(, \([0-9]\+\) skipped\)\?.*$/\1 \2 \4/p' "$log" |
		awk '{ p += $1; f += $2; s += $3 } END { if (NR) print p, f, s }')
	[ -n "$counts" ] || counts=$(count_tap "$log")
	read -r p f s <<<"$counts"
	s=${s:-0}
	# A failing run that reported no failure (crash, build error) still failed.
	[ $rc -eq 0 ] || [ "$f" -gt 0 ] || f=1
	[ $rc -ne 0 ] || [ $((p + f + s)) -gt 0 ] || p=1
	row "host: unit tests" "$p" "$f" "$s" "$stage_secs" "$([ $rc -eq 0 ] || echo "exit $rc")"
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
#
# Two phases.  First every build, one after the other (each uses every core):
# the module for each stock kernel, the debug kernel and its module, lint.
# Then the VM runs, SV_VM_JOBS at a time: a TCG guest running the serial test
# suite keeps less than one host core busy on average (measured: ~85 % of
# one), so two guests on two cores finish the matrix in little more than half
# the time.  The longest runs start first.

# Compiler caches (ccache, when installed) for the builds against Debian's
# headers, which compile through it with DEBIAN_KERNEL_USE_CCACHE set
# (.kernelvariables): the module builds, and DKMS's, whose build directory
# (/var/lib/dkms/softverbs/VERSION/build) is the same for every DKMS build
# of a version, the packages' (scripts/deb-install.sh) included, so they
# share one cache.  The module builds hit when the checkout's path is the
# same as last time.  CC, when set, wins.
cc_env=() dkms_cc_env=()
if command -v ccache >/dev/null && [ -z "${CC:-}" ]; then
	cc_env=(DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR="${SV_CACHE:-/var/tmp/softverbs-cache}/ccache")
	dkms_cc_env=(DEBIAN_KERNEL_USE_CCACHE=1 CCACHE_DIR="${SV_CACHE:-/var/tmp/softverbs-cache}/ccache-dkms")
fi

# build_kmod LABEL KVER KDIR: build/KVER/kmod/softverbs.ko, one test of its own.
build_kmod() {
	local label=$1 kver=$2 kdir=$3 dir=$results/$2
	mkdir -p "$dir"
	if stage "kmod-$kver" env "${cc_env[@]}" scripts/build-kmod.sh "$kdir" "build/$kver"; then
		row "$label: module build" 1 0 0 "$stage_secs"
	else
		row "$label: module build" 0 1 0 "$stage_secs" "see results/$kver/kmod-build.log"
	fi
	mv "$results/kmod-$kver.log" "$dir/kmod-build.log"
}

# vm_resume_filter FILTER TAP: the filter for the tests of FILTER (an explicit
# "^(a|b|...)$" list, as svplan.py writes them) after the last one TAP has a
# result for, in their order, the one a dead guest died in first; nothing if
# FILTER is no such list or none is left.
vm_resume_filter() {
	local filter=$1 tap=$2 name names=() left=()
	[[ $filter =~ ^\^\((.*)\)\$$ ]] || return 0
	IFS='|' read -r -a names <<<"${BASH_REMATCH[1]}"
	for name in "${names[@]}"; do
		[[ $name =~ ^[A-Za-z0-9_-]+$ ]] || return 0
		if grep -Eq "^(not )?ok [0-9]+ - $name( |$)" "$tap"; then
			left=()
		else
			left+=("$name")
		fi
	done
	[ ${#left[@]} -eq 0 ] || (IFS='|' && echo "^(${left[*]})\$")
}

# vm_job LABEL KVER DIR TIMEOUT FILTER RUN_ARGS...: boot one VM, run the guest
# tests matching FILTER with build/KVER's module, count the results into
# DIR/row ("label|passed|failed|skipped|seconds|note") and DIR/timing.  Runs
# in the background, so it reports through files, never through row().
vm_job() {
	local label=$1 kver=$2 dir=$3 timeout=$4 filter=$5
	shift 5
	local p=0 f=0 s=0 t0 note=() rc kp kf ks tp tf ts counts cpu mod=$root/build/$kver/kmod/softverbs.ko
	mkdir -p "$dir"
	# (a kernel of trixie_hook has no module build: the tests modprobe)
	[[ -f $mod || " ${trixie_hook[*]} " != *" $kver "* ]] || mod=''
	t0=$(now)
	say "vm $label: booting"
	set +e
	tests/vm/run.sh "$@" --timeout "$timeout" --log "$dir/console.log" --results "$dir/tap.txt" \
		-- tests/vm/guest-tests.sh -m "$mod" ${filter:+"$filter"} \
		2>"$dir/run.err" | grep --line-buffered -E '^(not )?ok [0-9]+ |^# time: ' | sed -u "s/^/    [$label] /"
	rc=${PIPESTATUS[0]}
	set -e
	# run.sh's last line: how much host CPU the guest used in that time
	cpu=$(sed -n 's/^run\.sh: .*, qemu CPU \([0-9]*\) s$/\1/p' "$dir/run.err" | tail -n 1)
	say "vm $label: exit $rc ($(secs "$t0")s, qemu CPU ${cpu:-?}s)"

	# A guest that died of an int3 breakpoint took one the kernel had set to
	# patch its own text (static keys) after the patching was done: a race
	# of TCG's, where the other vCPU goes on running the old translation
	# (nothing else sets int3 in kernel text here; a kernel BUG is ud2, an
	# "invalid opcode").  guest-tests.sh flips the keys it knows of before
	# any test; for the rest, one more VM runs the tests this one did not
	# finish, the one it died in first, and the row says so.  A second
	# death fails the lane as any other.
	local resume died
	if [ "$rc" -eq 125 ] && grep -q 'Oops: int3' "$dir/console.log" &&
		resume=$(vm_resume_filter "$filter" "$dir/tap.txt") && [ -n "$resume" ]; then
		died=${resume#^(}
		died=${died%%[|)]*}
		mv "$dir/console.log" "$dir/console-1.log"
		mv "$dir/tap.txt" "$dir/tap-1.txt"
		note+=("guest died of a text-patching int3 in $died (console-1.log); its tests from there ran in a new VM")
		say "vm $label: died of an int3 breakpoint in $died: booting again for the rest"
		set +e
		tests/vm/run.sh "$@" --timeout "$timeout" --log "$dir/console.log" --results "$dir/tap-2.txt" \
			-- tests/vm/guest-tests.sh -m "$mod" "$resume" \
			2>>"$dir/run.err" | grep --line-buffered -E '^(not )?ok [0-9]+ |^# time: ' | sed -u "s/^/    [$label] /"
		rc=${PIPESTATUS[0]}
		set -e
		# (no tap-2.txt: the plan line is missing, the lane fails below)
		cat "$dir/tap-1.txt" "$dir/tap-2.txt" >"$dir/tap.txt" 2>/dev/null || true
		say "vm $label: exit $rc ($(secs "$t0")s in all)"
	fi

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
	# the counts tests report of themselves (a third-party suite's)
	local line
	while IFS= read -r line; do
		note+=("$line")
	done < <(sed -n 's/^# summary: //p' "$dir/tap.txt")

	# A VM that never finished its TAP (no plan line) crashed or hung: that is
	# a failure of its own, whatever the tests before it said.
	case $rc in
	124) f=$((f + 1)); note+=("VM timeout after ${timeout}s") ;;
	125) f=$((f + 1)); note+=("guest died: see ${dir#"$root"/}/console.log") ;;
	*)
		if ! grep -Eq '^1\.\.[0-9]+$' "$dir/tap.txt"; then
			f=$((f + 1))
			note+=("incomplete TAP (exit $rc)")
		fi
		;;
	esac
	local joined
	joined=$(printf '%s; ' "${note[@]}")
	echo "$label|$p|$f|$s|$(secs "$t0")|${joined%; }" >"$dir/row"
	echo "vm-$label (qemu CPU ${cpu:-?} s)|$(secs "$t0")" >"$dir/timing"
}

# TCG on 2 busy cores: a single test has taken 200 s where it takes 20 s on an
# idle machine, so a fixed VM budget times out a healthy run.
ntests=$(find tests/user -maxdepth 1 -name '[0-9]*.sh' | wc -l)
vm_timeout=${SV_VM_TIMEOUT:-$((600 + 600 * (ntests + 1)))}

# --- VM jobs: lanes and launchers ---------------------------------------------

lanes=${SV_VM_JOBS:-$(nproc)}
[ "$lanes" -ge 1 ] 2>/dev/null || lanes=1
job_dirs=()
# launch DIR JOB ARGS...: JOB ARGS... (vm_job or demo_job) in the
# background once a lane is free.
launch() {
	local dir=$1
	shift
	while [ "$(jobs -rp | wc -l)" -ge "$lanes" ]; do
		wait -n || true
	done
	job_dirs+=("$dir")
	"$@" &
}

# demo_job DIR: the README's "make demo", in a fresh clone of this commit,
# as a new user runs it; one test.  A fresh clone has no build/ or results/,
# which is what broke it once (demo.sh wrote build/demo-build.log first).
demo_job() {
	local dir=$1 t0 rc=0 p=1 f=0 why=
	mkdir -p "$dir"
	t0=$(now)
	say "demo: make demo in a fresh clone"
	{ git clone -q "$root" "$dir/clone" && make -C "$dir/clone" demo; } >"$dir/demo.log" 2>&1 || rc=$?
	if [ $rc -ne 0 ] || ! grep -q '^demo done:' "$dir/demo.log"; then
		p=0 f=1 why="exit $rc, see ${dir#"$root"/}/demo.log"
	fi
	rm -rf "$dir/clone"
	say "demo: exit $rc ($(secs "$t0")s)"
	echo "fresh clone: make demo|$p|$f|0|$(secs "$t0")|$why" >"$dir/row"
	echo "make demo (fresh clone)|$(secs "$t0")" >"$dir/timing"
}

dk_append='kmemleak=on pci=noacpi'
# nic_arg FILTER: --nic when FILTER (empty: every test) selects a test with
# needs=nic
nic_arg() {
	local t
	for t in "${nic_tests[@]}"; do
		if filter_runs "$1" "$t"; then
			echo --nic
			return
		fi
	done
}
# launch_debug FIRST LAST: the debug VMs for shards FIRST..LAST (1-based)
launch_debug() {
	local n
	for ((n = $1; n <= $2 && n <= ${#dk_shard_list[@]}; n++)); do
		# shellcheck disable=SC2046 # nic_arg: one word or none
		launch "$results/$dk_kver-$n" vm_job "debug $dk_kver #$n" "$dk_kver" "$results/$dk_kver-$n" \
			$((vm_timeout * 2)) "${dk_shard_list[n - 1]}" \
			--kernel "$dk_kernel" ${dk_modules:+--modules "$dk_modules"} \
			--mem 2048 --append "$dk_append" $(nic_arg "${dk_shard_list[n - 1]}")
	done
}
# The debug kernel: built (or found in the cache) by its own script, which
# prints KERNEL=, MODULES=, KDIR=, KVER= as its last lines.
dk_kver=
if [ -f scripts/debug-kernel.sh ] && [ "${SV_DEBUG_KERNEL:-1}" != 0 ]; then
	if stage debug-kernel bash scripts/debug-kernel.sh build; then
		dk_out=$(tail -n 20 "$results/debug-kernel.log")
		field() { sed -n "s/^$1=//p" <<<"$dk_out" | tail -n 1; }
		dk_kernel=$(field KERNEL) dk_modules=$(field MODULES) dk_kdir=$(field KDIR) dk_kver=$(field KVER)
		if [ -n "$dk_kernel" ] && [ -n "$dk_kdir" ] && [ -n "$dk_kver" ]; then
			build_kmod "debug $dk_kver" "$dk_kver" "$dk_kdir"
		else
			row "debug kernel" 0 1 0 "$stage_secs" "no KERNEL=/KDIR=/KVER= in its output"
			dk_kver=
		fi
	else
		row "debug kernel" 0 1 0 "$stage_secs" "build failed"
	fi
fi

# --- the long debug VM first ---------------------------------------------------
# Debug shard #1 is the longest VM of the run: it starts as soon as the
# debug kernel and its module are there, and its lane runs it alone, while
# the other lane does the rest of the host's work (fuzzing, DKMS, the
# packages, the other modules, lint) and then every other VM.  Before,
# the host's ~13 min of builds ran with both lanes waiting, at times on one
# busy core (fuzzing, lint).  svplan.py counts that work (host_est)
# into the second lane.  The debug VM needs only the
# userspace builds above and its own module; nothing after this point
# writes what it reads (make deb and DKMS build in copies, the package
# installs in overlays).
[ -n "$dk_kver" ] || dk_shard_list=()
dk_early=0
if [ ${#dk_shard_list[@]} -gt 0 ]; then
	launch_debug 1 1
	dk_early=1
fi

# --- host: fuzzing (tests/fuzz) ---
# kmod's packet header parser and user WQE checks, built in user space
# against fake kernel headers under libFuzzer, ASan and UBSan: each target
# fuzzed SV_FUZZ_SECS seconds (30), one after the other, then every mutant
# (a kmod copy with one planted bug) must be caught.  One test per target
# and per mutant; skipped when clang cannot link libFuzzer.
if [ -f tests/fuzz/run.sh ] && [ "${SV_FUZZ:-1}" != 0 ]; then
	rc=0
	stage host-fuzz timeout -k 10 "${SV_HOST_TIMEOUT:-600}" \
		bash tests/fuzz/run.sh -m -t "${SV_FUZZ_SECS:-30}" || rc=$?
	read -r p f s <<<"$(count_tap "$results/host-fuzz.log")"
	[ $rc -eq 0 ] || [ "$f" -gt 0 ] || f=1	# it failed without saying what
	fuzz_note=$(sed -n 's/^# summary: //p' "$results/host-fuzz.log" | tail -n 1)
	[ "$p" -gt 0 ] || fuzz_note=$(head -n 1 <<<"$(sed -n 's/^ok .* # SKIP //p' "$results/host-fuzz.log")")
	row "host: fuzz" "$p" "$f" "$s" "$stage_secs" "$fuzz_note"
fi
# --- end fuzzing ---

# DKMS: as root (CI, a test machine) install the module through DKMS for every
# installed kernel; tests/user/16-dkms.sh then checks that a plain "modprobe
# softverbs" in the VM loads it. Removed again when check.sh exits.
dkms_ok=0 cloud=() cloud_dkms=() troot_dkms=()
if [ "$(id -u)" = 0 ] && [ "${SV_DKMS:-1}" != 0 ]; then
	# dkms_remove_all: the cloud kernels' and the Debian 13 root's DKMS
	# installs (below), out of their unpacked trees, then DKMS's own
	dkms_remove_all() {
		local k
		for k in "${cloud_dkms[@]}"; do
			bash scripts/cloud-kernel.sh dkms-remove "$k" "softverbs/$sv_version" >/dev/null 2>&1 || true
		done
		for k in "${troot_dkms[@]}"; do
			bash scripts/trixie-kernel.sh dkms-remove "$k" >/dev/null 2>&1 || true
		done
		make -s dkms-remove >/dev/null 2>&1 || true
	}
	trap dkms_remove_all EXIT
	if stage dkms env "${dkms_cc_env[@]}" make dkms-install; then
		dkms_ok=1
		row "host: dkms install" 1 0 0 "$stage_secs"
	else
		row "host: dkms install" 0 1 0 "$stage_secs" "see results/dkms.log"
	fi
fi

# The Debian packages (make deb, build/deb/), lintian clean; installed
# further down (scripts/deb-install.sh) for the kernels that run 17-deb.
deb_ok=0
if [ "${SV_DEB:-1}" != 0 ]; then
	# lintian's errors and warnings fail the stage (its infos do not)
	if stage deb sh -c 'make deb && lintian --fail-on error,warning build/deb/*.changes'; then
		deb_ok=1
		row "host: make deb" 1 0 0 "$stage_secs" "$(cd build/deb && du -bc ./*.deb | tail -n 1 | cut -f1) bytes of .deb"
	else
		row "host: make deb" 0 1 0 "$stage_secs" "see results/deb.log"
	fi
fi

for kver in $kernels; do
	build_kmod "$kver" "$kver" "/lib/modules/$kver/build"
done

# Debian's cloud kernels (scripts/cloud-kernel.sh): downloaded once (~90 MB)
# and unpacked into the cache, never installed; the module is built against
# the unpacked headers.  Their VMs get the host root over virtio-fs (no 9p in
# that flavour), which needs root.
if [ ${#cloud_metas[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		row "cloud kernels" 0 0 1 0 "not root: their VMs share the host root over virtio-fs (virtiofsd needs root)"
	elif stage cloud-kernels bash scripts/cloud-kernel.sh fetch "${cloud_metas[@]}"; then
		mapfile -t cloud < <(sed -n 's/^KVER=//p' "$results/cloud-kernels.log")
		for kver in "${cloud[@]}"; do
			build_kmod "$kver" "$kver" "$(grep -F "/linux-headers-$kver" "$results/cloud-kernels.log" | sed -n 's/^KDIR=//p')"
			# DKMS for it, as "make dkms-install" did for the installed
			# kernels (tests/user/16-dkms.sh); the headers are unpacked,
			# so DKMS builds against them and installs into the tree
			[ $dkms_ok = 1 ] || continue
			cloud_dkms+=("$kver")
			if stage "dkms-$kver" env "${dkms_cc_env[@]}" bash scripts/cloud-kernel.sh dkms-install "$kver" "softverbs/$sv_version"; then
				row "$kver: dkms install" 1 0 0 "$stage_secs"
			else
				row "$kver: dkms install" 0 1 0 "$stage_secs" "see results/dkms-$kver.log"
			fi
		done
	else
		row "cloud kernels" 0 1 0 "$stage_secs" "fetch failed, see results/cloud-kernels.log (SV_CLOUD=0 skips them)"
	fi
fi

# Debian 13's newer kernels (scripts/trixie-kernel.sh): headers (and the 7.3
# image) from trixie-backports, unpacked into the cache, never installed.
# Their headers name gcc-14: build-kmod.sh builds in the Debian 13 root of
# scripts/trixie-root.sh when the host lacks it.  Each kernel's module
# build is a test; the kernels with an image (KERNEL= lines) of the amd64
# flavour get a VM below.
# The kernel of SV_TRIXIE_FROM (troot_from) gets no module build here, and
# the 7.3 cloud kernel's (trixie_hook) waits: the Debian 13 root's package
# install builds for both through DKMS (below), else build_kmod does after.
trixie=() troot_from='' trixie_hook=()
if [ ${#trixie_series[@]} -gt 0 ]; then
	if stage trixie-kernels bash scripts/trixie-kernel.sh fetch "${trixie_series[@]}" ${trixie_from:+"$trixie_from"}; then
		mapfile -t trixie_all < <(sed -n 's/^KVER=//p' "$results/trixie-kernels.log")
		for kver in "${trixie_all[@]}"; do
			[[ -z $trixie_from || $kver != "$trixie_from".*-amd64 || $kver == *-cloud-amd64 ]] || troot_from=$kver
		done
		for kver in "${trixie_all[@]}"; do
			[ "$kver" != "$troot_from" ] || continue
			if [ -n "$troot_from" ] && [[ $kver == *-cloud-amd64 ]] &&
				grep -qF "KERNEL=" <<<"$(bash scripts/trixie-kernel.sh print "$kver")"; then
				trixie_hook+=("$kver")
				continue
			fi
			build_kmod "$kver" "$kver" "$(grep -F "/linux-headers-$kver" "$results/trixie-kernels.log" | sed -n 's/^KDIR=//p' | head -n 1)"
			if grep -qF "KERNEL=" <<<"$(bash scripts/trixie-kernel.sh print "$kver")" &&
				[[ $kver == *-amd64 && $kver != *-cloud-amd64 ]]; then
				trixie+=("$kver")
			fi
		done
	else
		row "Debian 13 kernels" 0 1 0 "$stage_secs" "fetch failed, see results/trixie-kernels.log (SV_TRIXIE=0 skips them)"
	fi
fi

# Debian 13's kernels with an image and a module (7.3 amd64) join the
# roots' lanes: the sid root's unless SV_SID_KERNELS says otherwise, the
# Debian 13 root's by default, which without one takes the last stock kernel
for kver in "${trixie[@]}"; do
	[ -f "build/$kver/kmod/softverbs.ko" ] || continue
	[ "$sid_trixie" = 0 ] || sid_kernels+=("$kver")
	[ "$troot_auto" = 0 ] || troot_kernels+=("$kver")
done
[ "$troot_auto" = 0 ] || [ ${#troot_kernels[@]} -gt 0 ] || troot_kernels=("${stock[@]: -1}")

# --- the test roots ------------------------------------------------------------
# Other Debian user spaces, built once by scripts/test-root.sh (debootstrap
# and the packages, ~1.5-2 min, 600-800 MB in the cache) and booted with
# run.sh --root on the kernels of their lane, with the module built above
# for each.  Root only (debootstrap, chroot).
#   sid     rdma-core 65's suite (it needs sid's python3.14): the kernels=sid
#           tests on sid_kernels
#   trixie  Debian 13's user space as its users have it (UCX with its verbs
#           transports, which sid's UCX lacks; Open MPI 5; dkms and gcc-14):
#           the kernels=trixie tests on troot_kernels, by default Debian 13's
#           7.3.  For those of Debian 13's kernels, its dkms builds the module
#           into the unpacked tree, as a Debian 13 user's "make dkms-install"
#           would (16-dkms; removed at exit with the other DKMS installs), and
#           the packages install in a copy of it below (17-deb).
# root_build SUITE LABEL SKIPVAR KERNELS_VAR ROOT_VAR: the root of SUITE
# into ROOT_VAR when the array KERNELS_VAR names has kernels; a row and no
# kernels left when it cannot be had
# shellcheck disable=SC2034 # rb_root and rb_kernels: the caller's variables
root_build() {
	local suite=$1 label=$2 skip=$3
	local -n rb_kernels=$4 rb_root=$5
	rb_root=
	[ ${#rb_kernels[@]} -gt 0 ] || return 0
	if [ "$(id -u)" != 0 ]; then
		row "$label" 0 0 1 0 "not root: debootstrap needs root ($skip=0 skips it)"
		rb_kernels=()
	elif stage "test-root-$suite" bash scripts/test-root.sh build "$suite"; then
		rb_root=$(sed -n 's/^ROOT=//p' "$results/test-root-$suite.log" | tail -n 1)
	else
		row "$label" 0 1 0 "$stage_secs" "see results/test-root-$suite.log ($skip=0 skips it)"
		rb_kernels=()
	fi
}
sid_root='' troot=''
root_build sid "sid root" SV_SID sid_kernels sid_root
root_build trixie "Debian 13 root" SV_TRIXIE_ROOT troot_kernels troot
# trixie_image KVER: KVER is one of Debian 13's kernels unpacked with its
# image (scripts/trixie-kernel.sh), which the Debian 13 root can build for
trixie_image() { grep -q '^KERNEL=' <<<"$(bash scripts/trixie-kernel.sh print "$1" 2>/dev/null)"; }
if [ -n "$troot" ] && [ "${SV_DKMS:-1}" != 0 ] && filter_runs "$troot_filter" 16-dkms; then
	for kver in "${troot_kernels[@]}"; do
		trixie_image "$kver" || continue
		troot_dkms+=("$kver")
		if stage "dkms-$kver-trixie" bash scripts/trixie-kernel.sh dkms-install "$kver" "$troot"; then
			row "$kver: dkms install (Debian 13 root)" 1 0 0 "$stage_secs"
		else
			row "$kver: dkms install (Debian 13 root)" 0 1 0 "$stage_secs" "see results/dkms-$kver-trixie.log"
		fi
	done
fi
# and DKMS's build for a kernel of headers only (SV_TRIXIE_DKMS_SERIES,
# default 6.16, the oldest of trixie-backports: ~60 s, gcc-14, no ccache)
if [ -n "$troot" ] && [ "${SV_DKMS:-1}" != 0 ]; then
	for kver in ${trixie_all[@]+"${trixie_all[@]}"}; do
		[[ " ${SV_TRIXIE_DKMS_SERIES-6.16} " == *" ${kver%.*+*} "* && $kver != *cloud* ]] || continue
		! trixie_image "$kver" || continue
		if stage "dkms-$kver-trixie" bash scripts/trixie-kernel.sh dkms-install "$kver" "$troot"; then
			row "$kver: dkms build (Debian 13 root)" 1 0 0 "$stage_secs"
		else
			row "$kver: dkms build (Debian 13 root)" 0 1 0 "$stage_secs" "see results/dkms-$kver-trixie.log"
		fi
	done
fi

# The packages installed as a user installs them ("apt install ./*.deb",
# DKMS building the module) in a throwaway copy of this host, one kernel at
# a time, for each VM that runs tests/user/17-deb.sh, which then uses the
# install on its kernel: build/deb-inst/KVER (scripts/deb-install.sh; on
# the first stock kernel through an upgrade from an older package).  For
# the Debian 13 root's VMs on Debian 13's kernels, in a copy of that root
# with the kernel's unpacked headers, DKMS building with its gcc-14:
# build/deb-inst/trixie/KVER (deb-install.sh --root).  On the first of
# them, with Debian 13's own kernel fetched (troot_from, 6.12), as a
# kernel upgrade: the packages install on 6.12 (DKMS builds for it), then
# the real linux-headers packages of 7.3 and of the 7.3 cloud kernel
# (trixie_hook) install and DKMS's header hook builds for each
# (deb-install.sh --from, --also).  Root only (mount namespaces).  ~35 s
# a kernel alone with a warm compiler cache; 6.1's upgrade is two builds;
# the Debian 13 root's, without ccache, three builds: 6.12, 7.3 and 7.3
# cloud, 349 s beside two TCG VMs (load 8-11), where one took 36-122 s.
rm -rf build/deb-inst
hook_done=0
if [ $deb_ok = 1 ] && [ "$(id -u)" = 0 ]; then
	# one install each: "KVER|OUT|deb-install.sh's options|label"
	deb_jobs=()
	for kver in "${stock[@]}"; do
		f=$stock_filter
		[ "$kver" != "${stock[0]}" ] || f=$first_filter
		how=
		[ "$kver" != "${stock[0]}" ] || how=--upgrade
		! filter_runs "$f" 17-deb || deb_jobs+=("$kver|$kver|$how|$kver")
	done
	[ ${#cloud[@]} -eq 0 ] || ! filter_runs "$cloud1_filter" 17-deb || deb_jobs+=("${cloud[0]}|${cloud[0]}||${cloud[0]}")
	if [ -n "$troot" ] && filter_runs "$troot_filter" 17-deb; then
		for kver in "${troot_kernels[@]}"; do
			trixie_image "$kver" || continue
			how="--root $troot"
			if [ -n "$troot_from" ] && [ $hook_done = 0 ]; then
				how+=" --from $troot_from"
				for k in "${trixie_hook[@]}"; do how+=" --also $k"; done
				hook_done=1
			fi
			deb_jobs+=("$kver|trixie/$kver|$how|$kver-trixie")
		done
	fi
	# all at once: each is mostly one process at a time (dpkg, Kbuild's
	# tests, modpost, depmod); measured, 6.1's and 6.12's took 81 s side by
	# side against 93 s one after the other
	# (their own pids: the debug VM runs in the background too)
	deb_pids=()
	for job in "${deb_jobs[@]}"; do
		IFS='|' read -r kver dir how name <<<"$job"
		(
			t0=$(now) rc=0
			# shellcheck disable=SC2086 # options: none or some words
			bash scripts/deb-install.sh $how "$kver" "build/deb-inst/$dir" \
				>"$results/deb-install-$name.log" 2>&1 || rc=$?
			echo "$rc $(secs "$t0")" >"$results/deb-install-$name.rc"
		) &
		deb_pids+=($!)
	done
	[ ${#deb_pids[@]} -eq 0 ] || wait "${deb_pids[@]}"
	for job in "${deb_jobs[@]}"; do
		IFS='|' read -r kver dir how name <<<"$job"
		label="$kver: deb install"
		[ "$dir" = "$kver" ] || label+=" (Debian 13 root)"
		[[ $how != *--from* ]] || label="$kver: deb install from ${troot_from%%-*} (Debian 13 root)"
		read -r rc stage_secs <"$results/deb-install-$name.rc"
		timings+=("deb-install-$name|$stage_secs")
		if [ "$rc" = 0 ]; then
			say "deb-install-$name: ok (${stage_secs}s)"
			row "$label" 1 0 0 "$stage_secs" "$(cat "build/deb-inst/$dir/summary")"
		else
			say "deb-install-$name: FAILED, exit $rc (${stage_secs}s), log: results/deb-install-$name.log"
			tail -n 20 "$results/deb-install-$name.log" | sed 's/^/    /'
			row "$label" 0 1 0 "$stage_secs" "see results/deb-install-$name.log and build/deb-inst/$dir"
		fi
	done
fi

# the kernels whose module the package install above did not build
if [ $hook_done = 0 ]; then
	for kver in "${trixie_hook[@]}"; do
		build_kmod "$kver" "$kver" "$(bash scripts/trixie-kernel.sh print "$kver" | sed -n 's/^KDIR=//p')"
	done
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

# --- VM runs -------------------------------------------------------------------

# What runs where: the tests' "# sv-test:" lines, see the top of this file.
# The debug kernel (KASAN, lockdep, kmemleak, UBSAN) runs nearly the whole
# suite, the protocol suites as their SV_QUICK subsets, in shards side by
# side: it is the same 6.1 source as the first stock kernel and it is where
# memory-safety, locking and leak bugs show.  The first stock kernel runs
# what the debug kernel cannot ("first"), the other stock kernels what
# depends on the kernel ("stock").  Without a debug kernel the first stock
# kernel runs everything.
#
# The VM order is chosen for two lanes (svplan.py sizes the shards
# for it): the first two launched take one lane each, and the lane that
# frees first takes the next.  So: debug shard #1, #2, the other stock
# kernels, the cloud kernels, the first stock kernel, make demo.  One lane
# then runs #1, the other #2 and the stock and cloud kernels, sized to end
# together.  (Launching longest first left one lane idle for the last ~4
# min: the VMs are too few and too long for that rule.  Three debug shards
# whose #3 was meant for #1's lane lost the balance when the 6.12 VM grew:
# #1 ended first and took the cloud VMs, and #3 ended up after 6.12,
# ~12 min after the other lane, as planned from the 2026-11-26 durations.)
# kmemleak scanning is slow under TCG, so only the debug runs turn it on.
# pci=noacpi: routing PCI interrupts through ACPI means running the _PRT
# method of qemu's DSDT, an AML loop that the KASAN-built interpreter takes
# 20-30 s over under TCG (it hits ACPICA's 30 s loop timeout on a loaded
# host, "AE_AML_LOOP_TIMEOUT"); virtio-pci uses MSI-X and never needed it.
# Measured: boot to a shell 41 -> 23-30 s.  (acpi=noirq skips it too, but
# 3 of the 9 boots tried with it hung early, see run.sh's watchdog.)
launch_debug $((dk_early + 1)) 2
for kver in "${stock[@]:1}"; do
	# shellcheck disable=SC2046 # nic_arg: one word or none
	launch "$results/$kver" vm_job "$kver" "$kver" "$results/$kver" "$vm_timeout" "$stock_filter" --kver "$kver" \
		$(nic_arg "$stock_filter")
done
# Debian 13's kernel with an image (7.3): what every further stock kernel runs
for kver in "${trixie[@]}"; do
	[ -f "build/$kver/kmod/softverbs.ko" ] || continue
	# shellcheck disable=SC2046 # nic_arg: one word or none
	launch "$results/$kver" vm_job "$kver" "$kver" "$results/$kver" "$vm_timeout" "$stock_filter" --kver "$kver" \
		$(nic_arg "$stock_filter")
done
# the cloud kernels in the same lane: a few minutes each
for kver in "${cloud[@]}"; do
	f=$cloud_filter
	[ "$kver" != "${cloud[0]}" ] || f=$cloud1_filter
	# shellcheck disable=SC2046 # nic_arg: one word or none
	launch "$results/$kver" vm_job "$kver" "$kver" "$results/$kver" "$vm_timeout" "$f" --kver "$kver" \
		$(nic_arg "$f")
done
launch_debug 3 "${#dk_shard_list[@]}"
if [ ${#stock[@]} -gt 0 ]; then
	kver=${stock[0]}
	# no debug kernel after all (its build failed): this one runs everything
	[ -n "$dk_kver" ] || first_filter=${SV_TESTS:-}
	# shellcheck disable=SC2046 # nic_arg: one word or none
	launch "$results/$kver" vm_job "$kver" "$kver" "$results/$kver" "$vm_timeout" "$first_filter" --kver "$kver" \
		$(nic_arg "$first_filter")
fi
# the roots' VMs: the sid root's (rdma-core 65's suite, three runs of it:
# long), the Debian 13 root's (UCX, libfabric, Open MPI of Debian 13)
# launch_root SUFFIX LABEL FILTER ROOT KVER...: a VM of ROOT on each KVER
launch_root() {
	local suffix=$1 label=$2 filter=$3 rootdir=$4 kver
	shift 4
	[ -n "$rootdir" ] || return 0
	for kver in "$@"; do
		# shellcheck disable=SC2046 # nic_arg: one word or none
		launch "$results/$kver-$suffix" vm_job "$kver $label" "$kver" "$results/$kver-$suffix" "$vm_timeout" \
			"$filter" --kver "$kver" --root "$rootdir" $(nic_arg "$filter")
	done
}
launch_root sid "sid root" "$sid_filter" "$sid_root" "${sid_kernels[@]}"
launch_root trixie "Debian 13 root" "$troot_filter" "$troot" "${troot_kernels[@]}"
# the 7.3 cloud kernel in the Debian 13 root: 17-deb with the module
# DKMS's header hook built for it in the package install above (which is
# its module build: no module under test)
if [ -n "$troot" ] && [ $hook_done = 1 ] && filter_runs "$troot_filter" 17-deb; then
	for kver in "${trixie_hook[@]}"; do
		launch "$results/$kver-trixie" vm_job "$kver Debian 13 root" "$kver" "$results/$kver-trixie" "$vm_timeout" \
			'^(17-deb)$' --kver "$kver" --root "$troot"
	done
fi
# last, in the lane that frees first: about two minutes
if [ "$demo_wanted" = 1 ]; then
	launch "$results/demo" demo_job "$results/demo"
fi
wait
for dir in "${job_dirs[@]}"; do
	if [ -f "$dir/row" ]; then
		IFS='|' read -r label p f s sec note <"$dir/row"
		row "$label" "$p" "$f" "$s" "$sec" "$note"
		IFS='|' read -r name sec <"$dir/timing"
		timings+=("$name|$sec")
	else
		row "$(basename "$dir")" 0 1 0 0 "the VM job reported nothing"
	fi
done

# --- interop across kernels (scripts/interop-vms.sh) ---------------------------
# softverbs and Soft-RoCE on Debian 13's 7.3 and the first stock 6.1
# (svplan.py's interop_old), two VMs on a wire, both ways round: two VMs at
# once, so only after every lane above has ended.  One row, its cases
# counted one by one.
interop_new=''
for kver in "${trixie[@]}"; do
	[[ $kver != 7.3.* ]] || interop_new=$kver
done
if [ "$interop_wanted" = 1 ] && [ -n "$interop_new" ] &&
	[ -f "build/$interop_new/kmod/softverbs.ko" ] && [ -f "build/$interop_old/kmod/softverbs.ko" ]; then
	stage interop env SV_INTEROP_NEW="$interop_new" SV_INTEROP_OLD="$interop_old" \
		SV_INTEROP_LOGS="$results/interop" bash scripts/interop-vms.sh || true
	counts=$(sed -n 's/^\([0-9]\+\) passed, \([0-9]\+\) failed$/\1 \2/p' "$results/interop.log" | tail -n 1)
	read -r p f <<<"${counts:-0 1}"
	note="wall s per pairing: $(sed -n 's/^# wall time: .*: \([0-9]*\)s$/\1/p' "$results/interop.log" | paste -sd ' ')"
	[ -n "$counts" ] || note="no summary, see results/interop.log"
	row "interop: $interop_new <-> $interop_old" "$p" "$f" 0 "$stage_secs" "$note"
fi

# The measured times, for the next run's shards: tests/user/durations with
# this run's "# time:" lines in (adopt with cp; see scripts/test-durations.sh).
bash scripts/test-durations.sh "$results" >"$results/durations.new" 2>"$results/durations.log" ||
	say "durations: scripts/test-durations.sh failed, see results/durations.log"

# --- report ------------------------------------------------------------------

echo
echo "Stage timings (s):"
for t in "${timings[@]}"; do
	IFS='|' read -r name sec <<<"$t"
	printf '  %-52s %8s\n' "$name" "$sec"
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

# The rows that failed, again, next to the total: a log that keeps only its
# tail (a CI page) still says which suite it was.
failed_rows=()
for r in "${rows[@]}"; do
	IFS='|' read -r name p f s sec note <<<"$r"
	[ "$f" -eq 0 ] || failed_rows+=("$name: $f failed${note:+ ($note)}")
done
if [ ${#failed_rows[@]} -gt 0 ]; then
	echo
	echo "Failed suites:"
	printf '  %s\n' "${failed_rows[@]}" | cut -c1-300
fi

echo
line="$total_pass passed, $total_fail failed"
[ $total_skip -eq 0 ] || line+=", $total_skip skipped"
echo "$line"
[ $total_fail -eq 0 ]
