#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Forged RoCEv2 packets against a connected QP, for 66-forged.sh.

  66-forged.py run DEV_A GID6_A DEV_B GID6_B NS_B PEER6 OTHER6 NS_A
        connects an RC QP on DEV_A (the victim) to one on DEV_B over the
        IPv6 GIDs, then from network namespace NS_B (where the peer lives)
        sends RDMA WRITE Only requests to the victim QP that it could have
        sent itself: right QPN, right PSN, right R_Key, a valid ICRC.
        From PEER6, the peer's own address, the write must land (the
        packet is well formed: spoofing the peer's full path is beyond
        what an unauthenticated protocol can stop).  From OTHER6, another
        address of that host, it must not, and rx_drop_not_peer counts it.
        Then a 9000-byte datagram (fragmented on the wire): longer than
        any RoCE packet, it must be refused before it is reassembled into
        one buffer and CRCed: rx_drop_invalid counts it, rx_drop_icrc not.
        Last, two RC QPs of DEV_A connected to each other: the peer's
        address is local, so any local user can send from it; such a
        write from a plain socket in NS_A comes in over lo and must be
        dropped (rx_drop_loopback): softverbs' own local packets never
        take lo.
  66-forged.py send SRC DST DQPN PSN RKEY VA HEX
        (run inside NS_B or NS_A by "run") one such packet from a plain UDP socket
        bound to SRC, to DST port 4791
  66-forged.py big SRC DST     (inside NS_B) the 9000-byte datagram

