#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""RoCE v1 checks of 67-roce-v1.sh that need verbs or raw frames.

  67-roce-v1.py mcast DEV_A GID_A DEV_B GID_B
  67-roce-v1.py frame IFNAME SMAC DMAC SGID DEV_B GID_B

mcast: two UD QPs of DEV_B attach to a group; a UD QP of DEV_A sends to it
(QPN 0xFFFFFF) from its RoCE v1 GID index GID_A; each receiver gets every
message intact, with the wire GRH (IPVer 6, NxtHdr 0x1B, SGID = A's GID,
DGID = the group) in the GRH area.

frame: a UD QP of DEV_B (RoCE v1 GID index GID_B) receives a UD SEND that
this process builds itself (tests/user/lib/roce1.py: Ethernet, GRH, BTH,
DETH, payload, ICRC, from the spec) and sends from an AF_PACKET socket on
IFNAME (the other end of DEV_B's link), SMAC -> DMAC, from SGID: the CQE
has the payload and the exact GRH that was sent.  Then the same frame with
a wrong ICRC: no completion (the shell checks rx_drop_icrc).

Exit status 0 when every check passed; failures raise.
"""
import importlib.util
import ipaddress
import os
import socket
import sys

from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
from pyverbs.wr import RecvWR, SendWR
import pyverbs.enums as e

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, 'lib'))
import roce1  # noqa: E402

# the verbs helpers of 53-verbs-matrix.py (Side, make_qp, connect, poll)
_spec = importlib.util.spec_from_file_location(
    'matrix', os.path.join(here, '53-verbs-matrix.py'))
m = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(m)

MGID = 'ff0e::67:1'
MULTICAST_QPN = 0xffffff
RECV = m.RECV_OFF
SLOT = 4096


def check_v1_grh(grh, sgid, dgid):
    want = ipaddress.ip_address(sgid).packed + ipaddress.ip_address(dgid).packed
    if grh[0] >> 4 != 6 or grh[6] != 0x1b or bytes(grh[8:40]) != want:
        raise AssertionError(f"not the RoCE v1 GRH {sgid} -> {dgid}: "
                             f"{bytes(grh).hex()}")


def mcast(dev_a, gid_a, dev_b, gid_b, count=5, size=256):
    a = m.Side(dev_a, gid_a)
    b = m.Side(dev_b, gid_b)
    if not (a.v1 and b.v1):
        raise AssertionError("GID indexes are not RoCE v1 ones")
    recv = [m.make_qp(b, e.IBV_QPT_UD, depth=count) for _ in range(2)]
    for i, qp in enumerate(recv):
        m.connect(qp, e.IBV_QPT_UD, b, a, 0)
        qp.attach_mcast(GID(MGID), 0)
        for j in range(count):
            off = RECV + (i * count + j) * SLOT
            qp.post_recv(RecvWR(wr_id=i * count + j, num_sge=1,
                                sg=[b.sge(off, m.GRH + size)]))
    qa = m.make_qp(a, e.IBV_QPT_UD, depth=count)
    m.connect(qa, e.IBV_QPT_UD, a, b, 0)
    ah = AH(a.pd, attr=AHAttr(is_global=1, port_num=1, gr=GlobalRoute(
        dgid=GID(MGID), sgid_index=gid_a, hop_limit=1)))
    for j in range(count):
        data = bytes((j * 7 + k) & 0xff for k in range(size))
        a.fill(j * SLOT, data)
        wr = SendWR(wr_id=j, opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[a.sge(j * SLOT, size)])
        wr.set_wr_ud(ah, MULTICAST_QPN, m.QKEY)
        qa.post_send(wr)
        m.check_wc(m.poll(a.scq)[0], "send wc", opcode=e.IBV_WC_SEND)
    wcs = m.poll(b.rcq, 2 * count)
    for wc in wcs:
        m.check_wc(wc, "recv wc", opcode=e.IBV_WC_RECV,
                   byte_len=m.GRH + size, src_qp=qa.qp_num)
        i, j = divmod(wc.wr_id, count)
        if wc.qp_num != recv[i].qp_num:
            raise AssertionError(f"wr_id {wc.wr_id} on QP {wc.qp_num:#x}")
        off = RECV + wc.wr_id * SLOT
        check_v1_grh(b.read(off, m.GRH), a.gid, MGID)
        m.same(b.read(off + m.GRH, size),
               bytes((j * 7 + k) & 0xff for k in range(size)), "group data")
    for qp in recv:
        qp.detach_mcast(GID(MGID), 0)
    print(f"ok: {count} datagrams to {MGID} over RoCE v1 reached both "
          f"attached QPs, GRH {a.gid} -> {MGID}")


def frame(ifname, smac, dmac, sgid, dev_b, gid_b):
    b = m.Side(dev_b, gid_b)
    if not b.v1:
        raise AssertionError(f"{dev_b} GID {gid_b} is not RoCE v1")
    qp = m.make_qp(b, e.IBV_QPT_UD)
    m.connect(qp, e.IBV_QPT_UD, b, b, 0)
    payload = b'RoCE v1 from the spec: ' + bytes(range(41))
    qp.post_recv(RecvWR(wr_id=1, num_sge=1,
                        sg=[b.sge(RECV, m.GRH + len(payload))]))
    mac = lambda s: bytes.fromhex(s.replace(':', ''))  # noqa: E731
    sg = ipaddress.ip_address(sgid).packed
    dg = ipaddress.ip_address(b.gid).packed

    def pkt(good):
        return roce1.ud_send(sg, dg, qp.qp_num, 0x4567, m.QKEY, payload,
                             tclass=0x28, flow=0xabcde, hop=1, good=good)

    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    good = pkt(True)
    s.send(roce1.frame(mac(dmac), mac(smac), good))
    wc = m.poll(b.rcq)[0]
    m.check_wc(wc, "recv wc", opcode=e.IBV_WC_RECV,
               byte_len=m.GRH + len(payload), src_qp=0x4567,
               wc_flags=(e.IBV_WC_GRH, e.IBV_WC_GRH))
    m.same(b.read(RECV, m.GRH), good[:m.GRH], "GRH area (the wire GRH)")
    m.same(b.read(RECV + m.GRH, len(payload)), payload, "payload")
    print(f"ok: a RoCE v1 frame built from the spec ({len(good)} bytes, "
          f"ICRC {good[-4:][::-1].hex()}) was received by QP {qp.qp_num:#x}")

    qp.post_recv(RecvWR(wr_id=2, num_sge=1,
                        sg=[b.sge(RECV, m.GRH + len(payload))]))
    s.send(roce1.frame(mac(dmac), mac(smac), pkt(False)))
    m.expect_none(b.rcq, 2.0)
    print("ok: the same frame with a wrong ICRC was dropped")


def main():
    args = sys.argv[1:]
    if args[:1] == ['mcast'] and len(args) == 5:
        mcast(args[1], int(args[2]), args[3], int(args[4]))
    elif args[:1] == ['frame'] and len(args) == 7:
        frame(args[1], args[2], args[3], args[4], args[5], int(args[6]))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
