#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Shared receive queue checks for tests/user/21-srq.sh, through pyverbs and
librxe.

  21-srq.py DEV create   sizes 1, small and the max, max_sge 0..max; what
                         query returns; bad max_wr, max_sge, srq_limit refused
  21-srq.py DEV modify   srq_limit arming and disarming, max_wr growth and
                         shrinking, bad values refused; query agrees each time
  21-srq.py DEV carry    posted WQEs survive a resize: after growing, exactly
                         the remaining room can be posted; shrinking below the
                         posted count is refused
  21-srq.py DEV corrupt  user space scribbles on its ring's producer index:
                         taken modulo the ring, the garbage survives a
                         resize, which may not shrink below it
  21-srq.py DEV qp       destroying an SRQ a QP uses fails with EBUSY (prints
                         a QP that cannot be created fails it)
  21-srq.py DEV hold N   create N SRQs, print "ready", sleep until killed

Several cases may be given (21-srq.py DEV create modify ...): they run in
that order in one process, each announced by a line "--- CASE".
Exit status 0 on success; failures raise (non-zero exit with a traceback);
77 when pyverbs cannot be imported.
"""
import ctypes
import errno
import os
import struct
import time

import svspawn
from svverbs import expect_errno, libibverbs, open_device, new_ring, \
    IbvQPCap, IbvQPInitAttr, IbvSrqInitAttr

try:
    from pyverbs.device import Context
    from pyverbs.pd import PD
    from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
    from pyverbs.wr import SGE, RecvWR
    import pyverbs.enums as e
except ImportError as import_err:
    svspawn.no_pyverbs(import_err)

# struct sv_queue_buf: producer_index at byte 128, consumer_index at 256
PRODUCER_INDEX_OFF = 128


def new_srq(pd, max_wr, max_sge=1, srq_limit=0):
    return SRQ(pd, SrqInitAttr(SrqAttr(max_wr, max_sge, srq_limit)))


def check_query(srq, max_wr, max_sge, limit, top_wr, what):
    a = srq.query()
    if not max_wr <= a.max_wr <= top_wr:
        raise AssertionError(f"{what}: max_wr {a.max_wr}, wanted "
                             f"{max_wr}..{top_wr}")
    if a.max_sge < max_sge:
        raise AssertionError(f"{what}: max_sge {a.max_sge} < {max_sge}")
    if a.srq_limit != limit:
        raise AssertionError(f"{what}: srq_limit {a.srq_limit}, set {limit}")
    return a


def t_create(ctx, pd):
    dev = ctx.query_device()
    top_wr, top_sge = dev.max_srq_wr, dev.max_srq_sge
    print(f"max_srq {dev.max_srq}, max_srq_wr {top_wr}, "
          f"max_srq_sge {top_sge}")
    if dev.max_srq < 1 or top_wr < 1 or top_sge < 1:
        raise AssertionError("device reports no SRQ support")
    if not dev.device_cap_flags & e.IBV_DEVICE_SRQ_RESIZE:
        raise AssertionError("IBV_DEVICE_SRQ_RESIZE not reported")
    for max_wr, max_sge, limit in ((1, 1, 0), (1, 0, 1), (16, 2, 8),
                                   (1000, top_sge, 0), (top_wr, 1, top_wr),
                                   (top_wr, top_sge, 0)):
        srq = new_srq(pd, max_wr, max_sge, limit)
        a = check_query(srq, max_wr, max_sge, limit, top_wr,
                        f"SRQ({max_wr}, {max_sge}, {limit})")
        print(f"ok: SRQ({max_wr}, {max_sge}, {limit}): max_wr {a.max_wr}, "
              f"max_sge {a.max_sge}, srq_limit {a.srq_limit}")
        srq.close()
    expect_errno(errno.EINVAL, lambda: new_srq(pd, 0), "max_wr 0")
    expect_errno(errno.EINVAL, lambda: new_srq(pd, top_wr + 1),
                 f"max_wr {top_wr + 1}")
    expect_errno(errno.EINVAL, lambda: new_srq(pd, 8, top_sge + 1),
                 f"max_sge {top_sge + 1}")
    expect_errno(errno.EINVAL, lambda: new_srq(pd, 8, 1, 9),
                 "srq_limit 9 above max_wr 8")


def t_modify(ctx, pd):
    top_wr = ctx.query_device().max_srq_wr
    srq = new_srq(pd, 16)
    a = check_query(srq, 16, 1, 0, top_wr, "SRQ(16)")
    size = a.max_wr

    srq.modify(SrqAttr(srq_limit=5), e.IBV_SRQ_LIMIT)
    check_query(srq, size, 1, 5, size, "limit 5")
    print("ok: srq_limit 5 armed")
    srq.modify(SrqAttr(srq_limit=size), e.IBV_SRQ_LIMIT)
    check_query(srq, size, 1, size, size, f"limit {size}")
    srq.modify(SrqAttr(srq_limit=0), e.IBV_SRQ_LIMIT)
    check_query(srq, size, 1, 0, size, "limit 0")
    print("ok: srq_limit 0 disarms")
    expect_errno(errno.EINVAL, lambda: srq.modify(
        SrqAttr(srq_limit=size + 1), e.IBV_SRQ_LIMIT),
        f"srq_limit {size + 1} above max_wr {size}")
    check_query(srq, size, 1, 0, size, "after refused limit")

    for n in (100, 20, 1, top_wr, 3):
        srq.modify(SrqAttr(max_wr=n), e.IBV_SRQ_MAX_WR)
        size = check_query(srq, n, 1, 0, top_wr, f"max_wr {n}").max_wr
        print(f"ok: max_wr {n} gives {size}")
    for n in (0, top_wr + 1):
        expect_errno(errno.EINVAL, lambda n=n: srq.modify(
            SrqAttr(max_wr=n), e.IBV_SRQ_MAX_WR), f"max_wr {n}")
        check_query(srq, size, 1, 0, size, f"after refused max_wr {n}")

    # both at once; then a resize below the armed limit is refused
    srq.modify(SrqAttr(max_wr=64, srq_limit=40),
               e.IBV_SRQ_MAX_WR | e.IBV_SRQ_LIMIT)
    size = check_query(srq, 64, 1, 40, top_wr, "max_wr 64 + limit 40").max_wr
    expect_errno(errno.EINVAL, lambda: srq.modify(
        SrqAttr(max_wr=30), e.IBV_SRQ_MAX_WR), "max_wr 30 below limit 40")
    check_query(srq, size, 1, 40, size, "after refused shrink")
    print("ok: max_wr and srq_limit together")
    srq.close()


def post(srq, n, first=0):
    for i in range(n):
        srq.post_recv(RecvWR(wr_id=first + i, num_sge=1,
                             sg=[SGE(0x1000 * (i + 1), 64, 0)]))


def t_carry(ctx, pd):
    srq = new_srq(pd, 8)
    size = srq.query().max_wr
    post(srq, size)
    expect_errno(errno.ENOMEM, lambda: post(srq, 1, 100), "post to full SRQ")
    expect_errno(errno.EINVAL, lambda: srq.modify(
        SrqAttr(max_wr=size - 1), e.IBV_SRQ_MAX_WR),
        f"shrink to {size - 1} below {size} posted WQEs")

    srq.modify(SrqAttr(max_wr=100), e.IBV_SRQ_MAX_WR)
    new_size = srq.query().max_wr
    # the old WQEs moved along: exactly the rest fits
    post(srq, new_size - size, 1000)
    expect_errno(errno.ENOMEM, lambda: post(srq, 1, 5000),
                 f"post beyond {new_size} after the resize")
    print(f"ok: {size} posted WQEs carried over into {new_size} slots")
    srq.modify(SrqAttr(max_wr=new_size), e.IBV_SRQ_MAX_WR)
    expect_errno(errno.ENOMEM, lambda: post(srq, 1, 6000),
                 "post after resizing a full SRQ to its size")
    srq.close()


def t_corrupt(ctx, pd):
    """The kernel masks the producer index user space writes: one far
    outside the ring makes the ring look full of garbage WQEs.  Resize may
    not shrink below them, carries them when growing; nothing breaks."""
    srq, start = new_ring(lambda: new_srq(pd, 32), "SRQ")
    size = srq.query().max_wr
    with open("/proc/self/mem", "r+b", buffering=0) as mem:
        mem.seek(start + PRODUCER_INDEX_OFF)
        mem.write(struct.pack("<I", 0xffffffff))
    expect_errno(errno.EINVAL, lambda: srq.modify(
        SrqAttr(max_wr=size - 1), e.IBV_SRQ_MAX_WR),
        f"resize below {size} seemingly posted WQEs")
    srq.modify(SrqAttr(max_wr=2 * size), e.IBV_SRQ_MAX_WR)
    new_size = srq.query().max_wr
    post(srq, new_size - size, 100)
    expect_errno(errno.ENOMEM, lambda: post(srq, 1, 500),
                 "post beyond the carried garbage")
    srq.modify(SrqAttr(srq_limit=4), e.IBV_SRQ_LIMIT)
    srq.query()
    srq.close()
    print("ok: corrupted SRQ resized and destroyed")


def t_qp(dev):
    lib = libibverbs()
    ctx = open_device(lib, dev)
    pd = lib.ibv_alloc_pd(ctx)
    cq = lib.ibv_create_cq(ctx, 16, None, None, 0)
    srq_attr = IbvSrqInitAttr(max_wr=16, max_sge=1)
    srq = lib.ibv_create_srq(pd, ctypes.byref(srq_attr))
    if not pd or not cq or not srq:
        raise AssertionError("PD, CQ or SRQ creation failed")
    attr = IbvQPInitAttr(send_cq=cq, recv_cq=cq, srq=srq,
                         qp_type=e.IBV_QPT_RC, cap=IbvQPCap(4, 0, 1, 0, 0))
    qp = lib.ibv_create_qp(pd, ctypes.byref(attr))
    if not qp:
        err = ctypes.get_errno()
        raise AssertionError(f"cannot create a QP ({os.strerror(err)})")
    rc = lib.ibv_destroy_srq(srq)
    if rc != errno.EBUSY:
        raise AssertionError(f"destroying an SRQ in use returned {rc}")
    print("ok: destroying an SRQ a QP uses: EBUSY")
    if lib.ibv_destroy_qp(qp):
        raise AssertionError("QP destroy failed")
    if (lib.ibv_destroy_srq(srq) or lib.ibv_destroy_cq(cq) or
            lib.ibv_dealloc_pd(pd)):
        raise AssertionError("SRQ, CQ or PD destroy failed")
    lib.ibv_close_device(ctx)
    print("ok: SRQ destroyed once unused")


def t_hold(ctx, pd, n):
    srqs = [new_srq(pd, 64 + i) for i in range(n)]
    for srq in srqs:
        post(srq, 4)
    print("ready", flush=True)
    while srqs:
        time.sleep(60)


def on_pd(dev, fn, *args):
    """fn(ctx, pd, *args) on a context and PD of its own"""
    with Context(name=dev) as ctx, PD(ctx) as pd:
        fn(ctx, pd, *args)


def hold(dev, n):
    on_pd(dev, t_hold, n)


CASES = {"create": t_create, "modify": t_modify, "carry": t_carry,
         "corrupt": t_corrupt}


def case(dev, what):
    if what == "qp":
        t_qp(dev)   # libibverbs through ctypes
    else:
        on_pd(dev, CASES[what])


if __name__ == "__main__":
    svspawn.main(case, hold)
