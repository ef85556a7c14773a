# shellcheck shell=bash
# tests/user/lib/common.sh: the generic half of lib.sh (source lib.sh, not
# this): environment and time scale, results, the cleanup stack, polling
# with builtins, the module, namespaces and veths.  Nothing here knows
# about RoCE devices or Soft-RoCE; lib/xport.sh does.

SV_ROOT=${SV_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
SV_MODULE=${SV_MODULE:-}
SV_TOOLS=${SV_TOOLS:-$SV_ROOT}
SV_KVER=${SV_KVER:-$(uname -r)}
export SV_ROOT SV_MODULE SV_TOOLS SV_KVER

# Waiting scales with the kernel: under KASAN, lockdep and kmemleak on TCG
# (the debug kernel) everything runs 5-10 times slower than on a stock
# kernel, so fixed timeouts written for the latter fail healthy runs there.
# SV_TIME_SCALE multiplies the timeouts of sv_wait_for and sv_t.
# The answer is kept per boot in /tmp (zcat and grep cost a second per test
# under the debug kernel, where fork+exec is what is slow).
if [ -z "${SV_TIME_SCALE:-}" ]; then
	_sv_boot=
	read -r _sv_boot </proc/sys/kernel/random/boot_id 2>/dev/null || true
	_sv_scale_cache=/tmp/.sv-time-scale.${_sv_boot:-none}
	if [ -n "$_sv_boot" ] && [ -f "$_sv_scale_cache" ] && read -r SV_TIME_SCALE <"$_sv_scale_cache" &&
		[[ $SV_TIME_SCALE =~ ^[0-9]+$ ]]; then
		:
	else
		SV_TIME_SCALE=1
		# grep reads a copy, not a pipe (see lib.sh): zcat may still be
		# writing the config's last lines when grep finds the line
		if [ -r /proc/config.gz ] && grep -qx 'CONFIG_KASAN=y' <<<"$(zcat /proc/config.gz 2>/dev/null)"; then
			SV_TIME_SCALE=8
		fi
		[ -z "$_sv_boot" ] || echo "$SV_TIME_SCALE" >"$_sv_scale_cache" 2>/dev/null || true
	fi
	unset _sv_boot _sv_scale_cache
fi
export SV_TIME_SCALE
# The long protocol suites (50-xport-*, 51-interop, 52-sv2sv, 53-verbs-matrix,
# 54-netem) have a full case list and a representative subset, chosen by
# SV_QUICK (non-empty: the subset).  By default the debug kernel runs the
# subsets (the full lists would take hours under KASAN on TCG) and the stock
# kernels the full lists.
if [ -z "${SV_QUICK+set}" ]; then
	SV_QUICK=
	[ "$SV_TIME_SCALE" -le 1 ] || SV_QUICK=1
fi
export SV_QUICK

# sv_t SECONDS: a timeout of SECONDS on a stock kernel, scaled for this one
sv_t() { echo $(($1 * SV_TIME_SCALE)); }

# --- results ---------------------------------------------------------------

# sv_skip WHY: the test cannot run here (exit 4); the runner shows WHY.
sv_skip() {
	echo "SKIP: $*"
	exit 4
}

# sv_fail WHY: the test failed.
sv_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# sv_assert_eq EXPECTED ACTUAL [WHAT]
sv_assert_eq() {
	[ "$1" = "$2" ] || sv_fail "${3:-value}: expected '$1', got '$2'"
}

# sv_expect_fail CMD [ARG...]: CMD must fail. Its stderr is shown, so the log
# proves it failed for the intended reason.
sv_expect_fail() {
	local err rc=0
	err=$("$@" 2>&1 >/dev/null) || rc=$?
	[ $rc -ne 0 ] || sv_fail "expected to fail but succeeded: $*"
	echo "expected failure (rc $rc): $*: $err"
}

# sv_need CMD...: skip unless every CMD is installed.
sv_need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || sv_skip "$c is not installed"
	done
}

