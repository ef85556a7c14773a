#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Memory window checks for tests/user/23-mw.sh, through pyverbs and librxe.

  23-mw.py DEV alloc     type 1 and type 2 windows allocated and freed in
                         bulk and interleaved with MRs: every live R_Key is
                         distinct, from the key space MRs use, never handed
                         out twice; type 3 is refused
  23-mw.py DEV bind      bind a type 1 window (ibv_bind_mw) and a type 2
                         window (IBV_WR_BIND_MW) on an RC QP connected to
                         itself: deregistering the MR is refused with EBUSY
                         while a window is bound, and works once the type 1
                         window is unbound (zero-length bind) and the type 2
                         window invalidated (LOCAL_INV) or deallocated.
  23-mw.py DEV hold N    allocate N windows of each type, print "ready",
                         sleep until killed

Several cases may be given (23-mw.py DEV CASE CASE ...): they run in that
order in one process, each announced by a line "--- CASE".
Exit status 0 on success; failures raise (non-zero exit with a traceback);
77 when pyverbs cannot be imported.
"""
import errno
import os
import time

import svspawn
from svverbs import expect_errno, gid_index

try:
    from pyverbs.addr import AHAttr, GlobalRoute
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.mr import MR, MW, MWBind, MWBindInfo
    from pyverbs.pd import PD
    from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
    from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
    from pyverbs.wr import SendWR
    import pyverbs.enums as e
except ImportError as import_err:
    svspawn.no_pyverbs(import_err)

PAGE = os.sysconf("SC_PAGE_SIZE")
LW = e.IBV_ACCESS_LOCAL_WRITE
RW = e.IBV_ACCESS_REMOTE_WRITE
RR = e.IBV_ACCESS_REMOTE_READ
MW_BIND = e.IBV_ACCESS_MW_BIND


def check_key(key, what):
    if key >> 8 == 0:
        raise AssertionError(f"{what}: key {key:#x} has index 0")


def test_alloc(dev):
    with Context(name=dev) as ctx, PD(ctx) as pd:
        handed_out = set()
        for rnd in range(4):
            objs = []
            for i in range(48):
                if i % 3 == 0:
                    o = MW(pd, e.IBV_MW_TYPE_1)
                    key = o.rkey
                elif i % 3 == 1:
                    o = MW(pd, e.IBV_MW_TYPE_2)
                    key = o.rkey
                else:
                    o = MR(pd, PAGE, LW | MW_BIND)
                    key = o.rkey
                check_key(key, f"object {i}")
                if key in handed_out:
                    raise AssertionError(f"round {rnd}: key {key:#x} "
                                         "handed out twice")
                handed_out.add(key)
                objs.append(o)
            # free in another order than allocated
            for o in objs[1::2] + objs[0::2]:
                o.close()
        print(f"ok: {len(handed_out)} windows and MRs, all keys distinct")

        for t in (e.IBV_MW_TYPE_1, e.IBV_MW_TYPE_2):
            mws = [MW(pd, t) for _ in range(100)]
            if len({m.rkey for m in mws}) != len(mws):
                raise AssertionError(f"type {t}: live windows share a key")
            for m in mws:
                m.close()
            print(f"ok: 100 type {t} windows at once")
        # ib_core refuses other types before the driver sees them
        expect_errno(errno.EINVAL, lambda: MW(pd, 3), "MW type 3")


def self_connected_qp(ctx, pd, cq, dev):
    cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1,
                max_recv_sge=1)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
    idx = gid_index(dev)
    attr = QPAttr(port_num=1)
    attr.qp_access_flags = LW | RW | RR
    attr.path_mtu = e.IBV_MTU_1024
    attr.max_dest_rd_atomic = 1
    attr.max_rd_atomic = 1
    attr.min_rnr_timer = 12
    attr.timeout = 14
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    gr = GlobalRoute(dgid=ctx.query_gid(1, idx), sgid_index=idx)
    attr.ah_attr = AHAttr(port_num=1, is_global=1, gr=gr)
    attr.dest_qp_num = qp.qp_num
    attr.rq_psn = 0
    attr.sq_psn = 0
    qp.to_rts(attr)
    return qp


def poll_one(cq, what, timeout=10):
    """The next completion, or None after timeout seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        n, wcs = cq.poll()
        if n:
            wc = wcs[0]
            if wc.status != e.IBV_WC_SUCCESS:
                raise AssertionError(f"{what}: completion status "
                                     f"{wc.status}")
            return wc
        time.sleep(0.01)
    return None


