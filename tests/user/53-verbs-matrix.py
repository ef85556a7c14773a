#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Every opcode x QP type between two RoCE devices, for 53-verbs-matrix.sh.

  53-verbs-matrix.py DEV_A GID_A DEV_B GID_B [REGEX]
  53-verbs-matrix.py --serve DEV_A GID_A DEV_B GID_B

One process opens both devices (ib devices are visible in every namespace)
and connects a fresh pair of QPs for each case, the requester on one side
and the responder on the other, in both directions (A->B, then B->A).
DEV_A may equal DEV_B (a device talking to itself).  GID_x is the index of
the RoCE GID each side uses: RoCE v2, or RoCE v1 (67-roce-v1: the GRH of a
UD receive is then the wire GRH, NxtHdr 0x1B, whatever the GIDs).  Cases (REGEX selects by name):

  RC  send, send_imm, send_inv (type 2 window invalidated by the peer's
      SEND_WITH_INV), send_zero, send_inline, send_big (several MTUs),
      send_sges (3 SGEs into 2), write, write_imm, write_zero, read
      (into 2 SGEs), cmp_swp (match and mismatch), fetch_add, unsignaled,
      solicited (an unsolicited SEND raises no event, a solicited one does),
      rem_access (bad R_Key: IBV_WC_REM_ACCESS_ERR, then the next WR is
      flushed), rnr_exhausted (no receive posted, rnr_retry 1:
      IBV_WC_RNR_RETRY_EXC_ERR), write_imm_rnr (the same for a one-packet
      WRITE with immediate: nothing placed), retry_exhausted (peer QP destroyed,
      timeout 10, retry_cnt 1: IBV_WC_RETRY_EXC_ERR)
  UC  uc_send, uc_send_imm, uc_send_big, uc_write, uc_write_imm
  UD  ud_send, ud_send_imm (GRH present, with the sender's address;
      src_qp), ud_bad_qkey (a datagram with the wrong Q_Key is dropped:
      the receive is consumed by the next good one)

Named explicitly (REGEX), the cases for 54-netem: bulk (XP_BULK_MIB MiB by
RC RDMA WRITE, READ back, then SEND, all verified), ud_loss / uc_loss (100
datagrams / 60 three-packet messages: the share that arrives fits netem's
XP_LOSS_PCT when XP_LOSSY=1; what arrives is intact and in order; after
XP_NETEM_OFF runs, UC delivers everything again), retry_blackhole (RC into
a 100 % loss path: IBV_WC_RETRY_EXC_ERR).  For 41-stats, acks (RC, local
ACK timeout 0: a stream of 200 unsignaled 64-byte WRITEs, every 50th
signaled, whose ACK counts 41-stats checks; then 5 unsignaled WRITEs with
nothing after them: the requester retires them all the same, so it must
ask for their ACK itself, with no retransmission timer to do it).  For
52-sv2sv, route_change (RC, timeout 10, retry_cnt 2: an RDMA WRITE
completes; then XP_ROUTE_CUT routes the responder's address through a
gateway that does not answer, and the next WRITE on the same QP must end
in IBV_WC_RETRY_EXC_ERR, so a route kept for the QP's path follows a
routing change; XP_ROUTE_MEND undoes the cut).

Every completion's status, opcode, byte_len, qp_num, wc_flags and imm_data
are checked, and every byte that travelled.  All cases run; the output has
one "ok"/"FAIL" line per case and direction; exit 1 if any failed.

