#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""On-demand paging MRs (IBV_ACCESS_ON_DEMAND) between two devices, for
28-odp.sh.

  28-odp.py DEV_A GID_A DEV_B GID_B [REGEX]
        first odp_caps of DEV_A as implemented: explicit ODP, not
        implicit; RC every operation, UC/UD the send side only; an
        implicit MR is refused; then the cases below (REGEX: those
        whose names match), A requester, B responder

Every responder buffer is an anonymous mmap() of its own, registered with
IBV_ACCESS_ON_DEMAND (nothing pinned), so that the cases can munmap,
remap, madvise and fork it:

  untouched     RDMA WRITE of 256 KiB into pages never touched: faulted on
                arrival (odp_faults grows), data lands
  send_recv     SEND from an untouched ODP buffer into an untouched ODP
                receive buffer (requester gather and responder scatter
                fault), and READ into an untouched ODP buffer
  atomics       fetch-and-add and compare-and-swap on an untouched ODP
                word, the result into an untouched ODP word
  remap         WRITE, then munmap + mmap(MAP_FIXED) of the same range,
                WRITE again: the new pages get the data, READ returns it
                (odp_invalidations grows)
  madvise       READ from pages madvise(MADV_DONTNEED)ed away: zeros, then
                what the CPU wrote after
  fork          after ibv_fork_init(), fork(); the parent writes its
                buffer (COW: new pages): a READ returns the parent's new
                data, not the page the child shares
  race          60 WRITEs and READs (24 under KASAN) while a thread keeps
                madvise()ing the target away: every one completes
                successfully
  unmapped      a WRITE to a part of the MR that is no longer mapped ends
                in IBV_WC_REM_ACCESS_ERR, not in endless retries
  killed        a process faulting ODP pages is SIGKILLed: nothing is left
"""
import ctypes
import os
import re
import signal
import sys
import threading
import time

import importlib.util

from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.wr import RecvWR, SendWR, SGE
import pyverbs.enums as e

_spec = importlib.util.spec_from_file_location(
    'matrix', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           '53-verbs-matrix.py'))
m = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(m)

PAGE = os.sysconf('SC_PAGE_SIZE')
# a KASAN kernel under TCG: fewer rounds of the race (lib.sh's scale)
RACE_OPS = 30 if int(os.environ.get('SV_TIME_SCALE', '1')) <= 1 else 12
SIZE = 1 << 20
ODP_ACC = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
           e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC |
           e.IBV_ACCESS_ON_DEMAND)

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
PROT_RW = 0x3
MAP_PRIVATE, MAP_ANON, MAP_FIXED = 0x02, 0x20, 0x10
MADV_DONTNEED = 4
MAP_FAILED = ctypes.c_void_p(-1).value


def mmap(length, addr=None):
    flags = MAP_PRIVATE | MAP_ANON | (MAP_FIXED if addr else 0)
    p = libc.mmap(addr, length, PROT_RW, flags, -1, 0)
    if p in (None, MAP_FAILED):
        raise OSError(ctypes.get_errno(), 'mmap')
    return p


def munmap(addr, length):
    if libc.munmap(addr, length):
        raise OSError(ctypes.get_errno(), 'munmap')


def madvise_away(addr, length):
    if libc.madvise(addr, length, MADV_DONTNEED):
        raise OSError(ctypes.get_errno(), 'madvise')


def poke(addr, data):
    ctypes.memmove(addr, data, len(data))


def peek(addr, n):
    return ctypes.string_at(addr, n)


def counter(dev, name):
    # ib_core caches hw counters 10 ms after a read
    time.sleep(0.03)
    with open(f'/sys/class/infiniband/{dev}/ports/1/hw_counters/{name}') as f:
        return int(f.read())


class OdpBuf:
    """an anonymous mapping of @size bytes, never touched, as an ODP MR"""

    def __init__(self, side, size=SIZE, acc=ODP_ACC):
        self.size = size
        self.addr = mmap(size)
        self.mr = MR(side.pd, size, acc, address=self.addr)

    def close(self):
        self.mr.close()
        munmap(self.addr, self.size)

    def sge(self, off, n):
        return SGE(self.addr + off, n, self.mr.lkey)


def post(p, opcode, sge, wr_id=1, rdma=None, atomic=None):
    wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1, sg=[sge],
                send_flags=e.IBV_SEND_SIGNALED)
    if rdma:
        wr.set_wr_rdma(*rdma)
    if atomic:
        wr.set_wr_atomic(*atomic)
    p.qa.post_send(wr)


def req_buf(p, off, data):
    """@data in the requester's ordinary MR at @off, and its SGE"""
    p.req.fill(off, data)
    return p.req.sge(off, len(data))


