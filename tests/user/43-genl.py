#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A raw generic netlink client for the softverbs family, for 43-genl.sh.

  43-genl.py malformed DEV      well-formed and malformed requests: replies,
                                errno and the kernel's extack message
  43-genl.py unpriv DEV         as an unprivileged user: reads work, changes
                                fail with EPERM
  43-genl.py visible DEV        DEV is listed and can be named (exit 0)
  43-genl.py invisible DEV INDEX  DEV is neither listed nor found by
                                name or index
  43-genl.py netns NAME         the checks after it run in network
                                namespace NAME (/run/netns/NAME)

Several checks may follow each other on one command line (43-genl.py
malformed DEV visible DEV netns NAME invisible DEV INDEX ...): they run in
that order in one process (python starts in seconds under a debug kernel),
each announced by a line "--- CHECK ARG...".

Attribute numbers come from uapi/softverbs-nl.h (parsed, not copied), so
this client follows the header.
"""
import ctypes
import errno
import os
import re
import socket
import struct
import sys

NETLINK_GENERIC = 16
CLONE_NEWNET = 0x40000000
NETLINK_EXT_ACK = 11
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLMSGERR_ATTR_MSG = 1
NLA_F_NESTED = 0x8000
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME = 1, 2


def uapi():
    """enum constants of uapi/softverbs-nl.h, by name"""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, '..', '..', 'uapi', 'softverbs-nl.h')) as f:
        text = f.read()
    consts = {}
    for body in re.findall(r'enum \w+ \{(.*?)\};', text, re.S):
        n = 0
        for name in re.findall(r'^\s*(\w+)(?:\s*=[^,]*)?,', body, re.M):
            if name.startswith('__'):
                continue
            consts[name] = n
            n += 1
    consts['SV_GENL_NAME'] = re.search(r'SV_GENL_NAME\s+"(\w+)"', text).group(1)
    return consts


U = uapi()


def attr(atype, payload):
    ln = 4 + len(payload)
    return struct.pack('=HH', ln, atype) + payload + b'\0' * ((4 - ln % 4) % 4)


def a_u32(t, v):
    return attr(t, struct.pack('=I', v))


def a_u64(t, v):
    return attr(t, struct.pack('=Q', v))


def a_str(t, s):
    return attr(t, s.encode() + b'\0')


def a_nest(t, *items):
    return attr(t | NLA_F_NESTED, b''.join(items))


def parse_attrs(buf):
    out = {}
    while len(buf) >= 4:
        ln, t = struct.unpack_from('=HH', buf)
        if ln < 4:
            break
        out.setdefault(t & 0x3fff, []).append(buf[4:ln])
        buf = buf[(ln + 3) & ~3:]
    return out


class NlError(Exception):
    def __init__(self, err, msg):
        super().__init__(f"{os.strerror(err)} ({msg})")
        self.errno, self.msg = err, msg


class Genl:
    def __init__(self):
        self.sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                NETLINK_GENERIC)
        self.sk.setsockopt(270, NETLINK_EXT_ACK, 1)  # SOL_NETLINK
        self.sk.bind((0, 0))
        self.seq = 0
        fam = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                           a_str(CTRL_ATTR_FAMILY_NAME, U['SV_GENL_NAME']))
        self.family = struct.unpack('=H', fam[0][CTRL_ATTR_FAMILY_ID][0][:2])[0]

    def request(self, family, cmd, payload=b'', dump=False):
        """send; return the replies' attribute dicts or raise NlError"""
        self.seq += 1
        flags = NLM_F_REQUEST | NLM_F_ACK | (NLM_F_DUMP if dump else 0)
        body = struct.pack('=BBH', cmd, 1, 0) + payload
        self.sk.send(struct.pack('=IHHII', 16 + len(body), family, flags,
                                 self.seq, 0) + body)
        replies = []
        while True:
            data = self.sk.recv(65536)
            while data:
                ln, typ, fl, seq, pid = struct.unpack_from('=IHHII', data)
                msg, data = data[16:ln], data[(ln + 3) & ~3:]
                if typ == NLMSG_DONE:
                    return replies
                if typ == NLMSG_ERROR:
                    err = -struct.unpack_from('=i', msg)[0]
                    if err == 0:
                        return replies
                    # the request is echoed (capped) unless the kernel
                    # sent NLM_F_CAPPED; skip it to reach the extack TLVs
                    olen = struct.unpack_from('=I', msg, 4)[0]
                    off = 4 + (16 if fl & 0x100 else olen)
                    tlv = parse_attrs(msg[(off + 3) & ~3:])
                    text = tlv.get(NLMSGERR_ATTR_MSG, [b''])[0]
                    raise NlError(err, text.rstrip(b'\0').decode())
                replies.append(parse_attrs(msg[4:]))

    def sv(self, cmd, *attrs, dump=False):
        return self.request(self.family, U['SV_NL_CMD_' + cmd],
                            b''.join(attrs), dump)