--serve opens the devices once, says "ready" and then runs one request per
line of stdin, "REGEX [KEY=VALUE...]" (KEY one of XP_LOSSY, XP_LOSS_PCT,
XP_BULK_MIB up to its value at start, XP_NETEM_OFF, XP_ONE_WAY; for that
request only), answering the cases' lines and then one line
"done REGEX ok|FAIL SUMMARY", so that a shell can read counters between
requests without a python and pyverbs start for each (xp-matrix.sh).
"""
import ipaddress
import os
import re
import select
import sys
import time

from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ, CompChannel
from pyverbs.device import Context
from pyverbs.mr import MR, MW, MWBindInfo
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE
import pyverbs.enums as e

from svverbs import qp_driver_field

BULK = int(float(os.environ.get('XP_BULK_MIB', '4')) * (1 << 20))
MR_SIZE = max(1 << 20, 2 * BULK)
RECV_OFF = MR_SIZE // 2      # responders receive into the upper half
QKEY = 0x1a2b3c4d
GRH = 40
WAIT = float(os.environ.get('XP_WC_TIMEOUT', '20'))
ACC = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
       e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC |
       e.IBV_ACCESS_MW_BIND)


class Skip(Exception):
    pass


def fd_target(fd):
    try:
        return os.readlink(f'/proc/self/fd/{fd}')
    except OSError:
        return ''


_BASE = bytes((i * 7) & 0xff for i in range(256))


def pattern(n, seed):
    """n bytes of a pattern that differs by seed (fast for MiBs)"""
    s = (seed * 13) % 256
    return (_BASE * (n // 256 + 2))[s:s + n]


class Side:
    def __init__(self, dev, gid_idx):
        self.dev = dev
        self.ctx = Context(name=dev)
        self.pd = PD(self.ctx)
        # (listdir's own, already closed fd does not count: the channel
        # may get its number)
        before = {fd for fd in os.listdir('/proc/self/fd') if fd_target(fd)}
        self.chan = CompChannel(self.ctx)
        # pyverbs 44 does not expose the channel's fd: find the new one
        new = [int(fd) for fd in set(os.listdir('/proc/self/fd')) - before
               if fd_target(fd).startswith('anon_inode')]
        if len(new) != 1:
            raise AssertionError(f"cannot tell the completion channel's fd: "
                                 f"{[(fd, fd_target(fd)) for fd in new]}")
        self.chan_fd = new[0]
        self.scq = CQ(self.ctx, 256)
        self.rcq = CQ(self.ctx, 256, None, self.chan, 0)
        self.mr = MR(self.pd, MR_SIZE, ACC)
        self.gid_idx = gid_idx
        self.gid = str(self.ctx.query_gid(1, gid_idx))
        with open(f'/sys/class/infiniband/{dev}/ports/1/gid_attrs/types/'
                  f'{gid_idx}') as f:
            self.v1 = f.read().strip() == 'IB/RoCE v1'
        self.mtu = self.ctx.query_port(1).active_mtu
        d = self.ctx.query_device()
        self.rd_atom = min(16, d.max_qp_rd_atom)
        self.init_rd_atom = min(16, d.max_qp_init_rd_atom)

    def addr(self, off):
        return self.mr.buf + off

    def sge(self, off, length):
        return SGE(self.addr(off), length, self.mr.lkey)

    def fill(self, off, data):
        self.mr.write(data, len(data), off)

    def read(self, off, n):
        return self.mr.read(n, off)

    def drain(self):
        """forget leftovers of an earlier case"""
        for cq in (self.scq, self.rcq):
            while cq.poll()[0]:
                pass


def modify(qp, mask, **fields):
    attr = QPAttr()
    for k, v in fields.items():
        setattr(attr, k, v)
    qp.modify(attr, mask)


def ah_attr(src, dst):
    gr = GlobalRoute(dgid=GID(dst.gid), sgid_index=src.gid_idx, hop_limit=64)
    return AHAttr(is_global=1, port_num=1, gr=gr)


def make_qp(side, qpt, sig_all=1, inline=0, sges=4, depth=16):
    cap = QPCap(max_send_wr=depth, max_recv_wr=depth, max_send_sge=sges,
                max_recv_sge=sges, max_inline_data=inline)
    return QP(side.pd, QPInitAttr(qp_type=qpt, scq=side.scq, rcq=side.rcq,
                                  cap=cap, sq_sig_all=sig_all))


# Local ACK timeout of connected QPs: 14 (67 ms), or 17 (537 ms) where
# tests/user/lib.sh scales every wait (a KASAN kernel under TCG works off a
# window of retransmissions slower than 67 ms: retry_cnt ran out in 42-fault)
ACK_TIMEOUT = 14 if int(os.environ.get('SV_TIME_SCALE', '1')) <= 1 else 17


def connect(qp, qpt, me, peer, peer_qpn, timeout=None, retry_cnt=7,
            rnr_retry=7, min_rnr_timer=12):
    if timeout is None:
        timeout = ACK_TIMEOUT
    M = e
    if qpt == e.IBV_QPT_UD:
        modify(qp, M.IBV_QP_STATE | M.IBV_QP_PKEY_INDEX | M.IBV_QP_PORT |
               M.IBV_QP_QKEY, qp_state=e.IBV_QPS_INIT, pkey_index=0,
               port_num=1, qkey=QKEY)
        modify(qp, M.IBV_QP_STATE, qp_state=e.IBV_QPS_RTR)
        modify(qp, M.IBV_QP_STATE | M.IBV_QP_SQ_PSN, qp_state=e.IBV_QPS_RTS,
               sq_psn=0)
        return
    # QP access flags are the remote enables only (IBTA 11.2.4.2 / o10-2.2)
    access = (e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ |
              e.IBV_ACCESS_REMOTE_ATOMIC if qpt == e.IBV_QPT_RC else
              e.IBV_ACCESS_REMOTE_WRITE)
    modify(qp, M.IBV_QP_STATE | M.IBV_QP_PKEY_INDEX | M.IBV_QP_PORT |
           M.IBV_QP_ACCESS_FLAGS, qp_state=e.IBV_QPS_INIT, pkey_index=0,
           port_num=1, qp_access_flags=access)
    mask = (M.IBV_QP_STATE | M.IBV_QP_AV | M.IBV_QP_PATH_MTU |
            M.IBV_QP_DEST_QPN | M.IBV_QP_RQ_PSN)
    f = dict(qp_state=e.IBV_QPS_RTR, ah_attr=ah_attr(me, peer),
             path_mtu=min(me.mtu, peer.mtu), dest_qp_num=peer_qpn,
             rq_psn=0xfffff0)
    if qpt == e.IBV_QPT_RC:
        mask |= M.IBV_QP_MAX_DEST_RD_ATOMIC | M.IBV_QP_MIN_RNR_TIMER
        f.update(max_dest_rd_atomic=me.rd_atom, min_rnr_timer=min_rnr_timer)
    modify(qp, mask, **f)
    mask = M.IBV_QP_STATE | M.IBV_QP_SQ_PSN
    # both directions start near the top of the 24-bit PSN space, so the
    # longer cases cross the wrap
    f = dict(qp_state=e.IBV_QPS_RTS, sq_psn=0xfffff0)
    if qpt == e.IBV_QPT_RC:
        mask |= (M.IBV_QP_TIMEOUT | M.IBV_QP_RETRY_CNT | M.IBV_QP_RNR_RETRY |
                 M.IBV_QP_MAX_QP_RD_ATOMIC)
        f.update(timeout=timeout, retry_cnt=retry_cnt, rnr_retry=rnr_retry,
                 max_rd_atomic=min(me.init_rd_atom, peer.rd_atom))
    modify(qp, mask, **f)


class Pair:
    """a requester QP on side @req connected to a responder QP on @resp"""

    def __init__(self, req, resp, qpt, sig_all=1, inline=0, depth=16, **conn):
        self.req, self.resp, self.qpt = req, resp, qpt
        req.drain()
        resp.drain()
        self.qa = make_qp(req, qpt, sig_all, inline, depth=depth)
        self.qb = make_qp(resp, qpt, depth=depth)
        connect(self.qa, qpt, req, resp, self.qb.qp_num, **conn)
        connect(self.qb, qpt, resp, req, self.qa.qp_num, **conn)
        if qpt == e.IBV_QPT_UD:
            self.ah = AH(req.pd, attr=ah_attr(req, resp))

    def close(self):
        for qp in (self.qa, self.qb):
            if qp is not None:
                qp.close()
        if self.qpt == e.IBV_QPT_UD:
            self.ah.close()

    def post_recv(self, sges, wr_id=100):
        """sges: [(offset in the responder's MR, length)]"""
        sg = [self.resp.sge(o, n) for o, n in sges]
        self.qb.post_recv(RecvWR(wr_id=wr_id, num_sge=len(sg), sg=sg))

    def post_send(self, opcode, sges, wr_id=1, flags=e.IBV_SEND_SIGNALED,
                  imm=0, rdma=None, atomic=None, qkey=QKEY):
        sg = [self.req.sge(o, n) for o, n in sges]
        wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=len(sg), sg=sg,
                    imm_data=imm, send_flags=flags)
        if rdma:
            wr.set_wr_rdma(*rdma)
        if atomic:
            wr.set_wr_atomic(*atomic)
        if self.qpt == e.IBV_QPT_UD:
            wr.set_wr_ud(self.ah, self.qb.qp_num, qkey)
        self.qa.post_send(wr)

    def remote(self, off):
        return (self.resp.mr.rkey, self.resp.addr(off))


def poll(cq, n=1, wait=WAIT):
    got = []
    deadline = time.monotonic() + wait
    while len(got) < n:
        cnt, wcs = cq.poll(n - len(got))
        if cnt:
            got.extend(wcs[:cnt])
            continue
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(got)} of {n} completions after "
                                 f"{wait:.0f}s")
        time.sleep(0.001)
    return got


