#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Capture RoCEv2 packets that Soft-RoCE (rdma_rxe) puts on a wire, and print
a few as C test vectors for tests/kunit/icrc_kunit.c (the ICRC each carries
is Soft-RoCE's computation, not ours).

  icrc-capture.py DEV0 DEV1 IFACE GID0_V4 GID1_V4 GID0_V6 GID1_V6

DEV0 and DEV1 are Soft-RoCE devices whose traffic crosses IFACE (see
icrc-capture.sh for the topology); GIDn_V4 / GIDn_V6 are the indices of
their RoCEv2 GIDs of the IPv4 and IPv6 addresses.  For each address family
it runs, with a 256-byte path MTU so that multi-packet messages stay small:

  RC  SEND (with and without immediate), RDMA WRITE of 3 packets, RDMA
      WRITE with immediate, RDMA READ of 2 packets and of 1, Compare &
      Swap, Fetch & Add  -> requests, ACKs, read responses, atomic ACKs
  UC  SEND, RDMA WRITE with immediate
  UD  SEND, SEND with immediate

while an AF_PACKET socket on IFACE records every UDP/4791 frame in both
directions.  Each frame's ICRC is then checked with an independent Python
computation (zlib's CRC-32 over 8 bytes of 0xff and the masked headers,
IBTA Annex A17.3.3); the C output holds one frame per (family, opcode),
between "// icrc-vectors-begin" and "// icrc-vectors-end" lines.
"""
import socket
import struct
import sys
import threading
import time
import zlib

from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE
import pyverbs.enums as e

ETH_P_ALL = 0x0003
ROCE_PORT = 4791
QKEY = 0x11111111
BUF = 4096
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)

OPNAMES = {
    0x00: 'RC_SEND_FIRST', 0x01: 'RC_SEND_MIDDLE', 0x02: 'RC_SEND_LAST',
    0x03: 'RC_SEND_LAST_WITH_IMMEDIATE', 0x04: 'RC_SEND_ONLY',
    0x05: 'RC_SEND_ONLY_WITH_IMMEDIATE', 0x06: 'RC_RDMA_WRITE_FIRST',
    0x07: 'RC_RDMA_WRITE_MIDDLE', 0x08: 'RC_RDMA_WRITE_LAST',
    0x09: 'RC_RDMA_WRITE_LAST_WITH_IMMEDIATE', 0x0a: 'RC_RDMA_WRITE_ONLY',
    0x0b: 'RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE', 0x0c: 'RC_RDMA_READ_REQUEST',
    0x0d: 'RC_RDMA_READ_RESPONSE_FIRST', 0x0e: 'RC_RDMA_READ_RESPONSE_MIDDLE',
    0x0f: 'RC_RDMA_READ_RESPONSE_LAST', 0x10: 'RC_RDMA_READ_RESPONSE_ONLY',
    0x11: 'RC_ACKNOWLEDGE', 0x12: 'RC_ATOMIC_ACKNOWLEDGE',
    0x13: 'RC_COMPARE_SWAP', 0x14: 'RC_FETCH_ADD',
    0x24: 'UC_SEND_ONLY', 0x2b: 'UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE',
    0x64: 'UD_SEND_ONLY', 0x65: 'UD_SEND_ONLY_WITH_IMMEDIATE',
}

# the frames that become test vectors: (IP version, opcode)
WANT = [
    (4, 0x04), (4, 0x11), (4, 0x06), (4, 0x08), (4, 0x0b), (4, 0x0d),
    (4, 0x10), (4, 0x12), (4, 0x13), (4, 0x65),
    (6, 0x04), (6, 0x11), (6, 0x0f), (6, 0x14), (6, 0x64), (6, 0x2b),
]


class Capture(threading.Thread):
    """every RoCEv2 frame seen on @iface, in order: (direction, bytes)"""

    def __init__(self, iface):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                  socket.htons(ETH_P_ALL))
        self.sock.bind((iface, 0))
        self.sock.settimeout(0.2)
        self.frames = []
        self.stop = False

    def run(self):
        while not self.stop:
            try:
                data, addr = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            if l3_of(data) is not None:
                self.frames.append((addr[2], data))


def l3_of(frame):
    """(offset of the IP header, IP version) of a RoCEv2 frame, else None"""
    off = 14
    ethertype = struct.unpack_from('!H', frame, 12)[0]
    if ethertype == 0x8100:
        ethertype = struct.unpack_from('!H', frame, 16)[0]
        off += 4
    if ethertype == 0x0800:
        ihl = (frame[off] & 0x0f) * 4
        if frame[off + 9] != 17:
            return None
        udp = off + ihl
        ver = 4
    elif ethertype == 0x86dd:
        if frame[off + 6] != 17:
            return None
        udp = off + 40
        ver = 6
    else:
        return None
    if struct.unpack_from('!H', frame, udp + 2)[0] != ROCE_PORT:
        return None
    return off, ver


def icrc_of(pkt, ver):
    """IBTA A17.3.3 over @pkt (IP header .. ICRC), independent of the kernel"""
    b = bytearray(pkt[:-4])
    if ver == 4:
        ihl = (b[0] & 0x0f) * 4
        b[1] = 0xff                     # TOS
        b[8] = 0xff                     # TTL
        b[10:12] = b'\xff\xff'          # header checksum
        udp = ihl
    else:
        b[0] |= 0x0f                    # traffic class (low nibble here)
        b[1:4] = b'\xff\xff\xff'        # traffic class, flow label
        b[7] = 0xff                     # hop limit
        udp = 40
    b[udp + 6:udp + 8] = b'\xff\xff'    # UDP checksum
    b[udp + 8 + 4] = 0xff               # BTH: FECN, BECN, resv6
    return zlib.crc32(b'\xff' * 8 + bytes(b))


class Side:
    def __init__(self, dev, gid_index):
        self.ctx = Context(name=dev)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 64)
        self.mr = MR(self.pd, BUF, ACCESS)
        self.gid_index = gid_index
        self.gid = self.ctx.query_gid(1, gid_index)

    def qp(self, qpt):
        cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1,
                    max_recv_sge=1)
        return QP(self.pd, QPInitAttr(qp_type=qpt, scq=self.cq, rcq=self.cq,
                                      cap=cap, sq_sig_all=1))

    def av(self, peer, tclass):
        # a traffic class and flow label that the ICRC must ignore
        gr = GlobalRoute(dgid=peer.gid, sgid_index=self.gid_index,
                         hop_limit=64, traffic_class=tclass,
                         flow_label=0x12345)
        return AHAttr(is_global=1, port_num=1, gr=gr)

    def sge(self, off, length):
        return SGE(self.mr.buf + off, length, self.mr.lkey)

    def wait(self, n, what):
        got = 0
        deadline = time.time() + 10
        while got < n:
            npolled, wcs = self.cq.poll(n - got)
            for wc in wcs[:npolled]:
                if wc.status != e.IBV_WC_SUCCESS:
                    raise RuntimeError(f"{what}: completion status "
                                       f"{wc.status}")
            got += npolled
            if time.time() > deadline:
                raise RuntimeError(f"{what}: {got} of {n} completions")
            if not npolled:
                time.sleep(0.01)


def modify(qp, mask, **fields):
    attr = QPAttr()
    for k, v in fields.items():
        setattr(attr, k, v)
    qp.modify(attr, mask)


def connect(a, qa, b, qb, qpt, tclass):
    """bring @qa (on side @a) to RTS towards @qb on side @b"""
    if qpt == e.IBV_QPT_UD:
        modify(qa, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
               e.IBV_QP_QKEY, qp_state=e.IBV_QPS_INIT, pkey_index=0,
               port_num=1, qkey=QKEY)
        modify(qa, e.IBV_QP_STATE, qp_state=e.IBV_QPS_RTR)
        modify(qa, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN, qp_state=e.IBV_QPS_RTS,
               sq_psn=0x000100)
        return
    modify(qa, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
           e.IBV_QP_ACCESS_FLAGS, qp_state=e.IBV_QPS_INIT, pkey_index=0,
           port_num=1, qp_access_flags=ACCESS if qpt == e.IBV_QPT_RC else
           e.IBV_ACCESS_REMOTE_WRITE)
    rtr = (e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
           e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN)
    # PSNs just below the wrap, so that some vectors carry high PSNs
    f = dict(qp_state=e.IBV_QPS_RTR, ah_attr=a.av(b, tclass),
             path_mtu=e.IBV_MTU_256, dest_qp_num=qb.qp_num,
             rq_psn=0xfffffa)
    if qpt == e.IBV_QPT_RC:
        rtr |= e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER
        f.update(max_dest_rd_atomic=4, min_rnr_timer=12)
    modify(qa, rtr, **f)
    rts = e.IBV_QP_STATE | e.IBV_QP_SQ_PSN
    f = dict(qp_state=e.IBV_QPS_RTS, sq_psn=0xfffffa)
    if qpt == e.IBV_QPT_RC:
        rts |= (e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT | e.IBV_QP_RNR_RETRY |
                e.IBV_QP_MAX_QP_RD_ATOMIC)
        f.update(timeout=14, retry_cnt=7, rnr_retry=7, max_rd_atomic=4)
    modify(qa, rts, **f)


def post_recvs(side, qp, n):
    for i in range(n):
        qp.post_recv(RecvWR(wr_id=i, num_sge=1,
                            sg=[side.sge(2048, 1024)]))


def send_wr(side, opcode, length, off=0):
    return SendWR(wr_id=opcode, opcode=opcode, num_sge=1 if length else 0,
                  sg=[side.sge(off, length)] if length else None)


def run_rc(a, b, tclass):
    qa, qb = a.qp(e.IBV_QPT_RC), b.qp(e.IBV_QPT_RC)
    connect(a, qa, b, qb, e.IBV_QPT_RC, tclass)
    connect(b, qb, a, qa, e.IBV_QPT_RC, tclass)
    post_recvs(b, qb, 4)
    a.mr.write(bytes(i & 0xff for i in range(BUF)), BUF)

    qa.post_send(send_wr(a, e.IBV_WR_SEND, 13))
    a.wait(1, "RC SEND")
    wr = send_wr(a, e.IBV_WR_SEND_WITH_IMM, 5)
    wr.imm_data = 0x0a0b0c0d
    qa.post_send(wr)
    a.wait(1, "RC SEND with immediate")
    wr = send_wr(a, e.IBV_WR_RDMA_WRITE, 600)
    wr.set_wr_rdma(b.mr.rkey, b.mr.buf)
    qa.post_send(wr)
    a.wait(1, "RC RDMA WRITE")
    wr = send_wr(a, e.IBV_WR_RDMA_WRITE_WITH_IMM, 7)
    wr.set_wr_rdma(b.mr.rkey, b.mr.buf + 1024)
    wr.imm_data = 0x01020304
    qa.post_send(wr)
    a.wait(1, "RC RDMA WRITE with immediate")
    wr = send_wr(a, e.IBV_WR_RDMA_READ, 300, off=1024)
    wr.set_wr_rdma(b.mr.rkey, b.mr.buf)
    qa.post_send(wr)
    a.wait(1, "RC RDMA READ, 2 packets")
    wr = send_wr(a, e.IBV_WR_RDMA_READ, 9, off=1536)
    wr.set_wr_rdma(b.mr.rkey, b.mr.buf + 16)
    qa.post_send(wr)
    a.wait(1, "RC RDMA READ, 1 packet")
    wr = send_wr(a, e.IBV_WR_ATOMIC_CMP_AND_SWP, 8, off=1600)
    wr.set_wr_atomic(b.mr.rkey, b.mr.buf + 64, 0x0706050403020100,
                     0x1122334455667788)
    qa.post_send(wr)
    a.wait(1, "RC Compare & Swap")
    wr = send_wr(a, e.IBV_WR_ATOMIC_FETCH_AND_ADD, 8, off=1608)
    wr.set_wr_atomic(b.mr.rkey, b.mr.buf + 64, 5, 0)
    qa.post_send(wr)
    a.wait(1, "RC Fetch & Add")
    b.wait(3, "RC receives")       # 2 sends + write with immediate


def run_uc(a, b, tclass):
    qa, qb = a.qp(e.IBV_QPT_UC), b.qp(e.IBV_QPT_UC)
    connect(a, qa, b, qb, e.IBV_QPT_UC, tclass)
    connect(b, qb, a, qa, e.IBV_QPT_UC, tclass)
    post_recvs(b, qb, 2)
    qa.post_send(send_wr(a, e.IBV_WR_SEND, 11))
    a.wait(1, "UC SEND")
    wr = send_wr(a, e.IBV_WR_RDMA_WRITE_WITH_IMM, 6)
    wr.set_wr_rdma(b.mr.rkey, b.mr.buf + 512)
    wr.imm_data = 0x55aa55aa
    qa.post_send(wr)
    a.wait(1, "UC RDMA WRITE with immediate")
    b.wait(2, "UC receives")


def run_ud(a, b, tclass):
    qa, qb = a.qp(e.IBV_QPT_UD), b.qp(e.IBV_QPT_UD)
    connect(a, qa, b, qb, e.IBV_QPT_UD, tclass)
    connect(b, qb, a, qa, e.IBV_QPT_UD, tclass)
    for i in range(2):
        qb.post_recv(RecvWR(wr_id=i, num_sge=1, sg=[b.sge(0, 1024)]))
    ah = AH(a.pd, attr=a.av(b, tclass))
    for opcode, length in ((e.IBV_WR_SEND, 17),
                           (e.IBV_WR_SEND_WITH_IMM, 2)):
        wr = send_wr(a, opcode, length, off=256)
        if opcode == e.IBV_WR_SEND_WITH_IMM:
            wr.imm_data = 0x7f000001
        wr.set_wr_ud(ah, qb.qp_num, QKEY)
        qa.post_send(wr)
        a.wait(1, "UD SEND")
    b.wait(2, "UD receives")


def c_array(name, data):
    lines = []
    for i in range(0, len(data), 12):
        lines.append('\t' + ' '.join(f'0x{x:02x},' for x in data[i:i + 12]))
    return f'static const u8 {name}[] = {{\n' + '\n'.join(lines) + '\n};\n'


def main():
    dev0, dev1, iface = sys.argv[1:4]
    g0v4, g1v4, g0v6, g1v6 = (int(x) for x in sys.argv[4:8])
    cap = Capture(iface)
    cap.start()

    for ver, g0, g1, tclass in ((4, g0v4, g1v4, 0x68), (6, g0v6, g1v6, 0xb9)):
        a, b = Side(dev0, g0), Side(dev1, g1)
        run_rc(a, b, tclass)
        run_uc(a, b, tclass)
        run_ud(a, b, tclass)
        print(f"# IPv{ver}: RC, UC, UD done", file=sys.stderr)
    time.sleep(0.5)
    cap.stop = True
    cap.join()

    seen = {}
    bad = 0
    for direction, frame in cap.frames:
        off, ver = l3_of(frame)
        pkt = frame[off:]
        # IP total length: drop Ethernet padding of short frames
        if ver == 4:
            pkt = pkt[:struct.unpack_from('!H', pkt, 2)[0]]
            udp = (pkt[0] & 0x0f) * 4
        else:
            pkt = pkt[:40 + struct.unpack_from('!H', pkt, 4)[0]]
            udp = 40
        opcode = pkt[udp + 8]
        wire = struct.unpack_from('<I', pkt, len(pkt) - 4)[0]
        mine = icrc_of(pkt, ver)
        if wire != mine:
            bad += 1
            print(f"# MISMATCH IPv{ver} {OPNAMES.get(opcode, hex(opcode))}: "
                  f"wire {wire:08x}, python {mine:08x}", file=sys.stderr)
        seen.setdefault((ver, opcode), (direction, pkt, wire))
    print(f"# {len(cap.frames)} frames, {bad} ICRC mismatches; kinds: " +
          ', '.join(f"v{v}:{OPNAMES.get(o, hex(o))}"
                    for v, o in sorted(seen)), file=sys.stderr)

    out = ['// icrc-vectors-begin']
    table = []
    for ver, opcode in WANT:
        if (ver, opcode) not in seen:
            print(f"# missing: IPv{ver} {OPNAMES.get(opcode, hex(opcode))}",
                  file=sys.stderr)
            continue
        direction, pkt, wire = seen[(ver, opcode)]
        name = f"v{ver}_{OPNAMES[opcode].lower()}"
        how = "received (forwarded)" if direction != socket.PACKET_OUTGOING \
            else "sent"
        out.append(f"/* IPv{ver} {OPNAMES[opcode]}, {len(pkt)} bytes, "
                   f"{how} on the capture side; ICRC {wire:08x} */")
        out.append(c_array(name, pkt))
        table.append(f"\tVEC({name}, {ver}, 0x{opcode:02x}, 0x{wire:08x}),")
    out.append('static const struct icrc_vector icrc_vectors[] = {')
    out.extend(table)
    out.append('};')
    out.append('// icrc-vectors-end')
    print('\n'.join(out))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