def s(v):
    return v[0].rstrip(b'\0').decode()


def u32(v):
    return struct.unpack('=I', v[0][:4])[0]


def u64(v):
    return struct.unpack('=Q', v[0][:8])[0]


def fault_dict(nest):
    a = parse_attrs(nest[0])
    return {k[len('SV_NL_FAULT_ATTR_'):].lower(): (u64(a[v]) if k.endswith(('HITS', 'PACKETS')) else u32(a[v]))
            for k, v in U.items() if k.startswith('SV_NL_FAULT_ATTR_') and v in a}


def expect_err(g, want, pattern, cmd, *attrs, what=''):
    try:
        g.sv(cmd, *attrs)
    except NlError as e:
        assert e.errno == want, (what, 'errno', e.errno, want, e.msg)
        assert re.search(pattern, e.msg, re.I), (what, 'extack', e.msg, pattern)
        print(f"ok: {what}: {os.strerror(e.errno)}: \"{e.msg}\"")
        return
    raise AssertionError(f"{what}: accepted")


def by_name(dev):
    return a_str(U['SV_NL_ATTR_DEV_NAME'], dev)


def malformed(dev):
    g = Genl()
    A = lambda n: U['SV_NL_ATTR_' + n]
    F = lambda n: U['SV_NL_FAULT_ATTR_' + n]

    devs = g.sv('DEV_GET', dump=True)
    mine = [d for d in devs if s(d[A('DEV_NAME')]) == dev]
    assert len(mine) == 1, devs
    d = mine[0]
    idx = u32(d[A('DEV_INDEX')])
    ndev = s(d[A('NETDEV_NAME')])
    with open(f'/sys/class/net/{ndev}/ifindex') as f:
        assert u32(d[A('NETDEV_INDEX')]) == int(f.read())
    print(f"ok: DEV_GET dump: {dev} index {idx} on {ndev}")
    one = g.sv('DEV_GET', a_u32(A('DEV_INDEX'), idx))
    assert s(one[0][A('DEV_NAME')]) == dev, one
    one = g.sv('DEV_GET', by_name(dev))
    assert u32(one[0][A('DEV_INDEX')]) == idx, one
    st = g.sv('STATS_GET', by_name(dev))[0][A('STATS')]
    names = [s(parse_attrs(x)[U['SV_NL_STAT_ATTR_NAME']])
             for x in parse_attrs(st[0])[A('STAT')]]
    assert names[:2] == ['tx_packets', 'tx_bytes'] and 'qps_peak' in names, names
    print(f"ok: DEV_GET by index and name, STATS_GET: {len(names)} counters")

    # settings round trip, with a seed
    g.sv('FAULT_SET', by_name(dev), a_nest(A('FAULT_TX'), a_u32(F('DROP'), 1000),
                                          a_u32(F('CORRUPT'), 5)),
         a_nest(A('FAULT_RX'), a_u32(F('DUP'), 1000000)), a_u64(A('FAULT_SEED'), 42))
    r = g.sv('FAULT_GET', by_name(dev))[0]
    tx, rx = fault_dict(r[A('FAULT_TX')]), fault_dict(r[A('FAULT_RX')])
    assert (tx['drop'], tx['corrupt'], tx['dup'], rx['dup']) == (1000, 5, 0, 1000000), (tx, rx)
    assert u64(r[A('FAULT_SEED')]) == 42 and tx['packets'] == 0, r
    g.sv('FAULT_SET', by_name(dev), attr(A('FAULT_OFF'), b''))
    r = g.sv('FAULT_GET', by_name(dev))[0]
    assert not any(v for k, v in fault_dict(r[A('FAULT_RX')]).items() if k in ('drop', 'dup', 'reorder', 'corrupt'))
    print("ok: FAULT_SET/FAULT_GET round trip, FAULT_OFF")

    # malformed and refused requests
    E = expect_err
    E(g, errno.ENODEV, 'no softverbs device with this name', 'DEV_GET', by_name('nosuchdev'),
      what='unknown device name')
    E(g, errno.ENODEV, 'no softverbs device with this index', 'FAULT_GET',
      a_u32(A('DEV_INDEX'), 0x7ffffff0), what='unknown device index')
    E(g, errno.EINVAL, 'no device given', 'DEV_GET', what='missing device')
    E(g, errno.EINVAL, 'no device given', 'FAULT_SET',
      a_nest(A('FAULT_TX'), a_u32(F('DROP'), 1)), what='FAULT_SET without a device')
    E(g, errno.EINVAL, 'nothing to set', 'FAULT_SET', by_name(dev),
      what='FAULT_SET without settings')
    E(g, errno.EINVAL, '.', 'DEV_GET', attr(A('DEV_INDEX'), b'\1\0'),
      what='DEV_INDEX of 2 bytes (wrong type)')
    E(g, errno.EINVAL, '.', 'DEV_GET', attr(A('DEV_NAME'), b'x' * 100 + b'\0'),
      what='DEV_NAME of 100 bytes (oversized)')
    E(g, errno.EINVAL, '.', 'DEV_GET', attr(A('DEV_NAME'), b'abc'),
      what='DEV_NAME without NUL')
    E(g, errno.ERANGE, '.', 'FAULT_SET', by_name(dev),
      a_nest(A('FAULT_TX'), a_u32(F('DROP'), 1000001)), what='probability above 10^6')
    E(g, errno.EINVAL, '.', 'FAULT_SET', by_name(dev),
      a_nest(A('FAULT_TX'), attr(F('DROP'), b'\1')), what='probability of 1 byte')
    E(g, errno.EINVAL, '.', 'FAULT_SET', by_name(dev),
      a_nest(A('FAULT_TX'), a_u64(F('DROP_HITS'), 0)), what='counter attribute in a request')
    E(g, errno.EINVAL, '.', 'FAULT_SET', by_name(dev), a_u32(A('FAULT_TX'), 1),
      what='FAULT_TX not a nest')
    E(g, errno.EINVAL, 'reply-only', 'DEV_GET', by_name(dev), a_u32(A('NETDEV_INDEX'), 1),
      what='reply-only attribute in a request')
    E(g, errno.EINVAL, '.', 'DEV_GET', by_name(dev), a_u32(200, 1),
      what='unknown attribute type 200')
    E(g, errno.EINVAL, 'different devices', 'DEV_GET', by_name('nosuchdev'),
      a_u32(A('DEV_INDEX'), idx), what='name and index disagree')
    E(g, errno.EOPNOTSUPP, '', 'DEV_SET', by_name(dev), what='DEV_SET (no tunables yet)')
    # nothing changed by all that
    r = g.sv('FAULT_GET', by_name(dev))[0]
    assert fault_dict(r[A('FAULT_TX')])['drop'] == 0, r