def expect_none(cq, wait=0.5):
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        cnt, wcs = cq.poll(1)
        if cnt:
            raise AssertionError(f"unexpected completion: {wc_str(wcs[0])}")
        time.sleep(0.01)


def wc_str(wc):
    return (f"wr_id {wc.wr_id} status {wc.status} opcode {wc.opcode} "
            f"byte_len {wc.byte_len} qp_num {wc.qp_num:#x} src_qp "
            f"{wc.src_qp:#x} wc_flags {wc.wc_flags:#x} imm {wc.imm_data:#x}")


def check_wc(wc, what, status=e.IBV_WC_SUCCESS, **want):
    if wc.status != status:
        raise AssertionError(f"{what}: status {wc.status} "
                             f"(want {status}): {wc_str(wc)}")
    for k, v in want.items():
        got = getattr(wc, k)
        if k == 'wc_flags':
            ok = (got & v[1]) == v[0]     # (value, mask)
        else:
            ok = got == v
        if not ok:
            raise AssertionError(f"{what}: {k} {got!r}, want {v!r}: "
                                 f"{wc_str(wc)}")


def same(got, want, what):
    if got != want:
        i = next(i for i in range(min(len(got), len(want)))
                 if got[i] != want[i]) if len(got) == len(want) else -1
        raise AssertionError(f"{what}: data differs (first at byte {i}, "
                             f"{len(got)} vs {len(want)} bytes)")


IMM_FLAGS = e.IBV_WC_WITH_IMM | e.IBV_WC_WITH_INV


def send_case(p, size, opcode=e.IBV_WR_SEND, imm=0, flags=0, sges=None,
              rsges=None, seed=1):
    """one SEND (size bytes from the requester's offset 0) into one receive"""
    sges = sges or [(0, size)]
    rsges = rsges or [(RECV_OFF, max(size, 1) + (GRH if p.qpt == e.IBV_QPT_UD
                                                   else 0))]
    data = pattern(size, seed)
    p.req.fill(0, data)
    p.resp.fill(RECV_OFF, bytes(len(data) + GRH))
    p.post_recv(rsges)
    p.post_send(opcode, sges, imm=imm, flags=e.IBV_SEND_SIGNALED | flags)
    s = poll(p.req.scq)[0]
    check_wc(s, "send wc", opcode=e.IBV_WC_SEND, qp_num=p.qa.qp_num)
    r = poll(p.resp.rcq)[0]
    ud = p.qpt == e.IBV_QPT_UD
    want_flags = e.IBV_WC_WITH_IMM if opcode == e.IBV_WR_SEND_WITH_IMM else 0
    mask = IMM_FLAGS
    if opcode == e.IBV_WR_SEND_WITH_INV:
        # librxe (the provider softverbs shares with Soft-RoCE) passes the
        # kernel's IB_WC_WITH_INVALIDATE (4) through instead of
        # IBV_WC_WITH_INV (8): accept either
        if not r.wc_flags & (e.IBV_WC_WITH_INV | 4):
            raise AssertionError(f"recv wc: no WITH_INV flag: {wc_str(r)}")
        mask = e.IBV_WC_WITH_IMM
    if ud:
        want_flags |= e.IBV_WC_GRH
        mask |= e.IBV_WC_GRH
    # IBV_WC_GRH means "the first 40 bytes hold a GRH": only UD has one
    check_wc(r, "recv wc", opcode=e.IBV_WC_RECV, wr_id=100,
             byte_len=size + (GRH if ud else 0), qp_num=p.qb.qp_num,
             wc_flags=(want_flags, mask))
    if opcode in (e.IBV_WR_SEND_WITH_IMM, e.IBV_WR_SEND_WITH_INV):
        check_wc(r, "recv wc", imm_data=imm)
    if ud:
        check_wc(r, "recv wc", src_qp=p.qa.qp_num)
        check_grh(p.resp.read(RECV_OFF, GRH), p.req.gid, p.req.v1, p.resp.gid)
    # gather what arrived from the receive SGEs, in order
    got = b''
    skip = GRH if ud else 0
    for off, n in rsges:
        got += p.resp.read(off, n)
    same(got[skip:skip + size], data, "received data")


