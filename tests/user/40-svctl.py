#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Verbs objects for tests/user/40-svctl.sh to find in svctl's listings.

  40-svctl.py DEV GID     open DEV, create a PD, a CQ and an RC QP connected
                          to itself through the RoCE v2 entry of GID (RTS,
                          rq_psn 0x123456, sq_psn 0xabcdef), print
                          "ready QPN", then hold everything until stdin
                          closes; "skip: WHY" and exit 0 without pyverbs
  40-svctl.py --go DEV GID  the same, but touch nothing (no device, no
                          sysfs) before a line "go" on stdin: started early,
                          its python and pyverbs start (seconds under a
                          debug kernel) overlap the test's other steps;
                          exit 0 if stdin ends first

pyverbs drives softverbs through distro rdma-core (librxe).
"""
import os
import sys

try:
    from pyverbs.addr import AHAttr, GID, GlobalRoute
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.pd import PD
    from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
    import pyverbs.enums as e
except ImportError as err:
    print("skip:", err, flush=True)
    sys.exit(0)

RQ_PSN = 0x123456
SQ_PSN = 0xabcdef


def gid_index(dev, gid):
    """sysfs index of the RoCE v2 entry of gid on port 1"""
    port = f"/sys/class/infiniband/{dev}/ports/1"
    for i in sorted(os.listdir(f"{port}/gids"), key=int):
        with open(f"{port}/gids/{i}") as f:
            if f.read().strip() != gid:
                continue
        with open(f"{port}/gid_attrs/types/{i}") as f:
            if f.read().strip() == "RoCE v2":
                return int(i)
    raise SystemExit(f"no RoCE v2 GID {gid} on {dev}")


def main():
    args = sys.argv[1:]
    if args[0] == "--go":
        if sys.stdin.readline() != "go\n":
            return
        args = args[1:]
    dev = args[0]
    gid4 = gid_index(dev, args[1])
    ctx = Context(name=dev)
    pd = PD(ctx)
    cq = CQ(ctx, 16)
    cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))

    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_INIT
    attr.pkey_index = 0
    attr.port_num = 1
    attr.qp_access_flags = e.IBV_ACCESS_LOCAL_WRITE
    qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
              e.IBV_QP_ACCESS_FLAGS)

    gr = GlobalRoute(dgid=GID(str(ctx.query_gid(1, gid4))), sgid_index=gid4)
    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_RTR
    attr.ah_attr = AHAttr(is_global=1, port_num=1, gr=gr)
    attr.path_mtu = e.IBV_MTU_1024
    attr.dest_qp_num = qp.qp_num
    attr.rq_psn = RQ_PSN
    attr.max_dest_rd_atomic = 1
    attr.min_rnr_timer = 12
    qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
              e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN |
              e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER)

    attr = QPAttr()
    attr.qp_state = e.IBV_QPS_RTS
    attr.sq_psn = SQ_PSN
    attr.timeout = 14
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    attr.max_rd_atomic = 1
    qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN | e.IBV_QP_TIMEOUT |
              e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
              e.IBV_QP_MAX_QP_RD_ATOMIC)

    print("ready", qp.qp_num, flush=True)
    sys.stdin.read()
    # keep the objects referenced until here
    del qp, cq, pd, ctx


if __name__ == '__main__':
    main()
