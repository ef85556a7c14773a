#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# XRC objects through libsoftverbs (Documentation/design.md, "XRC"):
#
#   init_net:  sv_u0 (softverbs) on vA 10.31.0.1/24, vA ===== veth ===== vB
#              one process + a forked child, both opening $dir/domain
#
# ulib/examples/xrc opens XRC domains through a file (ibv_open_xrcd: found
# by the file's inode, O_CREAT/O_EXCL as ib_uverbs answers them), a private
# one (fd -1), XRC SRQs in them (ibv_create_srq_ex IBV_SRQT_XRC, distinct
# 24-bit numbers from ibv_get_srq_num, a receive posted, a destroyed one's
# number not handed out again at once), the refusals
# (XRC SRQ without domain or CQ; closing a domain, destroying a CQ or a PD
# still in use: EBUSY), and a child process that finds the parent's domain
# through the file and makes its own SRQ there.  Then data over XRC on the
# one device: an XRC send QP connected to an XRC receive QP of the domain
# (IBTA A14), SEND (1 and 3 packets, with immediate) into the SRQ it names,
# received with the target's QP number, RDMA WRITE, READ and Fetch & Add
# against an MR of the SRQ's PD, ibv_open_qp of the target, and a SEND
# naming another domain's SRQ answered with an invalid request NAK.  Linked
# with -lsoftverbs only.  The device must advertise IBV_DEVICE_XRC (the
# program checks ibv_query_device).  36-ulib-xrc-mp has XRC between
# processes and devices, every send opcode, lifetimes and loss.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma readelf
xrc=$SV_TOOLS/ulib/examples/xrc
[ -x "$xrc" ] || sv_fail "$xrc is not built (make -C ulib)"
grep -q 'libibverbs' <<<"$(readelf -d "$xrc")" && sv_fail "xrc links libibverbs"
sv_ulib_device

dir=$(mktemp -d)
sv_on_exit "rm -rf '$dir'"
rc=0
out=$("$xrc" -d sv_u0 "$dir/domain" 2>&1) || rc=$?
echo "$out"
[ $rc -eq 0 ] || sv_fail "xrc against sv_u0 exited $rc"
echo "SV_SUMMARY: ulib-xrc on $SV_KVER: $(grep -c ': ok$' <<<"$out") XRC checks passed"
echo "XRC domains, SRQs and QPs work through libsoftverbs on sv_u0"
