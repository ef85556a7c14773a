#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""On-demand paging MRs (IBV_ACCESS_ON_DEMAND) between two devices, for
28-odp.sh.

  28-odp.py DEV_A GID_A DEV_B GID_B [REGEX]
        first odp_caps of DEV_A as implemented: explicit and implicit
        ODP; RC every operation, UC/UD the send side only (their
        receive side drops and counts: cases ud_recv, uc_recv); then
        the cases below (REGEX: those whose names match), A requester,
        B responder

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
  race          8 WRITE+READ pairs in flight, 32 of each (16 under
                KASAN) at least, and on until the target went away 64
                (32) times, while a thread madvise()s it away every 5 ms:
                every one completes successfully within a bounded time,
                and every READ returns its WRITE's data or zeros
  race_local    8 READs in flight into the requester's ODP buffer, which
                a thread madvise()s away every 5 ms: each completes, with
                its data or zeros (the completer's side of the race)
  unmapped      a WRITE to a part of the MR that is no longer mapped ends
                in IBV_WC_REM_ACCESS_ERR, not in endless retries
  poison        a UC WRITE across a page that is no longer mapped, whose
                fault fails, fails no other QP's access: an RC WRITE to a
                mapped page of the same range, never faulted, lands
  killed        a process faulting ODP pages is SIGKILLed: nothing is left
  implicit      implicit MRs (NULL, SIZE_MAX) on both sides, two QPs: a
                WRITE through one into never-touched pages across a 2 MiB
                chunk boundary, a READ of them through the other into
                never-touched pages of the requester's implicit MR, a SEND
                gathered from it; odp_faults grows
  implicit_remap  implicit MR: WRITE, munmap + mmap(MAP_FIXED), WRITE
                again lands in the new pages, READ returns it
                (odp_invalidations grows); a WRITE to an unmapped page of a
                chunk in use, and one to unmapped address space no chunk
                covers yet: IBV_WC_REM_ACCESS_ERR both
  rereg         ibv_rereg_mr of an ODP MR: new translation (WRITE lands in
                the new range through the new R_Key), ON_DEMAND cleared
                (pinned) and set again, remote write dropped from the
                rights (WRITE -> IBV_WC_REM_ACCESS_ERR)
  ud_recv       UD SENDs into an untouched ODP receive buffer: the first
                is dropped (odp_drops grows) while its pages are faulted,
                a later one lands (why UD receive is not advertised)
  uc_recv       the same for UC SEND, and UC WRITEs into an untouched ODP
                target
  srq           RC SEND into an ODP receive buffer posted to an SRQ
                (RNR NAK while faulting, IBV_ODP_SUPPORT_SRQ_RECV)
  atomic_write  ATOMIC WRITE (librxe's extended QP) into an untouched ODP
                word: it lands, the words around stay
"""
import time
T_START = time.monotonic()

import ctypes  # noqa: E402 (after the clock: imports are timed)
import os
import re
import signal
import struct
import sys
import threading

import importlib.util

from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE
import pyverbs.enums as e

_spec = importlib.util.spec_from_file_location(
    'matrix', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           '53-verbs-matrix.py'))
m = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(m)
_spec = importlib.util.spec_from_file_location(
    'mpe', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        '57-mpe.py'))
mpe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mpe)

PAGE = os.sysconf('SC_PAGE_SIZE')
# the race: RACE_DEPTH WRITE+READ pairs in flight, at least RACE_OPS
# of each (fewer under KASAN on TCG, lib.sh's scale), while the target is
# madvise()d away every RACE_PACE seconds, as fast on the debug kernel
# (where a fault and its RNR retry take ~17 ms: before faults were retried
# under their lock, this pace and depth completed nothing in 20 s there)
RACE_DEPTH = 8
RACE_OPS = 32 if int(os.environ.get('SV_TIME_SCALE', '1')) <= 1 else 16
RACE_PACE = 0.005
# seconds a batch may take: measured 0.08 s (6.12), 0.32 s (race) and
# 1.6 s (race_local) on the debug kernel, where it is 24 s (scale 8)
RACE_BATCH_S = 3 * int(os.environ.get('SV_TIME_SCALE', '1'))
SIZE = 1 << 20
CHUNK = 2 << 20          # an implicit MR's chunk (SV_ODP_CHUNK_SIZE)
SCALE = int(os.environ.get('SV_TIME_SCALE', '1'))
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


def race_check(got, data, unit, what):
    """every @unit-sized piece of @got is @data's or zeros (madvised away)"""
    for o in range(0, len(data), unit):
        piece = got[o:o + unit]
        if piece != data[o:o + unit] and piece != bytes(len(piece)):
            raise AssertionError(f"{what}: bytes {o}..{o + len(piece)} are "
                                 f"neither the data written nor zeros")


def c_race(p):
    buf = OdpBuf(p.resp)
    stop = threading.Event()
    count = [0]

    def away():
        while not stop.is_set():
            madvise_away(buf.addr, buf.size)
            count[0] += 1
            time.sleep(RACE_PACE)

    timeouts = counter(p.req.dev, 'retry_timeouts')
    rnr = counter(p.req.dev, 'rnr_retries')
    inval = counter(p.resp.dev, 'odp_invalidations')
    faults = counter(p.resp.dev, 'odp_faults')
    n = 16 << 10
    # what one packet places, atomically against invalidations: the path
    # MTU (IBV_MTU_256 = 1 ...) of page-aligned transfers
    unit = 128 << min(p.req.mtu, p.resp.mtu)
    # one pattern per slot of the window: a piece in the wrong place shows
    datas = [m.pattern(n, 7 + k) for k in range(RACE_DEPTH)]
    for k, data in enumerate(datas):
        p.req.fill(k * n, data)
    t = threading.Thread(target=away)
    t.start()
    i = 0
    worst = 0.0
    try:
        # RACE_DEPTH WRITE+READ pairs in flight, each pair on 16 KiB of
        # its own (4-page slots, none shared inside a batch): a READ sees
        # its WRITE's data, or zeros where the pages went away since;
        # batches until RACE_OPS ops and 2 * RACE_OPS madvise() calls
        # (at most 4 * RACE_OPS ops), each within RACE_BATCH_S
        while i < RACE_OPS or (count[0] < 2 * RACE_OPS and
                               i < 4 * RACE_OPS):
            t0 = time.monotonic()
            ops = range(i, i + RACE_DEPTH)
            for j in ops:
                k = j % RACE_DEPTH
                off = (j * 37) % (buf.size // n) * n
                post(p, e.IBV_WR_RDMA_WRITE, p.req.sge(k * n, n), 10 + j,
                     rdma=(buf.mr.rkey, buf.addr + off))
                post(p, e.IBV_WR_RDMA_READ,
                     p.req.sge(RACE_DEPTH * n + k * n, n), 1000 + j,
                     rdma=(buf.mr.rkey, buf.addr + off))
            for wc in m.poll(p.req.scq, 2 * RACE_DEPTH, wait=RACE_BATCH_S):
                m.check_wc(wc, f"op {wc.wr_id} under invalidation")
            worst = max(worst, time.monotonic() - t0)
            for j in ops:
                k = j % RACE_DEPTH
                race_check(p.req.read(RACE_DEPTH * n + k * n, n), datas[k],
                           unit, f"READ {j}")
            i += RACE_DEPTH
    finally:
        stop.set()
        t.join()
        buf.close()
    inval = counter(p.resp.dev, 'odp_invalidations') - inval
    print(f"SV_SUMMARY: race: {i} ops, {RACE_DEPTH} WRITE+READ pairs in "
          f"flight, slowest batch {worst:.2f}s (limit {RACE_BATCH_S}s), "
          f"{count[0]} madvise() calls, {inval} invalidations of mapped "
          f"pages, {counter(p.resp.dev, 'odp_faults') - faults} faults; "
          f"requester: "
          f"{counter(p.req.dev, 'retry_timeouts') - timeouts} ACK timeouts, "
          f"{counter(p.req.dev, 'rnr_retries') - rnr} RNR retries")
    # a race needs both sides: pages mapped by the traffic taken away
    if inval < 2 * RACE_OPS:
        raise AssertionError(f"only {inval} invalidations in {i} ops: "
                             f"the race did not happen")


def c_race_local(p):
    """READ responses into requester pages madvise()d away meanwhile"""
    loc, tgt = OdpBuf(p.req), OdpBuf(p.resp)
    stop = threading.Event()
    count = [0]
    # held while the CPU reads the results: a page zapped halfway through
    # a read would look torn
    quiet = threading.Lock()

    def away():
        while not stop.is_set():
            with quiet:
                madvise_away(loc.addr, loc.size)
            count[0] += 1
            time.sleep(RACE_PACE)

    n = 16 << 10
    unit = 128 << min(p.req.mtu, p.resp.mtu)
    datas = [m.pattern(n, 3 + k) for k in range(RACE_DEPTH)]
    for k, data in enumerate(datas):
        poke(tgt.addr + k * n, data)
    faults = counter(p.req.dev, 'odp_faults')
    t = threading.Thread(target=away)
    t.start()
    i = 0
    worst = 0.0
    try:
        # RACE_DEPTH READs in flight into the requester's ODP buffer,
        # until RACE_OPS and 2 * RACE_OPS madvise() calls (at most 4 *
        # RACE_OPS); each sees its data or zeros (the pages went away
        # after the response landed)
        while i < RACE_OPS or (count[0] < 2 * RACE_OPS and
                               i < 4 * RACE_OPS):
            t0 = time.monotonic()
            ops = range(i, i + RACE_DEPTH)
            for j in ops:
                k = j % RACE_DEPTH
                off = (j * 37) % (loc.size // n) * n
                post(p, e.IBV_WR_RDMA_READ, loc.sge(off, n), 2000 + j,
                     rdma=(tgt.mr.rkey, tgt.addr + k * n))
            for wc in m.poll(p.req.scq, RACE_DEPTH, wait=RACE_BATCH_S):
                m.check_wc(wc, f"READ {wc.wr_id} into pages going away")
            worst = max(worst, time.monotonic() - t0)
            with quiet:
                got = [peek(loc.addr + (j * 37) % (loc.size // n) * n, n)
                       for j in ops]
            for j, g in zip(ops, got):
                race_check(g, datas[j % RACE_DEPTH], unit, f"READ {j}")
            i += RACE_DEPTH
    finally:
        stop.set()
        t.join()
        loc.close()
        tgt.close()
    print(f"SV_SUMMARY: race_local: {i} READs, {RACE_DEPTH} in flight, "
          f"slowest batch {worst:.2f}s, {count[0]} madvise() calls, "
          f"{counter(p.req.dev, 'odp_faults') - faults} requester faults")


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


def c_poison(p):
    dst = OdpBuf(p.resp)
    u = m.Pair(p.req, p.resp, e.IBV_QPT_UC)
    hole = dst.addr + 8 * PAGE
    try:
        munmap(hole, PAGE)
        errs = counter(p.resp.dev, 'odp_fault_errors')
        p.req.fill(0, m.pattern(16 * PAGE, 17))
        # dropped, its fault (all 16 pages) fails on the hole
        u.post_send(e.IBV_WR_RDMA_WRITE, [(0, 16 * PAGE)],
                    rdma=(dst.mr.rkey, dst.addr))
        m.check_wc(m.poll(p.req.scq)[0], 'UC WRITE across an unmapped page')
        deadline = time.monotonic() + 10 * SCALE
        while counter(p.resp.dev, 'odp_fault_errors') == errs:
            if time.monotonic() > deadline:
                raise AssertionError("the UC WRITE's fault did not fail")
            time.sleep(0.01)
        # another QP's access to a mapped page of that range
        data = m.pattern(64, 18)
        write(p, dst, 0, data)
        m.same(peek(dst.addr, len(data)), data, 'RC WRITE after the UC fault')
        print("    an RC WRITE lands where a UC WRITE's fault failed")
    finally:
        u.close()
        mmap(PAGE, hole)
        dst.close()


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


def implicit_mr(side):
    # pyverbs registers (NULL, SIZE_MAX) for implicit=True
    return MR(side.pd, SIZE, ODP_ACC, implicit=True)


def c_implicit(p):
    p2 = m.Pair(p.req, p.resp, e.IBV_QPT_RC)
    rmr, lmr = implicit_mr(p.resp), implicit_mr(p.req)
    tgt, src = mmap(3 * CHUNK), mmap(SIZE)
    try:
        faults = counter(p.resp.dev, 'odp_faults')
        # a chunk boundary of the address space lies inside the data
        edge = ((tgt + 2 * CHUNK) & ~(CHUNK - 1)) - tgt
        off = edge - 3 * PAGE - 40
        data = m.pattern(64 << 10, 11)
        post(p, e.IBV_WR_RDMA_WRITE, req_buf(p, 0, data), 40,
             rdma=(rmr.rkey, tgt + off))
        m.check_wc(m.poll(p.req.scq)[0], 'write into an implicit MR')
        m.same(peek(tgt + off, len(data)), data, 'written data')
        if counter(p.resp.dev, 'odp_faults') <= faults:
            raise AssertionError("no fault counted for untouched pages")
        # the other QP reads them into untouched pages of the requester,
        # named by its own implicit MR's L_Key
        post(p2, e.IBV_WR_RDMA_READ, SGE(src + 100, len(data), lmr.lkey),
             41, rdma=(rmr.rkey, tgt + off))
        m.check_wc(m.poll(p.req.scq)[0], 'read through the second QP')
        m.same(peek(src + 100, len(data)), data, 'read data')
        # and a SEND gathered from the implicit MR
        p2.qb.post_recv(RecvWR(wr_id=42, num_sge=1,
                               sg=[p.resp.sge(0, 5000)]))
        post(p2, e.IBV_WR_SEND, SGE(src + 100, 5000, lmr.lkey), 43)
        m.check_wc(m.poll(p.req.scq)[0], 'send from an implicit MR')
        m.check_wc(m.poll(p.resp.rcq)[0], 'recv', byte_len=5000)
        m.same(p.resp.read(0, 5000), data[:5000], 'received data')
    finally:
        p2.close()
        rmr.close()
        lmr.close()
        munmap(tgt, 3 * CHUNK)
        munmap(src, SIZE)


def c_implicit_remap(p):
    mr = implicit_mr(p.resp)
    buf = mmap(SIZE)
    # a whole chunk of address space that nothing maps now
    hole = mmap(3 * CHUNK)
    munmap(hole, 3 * CHUNK)
    hole = (hole + CHUNK) & ~(CHUNK - 1)
    p2 = None
    try:
        inval = counter(p.resp.dev, 'odp_invalidations')
        write(p, OdpView(buf, mr), 0, m.pattern(64 << 10, 12))
        munmap(buf, SIZE)
        mmap(SIZE, buf)
        if peek(buf, 64 << 10) != bytes(64 << 10):
            raise AssertionError("remapped pages are not new")
        data = m.pattern(8 << 10, 13)
        view = OdpView(buf, mr)
        write(p, view, 4096, data)
        m.same(peek(buf + 4096, len(data)), data, 'new pages')
        m.same(read(p, view, 4096, len(data)), data, 'read back')
        if counter(p.resp.dev, 'odp_invalidations') <= inval:
            raise AssertionError("no invalidation counted for munmap")
        # an unmapped page in a chunk that exists
        munmap(buf + 2 * PAGE, PAGE)
        post(p, e.IBV_WR_RDMA_WRITE, req_buf(p, 0, b'y' * 64), 44,
             rdma=(mr.rkey, buf + 2 * PAGE))
        m.check_wc(m.poll(p.req.scq)[0], 'write to an unmapped page',
                   status=e.IBV_WC_REM_ACCESS_ERR)
        mmap(PAGE, buf + 2 * PAGE)
        # address space no chunk covers and nothing maps
        p2 = m.Pair(p.req, p.resp, e.IBV_QPT_RC)
        post(p2, e.IBV_WR_RDMA_WRITE, req_buf(p, 0, b'z' * 64), 45,
             rdma=(mr.rkey, hole + PAGE))
        m.check_wc(m.poll(p.req.scq)[0], 'write to unmapped space',
                   status=e.IBV_WC_REM_ACCESS_ERR)
    finally:
        if p2:
            p2.close()
        mr.close()
        munmap(buf, SIZE)


class OdpView:
    """a range of an implicit MR, for write() and read()"""

    def __init__(self, addr, mr):
        self.addr, self.mr = addr, mr


def rereg(ctx, mr, flags, addr=0, length=0, access=0):
    """IB_USER_VERBS_CMD_REREG_MR (librxe has no rereg_mr): new keys"""
    resp = ctypes.create_string_buffer(8)
    os.write(ctx.cmd_fd, struct.pack(
        "<IHHQIIQQQII", 11, (8 + 48) // 4, 8 // 4, ctypes.addressof(resp),
        mr.handle, flags, addr, length, addr, 0, access))
    return struct.unpack("<II", resp.raw)


class KeyView:
    """a range by address and R_Key, for write() and read()"""

    def __init__(self, addr, rkey):
        self.addr = addr
        self.mr = self
        self.rkey = rkey


def c_rereg(p):
    buf = OdpBuf(p.resp)
    other = mmap(SIZE)
    ctx = p.resp.ctx
    try:
        write(p, buf, 0, b'a' * 4096)
        m.same(peek(buf.addr, 4096), b'a' * 4096, 'before rereg')
        _, rkey = rereg(ctx, buf.mr, e.IBV_REREG_MR_CHANGE_TRANSLATION,
                        other, SIZE)
        data = m.pattern(12 << 10, 14)
        write(p, KeyView(other, rkey), 8192, data)
        m.same(peek(other + 8192, len(data)), data, 'new translation')
        m.same(peek(buf.addr + 8192, len(data)), bytes(len(data)),
               'old range after rereg')
        # pinned, then on demand again: the data stays readable
        _, rkey = rereg(ctx, buf.mr, e.IBV_REREG_MR_CHANGE_ACCESS,
                        access=ODP_ACC & ~e.IBV_ACCESS_ON_DEMAND)
        m.same(read(p, KeyView(other, rkey), 8192, len(data)), data,
               'read, pinned')
        _, rkey = rereg(ctx, buf.mr, e.IBV_REREG_MR_CHANGE_ACCESS,
                        access=ODP_ACC)
        madvise_away(other, SIZE)
        write(p, KeyView(other, rkey), 0, data)
        m.same(peek(other, len(data)), data, 'write, on demand again')
        _, rkey = rereg(ctx, buf.mr, e.IBV_REREG_MR_CHANGE_ACCESS,
                        access=ODP_ACC & ~e.IBV_ACCESS_REMOTE_WRITE)
        post(p, e.IBV_WR_RDMA_WRITE, req_buf(p, 0, b'w' * 64), 46,
             rdma=(rkey, other))
        m.check_wc(m.poll(p.req.scq)[0], 'write without remote write',
                   status=e.IBV_WC_REM_ACCESS_ERR)
        m.same(peek(other, 64), data[:64], 'memory after refused write')
    finally:
        buf.mr.close()
        munmap(buf.addr, buf.size)
        munmap(other, SIZE)


def until_landed(what, p, send, landed, tries=40):
    """send() until landed() says the data arrived; the drops it took"""
    drops = counter(p.resp.dev, 'odp_drops')
    for _ in range(tries):
        send()
        m.check_wc(m.poll(p.req.scq)[0], what)
        # a dropped message never lands: send again soon after its fault
        deadline = time.monotonic() + 0.05 * SCALE
        while time.monotonic() < deadline:
            if landed():
                got = counter(p.resp.dev, 'odp_drops') - drops
                if got < 1:
                    raise AssertionError(f"{what}: the first message into "
                                         f"untouched ODP pages was not "
                                         f"dropped (odp_drops +{got})")
                print(f"    {what}: {got} dropped before one landed")
                return
            time.sleep(0.01)
    raise AssertionError(f"{what}: nothing landed after {tries} messages")


def unreliable_recv(p, qpt, what):
    u = m.Pair(p.req, p.resp, qpt)
    dst = OdpBuf(p.resp)
    grh = 40 if qpt == e.IBV_QPT_UD else 0
    data = m.pattern(3000 if grh == 0 else 1000, 15)
    p.req.fill(0, data)
    got = []

    def landed():
        cnt, wcs = p.resp.rcq.poll(1)
        if cnt:
            got.append(wcs[0])
        return bool(got)
    try:
        u.qb.post_recv(RecvWR(wr_id=50, num_sge=1,
                              sg=[dst.sge(PAGE * 5 - 8, grh + len(data))]))
        until_landed(f"{what} SEND", u,
                     lambda: u.post_send(e.IBV_WR_SEND, [(0, len(data))]),
                     landed)
        m.check_wc(got[0], f"{what} recv", byte_len=grh + len(data))
        m.same(peek(dst.addr + PAGE * 5 - 8 + grh, len(data)), data,
               f"{what} received data")
        if qpt == e.IBV_QPT_UC:
            off = 9 * PAGE + 300
            until_landed(
                "UC WRITE", u,
                lambda: u.post_send(e.IBV_WR_RDMA_WRITE, [(0, len(data))],
                                    rdma=(dst.mr.rkey, dst.addr + off)),
                lambda: peek(dst.addr + off, len(data)) == data)
    finally:
        u.close()
        dst.close()


def c_ud_recv(p):
    unreliable_recv(p, e.IBV_QPT_UD, 'UD')


def c_uc_recv(p):
    unreliable_recv(p, e.IBV_QPT_UC, 'UC')


def c_srq(p):
    srq = SRQ(p.resp.pd, SrqInitAttr(SrqAttr(max_wr=8, max_sge=1)))
    cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1,
                max_recv_sge=1)
    qb = QP(p.resp.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=p.resp.scq,
                                  rcq=p.resp.rcq, srq=srq, cap=cap,
                                  sq_sig_all=1))
    dst = OdpBuf(p.resp)
    qa = None
    try:
        qa = m.make_qp(p.req, e.IBV_QPT_RC)
        m.connect(qa, e.IBV_QPT_RC, p.req, p.resp, qb.qp_num)
        m.connect(qb, e.IBV_QPT_RC, p.resp, p.req, qa.qp_num)
        faults = counter(p.resp.dev, 'odp_faults')
        data = m.pattern(10000, 16)
        srq.post_recv(RecvWR(wr_id=60, num_sge=1,
                             sg=[dst.sge(3 * PAGE + 7, len(data))]))
        p.req.fill(0, data)
        qa.post_send(SendWR(wr_id=61, opcode=e.IBV_WR_SEND, num_sge=1,
                            sg=[p.req.sge(0, len(data))],
                            send_flags=e.IBV_SEND_SIGNALED))
        m.check_wc(m.poll(p.req.scq)[0], 'send to an SRQ QP')
        m.check_wc(m.poll(p.resp.rcq)[0], 'SRQ recv', byte_len=len(data),
                   wr_id=60)
        m.same(peek(dst.addr + 3 * PAGE + 7, len(data)), data,
               'received into the SRQ buffer')
        if counter(p.resp.dev, 'odp_faults') <= faults:
            raise AssertionError("no fault counted for the SRQ buffer")
    finally:
        for q in (qa, qb):
            if q is not None:
                q.close()
        srq.close()
        dst.close()


def c_atomic_write(p):
    aw = mpe.AwPair(p.req, p.resp)
    tgt = OdpBuf(p.resp)
    try:
        val = bytes(range(0xb0, 0xb8))
        aw.post([val], tgt.mr.rkey, tgt.addr + 5 * PAGE + 8, wr_id=70)
        m.check_wc(m.poll(p.req.scq)[0], 'atomic write',
                   opcode=mpe.WC_ATOMIC_WRITE, wr_id=70)
        m.same(peek(tgt.addr + 5 * PAGE, 24), bytes(8) + val + bytes(8),
               'ODP memory after ATOMIC WRITE')
    finally:
        aw.close()
        tgt.close()


CASES = [('untouched', c_untouched), ('send_recv', c_send_recv),
         ('atomics', c_atomics), ('remap', c_remap), ('madvise', c_madvise),
         ('fork', c_fork), ('race', c_race), ('race_local', c_race_local),
         ('unmapped', c_unmapped), ('poison', c_poison),
         ('killed', c_killed), ('implicit', c_implicit),
         ('implicit_remap', c_implicit_remap), ('rereg', c_rereg),
         ('ud_recv', c_ud_recv), ('uc_recv', c_uc_recv), ('srq', c_srq),
         ('atomic_write', c_atomic_write)]


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
    # FLUSH (1 << 6) and ATOMIC WRITE (1 << 7) into ODP MRs: both, where
    # ib_core names them (6.15+; pyverbs 44 does not), or neither
    odp_mpe = (1 << 6) | (1 << 7)
    if odp.rc_odp_caps & odp_mpe == odp_mpe:
        rc_want |= odp_mpe
    want = (e.IBV_ODP_SUPPORT | e.IBV_ODP_SUPPORT_IMPLICIT, rc_want,
            e.IBV_ODP_SUPPORT_SEND, e.IBV_ODP_SUPPORT_SEND)
    bad = got != want
    print(f"{dev}: odp caps general/rc/uc/ud {got}, want {want}")
    pd = m.PD(ctx)
    try:
        # an implicit MR needs iova 0; HUGETLB ib_core refuses
        mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_ON_DEMAND,
                implicit=True)
        if mr.length != (1 << 64) - 1:
            print(f"FAIL: implicit ODP MR has length {mr.length:#x}")
            bad = True
        mr.close()
    except PyverbsRDMAError as ex:
        print(f"FAIL: implicit ODP MR refused: {ex}")
        bad = True
    pd.close()
    ctx.close()
    return 1 if bad else 0


def main():
    # before any verbs resource exists (ibv_fork_init(3))
    from pyverbs.fork import fork_init
    fork_init()
    t_imported = time.monotonic()
    fails = caps(sys.argv[1])
    a = m.Side(sys.argv[1], int(sys.argv[2]))
    b = m.Side(sys.argv[3], int(sys.argv[4]))
    t_ready = time.monotonic()
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
    print(f"SV_SUMMARY: seconds per case: import={t_imported - T_START:.1f} "
          f"caps+sides={t_ready - t_imported:.1f} " + ' '.join(times))
    for dev in (sys.argv[1], sys.argv[3]):
        print(f"SV_SUMMARY: {dev}: " + ' '.join(
            f"{n}={counter(dev, n)}" for n in
            ('odp_misses', 'odp_faults', 'odp_fault_pages',
             'odp_fault_errors', 'odp_invalidations', 'odp_drops',
             'tx_nak_rnr')))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