def test_bind(dev):
    with Context(name=dev) as ctx, PD(ctx) as pd:
        cq = CQ(ctx, 16)
        try:
            qp = self_connected_qp(ctx, pd, cq, dev)
        except (PyverbsRDMAError, PyverbsError) as err:
            raise AssertionError(f"no RC QP in RTS: {err}") from err
        mr = MR(pd, 4 * PAGE, LW | MW_BIND)
        mw1 = MW(pd, e.IBV_MW_TYPE_1)
        info = MWBindInfo(mr, mr.buf, 2 * PAGE, RW | RR)
        try:
            qp.bind_mw(mw1, MWBind(info, e.IBV_SEND_SIGNALED))
        except (PyverbsRDMAError, PyverbsError) as err:
            raise AssertionError(f"ibv_bind_mw failed: {err}") from err
        if poll_one(cq, "type 1 bind") is None:
            raise AssertionError("the type 1 bind never completed")
        expect_errno(errno.EBUSY, mr.close, "dereg of an MR with a type 1 "
                     "window bound")
        # a zero-length bind unbinds a type 1 window
        qp.bind_mw(mw1, MWBind(MWBindInfo(mr, mr.buf, 0, 0),
                               e.IBV_SEND_SIGNALED))
        if poll_one(cq, "type 1 unbind") is None:
            raise AssertionError("type 1 unbind never completed")
        mr.close()
        print("ok: dereg after the type 1 window was unbound")

        mr = MR(pd, 4 * PAGE, LW | MW_BIND)
        mw2 = MW(pd, e.IBV_MW_TYPE_2)
        wr = SendWR(opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
        wr.set_bind_wr(mw2, MWBindInfo(mr, mr.buf, PAGE, RW))
        qp.post_send(wr)
        if poll_one(cq, "type 2 bind") is None:
            raise AssertionError("type 2 bind never completed")
        expect_errno(errno.EBUSY, mr.close, "dereg of an MR with a type 2 "
                     "window bound")
        inv = SendWR(opcode=e.IBV_WR_LOCAL_INV, send_flags=e.IBV_SEND_SIGNALED)
        inv.imm_data = wr.rkey
        qp.post_send(inv)
        if poll_one(cq, "local invalidate") is None:
            raise AssertionError("LOCAL_INV never completed")
        mr.close()
        print("ok: dereg after the type 2 window was invalidated")

        mr = MR(pd, 4 * PAGE, LW | MW_BIND)
        wr = SendWR(opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
        wr.set_bind_wr(mw2, MWBindInfo(mr, mr.buf, PAGE, RR))
        qp.post_send(wr)
        if poll_one(cq, "type 2 rebind") is None:
            raise AssertionError("type 2 rebind never completed")
        expect_errno(errno.EBUSY, mr.close, "dereg with a type 2 window")
        mw2.close()
        mr.close()
        print("ok: dereg after the bound type 2 window was deallocated")
        mw1.close()

        # type 2 windows bound by a QP go back to Free when it is
        # destroyed: their MR can be deregistered, they bind again on
        # another QP
        mr = MR(pd, 4 * PAGE, LW | MW_BIND)
        mws = [MW(pd, e.IBV_MW_TYPE_2) for _ in range(3)]
        for i, mw in enumerate(mws):
            wr = SendWR(opcode=e.IBV_WR_BIND_MW,
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_bind_wr(mw, MWBindInfo(mr, mr.buf + i * PAGE, PAGE, RW))
            qp.post_send(wr)
            if poll_one(cq, f"type 2 bind {i}") is None:
                raise AssertionError(f"type 2 bind {i} never completed")
        # one of them invalidated first: the QP's list loses it
        inv = SendWR(opcode=e.IBV_WR_LOCAL_INV, send_flags=e.IBV_SEND_SIGNALED)
        inv.imm_data = wr.rkey
        qp.post_send(inv)
        if poll_one(cq, "local invalidate of the last window") is None:
            raise AssertionError("LOCAL_INV never completed")
        expect_errno(errno.EBUSY, mr.close, "dereg with type 2 windows bound")
        qp.close()
        qp = self_connected_qp(ctx, pd, cq, dev)
        wr = SendWR(opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
        wr.set_bind_wr(mws[0], MWBindInfo(mr, mr.buf, PAGE, RW))
        qp.post_send(wr)
        if poll_one(cq, "type 2 bind on a new QP") is None:
            raise AssertionError("type 2 bind on a new QP never completed")
        qp.close()
        mr.close()
        print("ok: type 2 windows freed with their QP, bound again on another")
        for mw in mws:
            mw.close()


def test_hold(dev, n):
    ctx = Context(name=dev)
    pd = PD(ctx)
    mr = MR(pd, PAGE, LW | MW_BIND)
    mws = [MW(pd, t) for t in (e.IBV_MW_TYPE_1, e.IBV_MW_TYPE_2)
           for _ in range(n)]
    print("ready", flush=True)
    while True:
        time.sleep(60)
    del mws, mr


def case(dev, what):
    globals()[f"test_{what}"](dev)


if __name__ == "__main__":
    svspawn.main(case, test_hold)