# sv_need_kernel_cc: skip unless this root has the compiler SV_KVER was
# built with (CONFIG_CC_VERSION_TEXT's first word), which DKMS builds its
# modules with: without it (Debian 13's kernels, gcc-14, under Debian 12's
# user space) no one installs through DKMS for SV_KVER here.  check.sh
# runs the DKMS and package tests of Debian 13's kernels in its Debian 13
# root.  A kernel whose configuration is not to be found passes.
sv_need_kernel_cc() {
	local f cc=
	for f in "/lib/modules/$SV_KVER/config" "/boot/config-$SV_KVER" \
		"/lib/modules/$SV_KVER/build/include/config/auto.conf"; do
		[ -r "$f" ] || continue
		cc=$(sed -n '/^CONFIG_CC_VERSION_TEXT=/{s/^[^=]*="\{0,1\}\([^ "]*\).*/\1/p;q}' "$f")
		break
	done
	[ -z "$cc" ] || command -v "$cc" >/dev/null ||
		sv_skip "$SV_KVER was built with $cc, which this root lacks: DKMS cannot build for it here (its DKMS tests run in a root that has it: Debian 13's, for Debian 13's kernels)"
}

# --- cleanup stack -----------------------------------------------------------

# sv_on_exit 'CMD': run CMD when the test exits, however it exits; commands
# run in reverse order of registration (undo in reverse, like an unwind label
# chain). Each runs even if an earlier one fails; the test's status is kept.
_sv_cleanups=()
sv_on_exit() {
	_sv_cleanups+=("$1")
}
_sv_run_cleanups() {
	local rc=$? i
	set +e
	for ((i = ${#_sv_cleanups[@]} - 1; i >= 0; i--)); do
		eval "${_sv_cleanups[i]}"
	done
	exit $rc
}
trap _sv_run_cleanups EXIT
# The runner's timeout sends TERM: turn signals into an exit so cleanup runs.
trap 'exit 143' TERM
trap 'exit 130' INT

# --- polling -----------------------------------------------------------------

# sv_sleep SECONDS: sleep without forking sleep(1) (every exec costs 0.2-0.5 s
# under the debug kernel): a read that times out on a pipe nobody writes to.
# The pipe is opened read-write, so the read sees neither data nor EOF.
_sv_sleep_fd=
sv_sleep() {
	if [ -z "$_sv_sleep_fd" ]; then
		exec {_sv_sleep_fd}<> <(:)
	fi
	read -r -t "$1" -u "$_sv_sleep_fd" _ || true
}

# sv_wait_for 'CMD' TIMEOUT: poll CMD (a shell string) every 0.1 s until it
# succeeds; fails (returns 1) after TIMEOUT seconds (times SV_TIME_SCALE).
# The clock and the pause are builtins: only CMD itself forks.
sv_wait_for() {
	local cmd=$1 deadline now
	now=${EPOCHREALTIME/[.,]/}
	deadline=$((now + ${2:?sv_wait_for needs a timeout} * SV_TIME_SCALE * 1000000))
	until eval "$cmd" >/dev/null 2>&1; do
		now=${EPOCHREALTIME/[.,]/}
		[ "$now" -lt $deadline ] || return 1
		sv_sleep 0.1
	done
}

# sv_tcp_listening PORT [PID]: a TCP socket of this network namespace (or of
# process PID's) listens on PORT (what "ss -Hltn sport = :PORT" shows, read
# from /proc/[PID/]net/tcp{,6} by the shell: no exec per poll, and no
# "ip netns exec" for another namespace's table)
sv_tcp_listening() {
	local hex f laddr st rest dir=/proc${2:+/$2}/net
	printf -v hex ':%04X' "$1"
	for f in "$dir"/tcp "$dir"/tcp6; do
		[ -r "$f" ] || continue
		while read -r _ laddr _ st rest; do
			[ "$st" = 0A ] && [[ $laddr == *"$hex" ]] && return 0
		done <"$f"
	done
	return 1
}

# sv_file_has FILE STRING: FILE exists and contains STRING (grep -qF
# without the exec, for polling a background process's output)
sv_file_has() {
	local c=
	[ -r "$1" ] || return 1
	read -r -d '' c <"$1" || true
	[[ $c == *"$2"* ]]
}

# sv_file_has_line FILE GLOB: FILE has a line matching GLOB (builtins only,
# for polling a starting helper's output)
sv_file_has_line() {
	local l
	while IFS= read -r l || [ -n "$l" ]; do
		# shellcheck disable=SC2053
		[[ $l == $2 ]] && return 0
	done <"$1"
	return 1
}

# --- module ------------------------------------------------------------------

_sv_module_loaded() { [ -d /sys/module/softverbs ]; }

# sv_load_module [PARAM...]: load softverbs (with the RDMA core it needs)
# unless it is loaded already: insmod $SV_MODULE, or modprobe when unset
# (a host with the module installed, e.g. through DKMS).
# Only modules not loaded yet are modprobed (each modprobe or modinfo is a
# fork+exec, slow under the debug kernel), and SV_MODULE's dependency list is
# kept in /tmp next to a copy of the module's timestamp, so modinfo runs once
# per module build and boot rather than once per test.
_sv_modprobe_missing() {
	local m missing=()
	for m in "$@"; do
		[ -d "/sys/module/${m//-/_}" ] || missing+=("$m")
	done
	[ ${#missing[@]} -eq 0 ] || modprobe -a "${missing[@]}"
}
# _sv_module_deps KO: the modules KO depends on, space-separated
_sv_module_deps() {
	local boot='' cache deps
	read -r boot </proc/sys/kernel/random/boot_id 2>/dev/null || true
	cache=/tmp/.sv-deps.${boot:-none}.${1//\//_}
	if [ -n "$boot" ] && [ -f "$cache" ] && [ ! "$1" -nt "$cache" ] && read -r deps <"$cache"; then
		echo "$deps"
		return 0
	fi
	deps=$(modinfo -F depends "$1") || return 1
	deps=${deps//,/ }
	[ -z "$boot" ] || echo "$deps" >"$cache" 2>/dev/null || true
	echo "$deps"
}
sv_load_module() {
	_sv_modprobe_missing ib_core ib_uverbs
	_sv_module_loaded && return 0
	if [ -n "$SV_MODULE" ]; then
		[ -f "$SV_MODULE" ] || sv_fail "SV_MODULE=$SV_MODULE does not exist"
		# insmod resolves no dependencies: load them first
		local deps
		deps=$(_sv_module_deps "$SV_MODULE") || sv_fail "modinfo $SV_MODULE failed"
		# shellcheck disable=SC2086 # a list of module names
		_sv_modprobe_missing $deps
		insmod "$SV_MODULE" "$@"
	else
		modprobe softverbs "$@"
	fi
}

# sv_dev_shm: a tmpfs on /dev/shm (the test VM has none) for what keeps
# shared memory there (UCX, Open MPI), removed at exit
sv_dev_shm() {
	mountpoint -q /dev/shm && return 0
	mkdir -p /dev/shm
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm
	sv_on_exit 'umount /dev/shm'
}

# sv_load_module_init_net: sv_load_module for a test whose softverbs device
# sits in init_net, where rdma_rxe, once loaded, owns UDP 4791 (it binds
# there only): unloads it first, and softverbs again at exit.
sv_load_module_init_net() {
	[ ! -d /sys/module/rdma_rxe ] || modprobe -r rdma_rxe ||
		sv_fail "rdma_rxe is loaded and owns UDP 4791 in init_net"
	sv_load_module
	sv_on_exit sv_unload_module
}

# sv_unload_module: remove softverbs if loaded. Device teardown may still hold
# a reference for a moment after the last user is gone, so retry briefly.
sv_unload_module() {
	_sv_module_loaded || return 0
	sv_wait_for 'rmmod softverbs' 10 || sv_fail "cannot rmmod softverbs: $(rmmod softverbs 2>&1)"
}

# sv_log_clean LINE: fail if the kernel log after its first LINE lines (what
# "dmesg | wc -l" said when the test began) has a kernel report in it.  The
# guest runner checks each test's log too; this names the step.
sv_log_clean() {
	local reports
	reports=$(dmesg | tail -n +"$(($1 + 1))" |
		grep -E 'BUG:|WARNING:|Oops|KASAN|UBSAN|circular locking|Call Trace' || true)
	[ -z "$reports" ] || sv_fail "kernel reports: $reports"
	echo "ok: no kernel reports"
}

# sv_unload_clean LINE: the module unloads, then sv_log_clean LINE
sv_unload_clean() {
	sv_unload_module
	echo "ok: module unloaded"
	sv_log_clean "$1"
}

# --- network -----------------------------------------------------------------

# sv_netns_add NAME: a network namespace with lo up, deleted at exit.
sv_netns_add() {
	ip netns add "$1"
	sv_on_exit "ip netns del '$1'"
	ip -n "$1" link set lo up
}

# sv_veth_pair A B [NS_B]: veth A (this namespace) <-> B (in NS_B if given),
# both up, deleted at exit (deleting one end removes both).
sv_veth_pair() {
	local a=$1 b=$2 ns=${3:-}
	if [ -n "$ns" ]; then
		ip link add "$a" type veth peer name "$b" netns "$ns"
		ip -n "$ns" link set "$b" up
	else
		ip link add "$a" type veth peer name "$b"
		ip link set "$b" up
	fi
	sv_on_exit "ip link del '$a' 2>/dev/null"
	ip link set "$a" up
}
