#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Completion queue checks for tests/user/20-cq.sh, through pyverbs and librxe.

  20-cq.py DEV sizes     CQ sizes: 1, small, the max; cqe 0, max+1 and a
                         bad comp_vector refused with EINVAL
  20-cq.py DEV resize    grow, shrink, resize to 1 and the max; bad sizes
                         refused; the ring stays usable after each resize
  20-cq.py DEV notify    completion channel, arming for any/solicited events,
                         no spurious event
  20-cq.py DEV corrupt   user space scribbles on its ring's consumer index:
                         seemingly pending entries survive a resize, which
                         may not shrink below them; nothing breaks
  20-cq.py DEV qp        destroying a CQ a QP uses fails with EBUSY (prints
                         a QP that cannot be created fails it)
  20-cq.py DEV hold N    create N CQs, print "ready", sleep until killed

Several cases may be given (20-cq.py DEV sizes resize ...): they run in
that order in one process, each announced by a line "--- CASE".
Exit status 0 on success; failures raise (non-zero exit with a traceback);
77 when pyverbs cannot be imported.
"""
import ctypes
import errno
import os
import select
import struct
import time

import svspawn
from svverbs import expect_errno, libibverbs, open_device, new_ring, \
    IbvQPCap, IbvQPInitAttr

try:
    from pyverbs.cq import CQ, CQEX, CompChannel, CqInitAttrEx
    from pyverbs.device import Context
    from pyverbs.pyverbs_error import PyverbsRDMAError
    import pyverbs.enums as e
except ImportError as import_err:
    svspawn.no_pyverbs(import_err)

# struct sv_queue_buf: index_mask at byte 4, producer_index at 128,
# consumer_index at 256
INDEX_MASK_OFF = 4
CONSUMER_INDEX_OFF = 256


def max_cqe(ctx):
    return ctx.query_device().max_cqe


def check_size(cq, want, limit, what):
    if cq.cqe < want or cq.cqe > limit:
        raise AssertionError(f"{what}: cqe {cq.cqe}, wanted {want}..{limit}")
    npolled, _ = cq.poll(4)
    if npolled != 0:
        raise AssertionError(f"{what}: empty CQ polled {npolled} entries")


def t_sizes(ctx):
    top = max_cqe(ctx)
    if top < 1:
        raise AssertionError(f"max_cqe {top}")
    print(f"max_cqe {top}, num_comp_vectors {ctx.num_comp_vectors}")
    for n in (1, 2, 3, 64, 1000, top):
        cq = CQ(ctx, n)
        check_size(cq, n, top, f"CQ({n})")
        print(f"ok: CQ({n}) has cqe {cq.cqe}")
        cq.close()
    # the extended create path (ibv_create_cq_ex, the ioctl interface)
    cqx = CQEX(ctx, CqInitAttrEx(cqe=16))
    print("ok: CQEX(16)")
    cqx.close()
    expect_errno(errno.EINVAL, lambda: CQ(ctx, 0), "CQ(0)")
    expect_errno(errno.EINVAL, lambda: CQ(ctx, top + 1), f"CQ({top + 1})")
    expect_errno(errno.EINVAL,
                 lambda: CQ(ctx, 8, None, None, ctx.num_comp_vectors),
                 f"comp_vector {ctx.num_comp_vectors}")


def t_resize(ctx):
    top = max_cqe(ctx)
    cq = CQ(ctx, 4)
    for n in (100, 1, 7, 8, 5000, top, 2):
        cq.resize(n)
        check_size(cq, n, top, f"resize({n})")
        print(f"ok: resize({n}) gives cqe {cq.cqe}")
    before = cq.cqe
    for n in (0, top + 1):
        try:
            cq.resize(n)
        except PyverbsRDMAError as err:
            if err.error_code != errno.EINVAL:
                raise
            print(f"ok: resize({n}) refused: EINVAL")
        else:
            raise AssertionError(f"resize({n}) succeeded")
        check_size(cq, before, before, f"after failed resize({n})")
    cq.close()


def t_notify(ctx):
    ch = CompChannel(ctx)
    cq = CQ(ctx, 16, None, ch, 0)
    cq.req_notify(0)
    cq.req_notify(1)    # solicited-only does not weaken the armed request
    cq.req_notify(0)
    cq2 = CQ(ctx, 16, None, ch, 0)
    cq2.req_notify(1)
    # nothing completed, so no event may arrive
    fd = _comp_channel_fd(ch)
    if fd is not None:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            raise AssertionError("completion event without a completion")
        print("ok: no spurious completion event")
    cq.resize(64)       # arming survives a resize; must not fire
    if fd is not None:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            raise AssertionError("completion event after resize")
    cq2.close()
    cq.close()
    ch.close()
    print("ok: armed CQs with a completion channel")


def _comp_channel_fd(ch):
    # pyverbs does not expose the channel's fd; find it as the newest
    # anon_inode:[infiniband: comp event] fd of this process
    best = None
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if "comp" in target and "infiniband" in target:
            best = max(best or 0, int(name))
    return best


def t_corrupt(ctx):
    """Rings keep indices in [0, index_mask] (librxe's convention) and the
    kernel masks whatever user space writes.  A consumer index moved back
    by 4 makes 4 (zeroed) entries look pending: resize must keep exactly
    those and refuse to shrink below them.  An index far outside the ring
    is taken modulo the ring; nothing may break."""
    cq, start = new_ring(lambda: CQ(ctx, 100), "CQ")
    with open("/proc/self/mem", "r+b", buffering=0) as mem:
        mem.seek(start + INDEX_MASK_OFF)
        mask = struct.unpack("<I", mem.read(4))[0]
        mem.seek(start + CONSUMER_INDEX_OFF)
        mem.write(struct.pack("<I", (mask + 1 - 4) & mask))
    try:
        cq.resize(3)
    except PyverbsRDMAError as err:
        if err.error_code != errno.EINVAL:
            raise
        print("ok: resize to 3 below 4 pending entries refused: EINVAL")
    else:
        raise AssertionError("resize below the pending entries succeeded")
    cq.resize(4)
    npolled, wcs = cq.poll(16)
    if npolled != 4 or any(wc.wr_id != 0 for wc in wcs):
        raise AssertionError(f"{npolled} entries after resize, wanted 4")
    print("ok: 4 pending entries carried over by resize, then polled")

    _, start = new_ring(lambda: cq.resize(100), "resized")
    with open("/proc/self/mem", "r+b", buffering=0) as mem:
        mem.seek(start + CONSUMER_INDEX_OFF)
        mem.write(struct.pack("<I", 0x80000000))
    cq.resize(200)      # the kernel reads the index modulo the ring
    cq.req_notify(0)
    npolled, _ = cq.poll(4)
    print(f"ok: index 0x80000000 taken modulo the ring ({npolled} polled)")
    cq.close()
    print("ok: corrupted CQ destroyed")


def t_qp(dev):
    lib = libibverbs()
    ctx = open_device(lib, dev)
    pd = lib.ibv_alloc_pd(ctx)
    cq = lib.ibv_create_cq(ctx, 16, None, None, 0)
    if not pd or not cq:
        raise AssertionError("PD or CQ creation failed")
    attr = IbvQPInitAttr(send_cq=cq, recv_cq=cq, qp_type=e.IBV_QPT_RC,
                         cap=IbvQPCap(4, 4, 1, 1, 0))
    qp = lib.ibv_create_qp(pd, ctypes.byref(attr))
    if not qp:
        err = ctypes.get_errno()
        raise AssertionError(f"cannot create a QP ({os.strerror(err)})")
    rc = lib.ibv_destroy_cq(cq)
    if rc != errno.EBUSY:
        raise AssertionError(f"destroying a CQ in use returned {rc}")
    print("ok: destroying a CQ a QP uses: EBUSY")
    if lib.ibv_destroy_qp(qp):
        raise AssertionError("QP destroy failed")
    if lib.ibv_destroy_cq(cq) or lib.ibv_dealloc_pd(pd):
        raise AssertionError("CQ or PD destroy failed")
    lib.ibv_close_device(ctx)
    print("ok: CQ destroyed once unused")


def t_hold(ctx, n):
    cqs = [CQ(ctx, 64 + i) for i in range(n)]
    print("ready", flush=True)
    while cqs:
        time.sleep(60)


def hold(dev, n):
    with Context(name=dev) as ctx:
        t_hold(ctx, n)


CASES = {"sizes": t_sizes, "resize": t_resize, "notify": t_notify,
         "corrupt": t_corrupt}


def case(dev, what):
    if what == "qp":
        t_qp(dev)   # libibverbs through ctypes: a context of its own
        return
    with Context(name=dev) as ctx:
        CASES[what](ctx)


if __name__ == "__main__":
    svspawn.main(case, hold)
