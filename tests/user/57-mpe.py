#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""IBTA 1.5 RDMA ATOMIC WRITE between two RoCE devices, for 57-mpe.sh.

  57-mpe.py caps DEV WANT       softverbs DEV advertises ATOMIC WRITE
                                (always: its user path needs nothing of
                                ib_core), FLUSH (global) iff WANT is 1,
                                never persistent
  57-mpe.py has DEV             exit 0 iff DEV advertises ATOMIC WRITE
  57-mpe.py unsup DEV_A GID_A DEV_B GID_B
                                where the kernel lacks the extensions (so
                                Soft-RoCE DEV_B lacks them): an ATOMIC
                                WRITE from softverbs DEV_A to it ends in
                                an error completion, nothing written
  57-mpe.py probe DEV_A GID_A DEV_B GID_B
                                has DEV_B (Soft-RoCE: says whether ib_core
                                has the extensions), then caps DEV_A with
                                that answer, and where they are missing,
                                unsup: one python and pyverbs start
                                instead of three (seconds each under the
                                debug kernel).  Exit status: bit 0 set on
                                a failure, bit 1 set when the extensions
                                are missing (0-3)
  57-mpe.py run DEV_A GID_A DEV_B GID_B [REGEX]

"run" opens both devices in one process (see 53-verbs-matrix.py, whose
helpers it uses) and, in both directions, posts through librxe's extended
QP (ibv_wr_atomic_write, rdma-core 44):

  aw            8 bytes land at the responder's address, nothing around
                them changes; the completion is IBV_WC_ATOMIC_WRITE
  aw_many       32 ATOMIC WRITEs in a row (more than max_rd_atomic: the
                requester waits for responses), the last value stays
  aw_noaccess   to an MR without remote write access:
                IBV_WC_REM_ACCESS_ERR, memory untouched
  aw_misaligned to an address that is not 8-byte aligned: an error
                completion (softverbs refuses it locally, Soft-RoCE sends
                it and the responder NAKs it), memory untouched

  57-mpe.py flush-peer MPE SV_DEV SV_GID DEV GID
        DEV (Soft-RoCE) is the responder of "MPE -r SV_DEV SV_GID"
        (ulib/examples/mpe: libsoftverbs' FLUSH and ATOMIC WRITE, which
        rdma-core 44 lacks) running on the softverbs device SV_DEV: FLUSH of a range
        and of an MR with IBV_ACCESS_FLUSH_GLOBAL, ATOMIC WRITE (checked
        here in memory), FLUSH without flush access -> remote access error
