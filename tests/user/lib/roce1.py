# SPDX-License-Identifier: GPL-2.0
"""RoCE v1 frames (IBTA Annex A16) built from the spec, independently of
kmod/: an Ethernet header with ethertype 0x8915, the GRH (IBTA 8.3.1), the
BTH (9.2), extension headers, payload, pad and the ICRC (7.8.1).

The ICRC is the CRC-32 of IEEE 802.3 (zlib.crc32) over
    8 bytes of 0xff          standing for the LRH, which RoCE v1 lacks
    the GRH                  TClass, FlowLabel and HopLmt set to ones
    the BTH                  resv8a (its byte 4: FECN, BECN, resv6) to ones
    the rest of the packet   extension headers, payload, pad
and sits on the wire as the CRC's little-endian bytes.

Used by tests/user/67-roce-v1.py (a frame the device must accept, one it
must drop) and, with --kunit, to generate tests/kunit/icrc_v1_vectors.h.
"""
import struct
import sys
import zlib

ETH_P_IBOE = 0x8915
NXTHDR_BTH = 0x1B


def grh(sgid, dgid, paylen, tclass=0, flow=0, hop=1):
    """The 40-byte GRH; sgid and dgid are 16-byte GIDs."""
    vtf = 6 << 28 | (tclass & 0xff) << 20 | (flow & 0xfffff)
    return struct.pack('>IHBB', vtf, paylen, NXTHDR_BTH, hop) + sgid + dgid


def bth(opcode, qpn, psn, pkey=0xffff, se=0, pad=0, ackreq=0, fecn=0, becn=0):
    """The 12-byte BTH (TVer 0)."""
    return struct.pack('>BBHII', opcode, se << 7 | pad << 4, pkey,
                       fecn << 31 | becn << 30 | (qpn & 0xffffff),
                       ackreq << 31 | (psn & 0xffffff))


def icrc(pkt):
    """ICRC of pkt: GRH through the 4 ICRC bytes (whose value is ignored)."""
    g = bytearray(pkt[:40])
    g[0] |= 0x0f                # TClass high nibble (IPVer kept)
    g[1:4] = b'\xff\xff\xff'    # TClass low nibble, FlowLabel
    g[7] = 0xff                 # HopLmt
    b = bytearray(pkt[40:52])
    b[4] = 0xff                 # resv8a
    return zlib.crc32(b'\xff' * 8 + bytes(g) + bytes(b) + pkt[52:-4]) & 0xffffffff


def packet(sgid, dgid, transport, tclass=0, flow=0, hop=1, good=True):
    """GRH .. ICRC around transport (BTH .. pad); a wrong ICRC if not good."""
    body = transport + b'\0\0\0\0'
    pkt = grh(sgid, dgid, len(body), tclass, flow, hop) + body
    crc = icrc(pkt)
    if not good:
        crc ^= 0x1
    return pkt[:-4] + struct.pack('<I', crc)


def ud_send(sgid, dgid, dqpn, sqpn, qkey, payload, **kw):
    """A UD SEND Only (opcode 0x64) with its DETH, padded to 4 bytes."""
    pad = -len(payload) % 4
    t = (bth(0x64, dqpn, 0, pad=pad) + struct.pack('>II', qkey, sqpn & 0xffffff)
         + payload + b'\0' * pad)
    return packet(sgid, dgid, t, **kw)


def frame(dmac, smac, pkt):
    """The Ethernet frame of pkt (no FCS, no VLAN tag)."""
    return dmac + smac + struct.pack('>H', ETH_P_IBOE) + pkt


def _gid(text):
    import ipaddress
    return ipaddress.IPv6Address(text).packed


def _kunit_vectors():
    """(name, opcode, packet) for icrc_v1_vectors.h."""
    ll_a = _gid('fe80::a8bb:ccff:fe00:1')
    ll_b = _gid('fe80::a8bb:ccff:fe00:2')
    v4_a = _gid('::ffff:10.9.0.1')
    v4_b = _gid('::ffff:10.9.0.2')
    mgid = _gid('ff0e::1:2')
    rc_send = bth(0x04, 0x11, 0xfffffa, pad=3, ackreq=1) + bytes(range(13)) + b'\0' * 3
    ack = bth(0x11, 0x12, 0xfffffa) + struct.pack('>I', 0x1f000001)
    write = (bth(0x0a, 0x13, 5, ackreq=1, fecn=1, becn=1)
             + struct.pack('>QII', 0x3cb77000, 0x24d, 8) + bytes(range(8)))
    ud = (bth(0x64, 0x14, 7) + struct.pack('>II', 0x11111111, 0x15)
          + bytes(range(32)))
    mc = (bth(0x64, 0xffffff, 9, pad=2) + struct.pack('>II', 0x22222222, 0x16)
          + b'hi' + b'\0\0')
    return [
        ('v1_ll_rc_send_only', 0x04, packet(ll_a, ll_b, rc_send, 0, 0, 1)),
        ('v1_ll_rc_acknowledge', 0x11, packet(ll_b, ll_a, ack, 0x68, 0x12345, 255)),
        ('v1_v4_rc_rdma_write_only', 0x0a, packet(v4_a, v4_b, write, 3, 0xfffff, 64)),
        ('v1_v4_ud_send_only', 0x64, packet(v4_b, v4_a, ud, 0, 0, 64)),
        ('v1_mc_ud_send_only', 0x64, packet(ll_a, mgid, mc, 0xb8, 7, 1)),
    ]


def kunit_header():
    out = ['/* SPDX-License-Identifier: GPL-2.0 */',
           '/*',
           ' * RoCE v1 packets (IBTA Annex A16), GRH through ICRC, with the ICRC',
           ' * computed by tests/user/lib/roce1.py, a Python implementation of the',
           ' * spec independent of kmod/.  Generated; do not edit.',
           ' * Regenerate: python3 tests/user/lib/roce1.py --kunit',
           ' */']
    rows = []
    for name, op, pkt in _kunit_vectors():
        crc = struct.unpack('<I', pkt[-4:])[0]
        out.append('/* %s, %d bytes; ICRC %08x */' % (name, len(pkt), crc))
        out.append('static const u8 %s[] = {' % name)
        for i in range(0, len(pkt), 12):
            out.append('\t' + ' '.join('0x%02x,' % c for c in pkt[i:i + 12]))
        out.append('};')
        out.append('')
        rows.append('\tV1VEC(%s, 0x%02x, 0x%08x),' % (name, op, crc))
    out.append('static const struct icrc_v1_vector icrc_v1_vectors[] = {')
    out += rows
    out.append('};')
    return '\n'.join(out) + '\n'


if __name__ == '__main__':
    if sys.argv[1:] == ['--kunit']:
        sys.stdout.write(kunit_header())
    else:
        sys.exit('usage: roce1.py --kunit')