def unpriv(dev):
    assert os.geteuid() != 0
    g = Genl()
    assert any(s(d[U['SV_NL_ATTR_DEV_NAME']]) == dev for d in g.sv('DEV_GET', dump=True))
    g.sv('FAULT_GET', by_name(dev))
    g.sv('STATS_GET', by_name(dev))
    print(f"ok: uid {os.geteuid()}: DEV_GET, FAULT_GET, STATS_GET work")
    expect_err(g, errno.EPERM, '', 'FAULT_SET', by_name(dev),
               a_nest(U['SV_NL_ATTR_FAULT_TX'], a_u32(U['SV_NL_FAULT_ATTR_DROP'], 1)),
               what=f'uid {os.geteuid()}: FAULT_SET')


def visible(dev, want, index=None):
    g = Genl()
    names = [s(d[U['SV_NL_ATTR_DEV_NAME']]) for cmd in ('DEV_GET', 'FAULT_GET', 'STATS_GET')
             for d in g.sv(cmd, dump=True)]
    if want:
        assert names.count(dev) == 3, names
        g.sv('DEV_GET', by_name(dev))
        print(f"ok: {dev} visible")
        return
    assert dev not in names, names
    expect_err(g, errno.ENODEV, 'no softverbs device', 'DEV_GET', by_name(dev),
               what=f'{dev} from another namespace, by name')
    expect_err(g, errno.ENODEV, 'no softverbs device', 'FAULT_SET',
               a_u32(U['SV_NL_ATTR_DEV_INDEX'], int(index)), attr(U['SV_NL_ATTR_FAULT_OFF'], b''),
               what=f'{dev} from another namespace, FAULT_SET by index')


def enter_netns(name):
    """move this process into network namespace NAME: the sockets it opens
    from now on belong there (as under ip netns exec)"""
    libc = ctypes.CDLL(None, use_errno=True)
    with open(f"/run/netns/{name}") as f:
        if libc.setns(f.fileno(), CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns {name}: {os.strerror(err)}")


CHECKS = {'malformed': (1, malformed), 'unpriv': (1, unpriv),
          'visible': (1, lambda dev: visible(dev, True)),
          'invisible': (2, lambda dev, index: visible(dev, False, index)),
          'netns': (1, enter_netns)}


if __name__ == '__main__':
    sys.stdout.reconfigure(line_buffering=True)
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    while args:
        if args[0] not in CHECKS:
            sys.exit(f"unknown check {args[0]}")
        n, fn = CHECKS[args[0]]
        if len(args) < n + 1:
            sys.exit(f"{args[0]} needs {n} argument(s)")
        print("---", " ".join(args[:n + 1]))
        fn(*args[1:n + 1])
        args = args[n + 1:]
