#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Packet fuzzer for 68-fuzz.sh: hostile RoCE packets at live QPs while real
traffic runs and is checked.

  68-fuzz.py run DEV_A GID6_A DEV_B GID6_B GID4_A GID4_B NS_B IF_B DMAC COUNT
        Victims on DEV_A, each the responder of a QP on DEV_B over the IPv6
        GIDs: an RC QP, a UC QP and a UD QP, with receives posted, and QP1.
        A real RC pair runs over the IPv4 GIDs on contexts of its own, with
        memory of its own: RDMA WRITE, READ back, compare, and SEND, round
        after round.  Meanwhile "fuzz" (below) runs in NS_B.  Passes when
        every real round completed intact, and DEV_A counted the hostile
        packets as drops (ICRC, invalid, ...).  Kernel reports (KASAN,
        lockdep, WARN, ...) are the guest runner's to catch.
  68-fuzz.py fuzz SRC6 DST6 IF DMAC QPNS RKEY VA COUNT SEED
        (inside NS_B) COUNT packets from SRC6 (the victims' peer, so the
        peer check lets RC and UC ones through to the transport) to DST6:
        RoCEv2 datagrams from a UDP socket, and a quarter RoCE v1 frames
        from an AF_PACKET socket on IF to DMAC.  Each aims at one of QPNS
        (the victims, QP1) or a random QPN, with an opcode of the right
        transport or any byte, PSNs near the expected ones or anywhere,
        extension headers that make sense (the victims' R_Key and addresses
        near VA) or random bytes, payloads of 0 to 1100 bytes, random BTH
        flags and P_Keys now and then, one bit flipped in some; all with a
        correct ICRC but a tenth.  In bursts, so real traffic interleaves.

Exit status 0 on success; failures raise.
"""
import importlib.util
import os
import random
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROCE_PORT = 4791
SPORT = 50068


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --- the fuzzer ----------------------------------------------------------

# opcodes by transport (IBTA 9.2): RC requests and responses, UC, UD, CNP
RC_OPS = list(range(0x00, 0x17)) + [0x1c, 0x1d]
UC_OPS = list(range(0x20, 0x2c))
UD_OPS = [0x64, 0x65]
# XRC (IBTA 9.2, A14): the RC requests and responses with the transport 0xa0
XRC_OPS = [0xa0 | op for op in RC_OPS]


def xrceth(rng, srqn):
    """an XRCETH (A14.4.2) naming srqn, a neighbour, any SRQ, or truncated"""
    r = rng.random()
    if r < 0.6:
        n = srqn
    elif r < 0.75:
        n = srqn + rng.choice([-1, 1, 2, 1 << 23])
    elif r < 0.9:
        n = rng.getrandbits(24)
    else:
        return rng.randbytes(rng.randint(0, 3))
    hi = rng.getrandbits(8) << 24 if rng.random() < 0.1 else 0
    return struct.pack('>I', hi | (n & 0xffffff))


def ext_headers(rng, op, rkey, va):
    """extension headers that look like op's, or random bytes"""
    if rng.random() < 0.3:
        return rng.randbytes(rng.choice([0, 4, 8, 12, 16, 28, 32]))
    length = rng.choice([0, 1, 8, 64, 1024, 4096, 1 << 20, 1 << 31,
                         rng.getrandbits(32)])
    addr = va + rng.choice([0, 8, 4096, 65536, rng.getrandbits(20),
                            rng.getrandbits(64) - va])
    key = rkey if rng.random() < 0.8 else rng.getrandbits(32)
    reth = struct.pack('>QII', addr & (2**64 - 1), key, length & 0xffffffff)
    low = op & 0x1f
    if op in UD_OPS:
        qkey = 0x1a2b3c4d if rng.random() < 0.6 else rng.getrandbits(32)
        return struct.pack('>II', qkey, rng.getrandbits(24))
    if low in (0x06, 0x0a, 0x0c):               # RDMA WRITE First/Only, READ
        return reth
    if low == 0x0b:                             # WRITE Only with Immediate
        return reth + rng.randbytes(4)
    if low in (0x13, 0x14):                     # CmpSwap, FetchAdd
        return reth[:12] + rng.randbytes(16)
    if low in (0x0d, 0x0f, 0x10, 0x11, 0x12):   # responses with an AETH
        return rng.randbytes(4 if low != 0x12 else 12)
    if low in (0x16, 0x17):                     # with Invalidate
        return struct.pack('>I', key)
    if low == 0x1c:                             # FLUSH: FETH, RETH
        return rng.randbytes(4) + reth
    if low == 0x1d:                             # ATOMIC WRITE
        return reth
    if low in (0x03, 0x05, 0x09):               # with Immediate
        return rng.randbytes(4)
    return b''


