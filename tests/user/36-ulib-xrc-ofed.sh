#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# OFED 1.5's XRC calls through libsoftverbs' compatibility functions
# (Documentation/ulib.md, "The old OFED XRC calls"):
#
#   init_net:  sv_u0 (softverbs) on vA 10.31.0.1/24, vA ===== veth ===== vB
#              parent (domain, XRC SRQ, receive QP, sender) + forked child
#              (the domain through $dir/domain, a registration of the QP)
#
# ulib/examples/xrc_ofed opens the domain of a file (ibv_open_xrc_domain),
# makes an XRC SRQ (ibv_create_xrc_srq) and a receive QP by number
# (ibv_create_xrc_rcv_qp); a child process opens the domain through the
# file, registers with the QP (ibv_reg_xrc_rcv_qp, twice: one
# registration) and brings it to RTR (ibv_modify_xrc_rcv_qp); the parent
# unregisters, queries the QP by number (RTR) and SENDs (1 and 3 packets,
# immediate, data checked) into the SRQ through the QP only the child
# holds; the child acknowledges the COMM_EST event and unregisters, after
# which the number is gone.  Refusals: unknown numbers, another domain, a
# send QP's number, bad open flags, missing domain or CQ, closing a domain
# in use (EBUSY), OFED's IBV_QPT_XRC value (EOPNOTSUPP).  Linked with
# -lsoftverbs only.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma readelf
prog=$SV_TOOLS/ulib/examples/xrc_ofed
[ -x "$prog" ] || sv_fail "$prog is not built (make -C ulib)"
grep -q 'libibverbs' <<<"$(readelf -d "$prog")" && sv_fail "xrc_ofed links libibverbs"
sv_ulib_device

dir=$(mktemp -d)
sv_on_exit "rm -rf '$dir'"
rc=0
out=$("$prog" -d sv_u0 "$dir/domain" 2>&1) || rc=$?
echo "$out"
[ $rc -eq 0 ] || sv_fail "xrc_ofed against sv_u0 exited $rc"
echo "SV_SUMMARY: ulib-xrc-ofed on $SV_KVER: $(grep -c ': ok$' <<<"$out") OFED XRC checks passed"
echo "OFED's XRC calls work through libsoftverbs on sv_u0"