"""
import importlib.util
import os
import re
import subprocess
import sys
import time
import types

from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.qp import QPCap, QPEx, QPInitAttrEx
import pyverbs.enums as e

_spec = importlib.util.spec_from_file_location(
    'matrix', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           '53-verbs-matrix.py'))
m = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(m)

# ib_user_verbs.h (Linux 6.2+) / verbs.h device_cap_flags_ex bits
CAP_FLUSH_GLOBAL = 1 << 38
CAP_FLUSH_PERSISTENT = 1 << 39
CAP_ATOMIC_WRITE = 1 << 40
WC_ATOMIC_WRITE = 9
AW_OFF = 0x1000          # the responder's target word


def cap_flags(dev):
    ctx = Context(name=dev)
    flags = ctx.query_device_ex().device_cap_flags_ex
    ctx.close()
    return flags


def caps(dev, want):
    flags = cap_flags(dev)
    got = {n: bool(flags & b) for n, b in
           (('ATOMIC_WRITE', CAP_ATOMIC_WRITE),
            ('FLUSH_GLOBAL', CAP_FLUSH_GLOBAL),
            ('FLUSH_PERSISTENT', CAP_FLUSH_PERSISTENT))}
    print(f"{dev}: device_cap_flags_ex {flags:#x}: {got}")
    bad = [] if got['ATOMIC_WRITE'] else ['ATOMIC_WRITE should be set']
    if got['FLUSH_GLOBAL'] != want:
        bad.append(f"FLUSH_GLOBAL should be {'set' if want else 'clear'}")
    if got['FLUSH_PERSISTENT']:
        bad.append('FLUSH_PERSISTENT should be clear')
    if bad:
        print(f"FAIL: {dev}: {bad}")
        return 1
    print(f"ok: {dev} capabilities")
    return 0


class AwPair:
    """an extended requester QP (ATOMIC WRITE) on @req, a QP on @resp"""

    def __init__(self, req, resp, depth=40):
        self.req, self.resp = req, resp
        req.drain()
        resp.drain()
        cap = QPCap(max_send_wr=depth, max_recv_wr=4, max_send_sge=1,
                    max_recv_sge=1)
        qia = QPInitAttrEx(cap=cap, qp_type=e.IBV_QPT_RC, scq=req.scq,
                           rcq=req.rcq, pd=req.pd,
                           send_ops_flags=e.IBV_QP_EX_WITH_ATOMIC_WRITE,
                           comp_mask=e.IBV_QP_INIT_ATTR_PD |
                           e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
        self.qa = QPEx(req.ctx, qia)
        self.qb = m.make_qp(resp, e.IBV_QPT_RC)
        m.connect(self.qa, e.IBV_QPT_RC, req, resp, self.qb.qp_num,
                  timeout=12, retry_cnt=3)
        m.connect(self.qb, e.IBV_QPT_RC, resp, req, self.qa.qp_num)

    def close(self):
        self.qa.close()
        self.qb.close()

    def post(self, values, rkey, addr, wr_id=1):
        self.qa.wr_start()
        for i, v in enumerate(values):
            self.qa.wr_id = wr_id + i
            self.qa.wr_flags = e.IBV_SEND_SIGNALED
            self.qa.wr_atomic_write(rkey, addr, v)
        self.qa.wr_complete()


def aw_case(p, count=1):
    before = m.pattern(64, 5)
    p.resp.fill(AW_OFF - 24, before)
    vals = [bytes((0xa0 + i + j) & 0xff for j in range(8))
            for i in range(count)]
    p.post(vals, p.resp.mr.rkey, p.resp.addr(AW_OFF))
    for i, wc in enumerate(m.poll(p.req.scq, count)):
        m.check_wc(wc, f"atomic write wc {i}", opcode=WC_ATOMIC_WRITE,
                   wr_id=1 + i, qp_num=p.qa.qp_num)
    want = before[:24] + vals[-1] + before[32:]
    m.same(p.resp.read(AW_OFF - 24, 64), want, "responder memory")


def c_aw(p):
    aw_case(p)


def c_aw_many(p):
    aw_case(p, 32)


def c_aw_noaccess(p):
    mr = MR(p.resp.pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    try:
        mr.write(bytes(8), 8, 0)
        p.post([b'\x11' * 8], mr.rkey, mr.buf)
        wc = m.poll(p.req.scq)[0]
        m.check_wc(wc, "atomic write wc", status=e.IBV_WC_REM_ACCESS_ERR)
        m.same(mr.read(8, 0), bytes(8), "unwritable memory")
    finally:
        mr.close()


def c_aw_misaligned(p):
    p.resp.fill(AW_OFF, bytes(16))
    p.post([b'\x22' * 8], p.resp.mr.rkey, p.resp.addr(AW_OFF + 4))
    wc = m.poll(p.req.scq)[0]
    if wc.status not in (e.IBV_WC_LOC_QP_OP_ERR, e.IBV_WC_REM_INV_REQ_ERR):
        raise AssertionError(f"misaligned atomic write: {m.wc_str(wc)}")
    m.same(p.resp.read(AW_OFF, 16), bytes(16), "memory around the address")


ACCESS_FLUSH_GLOBAL = 1 << 8     # IBV_ACCESS_FLUSH_GLOBAL (rdma-core 45+)
MPE_PSN = 0x10                   # both directions' first PSN in mpe.c
AW_VALUE = bytes.fromhex('0123456789abcdef')


def flush_peer(mpe, sv_dev, sv_gid, dev, gid_idx):
    side = m.Side(dev, gid_idx)
    acc = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE
    mr = MR(side.pd, 8192, acc | e.IBV_ACCESS_REMOTE_READ |
            ACCESS_FLUSH_GLOBAL)
    mr2 = MR(side.pd, 8192, acc)
    fill = b'\x5a' * 64
    mr.write(fill, 64, 0)
    qp = m.make_qp(side, e.IBV_QPT_RC)
    child = subprocess.Popen([mpe, '-r', sv_dev, str(sv_gid)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    try:
        line = child.stdout.readline().split()
        if len(line) != 2:
            raise AssertionError(f"mpe -r said {line!r}")
        qpn, hexgid = int(line[0]), line[1]
        peer = types.SimpleNamespace(
            gid=':'.join(hexgid[i:i + 4] for i in range(0, 32, 4)))
        m.modify(qp, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
                 e.IBV_QP_ACCESS_FLAGS, qp_state=e.IBV_QPS_INIT,
                 pkey_index=0, port_num=1,
                 qp_access_flags=e.IBV_ACCESS_REMOTE_WRITE |
                 e.IBV_ACCESS_REMOTE_READ | ACCESS_FLUSH_GLOBAL)
        m.modify(qp, e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
                 e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN |
                 e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER,
                 qp_state=e.IBV_QPS_RTR, ah_attr=m.ah_attr(side, peer),
                 path_mtu=min(side.mtu, e.IBV_MTU_1024), dest_qp_num=qpn,
                 rq_psn=MPE_PSN, max_dest_rd_atomic=4, min_rnr_timer=12)
        m.modify(qp, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN | e.IBV_QP_TIMEOUT |
                 e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
                 e.IBV_QP_MAX_QP_RD_ATOMIC, qp_state=e.IBV_QPS_RTS,
                 sq_psn=MPE_PSN, timeout=12, retry_cnt=3, rnr_retry=3,
                 max_rd_atomic=1)
        child.stdin.write(f"{qp.qp_num} {side.gid.replace(':', '')} "
                          f"{mr.rkey} {mr.buf} {mr2.rkey} {mr2.buf}\n")
        child.stdin.flush()
        out, _ = child.communicate(timeout=120)
        print(out, end='')
        if child.returncode:
            raise AssertionError(f"mpe -r exited {child.returncode}")
        want = fill[:8] + AW_VALUE + fill[16:]
        m.same(mr.read(64, 0), want, "Soft-RoCE memory")
        print(f"ok: flush/atomic write {sv_dev}->{dev} verified in memory")
        return 0
    except Exception as err:
        print(f"FAIL: flush/atomic write {sv_dev}->{dev}: "
              f"{type(err).__name__}: {err}")
        return 1
    finally:
        if child.poll() is None:
            child.kill()
        qp.close()


def unsup(argv):
    a = m.Side(argv[0], int(argv[1]))
    b = m.Side(argv[2], int(argv[3]))
    p = AwPair(a, b)
    try:
        b.fill(AW_OFF, bytes(8))
        p.post([b'\x33' * 8], b.mr.rkey, b.addr(AW_OFF))
        wc = m.poll(a.scq)[0]
        # a NAK, or no answer at all (retries exhausted): either way an
        # error, and nothing written
        if wc.status == e.IBV_WC_SUCCESS:
            raise AssertionError(f"completed: {m.wc_str(wc)}")
        m.same(b.read(AW_OFF, 8), bytes(8), "responder memory")
        print(f"ok: {a.dev} -> {b.dev} (no ATOMIC WRITE): {m.wc_str(wc)}")
        return 0
    except Exception as err:
        print(f"FAIL: unsupported atomic write: {type(err).__name__}: {err}")
        return 1
    finally:
        p.close()


def probe(argv):
    try:
        have = bool(cap_flags(argv[2]) & CAP_ATOMIC_WRITE)
        print(f"ib_core with the memory placement extensions: {int(have)}",
              flush=True)
        rc = caps(argv[0], have)
    except Exception as err:
        # the answer is unknown: fail, and let the test stop there
        print(f"FAIL: capabilities: {type(err).__name__}: {err}")
        return 3
    if not have:
        try:
            rc |= unsup(argv)
        except Exception as err:
            print(f"FAIL: unsupported atomic write: {type(err).__name__}: "
                  f"{err}")
            rc = 1
    return (1 if rc else 0) | (0 if have else 2)


CASES = [('aw', c_aw), ('aw_many', c_aw_many),
         ('aw_noaccess', c_aw_noaccess), ('aw_misaligned', c_aw_misaligned)]


def run(argv):
    a = m.Side(argv[0], int(argv[1]))
    b = a if argv[2] == argv[0] else m.Side(argv[2], int(argv[3]))
    sel = re.compile(argv[4] if len(argv) > 4 else '')
    fails = oks = 0
    for req, resp in ((a, b),) if a is b else ((a, b), (b, a)):
        for name, fn in CASES:
            if not sel.search(name):
                continue
            what = f"{name} {req.dev}->{resp.dev}"
            t0 = time.monotonic()
            p = None
            try:
                p = AwPair(req, resp)
                fn(p)
                oks += 1
                print(f"ok: {what} ({time.monotonic() - t0:.1f}s)",
                      flush=True)
            except Exception as err:
                fails += 1
                print(f"FAIL: {what}: {type(err).__name__}: {err}",
                      flush=True)
            finally:
                if p is not None:
                    p.close()
    print(f"atomic write: {oks} ok, {fails} failed")
    return 1 if fails else 0


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'caps':
        return caps(sys.argv[2], sys.argv[3] == '1')
    if len(sys.argv) >= 3 and sys.argv[1] == 'has':
        return 0 if cap_flags(sys.argv[2]) & CAP_ATOMIC_WRITE else 1
    if len(sys.argv) >= 6 and sys.argv[1] == 'probe':
        return probe(sys.argv[2:])
    if len(sys.argv) >= 6 and sys.argv[1] == 'unsup':
        return unsup(sys.argv[2:])
    if len(sys.argv) >= 7 and sys.argv[1] == 'flush-peer':
        return flush_peer(sys.argv[2], sys.argv[3], int(sys.argv[4]),
                          sys.argv[5], int(sys.argv[6]))
    if len(sys.argv) >= 6 and sys.argv[1] == 'run':
        return run(sys.argv[2:])
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
