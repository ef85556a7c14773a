#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""One UD send, through pyverbs and librxe (tests/user/15-netns.sh,
tests/user/19-l3dev.sh).

  ud_send.py DEV SGID_INDEX DGID   a UD QP of DEV sends one 64-byte message
                                   from its GID SGID_INDEX to DGID (sysfs
                                   form), QPN 0x123456, and waits for its
                                   completion

A UD send completes when it left or was dropped, whoever receives it: the
caller looks at counters to see where it went.  Prints the completion's
status; exit status 0 once the send completed (any status), 1 without a
completion in 10 s, 77 when pyverbs cannot be imported.
"""
import sys
import time

try:
    from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.mr import MR
    from pyverbs.pd import PD
    from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
    from pyverbs.wr import SGE, SendWR
    import pyverbs.enums as e
except ImportError as err:
    print(f'pyverbs: {err}')
    sys.exit(77)


def main():
    dev, sgid, dgid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    ctx = Context(name=dev)
    pd = PD(ctx)
    cq = CQ(ctx, 4)
    init = QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq,
                      cap=QPCap(max_send_wr=1, max_recv_wr=1))
    attr = QPAttr()
    attr.qkey = 0x11111111
    qp = QP(pd, init, attr)    # a UD QP goes to RTS
    mr = MR(pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
    gr = GlobalRoute(dgid=GID(dgid), sgid_index=sgid, hop_limit=64)
    ah = AH(pd, attr=AHAttr(port_num=1, is_global=1, gr=gr))
    wr = SendWR(num_sge=1, sg=[SGE(mr.buf, 64, mr.lkey)])
    wr.set_wr_ud(ah, 0x123456, 0x11111111)
    qp.post_send(wr)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        n, wcs = cq.poll()
        if n:
            print(f'{dev}: UD send from GID {sgid} to {dgid}: '
                  f'completion status {wcs[0].status}')
            return
        time.sleep(0.01)
    sys.exit(f'{dev}: no completion for the UD send')


if __name__ == '__main__':
    main()
