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
# So no "CMD | grep -q PATTERN" (nor grep -q's forms -Eq, -qx..., nor grep
# with its output to /dev/null, which GNU grep treats alike): grep exits at
# its first match, CMD dies of SIGPIPE if it still had output to write, and
# pipefail makes the pipeline false although the pattern matched (and a
# negated check true although it did).  grep a copy of the output instead:
# grep -q PATTERN <<<"$(CMD)", or out=$(CMD) and grep -q PATTERN <<<"$out".
# The same for every reader that can stop before its input ends (head -N,
# sed with q, awk with exit, grep -m N, read): head -5 <<<"$(CMD)".

# The helpers live in two parts: lib/common.sh, the generic ones (module,
# namespaces and veths, skip/fail, cleanup, waiting), and lib/xport.sh, the
# transport fixture (softverbs and Soft-RoCE devices on veth pairs, GIDs, the
# distro tools between them).  Tests source this file, which sources both.
# A test that needs another fixture of lib/ sources it from $sv_lib after
# this file (. "$sv_lib/objects.sh").
# No $(dirname): under the debug kernel every fork+exec costs 0.2-0.5 s.
case ${BASH_SOURCE[0]} in
*/*) sv_lib=${BASH_SOURCE[0]%/*}/lib ;;
*) sv_lib=lib ;;
esac
# shellcheck source=tests/user/lib/common.sh
. "$sv_lib/common.sh"
# shellcheck source=tests/user/lib/xport.sh
. "$sv_lib/xport.sh"
