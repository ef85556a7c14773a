#!/bin/bash
# sv-test: kernels=debug,stock cost=M
# Ring fuzzer: a process scribbles on its own mapped rings while it uses them.
#
#   netns sv-69a: sv69a (softverbs) on x69a 10.169.0.1 ==== x69b (carrier only)
#
# 69-ringfuzz.py runs children one after the other.  Each has CQs, an SRQ,
# RC QPs connected to themselves (one on the SRQ) and a UD QP; one thread
# writes random bytes into the process's ring mappings (headers and indices,
# WQE and CQE slots) while another posts, polls, arms, resizes, flushes QPs
# through ERR and brings them back, every error ignored; the parent kills it
# with SIGKILL at a random moment or lets it finish.  Only the kernel is
# judged: afterwards ib_core counts as many QPs, CQs, SRQs and MRs on the
# device as before, the device goes away, and the kernel log has no report
# (KASAN, lockdep, UBSAN, WARN, a hung task; kmemleak at the end of the VM).
# SV_FUZZ_SEED repeats a run; 12 rounds of up to 3 s (4 under SV_QUICK).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/69-ringfuzz.py
$py -c 'import importlib.util as u, sys; sys.exit(not u.find_spec("pyverbs.srq"))' 2>/dev/null ||
	sv_skip "python3-pyverbs is not installed"

log_start=$(dmesg | wc -l)
sv_xport_setup 69 softverbs self

# objects DEV: ib_core's counts for DEV ("pd 1 cq 2 qp 1 ...")
objects() {
	rdma resource show | sed -n "s/^[0-9]*: $1: //p"
}
base=$(objects "$XP_A_DEV")
[ -n "$base" ] || sv_fail "no resource counts for $XP_A_DEV"
echo "objects at start: $base"

rounds=$([ -n "$SV_QUICK" ] && echo 4 || echo 12)
timeout -k 5 "$(sv_t 900)" $py "$helper" run "$XP_A_DEV" "$XP_A_GID4" \
	"$rounds" 3 || sv_fail "69-ringfuzz.py failed"

# the last child's objects go with its file descriptors
sv_wait_for "[ \"\$(objects $XP_A_DEV)\" = \"$base\" ]" 30 ||
	sv_fail "objects after the rounds: $(objects "$XP_A_DEV"), at start: $base"
echo "ok: every object of the children is gone ($base)"
rdma link delete "$XP_A_DEV" || sv_fail "cannot delete $XP_A_DEV"
echo "ok: device deleted"
sv_log_clean "$log_start"