def write(p, buf, off, data, wr_id=1):
    post(p, e.IBV_WR_RDMA_WRITE, req_buf(p, 0, data), wr_id,
         rdma=(buf.mr.rkey, buf.addr + off))
    m.check_wc(m.poll(p.req.scq)[0], 'write')


def read(p, buf, off, n, wr_id=2):
    post(p, e.IBV_WR_RDMA_READ, p.req.sge(0, n), wr_id,
         rdma=(buf.mr.rkey, buf.addr + off))
    m.check_wc(m.poll(p.req.scq)[0], 'read')
    return p.req.read(0, n)


def c_untouched(p):
    buf = OdpBuf(p.resp)
    try:
        faults = counter(p.resp.dev, 'odp_faults')
        data = m.pattern(256 << 10, 1)
        write(p, buf, 4096, data)
        m.same(peek(buf.addr + 4096, len(data)), data, 'written data')
        got = counter(p.resp.dev, 'odp_faults') - faults
        if got < 1:
            raise AssertionError(f"odp_faults grew by {got}")
        print(f"    {got} faults for 64 untouched pages")
    finally:
        buf.close()


def c_send_recv(p):
    src, dst, rd = OdpBuf(p.req), OdpBuf(p.resp), OdpBuf(p.req)
    try:
        data = m.pattern(3 * PAGE + 100, 2)
        poke(src.addr + 8192, data)
        madvise_away(src.addr, src.size)     # back to the zero page
        poke(src.addr + 8192, data)           # and faulted by the CPU again
        p.qb.post_recv(RecvWR(wr_id=7, num_sge=1,
                              sg=[dst.sge(100, len(data))]))
        post(p, e.IBV_WR_SEND, src.sge(8192, len(data)), 3)
        m.check_wc(m.poll(p.req.scq)[0], 'send')
        m.check_wc(m.poll(p.resp.rcq)[0], 'recv', byte_len=len(data))
        m.same(peek(dst.addr + 100, len(data)), data, 'received data')
        # READ: the response lands in untouched ODP pages of the requester
        post(p, e.IBV_WR_RDMA_READ, rd.sge(PAGE - 8, len(data)), 4,
             rdma=(dst.mr.rkey, dst.addr + 100))
        m.check_wc(m.poll(p.req.scq)[0], 'read into ODP')
        m.same(peek(rd.addr + PAGE - 8, len(data)), data, 'read data')
    finally:
        for b in (src, dst, rd):
            b.close()


def c_atomics(p):
    tgt, res = OdpBuf(p.resp), OdpBuf(p.req)
    try:
        post(p, e.IBV_WR_ATOMIC_FETCH_AND_ADD, res.sge(64, 8), 5,
             atomic=(tgt.mr.rkey, tgt.addr + 4096 * 3, 5, 0))
        m.check_wc(m.poll(p.req.scq)[0], 'fetch-add')
        m.same(peek(res.addr + 64, 8), bytes(8), 'fetch-add original')
        m.same(peek(tgt.addr + 4096 * 3, 8), (5).to_bytes(8, 'little'),
               'fetch-add result')
        post(p, e.IBV_WR_ATOMIC_CMP_AND_SWP, res.sge(2 * PAGE, 8), 6,
             atomic=(tgt.mr.rkey, tgt.addr + 4096 * 3, 5, 77))
        m.check_wc(m.poll(p.req.scq)[0], 'cmp-swap')
        m.same(peek(res.addr + 2 * PAGE, 8), (5).to_bytes(8, 'little'),
               'cmp-swap original')
        m.same(peek(tgt.addr + 4096 * 3, 8), (77).to_bytes(8, 'little'),
               'cmp-swap result')
    finally:
        tgt.close()
        res.close()


