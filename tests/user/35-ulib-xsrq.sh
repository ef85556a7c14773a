#!/bin/bash
# sv-test: kernels=debug,stock cost=M
# rdma-core's ibv_xsrq_pingpong (ibverbs-utils, the distro binary,
# unmodified) on libsoftverbs: XRC (IBTA Annex A14) between processes.
#
#   netns sv-35a                              netns sv-35b
#   sv35a (softverbs) on x35a 10.135.0.1  ==== x35b 10.135.0.2 <- sv35b (softverbs)
#
# libibverbs.so.1 -> libsoftverbs.so.1 on LD_LIBRARY_PATH, as 33-ulib-stock
# does.  The server makes one XRC receive QP and XRC SRQ per client in the
# domain of /tmp/xrc_domain, the client XRC send QPs naming the server's
# SRQ numbers; they ping-pong over both directions.
#
#   A <- B   two devices: the client's sends cross the veth
#   A <- A   two processes on one device: both open /tmp/xrc_domain, so
#            they share one XRC domain (ib_uverbs finds it by the inode)
. "$(dirname "$0")/lib.sh"
sv_need ip rdma ibv_xsrq_pingpong
lib=$SV_TOOLS/ulib/libsoftverbs.so.1
[ -f "$lib" ] || sv_fail "$lib is not built (make -C ulib)"
XP_PORT=23500
sv_xport_setup 35 softverbs softverbs
shim=$(mktemp -d)
sv_on_exit "rm -rf '$shim' /tmp/xrc_domain"
ln -s "$(realpath "$lib")" "$shim/libibverbs.so.1"
export LD_LIBRARY_PATH=$shim

xp_case "xsrq_pingpong A<-B" xp_pair 4 A B ibv_xsrq_pingpong -n 50 -s 1024 -c 1
xp_case "xsrq_pingpong A<-A" xp_pair 4 A A ibv_xsrq_pingpong -n 50 -s 1024 -c 1
echo "SV_SUMMARY: xsrq_pingpong on $SV_KVER: ${#_xp_pass[@]} cases passed"
xp_summary