def transport(rng, qpns, rkey, va):
    """one hostile BTH..payload (no ICRC)"""
    target = rng.random()
    srqns = [int(k[4:]) for _, k in qpns if k.startswith('xrc/')] or [0]
    if target < 0.85:
        qpn, kind = rng.choice(qpns)
        kind, _, srqn = kind.partition('/')
        srqn = int(srqn) if srqn else rng.choice(srqns)
    else:
        qpn, kind, srqn = rng.getrandbits(24), 'any', rng.choice(srqns)
    if rng.random() < 0.2 or kind == 'any':
        op = rng.getrandbits(8)
    elif rng.random() < 0.08:       # XRC at the other transports' QPs
        op = rng.choice(XRC_OPS)
    else:
        op = rng.choice({'rc': RC_OPS, 'uc': UC_OPS, 'ud': UD_OPS,
                         'xrc': XRC_OPS}[kind])
    if rng.random() < 0.7:
        psn = (0xfffff0 + rng.randint(-8, 40)) & 0xffffff
    else:
        psn = rng.getrandbits(24)
    payload = rng.randbytes(rng.choice([0, 1, 3, 4, 8, 64, 255, 256, 512,
                                        1024, rng.randint(0, 1100)]))
    pad = -len(payload) % 4
    flags = pad << 4
    if rng.random() < 0.1:
        flags = rng.getrandbits(8)
    pkey = 0xffff if rng.random() < 0.9 else rng.getrandbits(16)
    hi = rng.getrandbits(8) << 24 if rng.random() < 0.1 else 0
    ack = rng.getrandbits(1) << 31
    bth = struct.pack('>BBHII', op, flags, pkey, hi | qpn, ack | psn)
    # an XRC opcode carries the XRCETH right after the BTH; now and then
    # another opcode does, or an XRC one lacks it
    xrc = (op & 0xe0) == 0xa0
    if xrc != (rng.random() < 0.05):
        bth += xrceth(rng, srqn)
    t = bytearray(bth + ext_headers(rng, op, rkey, va) + payload +
                  b'\0' * pad)
    if rng.random() < 0.1:
        i = rng.randrange(len(t) * 8)
        t[i // 8] ^= 1 << (i % 8)
    return bytes(t)


def fuzz(src6, dst6, ifname, dmac, qpns, rkey, va, count, seed):
    forged = load('forged', os.path.join(HERE, '66-forged.py'))
    roce1 = load('roce1', os.path.join(HERE, 'lib', 'roce1.py'))
    rng = random.Random(seed)
    qpns = [(int(q), k) for q, k in (x.split(':') for x in qpns.split(','))]
    s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s6.bind((src6, SPORT))
    sl2 = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sl2.bind((ifname, 0))
    with open(f"/sys/class/net/{ifname}/address", encoding='ascii') as f:
        smac = bytes.fromhex(f.read().strip().replace(':', ''))
    dmac = bytes.fromhex(dmac.replace(':', ''))
    sgid = socket.inet_pton(socket.AF_INET6, src6)
    dgid = socket.inet_pton(socket.AF_INET6, dst6)
    sent = {'v2': 0, 'v1': 0, 'bad_icrc': 0, 'xrc_op': 0}
    for i in range(count):
        t = transport(rng, qpns, rkey, va)
        sent['xrc_op'] += (t[0] & 0xe0) == 0xa0
        good = rng.random() >= 0.1
        if rng.random() < 0.25:
            pkt = roce1.packet(sgid, dgid, t, hop=rng.choice([1, 64, 255]),
                               good=good)
            sl2.send(roce1.frame(dmac, smac, pkt))
            sent['v1'] += 1
        else:
            ulen = 8 + len(t) + 4
            udp = struct.pack('>HHHH', SPORT, ROCE_PORT, ulen, 0)
            ip6 = (struct.pack('>IHBB', 6 << 28, ulen, socket.IPPROTO_UDP,
                               64) + sgid + dgid)
            crc = forged.icrc(ip6, udp, t)
            if not good:
                crc = bytes([crc[0] ^ 1]) + crc[1:]
            try:
                s6.sendto(t + crc, (dst6, ROCE_PORT))
            except OSError:
                pass        # EMSGSIZE and the like: the stack refused it
            sent['v2'] += 1
        sent['bad_icrc'] += not good
        if i % 100 == 99:
            time.sleep(0.01)        # let real traffic interleave
    print(f"fuzz: sent {sent}", flush=True)


# --- the run ------------------------------------------------------------

class XrcVictim:
    """an XRC target QP and its XRC SRQ (receives posted) on @dev, connected
    to @peer_gid: ulib/examples/xrcvictim, through libsoftverbs (pyverbs
    over librxe has no XRC), until close()"""

    def __init__(self, dev, gid_idx, peer_gid):
        tools = os.environ.get('SV_TOOLS', os.path.join(HERE, '..', '..'))
        prog = os.path.join(tools, 'ulib', 'examples', 'xrcvictim')
        self.p = subprocess.Popen([prog, dev, str(gid_idx), peer_gid],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline().split()
        if len(line) != 2:
            raise AssertionError(f"xrcvictim: no QPN and SRQN ({line})")
        self.qpn, self.srqn = int(line[0]), int(line[1])

    def close(self):
        out, _ = self.p.communicate(timeout=60)
        if self.p.returncode or not out.startswith('ok '):
            raise AssertionError(f"xrcvictim: exit {self.p.returncode}, "
                                 f"{out!r}")
        n, state = out.split()[1:3]
        return int(n), int(state)


def counters(dev):
    base = f"/sys/class/infiniband/{dev}/ports/1/hw_counters"
    out = {}
    for name in os.listdir(base):
        with open(os.path.join(base, name), encoding='ascii') as f:
            out[name] = int(f.read())
    return out


def run(dev_a, gid6_a, dev_b, gid6_b, gid4_a, gid4_b, ns_b, if_b, dmac,
        count):
    m = load('matrix', os.path.join(HERE, '53-verbs-matrix.py'))
    e = m.e
    a, b = m.Side(dev_a, int(gid6_a)), m.Side(dev_b, int(gid6_b))
    victims = [m.Pair(b, a, qpt) for qpt in (e.IBV_QPT_RC, e.IBV_QPT_UC,
                                              e.IBV_QPT_UD)]
    for p in victims:
        for i in range(16):
            p.post_recv([(i * 4096, 4096)], wr_id=i)
    xrc = XrcVictim(dev_a, gid6_a, str(b.gid))
    print(f"ok: XRC victim: QPN {xrc.qpn}, SRQ {xrc.srqn}", flush=True)
    qpns = ','.join(f"{p.qb.qp_num}:{k}" for p, k in
                    zip(victims, ('rc', 'uc', 'ud'))) + ',1:ud'
    # the XRC target as often as the three others together
    qpns += f",{xrc.qpn}:xrc/{xrc.srqn}" * 3

    # the real traffic: contexts, memory and GIDs (IPv4) of its own
    ra, rb = m.Side(dev_a, int(gid4_a)), m.Side(dev_b, int(gid4_b))
    real = m.Pair(ra, rb, e.IBV_QPT_RC)
    before = counters(dev_a)

    seed = int(os.environ.get('SV_FUZZ_SEED', str(int(time.time()))))
    print(f"fuzz: seed {seed} (SV_FUZZ_SEED to repeat), {count} packets",
          flush=True)
    fz = subprocess.Popen(['ip', 'netns', 'exec', ns_b, sys.executable,
                           os.path.abspath(__file__), 'fuzz', str(b.gid),
                           str(a.gid), if_b, dmac, qpns, str(a.mr.rkey),
                           str(a.addr(0)), str(count), str(seed)])
    size = 16384
    rounds = 0
    while True:
        data = m.pattern(size, rounds)
        ra.fill(0, data)
        real.post_send(e.IBV_WR_RDMA_WRITE, [(0, size)],
                       rdma=real.remote(0), wr_id=1)
        m.check_wc(m.poll(ra.scq)[0], f"round {rounds} write")
        real.post_send(e.IBV_WR_RDMA_READ, [(size, size)],
                       rdma=real.remote(0), wr_id=2)
        m.check_wc(m.poll(ra.scq)[0], f"round {rounds} read")
        if ra.read(size, size) != data:
            raise AssertionError(f"round {rounds}: data read back differs")
        real.post_recv([(2 * size, 256)], wr_id=3)
        real.post_send(e.IBV_WR_SEND, [(0, 256)], wr_id=4)
        m.check_wc(m.poll(ra.scq)[0], f"round {rounds} send")
        m.check_wc(m.poll(rb.rcq)[0], f"round {rounds} receive")
        if rb.read(2 * size, 256) != data[:256]:
            raise AssertionError(f"round {rounds}: data sent differs")
        rounds += 1
        if fz.poll() is not None:
            break
    if fz.returncode:
        raise AssertionError(f"the fuzzer failed: exit {fz.returncode}")
    time.sleep(1)
    after = counters(dev_a)
    d = {k: after[k] - before[k] for k in after if after[k] != before[k]}
    print("A's counters:", " ".join(f"{k} +{v}" for k, v in sorted(d.items())))
    print(f"ok: {rounds} real rounds (16 KiB write, read back, 256-byte "
          f"send) intact while the fuzzer ran")
    drops = sum(v for k, v in d.items() if k.startswith('rx_drop'))
    if not d.get('rx_drop_icrc') or drops < count // 20:
        raise AssertionError(f"too few drops counted for {count} hostile "
                             f"packets: {d}")
    print(f"ok: {drops} hostile packets counted as drops")
    real.close()
    for p in victims:
        p.close()
    n, state = xrc.close()
    print(f"ok: XRC victim in state {state} after {n} receive completions")
    print("ok: victims destroyed")
    print(f"SV_SUMMARY: fuzz seed {seed}: {count} packets, {drops} dropped, "
          f"{rounds} real rounds, XRC target {n} receives", flush=True)


def main():
    if len(sys.argv) == 12 and sys.argv[1] == 'run':
        run(*sys.argv[2:11], int(sys.argv[11]))
        return 0
    if len(sys.argv) == 11 and sys.argv[1] == 'fuzz':
        a = sys.argv[2:]
        fuzz(a[0], a[1], a[2], a[3], a[4], int(a[5]), int(a[6]), int(a[7]),
             int(a[8]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