IPv6 because every field of its header that the ICRC covers is known to
the sender (an IPv4 header carries an identification the kernel picks).
The ICRC is computed here (IBTA A17.3.3), independently of the kernel.
"""
import importlib.util
import os
import socket
import struct
import subprocess
import sys
import time
import zlib

from svverbs import qp_driver_field

ROCE_PORT = 4791
SPORT = 50066
RC_RDMA_WRITE_ONLY = 0x0a
RC_RDMA_READ_REQUEST = 0x0c


def icrc(ip6, udp, payload):
    """IBTA A17.3.3 over the IPv6 header, the UDP header and BTH onwards"""
    b = bytearray(ip6 + udp + payload)
    b[0] |= 0x0f                    # traffic class (its low nibble here)
    b[1:4] = b'\xff\xff\xff'        # traffic class, flow label
    b[7] = 0xff                     # hop limit
    b[46:48] = b'\xff\xff'          # UDP checksum
    b[48 + 4] = 0xff                # BTH: FECN, BECN, resv6
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + bytes(b)))


def datagram(src, dst, body):
    """body (BTH onwards) with its ICRC, for a UDP socket bound to src"""
    ulen = 8 + len(body) + 4
    udp = struct.pack('>HHHH', SPORT, ROCE_PORT, ulen, 0)
    ip6 = (struct.pack('>IHBB', 6 << 28, ulen, socket.IPPROTO_UDP, 64) +
           socket.inet_pton(socket.AF_INET6, src) +
           socket.inet_pton(socket.AF_INET6, dst))
    return body + icrc(ip6, udp, body)


def send(src, dst, dqpn, psn, rkey, va, data):
    bth = struct.pack('>BBHII', RC_RDMA_WRITE_ONLY, 0, 0xffff,
                      dqpn & 0xffffff, (1 << 31) | (psn & 0xffffff))
    reth = struct.pack('>QII', va, rkey, len(data))
    pkt = datagram(src, dst, bth + reth + data)
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind((src, SPORT))
    s.sendto(pkt, (dst, ROCE_PORT))
    s.close()


def sendmmsg(s, pkts, dst):
    """pkts to dst in one sendmmsg(2): the kernel hands each datagram to
    the receiving softirq inside that one call, so no scheduling gap of
    this process falls between two of them"""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)

    class Iovec(ctypes.Structure):
        _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]

    class Msghdr(ctypes.Structure):
        _fields_ = [('name', ctypes.c_void_p), ('namelen', ctypes.c_uint32),
                    ('iov', ctypes.POINTER(Iovec)),
                    ('iovlen', ctypes.c_size_t),
                    ('control', ctypes.c_void_p),
                    ('controllen', ctypes.c_size_t),
                    ('flags', ctypes.c_int)]

    class Mmsghdr(ctypes.Structure):
        _fields_ = [('hdr', Msghdr), ('len', ctypes.c_uint)]

    # struct sockaddr_in6
    sa = struct.pack('=HHI16sI', socket.AF_INET6, socket.htons(ROCE_PORT),
                     0, socket.inet_pton(socket.AF_INET6, dst), 0)
    sabuf = ctypes.create_string_buffer(sa, len(sa))
    bufs = [ctypes.create_string_buffer(p, len(p)) for p in pkts]
    iovs = (Iovec * len(pkts))(*[Iovec(ctypes.cast(b, ctypes.c_void_p),
                                       len(p)) for b, p in zip(bufs, pkts)])
    msgs = (Mmsghdr * len(pkts))()
    for i in range(len(pkts)):
        msgs[i].hdr.name = ctypes.cast(sabuf, ctypes.c_void_p)
        msgs[i].hdr.namelen = len(sa)
        msgs[i].hdr.iov = ctypes.pointer(iovs[i])
        msgs[i].hdr.iovlen = 1
    n = libc.sendmmsg(s.fileno(), msgs, len(pkts), 0)
    if n != len(pkts):
        raise OSError(ctypes.get_errno(), f"sendmmsg sent {n} of {len(pkts)}")


def reads(phase, src, dst, dqpn, psn, rkey, va, n, first_len, mtu):
    """phase 1: n RDMA READs from PSN psn on, the first of first_len bytes
    (one PSN per mtu), the others of 8.  The small READs wait for the big
    one's answer: its responses fill the receiving CPU's backlog, which
    drops requests coming the other way on a loaded host; and they go 16
    at a time, the responder answering as they come.  The caller checks
    that the responder took every one (its expected PSN) before phase 2.
    phase 2: a duplicate of the first and one more READ, in one sendmmsg:
    the duplicate moves the responder's serving point back to the oldest
    resource and keeps it busy re-sending its 1 MiB, so the last READ
    finds every resource taken.  Sent from Python one at a time, a
    descheduled vCPU between the two let the work item finish the
    duplicate first on a loaded host (CI, debug kernel): the READ was
    then rightly accepted and the test failed"""
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind((src, SPORT))

    def read(p, length):
        bth = struct.pack('>BBHII', RC_RDMA_READ_REQUEST, 0, 0xffff,
                          dqpn & 0xffffff, p & 0xffffff)
        reth = struct.pack('>QII', va, rkey, length)
        return datagram(src, dst, bth + reth)

    nxt = psn + (first_len + mtu - 1) // mtu
    if phase == 1:
        s.sendto(read(psn, first_len), (dst, ROCE_PORT))
        time.sleep(1)
        for i in range(1, n):
            s.sendto(read(nxt, 8), (dst, ROCE_PORT))
            nxt += 1
            if i % 16 == 15:
                time.sleep(0.05)
    else:
        sendmmsg(s, [read(psn, first_len), read(nxt + n - 1, 8)], dst)
    s.close()


def big(src, dst):
    """a RoCE-looking head and 9000 bytes in all"""
    pkt = struct.pack('>BBHII', RC_RDMA_WRITE_ONLY, 0, 0xffff, 1, 0)
    pkt += bytes(9000 - len(pkt))
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind((src, SPORT))
    s.sendto(pkt, (dst, ROCE_PORT))
    s.close()


def counter(dev, name):
    with open(f"/sys/class/infiniband/{dev}/ports/1/hw_counters/{name}",
              encoding='ascii') as f:
        return int(f.read())


def run(dev_a, gid_a, dev_b, gid_b, ns_b, peer6, other6, ns_a):
    from pyverbs.addr import GID  # noqa: F401 (pyverbs must import)
    import pyverbs.enums as e
    spec = importlib.util.spec_from_file_location(
        'matrix', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               '53-verbs-matrix.py'))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)

    a, b = m.Side(dev_a, int(gid_a)), m.Side(dev_b, int(gid_b))
    qa, qb = m.make_qp(a, e.IBV_QPT_RC), m.make_qp(b, e.IBV_QPT_RC)
    m.connect(qa, e.IBV_QPT_RC, a, b, qb.qp_num)
    m.connect(qb, e.IBV_QPT_RC, b, a, qa.qp_num)
    my6 = str(a.gid)
    psn = 0xfffff0          # qa's first expected PSN (53-verbs-matrix.py)
    a.fill(0, bytes(64))

    def forge(src, off, data, ns=ns_b, qp=qa):
        subprocess.run(['ip', 'netns', 'exec', ns, sys.executable,
                        os.path.abspath(__file__), 'send', src, my6,
                        str(qp.qp_num), str(forge.psn), str(a.mr.rkey),
                        str(a.addr(off)), data.hex()], check=True)

    def dropped(name, before, what, at_least=False):
        end = time.time() + 5
        while counter(dev_a, name) == before and time.time() < end:
            time.sleep(0.05)
        after = counter(dev_a, name)
        if after != before + 1 and not (at_least and after > before):
            raise AssertionError(f"{what}: {name} {before} -> {after}")
        return after

    def landed(off, data, secs=5):
        end = time.time() + secs * int(os.environ.get('SV_TIME_SCALE', '1'))
        while time.time() < end:
            if a.read(off, len(data)) == data:
                return True
            time.sleep(0.05)
        return False

    forge.psn = psn
    good = b'\x5a' * 8
    forge(peer6, 0, good)
    if not landed(0, good):
        raise AssertionError("a well-formed write from the peer's address "
                             "did not land: the forger is broken, the "
                             "test proves nothing")
    print(f"ok: from the peer's address {peer6}: the write landed")

    forge.psn = (psn + 1) & 0xffffff
    before = counter(dev_a, 'rx_drop_not_peer')
    evil = b'\xe6' * 8
    forge(other6, 16, evil)
    if landed(16, evil, secs=2):
        raise AssertionError(f"a write from {other6}, not the QP's peer, "
                             "was placed")
    after = dropped('rx_drop_not_peer', before, f"from {other6}")
    print(f"ok: from {other6}: dropped (rx_drop_not_peer {before} -> "
          f"{after}), memory untouched")

    inv, bad = (counter(dev_a, 'rx_drop_invalid'),
                counter(dev_a, 'rx_drop_icrc'))
    subprocess.run(['ip', 'netns', 'exec', ns_b, sys.executable,
                    os.path.abspath(__file__), 'big', peer6, my6], check=True)
    end = time.time() + 5
    while counter(dev_a, 'rx_drop_invalid') == inv and time.time() < end:
        time.sleep(0.05)
    got = (counter(dev_a, 'rx_drop_invalid') - inv,
           counter(dev_a, 'rx_drop_icrc') - bad)
    if got != (1, 0):
        raise AssertionError(f"9000-byte datagram: rx_drop_invalid +{got[0]}"
                             f", rx_drop_icrc +{got[1]}; want +1, +0")
    print("ok: a 9000-byte datagram refused as invalid before any CRC")

    qc, qd = m.make_qp(a, e.IBV_QPT_RC), m.make_qp(a, e.IBV_QPT_RC)
    m.connect(qc, e.IBV_QPT_RC, a, a, qd.qp_num)
    m.connect(qd, e.IBV_QPT_RC, a, a, qc.qp_num)
    forge.psn = psn         # qc's first expected PSN, as qa's
    before = counter(dev_a, 'rx_drop_loopback')
    local = b'\x1c' * 8
    forge(my6, 32, local, ns=ns_a, qp=qc)
    if landed(32, local, secs=2):
        raise AssertionError(f"a write from a local socket bound to {my6}, "
                             "the address of a QP's local peer, was placed")
    after = dropped('rx_drop_loopback', before, "from a local socket")
    print(f"ok: from a local socket bound to the local peer's address "
          f"{my6}: dropped (rx_drop_loopback {before} -> {after})")

    # max_dest_rd_atomic 128 (the most), every resource used by READs that
    # were answered (the first of 1 MiB), then a duplicate of the oldest,
    # whose responses keep its resource busy, and at once one READ more:
    # the peer's invalid request, NAKed, never a WARN (issue 15 #7: a
    # remote WARN is a remote crash where panic_on_warn is set)
    a.rd_atom = 128
    mtu = 128 << min(a.mtu, b.mtu)      # IBV_MTU_* -> bytes
    n, first_len = 128, 1 << 20
    last = (psn + (first_len + mtu - 1) // mtu + n - 1) & 0xffffff
    pairs = []

    def attempt():
        """one run of the scenario on a new pair of QPs: True when the
        extra READ was NAKed, False when it was rightly accepted (the
        duplicate's responses had all gone out before it came)"""
        qe, qf = m.make_qp(a, e.IBV_QPT_RC), m.make_qp(b, e.IBV_QPT_RC)
        pairs.extend((qe, qf))
        m.connect(qe, e.IBV_QPT_RC, a, b, qf.qp_num)
        m.connect(qf, e.IBV_QPT_RC, b, a, qe.qp_num)

        def reads_phase(phase):
            subprocess.run(['ip', 'netns', 'exec', ns_b, sys.executable,
                            os.path.abspath(__file__), 'reads', str(phase),
                            peer6, my6, str(qe.qp_num), str(psn),
                            str(a.mr.rkey), str(a.addr(0)), str(n),
                            str(first_len), str(mtu)], check=True)

        def rq_psn():
            return qp_driver_field(dev_a, qe.qp_num, 'rq_psn')

        def why():
            names = ('tx_nak_seq_err', 'out_of_sequence',
                     'duplicate_requests', 'rx_drop_invalid',
                     'rx_drop_not_peer')
            return ', '.join(f"{x} {counter(dev_a, x)}" for x in names)

        # every READ of phase 1 taken: the responder expects the last one's
        # PSN (a READ lost in a full backlog on a loaded host: the whole
        # phase again, its READs are duplicates and the lost ones new)
        for _ in range(3 * int(os.environ.get('SV_TIME_SCALE', '1'))):
            reads_phase(1)
            end = time.time() + 5
            while rq_psn() != last and time.time() < end:
                time.sleep(0.1)
            if rq_psn() == last:
                break
        else:
            raise AssertionError(f"128 READs: the responder expects PSN "
                                 f"{rq_psn():#x}, not {last:#x} ({why()})")
        # The extra READ comes the other way while the duplicate's 1 MiB of
        # responses fills the CPU's backlog, which may drop it (seen once on
        # 6.12 under CI): no NAK, and the responder still expects the same
        # PSN.  Then the whole phase again.
        naks = counter(dev_a, 'tx_nak_inv_req')
        for _ in range(3):
            reads_phase(2)
            end = time.time() + 5
            while (counter(dev_a, 'tx_nak_inv_req') == naks and
                   rq_psn() == last and time.time() < end):
                time.sleep(0.05)
            if counter(dev_a, 'tx_nak_inv_req') != naks or rq_psn() != last:
                break
            print(f"# the extra READ got no answer and was not taken (lost "
                  f"on the way in: {why()}): phase 2 again")
        if rq_psn() == (last + 1) & 0xffffff and \
                counter(dev_a, 'tx_nak_inv_req') == naks:
            # Taken as a new READ: the duplicate's responses had all gone
            # out first and freed its resource, which the extra READ then
            # rightly used (a race the two datagrams of one sendmmsg still
            # lose now and then on 6.12 under CI)
            print(f"# the extra READ was taken: the duplicate had finished "
                  f"({why()}); again on new QPs")
            return False
        after = dropped('tx_nak_inv_req', naks, "a READ past 128 "
                        f"outstanding (rq_psn {rq_psn():#x}; {why()})")
        print(f"ok: 128 READs, a duplicate of the first, one more: NAKed as "
              f"an invalid request (tx_nak_inv_req {naks} -> {after})")
        return True

    # A responder that takes a READ past its resources fails every attempt.
    for _ in range(3):
        if attempt():
            break
    else:
        raise AssertionError("a READ past 128 outstanding: taken in 3 "
                             "attempts out of 3, never NAKed")
    for qp in [qa, qb, qc, qd] + pairs:
        qp.close()


def main():
    if len(sys.argv) == 9 and sys.argv[1] == 'send':
        src, dst = sys.argv[2], sys.argv[3]
        dqpn, psn, rkey, va = (int(x) for x in sys.argv[4:8])
        send(src, dst, dqpn, psn, rkey, va, bytes.fromhex(sys.argv[8]))
        return 0
    if len(sys.argv) == 12 and sys.argv[1] == 'reads':
        src, dst = sys.argv[3], sys.argv[4]
        reads(int(sys.argv[2]), src, dst,
              *(int(x) for x in sys.argv[5:12]))
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == 'big':
        big(sys.argv[2], sys.argv[3])
        return 0
    if len(sys.argv) == 10 and sys.argv[1] == 'run':
        run(*sys.argv[2:])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
