#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""RoCE v1 checks of 67-roce-v1.sh that need verbs or raw frames.

  67-roce-v1.py offlink DEV GID_V1 GID_V2 DGID
  67-roce-v1.py frame IFNAME SMAC DMAC SGID DEV_B GID_B

offlink: an address handle to DGID, which the routing table reaches through
a gateway, from RoCE v2 GID index GID_V2 is accepted, from RoCE v1 GID
index GID_V1 refused with EHOSTUNREACH (RoCE v1 is L2-only).

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
from pyverbs.wr import RecvWR
import pyverbs.enums as e

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, 'lib'))
import roce1  # noqa: E402

# the verbs helpers of 53-verbs-matrix.py (Side, make_qp, connect, poll)
_spec = importlib.util.spec_from_file_location(
    'matrix', os.path.join(here, '53-verbs-matrix.py'))
m = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(m)

RECV = m.RECV_OFF


def offlink(dev, v1_idx, v2_idx, dgid):
    """a RoCE v1 AH to dgid (behind a router) fails with EHOSTUNREACH,
    a RoCE v2 one is accepted"""
    import errno
    from pyverbs.device import Context
    from pyverbs.pd import PD
    from pyverbs.pyverbs_error import PyverbsRDMAError
    pd = PD(Context(name=dev))
    dgid = ipaddress.IPv6Address(dgid).exploded     # what pyverbs parses

    def ah(idx):
        return AH(pd, attr=AHAttr(is_global=1, port_num=1, gr=GlobalRoute(
            dgid=GID(dgid), sgid_index=idx, hop_limit=64)))
    ah(v2_idx).close()
    print(f"ok: RoCE v2 AH to {dgid} via the router: accepted")
    try:
        ah(v1_idx)
    except PyverbsRDMAError as err:
        if err.error_code != errno.EHOSTUNREACH:
            raise
        print(f"ok: RoCE v1 AH to {dgid} via the router: refused ({err})")
    else:
        raise AssertionError("a RoCE v1 AH behind a router was accepted")


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
    if args[:1] == ['offlink'] and len(args) == 5:
        offlink(args[1], int(args[2]), int(args[3]), args[4])
    elif args[:1] == ['frame'] and len(args) == 7:
        frame(args[1], args[2], args[3], args[4], args[5], int(args[6]))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