def check_grh(grh, sgid, v1=False, dgid=None):
    ip = ipaddress.ip_address(sgid)
    if v1:
        # RoCE v1 (IBTA Annex A16): the wire GRH, IPVer 6, NxtHdr 0x1B
        want = ip.packed + ipaddress.ip_address(dgid).packed
        if grh[0] >> 4 != 6 or grh[6] != 0x1b or bytes(grh[8:40]) != want:
            raise AssertionError(f"not the RoCE v1 GRH {sgid} -> {dgid}: "
                                 f"{bytes(grh).hex()}")
    elif ip.ipv4_mapped:
        # RoCEv2 over IPv4: the IPv4 header sits in the GRH's last 20 bytes
        if grh[20] >> 4 != 4 or bytes(grh[32:36]) != ip.ipv4_mapped.packed:
            raise AssertionError(f"GRH does not carry IPv4 source "
                                 f"{ip.ipv4_mapped}: {bytes(grh).hex()}")
    elif grh[0] >> 4 != 6 or bytes(grh[8:24]) != ip.packed:
        raise AssertionError(f"GRH does not carry IPv6 source {ip}: "
                             f"{bytes(grh).hex()}")


# --- cases -------------------------------------------------------------------

def rc(**kw):
    return (e.IBV_QPT_RC, kw)


def c_send(p):
    send_case(p, 3000)


def c_send_imm(p):
    send_case(p, 200, e.IBV_WR_SEND_WITH_IMM, imm=0x12345678)


def c_send_zero(p):
    send_case(p, 0)


def c_send_inline(p):
    send_case(p, 100, flags=e.IBV_SEND_INLINE)


def c_send_big(p):
    send_case(p, 20000 if p.qpt != e.IBV_QPT_UD else 512)


def c_send_sges(p):
    # 3 send SGEs (100 + 2000 + 33) scattered into 2 receive SGEs
    sges = [(0, 100), (100, 2000), (2100, 33)]
    rs = [(RECV_OFF, 1000), (RECV_OFF + 4096, 2000)]
    send_case(p, 2133, sges=sges, rsges=rs)