def c_remap(p):
    buf = OdpBuf(p.resp)
    try:
        inval = counter(p.resp.dev, 'odp_invalidations')
        write(p, buf, 0, m.pattern(64 << 10, 3))
        munmap(buf.addr, buf.size)
        mmap(buf.size, buf.addr)
        if peek(buf.addr, 64 << 10) != bytes(64 << 10):
            raise AssertionError("remapped pages are not new")
        data = m.pattern(8 << 10, 4)
        write(p, buf, 4096, data)
        m.same(peek(buf.addr + 4096, len(data)), data, 'new pages')
        m.same(peek(buf.addr, 4096), bytes(4096), 'untouched new page')
        m.same(read(p, buf, 4096, len(data)), data, 'read back')
        if counter(p.resp.dev, 'odp_invalidations') <= inval:
            raise AssertionError("no invalidation counted for munmap")
    finally:
        buf.close()


def c_madvise(p):
    buf = OdpBuf(p.resp)
    try:
        data = m.pattern(16 << 10, 5)
        poke(buf.addr, data)
        m.same(read(p, buf, 0, len(data)), data, 'read before')
        madvise_away(buf.addr, buf.size)
        m.same(read(p, buf, 0, len(data)), bytes(len(data)),
               'read after MADV_DONTNEED')
        data = m.pattern(16 << 10, 6)
        poke(buf.addr, data)
        m.same(read(p, buf, 0, len(data)), data, 'read after rewrite')
    finally:
        buf.close()


def c_fork(p):
    buf = OdpBuf(p.resp)
    try:
        poke(buf.addr, b'A' * 8192)
        m.same(read(p, buf, 0, 8192), b'A' * 8192, 'before fork')
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            # the child shares the old pages until the parent writes
            os.close(w)
            os.read(r, 1)
            os._exit(0)
        os.close(r)
        poke(buf.addr, b'B' * 8192)           # COW: the parent's new pages
        try:
            m.same(read(p, buf, 0, 8192), b'B' * 8192, 'after fork + COW')
        finally:
            os.write(w, b'x')
            os.close(w)
            _, st = os.waitpid(pid, 0)
        if st:
            raise AssertionError(f"child exited with {st:#x}")
    finally:
        buf.close()


def c_race(p):
    buf = OdpBuf(p.resp)
    stop = threading.Event()
    count = [0]

    def away():
        while not stop.is_set():
            madvise_away(buf.addr, buf.size)
            count[0] += 1
            time.sleep(0.005)

    t = threading.Thread(target=away)
    t.start()
    try:
        data = m.pattern(16 << 10, 7)
        p.req.fill(0, data)
        for i in range(RACE_OPS):
            off = (i * 37 * PAGE) % (buf.size - len(data))
            post(p, e.IBV_WR_RDMA_WRITE, p.req.sge(0, len(data)), 10 + i,
                 rdma=(buf.mr.rkey, buf.addr + off))
            post(p, e.IBV_WR_RDMA_READ, p.req.sge(32 << 10, len(data)),
                 1000 + i, rdma=(buf.mr.rkey, buf.addr + off))
            for wc in m.poll(p.req.scq, 2):
                m.check_wc(wc, f"op {wc.wr_id} under invalidation")
    finally:
        stop.set()
        t.join()
        buf.close()
    print(f"    {count[0]} madvise() invalidations meanwhile")


def c_unmapped(p):
    buf = OdpBuf(p.resp)
    try:
        write(p, buf, 0, b'x' * 64)
        munmap(buf.addr + 2 * PAGE, PAGE)
        post(p, e.IBV_WR_RDMA_WRITE, req_buf(p, 0, b'y' * 64), 9,
             rdma=(buf.mr.rkey, buf.addr + 2 * PAGE))
        m.check_wc(m.poll(p.req.scq)[0], 'write to an unmapped page',
                   status=e.IBV_WC_REM_ACCESS_ERR)
        mmap(PAGE, buf.addr + 2 * PAGE)
    finally:
        buf.close()


