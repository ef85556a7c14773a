# shellcheck shell=bash
# Helpers for tests/user/*.sh; source it first: . "$(dirname "$0")/lib.sh"
#
# A test exits 0 for pass, 4 for skip (a prerequisite is missing) and anything
# else for fail; tests/vm/guest-tests.sh runs them in the VM, but they must
# also run as root on a real host, so nothing here assumes the VM.
#
# Environment (set by guest-tests.sh; defaults for running a test by hand):
#   SV_ROOT    repo root                      (default: two levels above lib.sh)
#   SV_MODULE  softverbs.ko to insmod         (default: modprobe softverbs)
#   SV_TOOLS   where the built svctl/ulib are (default: $SV_ROOT)
#   SV_KVER    kernel release                 (default: uname -r)
#
# Sourcing also turns on errexit/nounset/pipefail: any failing step fails the test.
set -euo pipefail

SV_ROOT=${SV_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SV_MODULE=${SV_MODULE:-}
SV_TOOLS=${SV_TOOLS:-$SV_ROOT}
SV_KVER=${SV_KVER:-$(uname -r)}
export SV_ROOT SV_MODULE SV_TOOLS SV_KVER

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

# sv_wait_for 'CMD' TIMEOUT: poll CMD (a shell string) every 0.1 s until it
# succeeds; fails (returns 1) after TIMEOUT seconds.
sv_wait_for() {
	local cmd=$1 deadline
	deadline=$(($(date +%s%N) + ${2:?sv_wait_for needs a timeout} * 1000000000))
	until eval "$cmd" >/dev/null 2>&1; do
		[ "$(date +%s%N)" -lt $deadline ] || return 1
		sleep 0.1
	done
}

# --- module ------------------------------------------------------------------

_sv_module_loaded() { [ -d /sys/module/softverbs ]; }

# sv_load_module [PARAM...]: load softverbs (with the RDMA core it needs)
# unless it is loaded already: insmod $SV_MODULE, or modprobe when unset
# (a host with the module installed, e.g. through DKMS).
sv_load_module() {
	modprobe ib_core
	modprobe ib_uverbs
	_sv_module_loaded && return 0
	if [ -n "$SV_MODULE" ]; then
		[ -f "$SV_MODULE" ] || sv_fail "SV_MODULE=$SV_MODULE does not exist"
		# insmod resolves no dependencies: load them first
		local dep
		for dep in $(modinfo -F depends "$SV_MODULE" | tr , ' '); do
			modprobe "$dep"
		done
		insmod "$SV_MODULE" "$@"
	else
		modprobe softverbs "$@"
	fi
}

# sv_unload_module: remove softverbs if loaded. Device teardown may still hold
# a reference for a moment after the last user is gone, so retry briefly.
sv_unload_module() {
	_sv_module_loaded || return 0
	sv_wait_for 'rmmod softverbs' 10 || sv_fail "cannot rmmod softverbs: $(rmmod softverbs 2>&1)"
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
