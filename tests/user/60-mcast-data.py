#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The rdma_cm multicast sender of 60-mcast-data.sh, in place of "mckey -s".

  60-mcast-data.py [--go] SRC_IP GROUP COUNT SIZE

--go: after the imports, wait for a line "go" on stdin (exit 1 at EOF or
any other line): the test starts the sender together with the receiver,
so python's and pyverbs' start (seconds under the debug kernel) overlaps
the receiver's, and says go once the receiver has joined.

Binds an rdma_cm UD id to SRC_IP, joins GROUP (the device is the one SRC_IP
resolves to), and sends COUNT messages of SIZE bytes to the group (QPN
0xFFFFFF, the join's address handle, Q_Key RDMA_UDP_QKEY), each signalled:
it waits for every send completion, which must be successful, before it
leaves the group and destroys its QP and address handle.

Why not mckey: "mckey -s" posts its messages unsignalled and at once leaves
the group and destroys its AH and QP.  A device that sends from a work item
(6.12's Soft-RoCE always) finds the AH gone when the work runs
("rxe_get_av: Unable to find AH matching ah_num"), fails the WQE and moves
the QP to the error state, so messages are lost before they reach the
wire; this test runs against Soft-RoCE too.  (softverbs' destroy_ah and
destroy_qp first send what was rung in: 25-ah "late", and 33-ulib-stock
runs mckey.)  Waiting for the completions is what a verbs consumer has to
do before it may tear down what its work requests use.

Exit status 0 when every send completed successfully; failures raise.
"""
import sys

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.addr import AH
from pyverbs.cmid import CMID, AddrInfo, CMEvent, CMEventChannel, UDParam
from pyverbs.qp import QPCap, QPInitAttr

MULTICAST_QPN = 0xffffff


def expect_event(channel, want):
    """The next event on @channel must be @want; returns its UD parameters
    for a multicast join, else None."""
    ev = CMEvent(channel)
    try:
        if ev.event_type != want:
            raise RuntimeError(f'expected rdma_cm event {want}, got '
                               f'{ev.event_str()}')
        if want == ce.RDMA_CM_EVENT_MULTICAST_JOIN:
            return UDParam(ev)
        return None
    finally:
        ev.ack_cm_event()


def main():
    args = sys.argv[1:]
    go = args[:1] == ['--go']
    if go:
        args = args[1:]
    if len(args) != 4:
        sys.exit(__doc__)
    src, group, count, size = args[0], args[1], int(args[2]), int(args[3])
    if go and sys.stdin.readline().strip() != 'go':
        sys.exit('no go: the receiver is not ready')
    ps = ce.RDMA_PS_UDP

    channel = CMEventChannel()
    cmid = CMID(creator=channel, port_space=ps)
    cmid.bind_addr(AddrInfo(src=src, port_space=ps))
    cmid.resolve_addr(AddrInfo(src=src, dst=group, port_space=ps))
    expect_event(channel, ce.RDMA_CM_EVENT_ADDR_RESOLVED)
    cmid.create_qp(QPInitAttr(qp_type=e.IBV_QPT_UD,
                              cap=QPCap(max_send_wr=count, max_recv_wr=1)))
    mc_addr = AddrInfo(src=group, port_space=ps)
    cmid.join_multicast(addr=mc_addr)
    ud = expect_event(channel, ce.RDMA_CM_EVENT_MULTICAST_JOIN)
    print(f'joined {group} on {cmid.dev_name}, qkey {ud.qkey:#x}', flush=True)

    mr = cmid.reg_msgs(size)
    mr.write(b'm' * size, size)
    ah = AH(cmid.pd, attr=ud.ah_attr)
    for i in range(count):
        cmid.post_ud_send(mr, ah, rqpn=MULTICAST_QPN, length=size)
        wc = cmid.get_send_comp()
        if wc is None or wc.status != e.IBV_WC_SUCCESS:
            raise RuntimeError(f'send {i}: completion '
                               f'{"none" if wc is None else wc.status}')
    print(f'{count} sends of {size} bytes completed', flush=True)

    cmid.leave_multicast(mc_addr)
    ah.close()
    mr.close()
    cmid.close()
    channel.close()


if __name__ == '__main__':
    main()