def c_killed(p):
    # a child of ours (no second pyverbs import: seconds under KASAN) with
    # its own contexts: what the parent holds is not the child's to use
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            killed_child(m.Side(p.req.dev, p.req.gid_idx),
                         m.Side(p.resp.dev, p.resp.gid_idx), w)
        finally:
            os._exit(1)
    os.close(w)
    # it says when it has registered and started writing
    line = os.read(r, 16)
    os.close(r)
    if b'writing' not in line:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise AssertionError(f"child did not start: {line!r}")
    time.sleep(0.3)
    os.kill(pid, signal.SIGKILL)
    _, st = os.waitpid(pid, 0)
    if not os.WIFSIGNALED(st):
        raise AssertionError(f"child ended by itself ({st:#x})")
    # the device still works for us
    c_untouched(p)


CASES = [('untouched', c_untouched), ('send_recv', c_send_recv),
         ('atomics', c_atomics), ('remap', c_remap), ('madvise', c_madvise),
         ('fork', c_fork), ('race', c_race), ('unmapped', c_unmapped),
         ('killed', c_killed)]


def killed_child(a, b, w):
    p = m.Pair(a, b, e.IBV_QPT_RC, depth=64)
    buf = OdpBuf(b, size=64 << 20)
    p.req.fill(0, m.pattern(64 << 10, 8))
    os.write(w, b'writing')
    n = 0
    while True:
        for _ in range(16):
            post(p, e.IBV_WR_RDMA_WRITE, p.req.sge(0, 64 << 10), n,
                 rdma=(buf.mr.rkey, buf.addr + (n * (64 << 10)) % buf.size))
            n += 1
        m.poll(p.req.scq, 16)


def caps(dev):
    ctx = Context(name=dev)
    odp = ctx.query_device_ex().odp_caps
    rc_want = (e.IBV_ODP_SUPPORT_SEND | e.IBV_ODP_SUPPORT_RECV |
               e.IBV_ODP_SUPPORT_WRITE | e.IBV_ODP_SUPPORT_READ |
               e.IBV_ODP_SUPPORT_ATOMIC | e.IBV_ODP_SUPPORT_SRQ_RECV)
    got = (odp.general_caps, odp.rc_odp_caps, odp.uc_odp_caps,
           odp.ud_odp_caps)
    want = (e.IBV_ODP_SUPPORT, rc_want, e.IBV_ODP_SUPPORT_SEND,
            e.IBV_ODP_SUPPORT_SEND)
    bad = got != want
    print(f"{dev}: odp caps general/rc/uc/ud {got}, want {want}")
    pd = m.PD(ctx)
    try:
        # pyverbs registers (NULL, SIZE_MAX) for implicit=True
        MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_ON_DEMAND,
           implicit=True)
        print("FAIL: an implicit ODP MR was registered")
        bad = True
    except PyverbsRDMAError as ex:
        print(f"implicit ODP MR refused: {ex}")
    pd.close()
    ctx.close()
    return 1 if bad else 0


def main():
    # before any verbs resource exists (ibv_fork_init(3))
    from pyverbs.fork import fork_init
    fork_init()
    fails = caps(sys.argv[1])
    a = m.Side(sys.argv[1], int(sys.argv[2]))
    b = m.Side(sys.argv[3], int(sys.argv[4]))
    sel = re.compile(sys.argv[5] if len(sys.argv) > 5 else '.')
    times = []
    for name, fn in CASES:
        if not sel.search(name):
            continue
        p = m.Pair(a, b, e.IBV_QPT_RC)
        t0 = time.monotonic()
        try:
            fn(p)
            times.append(f"{name}={time.monotonic() - t0:.1f}")
            print(f"ok: {name}")
        except AssertionError as ex:
            print(f"FAIL: {name}: {ex}")
            fails += 1
        finally:
            p.close()
    print("SV_SUMMARY: seconds per case: " + ' '.join(times))
    for dev in (sys.argv[1], sys.argv[3]):
        print(f"SV_SUMMARY: {dev}: " + ' '.join(
            f"{n}={counter(dev, n)}" for n in
            ('odp_misses', 'odp_faults', 'odp_fault_pages',
             'odp_fault_errors', 'odp_invalidations', 'odp_drops',
             'tx_nak_rnr')))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