def c_send_inv(p):
    try:
        mw = MW(p.resp.pd, e.IBV_MW_TYPE_2)
    except Exception as err:
        raise Skip(f"no type 2 memory window: {err}")
    try:
        # the responder binds the window on its own QP (IBV_WR_BIND_MW)
        wr = SendWR(wr_id=7, opcode=e.IBV_WR_BIND_MW,
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_bind_wr(mw, MWBindInfo(p.resp.mr, p.resp.addr(RECV_OFF),
                                      4096, e.IBV_ACCESS_REMOTE_WRITE))
        p.qb.post_send(wr)
        check_wc(poll(p.resp.scq)[0], "bind wc", opcode=e.IBV_WC_BIND_MW)
        # the window works, then the peer invalidates it, then it does not
        p.post_send(e.IBV_WR_RDMA_WRITE, [(0, 64)], rdma=(wr.rkey,
                                                           p.resp.addr(RECV_OFF)))
        check_wc(poll(p.req.scq)[0], "write through the window")
        send_case(p, 64, e.IBV_WR_SEND_WITH_INV, imm=wr.rkey)
        p.post_send(e.IBV_WR_RDMA_WRITE, [(0, 64)], rdma=(wr.rkey,
                                                           p.resp.addr(RECV_OFF)))
        check_wc(poll(p.req.scq)[0], "write through the invalidated window",
                 status=e.IBV_WC_REM_ACCESS_ERR)
    finally:
        mw.close()


def c_write(p, size=6000, imm=None):
    data = pattern(size, 3)
    p.req.fill(0, data)
    p.resp.fill(RECV_OFF, bytes(size + 16))
    if imm is not None:
        p.post_recv([(RECV_OFF + 65536, 16)])
        p.post_send(e.IBV_WR_RDMA_WRITE_WITH_IMM, [(0, size)],
                    imm=imm, rdma=p.remote(RECV_OFF))
    else:
        p.post_send(e.IBV_WR_RDMA_WRITE, [(0, size)],
                    rdma=p.remote(RECV_OFF))
    check_wc(poll(p.req.scq)[0], "write wc", opcode=e.IBV_WC_RDMA_WRITE,
             qp_num=p.qa.qp_num)
    if imm is not None:
        r = poll(p.resp.rcq)[0]
        check_wc(r, "write-imm recv wc", opcode=e.IBV_WC_RECV_RDMA_WITH_IMM,
                 imm_data=imm, byte_len=size, qp_num=p.qb.qp_num,
                 wc_flags=(e.IBV_WC_WITH_IMM, IMM_FLAGS))
    else:
        expect_none(p.resp.rcq, 0.2)
    same(p.resp.read(RECV_OFF, size + 16), data + bytes(16), "written data")


def c_write_imm(p):
    c_write(p, 5000, imm=0x0badcafe)


def c_write_zero(p):
    c_write(p, 0)


def c_read(p):
    size = 7000
    data = pattern(size, 5)
    p.resp.fill(RECV_OFF, data)
    p.req.fill(0, bytes(size + 8192))
    p.post_send(e.IBV_WR_RDMA_READ, [(0, 3000), (4096, size - 3000)],
                rdma=p.remote(RECV_OFF))
    check_wc(poll(p.req.scq)[0], "read wc", opcode=e.IBV_WC_RDMA_READ,
             byte_len=size, qp_num=p.qa.qp_num)
    got = p.req.read(0, 3000) + p.req.read(4096, size - 3000)
    same(got, data, "read data")
    expect_none(p.resp.rcq, 0.1)


def u64(b):
    return int.from_bytes(b, 'little')


def atomic(p, opcode, cmp_add, swap, old, new):
    p.req.fill(0, bytes(8))
    p.post_send(opcode, [(0, 8)], atomic=(*p.remote(RECV_OFF), cmp_add, swap))
    wop = (e.IBV_WC_COMP_SWAP if opcode == e.IBV_WR_ATOMIC_CMP_AND_SWP else
           e.IBV_WC_FETCH_ADD)
    check_wc(poll(p.req.scq)[0], "atomic wc", opcode=wop, byte_len=8,
             qp_num=p.qa.qp_num)
    got_old = u64(p.req.read(0, 8))
    got_new = u64(p.resp.read(RECV_OFF, 8))
    if (got_old, got_new) != (old, new):
        raise AssertionError(f"atomic: returned {got_old:#x}, memory "
                             f"{got_new:#x}; want {old:#x}, {new:#x}")


def c_cmp_swp(p):
    v = 0x1122334455667788
    p.resp.fill(RECV_OFF, v.to_bytes(8, 'little'))
    atomic(p, e.IBV_WR_ATOMIC_CMP_AND_SWP, v, 555, v, 555)       # match
    atomic(p, e.IBV_WR_ATOMIC_CMP_AND_SWP, 1, 999, 555, 555)     # mismatch


def c_fetch_add(p):
    p.resp.fill(RECV_OFF, (0xffffffff).to_bytes(8, 'little'))
    atomic(p, e.IBV_WR_ATOMIC_FETCH_AND_ADD, 1, 0, 0xffffffff, 0x100000000)
    atomic(p, e.IBV_WR_ATOMIC_FETCH_AND_ADD, (1 << 64) - 1, 0, 0x100000000,
           0xffffffff)


def c_unsignaled(p):
    n = 4
    for i in range(n):
        p.post_recv([(RECV_OFF + i * 256, 256)], wr_id=100 + i)
    for i in range(n):
        p.req.fill(i * 256, pattern(256, i))
        p.post_send(e.IBV_WR_SEND, [(i * 256, 256)], wr_id=i + 1,
                    flags=e.IBV_SEND_SIGNALED if i == n - 1 else 0)
    s = poll(p.req.scq)[0]
    check_wc(s, "send wc", wr_id=n, opcode=e.IBV_WC_SEND)
    expect_none(p.req.scq, 0.2)
    rs = poll(p.resp.rcq, n)
    for i, r in enumerate(rs):
        check_wc(r, f"recv wc {i}", wr_id=100 + i, byte_len=256)
        same(p.resp.read(RECV_OFF + i * 256, 256), pattern(256, i),
             f"message {i}")


def wait_event(side, wait):
    r, _, _ = select.select([side.chan_fd], [], [], wait)
    if not r:
        return False
    side.chan.get_cq_event(side.rcq)
    side.rcq.ack_events(1)
    return True


def c_solicited(p):
    for i in range(2):
        p.post_recv([(RECV_OFF + i * 256, 256)], wr_id=100 + i)
    p.resp.rcq.req_notify(True)
    p.post_send(e.IBV_WR_SEND, [(0, 16)], wr_id=1)
    check_wc(poll(p.req.scq)[0], "send wc")
    if wait_event(p.resp, 1.0):
        raise AssertionError("unsolicited SEND raised a solicited-only event")
    p.post_send(e.IBV_WR_SEND, [(0, 16)], wr_id=2,
                flags=e.IBV_SEND_SIGNALED | e.IBV_SEND_SOLICITED)
    check_wc(poll(p.req.scq)[0], "send wc")
    if not wait_event(p.resp, WAIT):
        raise AssertionError("no completion event for a solicited SEND")
    rs = poll(p.resp.rcq, 2)
    check_wc(rs[0], "recv 0", wr_id=100)
    check_wc(rs[1], "recv 1", wr_id=101)


def c_rem_access(p):
    rkey, addr = p.remote(RECV_OFF)
    p.post_send(e.IBV_WR_RDMA_WRITE, [(0, 64)], wr_id=1,
                rdma=((rkey ^ 0x5a5a00) & 0xffffffff, addr))
    p.post_send(e.IBV_WR_RDMA_WRITE, [(0, 64)], wr_id=2,
                rdma=(rkey, addr))
    ws = poll(p.req.scq, 2)
    check_wc(ws[0], "bad rkey", status=e.IBV_WC_REM_ACCESS_ERR, wr_id=1)
    check_wc(ws[1], "next WR", status=e.IBV_WC_WR_FLUSH_ERR, wr_id=2)


def c_rnr_exhausted(p):
    p.post_send(e.IBV_WR_SEND, [(0, 64)])
    check_wc(poll(p.req.scq)[0], "send without receive",
             status=e.IBV_WC_RNR_RETRY_EXC_ERR)


def c_write_imm_rnr(p):
    """One packet of WRITE with immediate and no receive posted: RNR until
    the retries run out, nothing placed, and the R_Key's MR not kept
    referenced (its deregistration at the end would wait for it)."""
    p.req.fill(0, pattern(64, 11))
    p.resp.fill(RECV_OFF, bytes(80))
    p.post_send(e.IBV_WR_RDMA_WRITE_WITH_IMM, [(0, 64)], imm=7,
                rdma=p.remote(RECV_OFF))
    check_wc(poll(p.req.scq)[0], "write-imm without receive",
             status=e.IBV_WC_RNR_RETRY_EXC_ERR)
    same(p.resp.read(RECV_OFF, 80), bytes(80), "nothing placed")


def c_retry_exhausted(p):
    p.qb.close()
    p.qb = None
    p.post_send(e.IBV_WR_SEND, [(0, 64)])
    check_wc(poll(p.req.scq, wait=WAIT + 30)[0], "send to a destroyed QP",
             status=e.IBV_WC_RETRY_EXC_ERR)


def c_ud_bad_qkey(p):
    p.post_recv([(RECV_OFF, 256 + GRH)])
    p.req.fill(0, pattern(64, 9))
    p.post_send(e.IBV_WR_SEND, [(0, 64)], wr_id=1, qkey=QKEY ^ 0x1000)
    check_wc(poll(p.req.scq)[0], "send with a wrong Q_Key")
    expect_none(p.resp.rcq, 0.5)
    p.req.fill(0, pattern(32, 10))
    p.post_send(e.IBV_WR_SEND, [(0, 32)], wr_id=2)
    check_wc(poll(p.req.scq)[0], "send with the right Q_Key")
    r = poll(p.resp.rcq)[0]
    check_wc(r, "the receive", byte_len=32 + GRH)
    same(p.resp.read(RECV_OFF + GRH, 32), pattern(32, 10), "datagram")


RC, UC, UD = e.IBV_QPT_RC, e.IBV_QPT_UC, e.IBV_QPT_UD
CASES = [
    ('send', RC, c_send, {}),
    ('send_imm', RC, c_send_imm, {}),
    ('send_inv', RC, c_send_inv, {}),
    ('send_zero', RC, c_send_zero, {}),
    ('send_inline', RC, c_send_inline, {'inline': 128}),
    ('send_big', RC, c_send_big, {}),
    ('send_sges', RC, c_send_sges, {}),
    ('write', RC, c_write, {}),
    ('write_imm', RC, c_write_imm, {}),
    ('write_zero', RC, c_write_zero, {}),
    ('read', RC, c_read, {}),
    ('cmp_swp', RC, c_cmp_swp, {}),
    ('fetch_add', RC, c_fetch_add, {}),
    ('unsignaled', RC, c_unsignaled, {'sig_all': 0}),
    ('solicited', RC, c_solicited, {}),
    ('rem_access', RC, c_rem_access, {}),
    ('rnr_exhausted', RC, c_rnr_exhausted,
     {'rnr_retry': 1, 'min_rnr_timer': 1}),
    ('write_imm_rnr', RC, c_write_imm_rnr,
     {'rnr_retry': 1, 'min_rnr_timer': 1}),
    ('retry_exhausted', RC, c_retry_exhausted,
     {'timeout': 10, 'retry_cnt': 1}),
    ('uc_send', UC, c_send, {}),
    ('uc_send_imm', UC, c_send_imm, {}),
    ('uc_send_big', UC, c_send_big, {}),
    ('uc_write', UC, c_write, {}),
    ('uc_write_imm', UC, c_write_imm, {}),
    ('ud_send', UD, c_send_big, {}),
    ('ud_send_imm', UD, c_send_imm, {}),
    ('ud_bad_qkey', UD, c_ud_bad_qkey, {}),
]


# --- cases for 54-netem (run only when named) ---------------------------------
# XP_LOSSY=1 says the path really drops packets (netem on a veth the packets
# cross; not so for a device talking to itself).  XP_NETEM_OFF is a shell
# command that removes the impairment.

LOSSY = os.environ.get('XP_LOSSY', '0') == '1'
CHUNK = 65536
WINDOW = 8


def windowed(p, ops):
    """ops: [(post function, wr_id)]; keep WINDOW signaled WRs in flight"""
    done = 0
    for i, (fn, wr_id) in enumerate(ops):
        if i - done >= WINDOW:
            for wc in poll(p.req.scq, 1, WAIT + 60):
                check_wc(wc, f"bulk WR {wc.wr_id}")
            done += 1
        fn(wr_id)
    for wc in poll(p.req.scq, len(ops) - done, WAIT + 60):
        check_wc(wc, f"bulk WR {wc.wr_id}")


def c_bulk(p):
    """BULK bytes by RDMA WRITE, then by SEND, then read back by RDMA READ"""
    n = BULK // CHUNK
    data = b''.join(pattern(CHUNK, i) for i in range(n))
    t0 = time.monotonic()
    p.req.fill(0, data)
    p.resp.fill(RECV_OFF, bytes(BULK))
    windowed(p, [(lambda w: p.post_send(
        e.IBV_WR_RDMA_WRITE, [(w * CHUNK, CHUNK)], wr_id=w,
        rdma=p.remote(RECV_OFF + w * CHUNK)), i) for i in range(n)])
    same(p.resp.read(RECV_OFF, BULK), data, "RDMA WRITE data")
    p.resp.fill(RECV_OFF, bytes(BULK))     # the SENDs must bring it again
    posted = min(n, WINDOW * 2)
    for i in range(posted):
        p.post_recv([(RECV_OFF + i * CHUNK, CHUNK)], wr_id=1000 + i)
    got = 0

    def send(w):
        nonlocal posted, got
        # keep receives ahead of the sends
        cnt, wcs = p.resp.rcq.poll(WINDOW)
        for wc in wcs[:cnt]:
            check_wc(wc, "bulk receive", byte_len=CHUNK)
            got += 1
        while posted < n and posted - got < WINDOW * 2:
            p.post_recv([(RECV_OFF + posted * CHUNK, CHUNK)],
                        wr_id=1000 + posted)
            posted += 1
        p.post_send(e.IBV_WR_SEND, [(w * CHUNK, CHUNK)], wr_id=w)

    windowed(p, [(send, i) for i in range(n)])
    while got < n:
        while posted < n and posted - got < WINDOW * 2:
            p.post_recv([(RECV_OFF + posted * CHUNK, CHUNK)],
                        wr_id=1000 + posted)
            posted += 1
        for wc in poll(p.resp.rcq, 1, WAIT + 60):
            check_wc(wc, "bulk receive", byte_len=CHUNK)
            got += 1
    same(p.resp.read(RECV_OFF, BULK), data, "SEND data")
    print(f"  bulk: {BULK >> 10} KiB by RDMA WRITE and by SEND intact")
    p.req.fill(0, bytes(BULK))
    windowed(p, [(lambda w: p.post_send(
        e.IBV_WR_RDMA_READ, [(w * CHUNK, CHUNK)], wr_id=w,
        rdma=p.remote(RECV_OFF + w * CHUNK)), i) for i in range(n)])
    same(p.req.read(0, BULK), data, "RDMA READ data")
    print(f"  bulk: 3 x {BULK >> 10} KiB (write, send, read) intact in "
          f"{time.monotonic() - t0:.1f}s")


def counted(p, count, size):
    """send @count numbered messages, return the sequence numbers received"""
    for i in range(count):
        p.post_recv([(RECV_OFF + i * 4096, 4096)], wr_id=1000 + i)
    for i in range(count):
        msg = i.to_bytes(4, 'little') + pattern(size - 4, i)
        p.req.fill(i * 4096, msg)
        p.post_send(e.IBV_WR_SEND, [(i * 4096, size)], wr_id=i)
        if i % 8 == 7:
            for wc in poll(p.req.scq, 8):
                check_wc(wc, "send")
    for wc in poll(p.req.scq, count % 8):
        check_wc(wc, "send")
    time.sleep(1.0)
    seqs = []
    off = GRH if p.qpt == e.IBV_QPT_UD else 0
    while True:
        cnt, wcs = p.resp.rcq.poll(16)
        if not cnt:
            break
        for wc in wcs[:cnt]:
            check_wc(wc, "receive", byte_len=size + off)
            k = wc.wr_id - 1000
            buf = p.resp.read(RECV_OFF + k * 4096 + off, size)
            seq = int.from_bytes(buf[:4], 'little')
            same(buf, seq.to_bytes(4, 'little') + pattern(size - 4, seq),
                 f"message {seq}")
            seqs.append(seq)
    if seqs != sorted(seqs) or len(set(seqs)) != len(seqs):
        raise AssertionError(f"messages out of order or twice: {seqs}")
    return seqs


def loss_check(what, got, count, per_msg_pkts):
    pct = float(os.environ.get('XP_LOSS_PCT', '0'))
    lost = count - len(got)
    print(f"  {what}: {len(got)} of {count} messages arrived ({lost} lost; "
          f"netem loss {pct}% per packet, {per_msg_pkts} packet(s) each)")
    if not LOSSY:
        if lost:
            raise AssertionError("messages lost on a loss-free path")
        return
    expect = count * (1 - (1 - pct / 100) ** per_msg_pkts)
    if not (1 <= lost <= 3 * expect + 5):
        raise AssertionError(f"{lost} lost, expected about {expect:.0f}")


def c_ud_loss(p):
    got = counted(p, 100, 512)
    loss_check("UD", got, 100, 1)


def c_uc_loss(p):
    got = counted(p, 60, 3000)     # 3 packets per message
    loss_check("UC", got, 60, 3)
    off = os.environ.get('XP_NETEM_OFF')
    if off:
        os.system(off)
        p.resp.drain()
        got = counted(p, 5, 3000)
        if len(got) != 5:
            raise AssertionError(f"after the loss: {len(got)} of 5 arrived")
        print("  UC: the QP delivers every message once the loss stops")


def c_retry_blackhole(p):
    if not LOSSY:
        raise Skip("the path cannot black-hole packets (device talks to itself)")
    p.post_send(e.IBV_WR_SEND, [(0, 64)])
    check_wc(poll(p.req.scq, wait=WAIT + 30)[0], "send into a black hole",
             status=e.IBV_WC_RETRY_EXC_ERR)


def c_acks(p):
    """ACK requests: see the module's docstring"""
    rounds, per, size = 4, 50, 64
    for r in range(rounds):
        for i in range(per):
            last = i == per - 1
            p.req.fill(i * size, pattern(size, r * per + i))
            p.post_send(e.IBV_WR_RDMA_WRITE, [(i * size, size)],
                        wr_id=r * per + i,
                        flags=e.IBV_SEND_SIGNALED if last else 0,
                        rdma=p.remote(RECV_OFF + i * size))
        check_wc(poll(p.req.scq)[0], f"round {r}", wr_id=r * per + per - 1,
                 opcode=e.IBV_WC_RDMA_WRITE)
        same(p.resp.read(RECV_OFF, per * size),
             b''.join(pattern(size, r * per + i) for i in range(per)),
             f"round {r} data")
    expect_none(p.req.scq, 0.1)
    tail = 5
    for i in range(tail):
        p.req.fill(i * size, pattern(size, 1000 + i))
        p.post_send(e.IBV_WR_RDMA_WRITE, [(i * size, size)], wr_id=1000 + i,
                    flags=0, rdma=p.remote(RECV_OFF + i * size))
    end = time.monotonic() + WAIT
    left = qp_driver_field(p.req.dev, p.qa.qp_num, 'in_flight')
    while left and time.monotonic() < end:
        time.sleep(0.02)
        left = qp_driver_field(p.req.dev, p.qa.qp_num, 'in_flight')
    if left:
        raise AssertionError(f"{left} of {tail} unsignaled WRITEs with "
                             f"nothing after them never retired ({WAIT}s)")
    same(p.resp.read(RECV_OFF, tail * size),
         b''.join(pattern(size, 1000 + i) for i in range(tail)), "tail data")
    expect_none(p.req.scq, 0.1)
    print(f"  acks: {rounds * per} stream WRITEs, {tail} tail WRITEs retired")


def c_route_change(p):
    """RC across a routing change: see the module's docstring"""
    cut, mend = os.environ.get('XP_ROUTE_CUT'), os.environ.get('XP_ROUTE_MEND')
    if not cut or not mend:
        raise Skip("XP_ROUTE_CUT and XP_ROUTE_MEND not given")
    p.req.fill(0, pattern(64, 1))
    p.post_send(e.IBV_WR_RDMA_WRITE, [(0, 64)], wr_id=1,
                rdma=p.remote(RECV_OFF))
    check_wc(poll(p.req.scq)[0], "WRITE before the change", wr_id=1,
             opcode=e.IBV_WC_RDMA_WRITE)
    same(p.resp.read(RECV_OFF, 64), pattern(64, 1), "WRITE data")
    if os.system(cut):
        raise AssertionError(f"XP_ROUTE_CUT failed: {cut}")
    try:
        p.post_send(e.IBV_WR_RDMA_WRITE, [(0, 64)], wr_id=2,
                    rdma=p.remote(RECV_OFF))
        check_wc(poll(p.req.scq, wait=WAIT + 30)[0],
                 "WRITE after the route went through a dead gateway",
                 wr_id=2, status=e.IBV_WC_RETRY_EXC_ERR)
    finally:
        if os.system(mend):
            raise AssertionError(f"XP_ROUTE_MEND failed: {mend}")
    print("  route_change: the QP's next WRITE took the new route")


EXTRA = [
    ('bulk', RC, c_bulk, {}),
    ('acks', RC, c_acks, {'timeout': 0, 'depth': 128, 'sig_all': 0}),
    ('ud_loss', UD, c_ud_loss, {'depth': 128}),
    ('uc_loss', UC, c_uc_loss, {'depth': 128}),
    ('retry_blackhole', RC, c_retry_blackhole,
     {'timeout': 10, 'retry_cnt': 2}),
    ('route_change', RC, c_route_change, {'timeout': 10, 'retry_cnt': 2}),
]


def run(a, b, sel):
    """run the cases @sel selects, both ways; return (ok, failed, skipped,
    not run) counts"""
    fails = skips = oks = notrun = 0
    stalls = 0      # consecutive cases that saw no completion at all
    # XP_ONE_WAY=1: only A->B (uc_loss ends the impairment for both ways)
    ways = ((a, b),) if a is b or os.environ.get('XP_ONE_WAY') else \
        ((a, b), (b, a))
    for req, resp in ways:
        for name, qpt, fn, kw in CASES + EXTRA:
            if not sel.search(name):
                continue
            # the netem cases run only when named
            if (name, qpt, fn, kw) in EXTRA and not sel.pattern:
                continue
            if stalls >= 3:
                # a transport that completes nothing would spend WAIT
                # seconds on every case
                notrun += 1
                print(f"not run: {name} {req.dev}->{resp.dev} (3 cases in "
                      "a row saw no completion)", flush=True)
                continue
            what = f"{name} {req.dev}->{resp.dev}"
            t0 = time.monotonic()
            p = None
            try:
                p = Pair(req, resp, qpt, **kw)
                fn(p)
                oks += 1
                stalls = 0
                print(f"ok: {what} ({time.monotonic() - t0:.1f}s)",
                      flush=True)
            except Skip as why:
                skips += 1
                print(f"skip: {what}: {why}", flush=True)
            except Exception as err:
                fails += 1
                stalls = stalls + 1 if ' completions after ' in str(err) else 0
                print(f"FAIL: {what}: {type(err).__name__}: {err}",
                      flush=True)
            finally:
                if p is not None:
                    p.close()
    return oks, fails, skips, notrun


def summary(counts):
    return ("verbs matrix: {} ok, {} failed, {} skipped, {} not run"
            .format(*counts))


# What a serve request may change, and how it reaches the cases: the module
# globals computed from the environment at import are computed again.
# XP_WC_TIMEOUT and SV_TIME_SCALE are not among them (bound into default
# arguments and timeouts at import), nor may XP_BULK_MIB grow past what the
# memory regions were sized for at start.
SERVE_ENV = ('XP_LOSSY', 'XP_LOSS_PCT', 'XP_BULK_MIB', 'XP_NETEM_OFF',
             'XP_ONE_WAY')


def serve_env(env):
    global BULK, LOSSY
    BULK = int(float(env.get('XP_BULK_MIB', '4')) * (1 << 20))
    LOSSY = env.get('XP_LOSSY', '0') == '1'
    if BULK > MR_SIZE - RECV_OFF:
        raise ValueError(f"XP_BULK_MIB={env['XP_BULK_MIB']} is more than "
                         f"the {(MR_SIZE - RECV_OFF) >> 20} MiB the server "
                         "was started for (set XP_BULK_MIB at start)")


def serve(a, b):
    """--serve: one request per stdin line, REGEX [KEY=VALUE...], answered
    by the cases' lines and one 'done REGEX ok|FAIL SUMMARY' line; the
    devices are opened once, for every request"""
    base = dict(os.environ)
    print("ready", flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        regex, env = words[0], dict(base)
        try:
            for kv in words[1:]:
                k, sep, v = kv.partition('=')
                if not sep or k not in SERVE_ENV:
                    raise ValueError(f"{kv}: not one of "
                                     f"{'=, '.join(SERVE_ENV)}=")
                env[k] = v
            sel = re.compile(regex)
            os.environ.clear()
            os.environ.update(env)
            serve_env(env)
            counts = run(a, b, sel)
            verdict = 'FAIL' if counts[1] else 'ok'
            text = summary(counts)
        except (ValueError, re.error) as err:
            verdict, text = 'FAIL', f"bad request: {err}"
        finally:
            os.environ.clear()
            os.environ.update(base)
            serve_env(base)
        print(f"done {regex} {verdict} {text}", flush=True)
    return 0


def main():
    args = sys.argv[1:]
    serving = args[:1] == ['--serve']
    if serving:
        args = args[1:]
    if len(args) < 4 or (serving and len(args) > 4):
        print(__doc__)
        return 2
    a = Side(args[0], int(args[1]))
    b = a if args[2] == args[0] else Side(args[2], int(args[3]))
    if serving:
        return serve(a, b)
    counts = run(a, b, re.compile(args[4] if len(args) > 4 else ''))
    print(summary(counts))
    return 1 if counts[1] else 0


if __name__ == '__main__':
    sys.exit(main())
