#!/bin/bash
# sv-test: kernels=debug cost=L
# Command fuzzer: malformed uverbs commands and netlink messages.
#
#   netns sv-70a                                          netns sv-70b
#   sv70a (softverbs) on x70a 10.170.0.1  ===============  x70b (carrier)
#   sv70v (softverbs, the victim) on x70v ==== x70w
#   cmdfuzz (tests/fuzz/cmdfuzz.c, built here against the system's RDMA uapi)
#
# For SV_CMDFUZZ_SECONDS (60) cmdfuzz runs, one after the other and
# two at a time, uverbs workers that open sv70a's (or the victim's) uverbs
# device twice and send valid commands, so handles really exist, mixed with
# malformed ones through the write() ABI (boundary and random in/out sizes,
# unknown and extended commands, live, destroyed, foreign and wrong-type
# handles, out-of-range sizes and flags, rxe driver udata too short, too
# long or non-zero, buffers that fault part way) and the ioctl() ABI
# (random and real object, method and attribute ids, lengths, flags,
# duplicates, faulting and read-only pointers); they map rings, close fds
# with objects on them, fork children that use the fds and exit, and are
# SIGKILLed at random moments.  An eighth of their commands are ODP MRs
# (explicit and implicit), ADVISE_MR prefetches, dma-buf MRs (a udmabuf
# where the kernel has one, other fds) and XRC (XRCDs, XRC SRQs, XRC_INI
# and XRC_TGT QPs), while a racer thread munmaps, mremaps, madvises,
# mprotects and forks over the memory under the MRs.  A netlink worker sends random and malformed
# RDMA netlink requests (every RDMA_NLDEV_CMD_*, wrong types and lengths,
# unknown device, port and object numbers, link add/del with bogus netdevs
# and types) and softverbs family requests (every command, missing,
# oversized, wrong-type, reply-only and unknown attributes, unknown
# devices, fault settings out of range).  Every 6-12 s the victim device is
# deleted under the workers (ib_uverbs disassociates their contexts) and
# created again.  Each worker first proves that valid commands of both ABIs
# still work on sv70a (a probe that fails fails the test); a system call
# that does not return within HANG s of SIGKILL fails it with the stacks.
# Afterwards: ib_core counts as many objects on sv70a as before, an RC
# ping-pong with data checks runs over sv70a, the device and the module go
# away, and the kernel log has no report (KASAN, lockdep, UBSAN, WARN;
# kmemleak at the end of the VM).  SV_CMDFUZZ_SEED repeats a run (the seed
# is printed); SV_CMDFUZZ_VERBOSE=1 also prints what each command returned.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma gcc ibv_rc_pingpong
[ -r /usr/include/rdma/ib_user_ioctl_cmds.h ] ||
	sv_skip "no RDMA uapi headers (linux-libc-dev)"

log_start=$(dmesg | wc -l)
# The compiler runs beside the setup (each takes 15-30 s under the debug
# kernel, mostly exec and page faults on TCG: two vCPUs do both at once).
# -O0: the time goes to the kernel, not to the fuzzer's own code.
bin=$(mktemp -d)
sv_on_exit "rm -rf '$bin'"
gcc -O0 -Wall -I"$SV_ROOT/uapi" -o "$bin/cmdfuzz" "$SV_ROOT/tests/fuzz/cmdfuzz.c" \
	-lpthread >"$bin/gcc.log" 2>&1 &
gcc_pid=$!

sv_xport_setup 70 softverbs self
ip -n "$XP_A_NS" -batch - <<EOF || sv_fail "cannot make the victim's veth"
link add x70v type veth peer name x70w
link set x70v up
link set x70w up
EOF

# Rings of fuzzed sizes: keep one context's queues small (the limit's own
# ENOMEM path gets fuzzed too) so that many workers fit in the VM.
param=/sys/module/softverbs/parameters/ctx_mem_max_mb
read -r mem_max <"$param"
echo 64 >"$param"
sv_on_exit "[ ! -e $param ] || echo $mem_max >$param"

# objects DEV: ib_core's counts for DEV ("pd 1 cq 2 qp 1 ...")
objects() {
	rdma resource show | sed -n "s/^[0-9]*: $1: //p"
}
base=$(objects "$XP_A_DEV")
[ -n "$base" ] || sv_fail "no resource counts for $XP_A_DEV"
echo "objects at start: $base"

wait "$gcc_pid" || sv_fail "cannot compile tests/fuzz/cmdfuzz.c: $(<"$bin/gcc.log")"

seconds=${SV_CMDFUZZ_SECONDS:-60}
seed=${SV_CMDFUZZ_SEED:-$EPOCHSECONDS}
hang=$(sv_t 20)
timeout -k 10 $((seconds + 4 * hang + 300)) "$bin/cmdfuzz" -n "$XP_A_NS" \
	-d "$XP_A_DEV:$XP_A_IF" -g "$XP_A_GID4" -v sv70v:x70v -t "$seconds" \
	-s "$seed" -H "$hang" ${SV_CMDFUZZ_VERBOSE:+-V} || sv_fail "70-cmdfuzz failed (seed $seed)"

# every process of the run is gone, and its objects with it
sv_wait_for "[ \"\$(objects $XP_A_DEV)\" = \"$base\" ]" 30 ||
	sv_fail "objects after the fuzzing: $(objects "$XP_A_DEV"), at start: $base"
echo "ok: every object of the fuzzing is gone ($base)"
[ ! -e /sys/class/infiniband/sv70v ] || sv_fail "the victim device is left"

# the device still carries data
xp_pair 4 A B ibv_rc_pingpong -n 20 -s 4096 -c || sv_fail "RC ping-pong over $XP_A_DEV failed"
echo "ok: RC ping-pong with data checks over $XP_A_DEV"

echo "$mem_max" >"$param"
rdma link delete "$XP_A_DEV" || sv_fail "cannot delete $XP_A_DEV"
echo "ok: device deleted"
sv_unload_clean "$log_start"
