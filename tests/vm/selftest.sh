#!/bin/bash
# selftest.sh [--kver KVER]: test the harness itself (run.sh, init,
# guest-tests.sh, lib.sh) with a set of fake tests whose verdicts are known:
# pass, skip, fail, a kernel WARNING, a taint, a timeout, a missing module,
# and leftovers from cleanup (per-test timeout 40 s: generous for a busy host).
# Run it after changing anything in tests/vm or
# tests/user/lib.sh; it boots one VM (~1 min under TCG).
set -euo pipefail

here=$(dirname "$(realpath "$0")")
root=$(realpath "$here/../..")
kver_args=("$@")

# The fake repo must be visible in the guest: not under /tmp, which the guest
# mounts a fresh tmpfs over.
fake=$(mktemp -d /var/tmp/sv-selftest.XXXXXX)
trap 'rm -rf "$fake"' EXIT
mkdir -p "$fake/tests/user" "$fake/tests/vm"
cp -r "$root/tests/user/lib.sh" "$root/tests/user/lib" "$fake/tests/user/"
cp "$here/guest-tests.sh" "$fake/tests/vm/"

t() { cat >"$fake/tests/user/$1.sh"; }
t 10-pass <<'EOF'
. "$(dirname "$0")/lib.sh"
sv_assert_eq "$PWD" "$SV_ROOT" "cwd"
sv_expect_fail ls /nonexistent
sv_netns_add svst-a
sv_veth_pair svst0 svst1 svst-a
sv_wait_for '[ "$(cat /sys/class/net/svst0/carrier)" = 1 ]' 5
[ -e /dev/fd/0 ]	# process substitution needs /dev/fd
EOF
t 20-skip <<'EOF'
. "$(dirname "$0")/lib.sh"
sv_need no-such-tool
EOF
t 30-fail <<'EOF'
. "$(dirname "$0")/lib.sh"
sv_netns_add svst-b
echo "reached"
false
echo "not reached"
EOF
t 40-warn <<'EOF'
echo "WARNING: CPU: 0 PID: 1 at fake/location" >/dev/kmsg
EOF
t 50-taint <<'EOF'
echo 512 >/proc/sys/kernel/tainted
EOF
t 60-hang <<'EOF'
. "$(dirname "$0")/lib.sh"
sv_on_exit 'echo cleanup-after-term'
sleep 1000
EOF
t 70-module <<'EOF'
. "$(dirname "$0")/lib.sh"
sv_load_module
EOF
t 80-leftovers <<'EOF'
. "$(dirname "$0")/lib.sh"
! grep -q svst <<<"$(ip netns)" || sv_fail "namespaces left over: $(ip netns)"
! ip link show svst0 2>/dev/null || sv_fail "veth left over"
! sv_wait_for false 1 || sv_fail "sv_wait_for false succeeded"
EOF

out=$fake/tap.txt
rc=0
"$here/run.sh" "${kver_args[@]}" --timeout 600 --results "$out" -- \
	env SV_ROOT="$fake" SV_TEST_TIMEOUT=40 "$fake/tests/vm/guest-tests.sh" \
	-m /nonexistent/softverbs.ko >/dev/null || rc=$?

expect=(
	"ok 1 - 10-pass"
	"ok 2 - 20-skip # SKIP no-such-tool is not installed"
	"not ok 3 - 30-fail"
	"not ok 4 - 40-warn"
	"not ok 5 - 50-taint"
	"not ok 6 - 60-hang"
	"not ok 7 - 70-module"
	"ok 8 - 80-leftovers"
	"not ok 9 - taint"
	"1..9"
)
got=$(grep -E '^(not )?ok |^1\.\.' "$out" || true)
bad=0
if [ "$got" != "$(printf '%s\n' "${expect[@]}")" ]; then
	echo "selftest: unexpected TAP:"
	diff <(printf '%s\n' "${expect[@]}") <(echo "$got") || true
	bad=1
fi
[ $rc -eq 1 ] || { echo "selftest: run.sh exit $rc, expected 1"; bad=1; }
# The diagnostics must say why each one failed.
for want in "reached" "WARNING: CPU: 0 PID: 1 at fake/location" "new taint bits 512" \
	"timed out after 40s" "cleanup-after-term" "SV_MODULE=/nonexistent/softverbs.ko does not exist"; do
	grep -qF "$want" "$out" || { echo "selftest: no '$want' in the diagnostics"; bad=1; }
done
if grep -q 'not reached' "$out"; then
	echo "selftest: a test went on after a failing command"
	bad=1
fi
if [ $bad -ne 0 ]; then
	echo "--- full TAP:"
	cat "$out"
	exit 1
fi
echo "selftest: ok"
