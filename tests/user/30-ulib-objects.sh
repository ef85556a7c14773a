#!/bin/bash
# sv-test: kernels=debug,stock needs=rxe cost=S
# libsoftverbs end to end against Soft-RoCE: every object verb, RC and UD
# data movement, with no rdma-core library in the process.
#
#   init_net                                  netns sv-ulib
#   +------------------------------------+    +---------------------+
#   | rxe_u0 (rdma_rxe) on vA 10.30.0.1  |====|= vB 10.30.0.2       |
#   |   QP A <-> QP B  (RC, loopback)    |    |  (carrier only)     |
#   |   UD A <-> UD B  (loopback)        |    +---------------------+
#   +------------------------------------+
#
# rdma_rxe's kernel ABI is the one softverbs implements, so driving rxe with
# libsoftverbs (SOFTVERBS_ALLOW_RXE=1, the test-only override that also
# lists Soft-RoCE devices) proves the library's rings, doorbells, udata and
# mmap handling end to end while softverbs' objects are being written.
# ulib/examples/loopback is compiled against the distro <infiniband/verbs.h>
# and linked with -lsoftverbs only (checked below); it creates every object
# and runs an RC ping-pong with data checks (rings wrap many times), RDMA
# WRITE/READ, atomics, an MW bind, a CQ resize with completions pending,
# completion events, and a UD send answered through ibv_create_ah_from_wc.
# Without SOFTVERBS_ALLOW_RXE the device must not be listed.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma readelf
loopback=$SV_TOOLS/ulib/examples/loopback
[ -x "$loopback" ] || sv_fail "$loopback is not built (make -C ulib)"
modinfo rdma_rxe >/dev/null 2>&1 || sv_skip "no rdma_rxe module for $SV_KVER"
[ ! -d /sys/module/rdma_rxe ] || sv_skip "rdma_rxe is already loaded"

# The program must not drag rdma-core in.
needed=$(readelf -d "$loopback")
grep -q 'libsoftverbs.so.1' <<<"$needed" || sv_fail "loopback is not linked with libsoftverbs"
! grep -q 'libibverbs' <<<"$needed" || sv_fail "loopback links libibverbs"

modprobe -a ib_core ib_uverbs rdma_rxe
sv_on_exit 'modprobe -r rdma_rxe 2>/dev/null'
ulimit -l unlimited

sv_netns_add sv-ulib
sv_veth_pair vA vB sv-ulib
ip addr add 10.30.0.1/24 dev vA
ip -n sv-ulib addr add 10.30.0.2/24 dev vB
sv_wait_for 'c= && read -r c </sys/class/net/vA/carrier && [ "$c" = 1 ]' 10 || sv_fail "vA has no carrier"

rdma link add rxe_u0 type rxe netdev vA
sv_on_exit 'rdma link delete rxe_u0 2>/dev/null'
sv_wait_for '[[ "$(rdma link show rxe_u0/1)" == *"state ACTIVE"* ]]' 10 ||
	sv_fail "rxe_u0 port not ACTIVE"
# the IPv4 RoCE v2 GID the program prefers
sv_wait_for 'sv_gid_present rxe_u0 0000:0000:0000:0000:0000:ffff:0a1e:0001' 10 ||
	sv_fail "no IPv4 GID on rxe_u0"

# Soft-RoCE is invisible to libsoftverbs without the override.
rc=0
out=$("$loopback" -d rxe_u0 2>&1) || rc=$?
echo "$out"
sv_assert_eq 4 "$rc" "exit status without SOFTVERBS_ALLOW_RXE"
grep -q 'device rxe_u0 not found' <<<"$out" || sv_fail "rxe_u0 was listed without the override"

rc=0
SOFTVERBS_ALLOW_RXE=1 "$loopback" -v -d rxe_u0 -n 200 || rc=$?
[ $rc -eq 0 ] || sv_fail "loopback against rxe_u0 exited $rc"

echo "libsoftverbs drove rxe_u0 end to end"
