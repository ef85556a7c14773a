#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Multicast attach/detach checks for tests/user/26-mcast.sh.

pyverbs has no ibv_attach_mcast, so this drives libibverbs (with librxe)
directly through ctypes.

  26-mcast.py DEV NETDEV basic    IPv4 and IPv6 groups: attach joins the IP
                                  group on NETDEV once, detach of the last
                                  QP leaves it; attach twice is harmless;
                                  detach of a QP not attached, RC/UC QPs and
                                  unicast GIDs refused with EINVAL;
                                  destroying an attached QP leaves the group
  26-mcast.py DEV NETDEV limits   max_mcast_qp_attach QPs in one group, the
                                  next one ENOMEM; max_mcast_grp groups, the
                                  next one ENOMEM; all left afterwards
  26-mcast.py DEV NETDEV hold     attach a QP to groups, print "ready", sleep
                                  until killed

basic and limits can run in one process ("basic limits": python takes
seconds to start under the debug kernel), each on its own context, each
introduced by a "--- TEST" line; after basic, no test group may be left on
NETDEV.  Without libibverbs it prints "SKIP: ..." and exits 4.

Exit status 0 on success; failures raise (non-zero exit with a traceback).
"""
import ctypes
import errno
import ipaddress
import os
import struct
import sys
import time
from ctypes import POINTER, Structure, c_char_p, c_int, c_uint8, c_uint16, \
    c_uint32, c_void_p

IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD = 2, 3, 4


class QPCap(Structure):
    _fields_ = [('max_send_wr', c_uint32), ('max_recv_wr', c_uint32),
                ('max_send_sge', c_uint32), ('max_recv_sge', c_uint32),
                ('max_inline_data', c_uint32)]


class QPInitAttr(Structure):
    _fields_ = [('qp_context', c_void_p), ('send_cq', c_void_p),
                ('recv_cq', c_void_p), ('srq', c_void_p), ('cap', QPCap),
                ('qp_type', c_int), ('sq_sig_all', c_int)]


class GID(Structure):
    _fields_ = [('raw', c_uint8 * 16)]


try:
    lib = ctypes.CDLL('libibverbs.so.1', use_errno=True)
except OSError as load_err:
    print(f"SKIP: libibverbs is not installed ({load_err})", flush=True)
    sys.exit(4)
for name, res, args in (
        ('ibv_get_device_list', POINTER(c_void_p), [POINTER(c_int)]),
        ('ibv_free_device_list', None, [POINTER(c_void_p)]),
        ('ibv_get_device_name', c_char_p, [c_void_p]),
        ('ibv_open_device', c_void_p, [c_void_p]),
        ('ibv_close_device', c_int, [c_void_p]),
        ('ibv_alloc_pd', c_void_p, [c_void_p]),
        ('ibv_dealloc_pd', c_int, [c_void_p]),
        ('ibv_create_cq', c_void_p, [c_void_p, c_int, c_void_p, c_void_p,
                                     c_int]),
        ('ibv_destroy_cq', c_int, [c_void_p]),
        ('ibv_create_qp', c_void_p, [c_void_p, POINTER(QPInitAttr)]),
        ('ibv_destroy_qp', c_int, [c_void_p]),
        ('ibv_attach_mcast', c_int, [c_void_p, POINTER(GID), c_uint16]),
        ('ibv_detach_mcast', c_int, [c_void_p, POINTER(GID), c_uint16])):
    fn = getattr(lib, name)
    fn.restype = res
    fn.argtypes = args

# softverbs' limits, as ibv_query_device reports them (sv_param.h)
MAX_GRP = 8192
MAX_QP_ATTACH = 56


def gid(addr):
    """the GID of an IPv4 or IPv6 address"""
    ip = ipaddress.ip_address(addr)
    if ip.version == 4:
        ip = ipaddress.IPv6Address('::ffff:' + addr)
    g = GID()
    g.raw[:] = list(ip.packed)
    return g


class Dev:
    def __init__(self, name):
        num = c_int()
        devs = lib.ibv_get_device_list(ctypes.byref(num))
        self.ctx = None
        for i in range(num.value):
            if lib.ibv_get_device_name(devs[i]).decode() == name:
                self.ctx = lib.ibv_open_device(devs[i])
        lib.ibv_free_device_list(devs)
        if not self.ctx:
            raise SystemExit(f"cannot open {name}")
        self.pd = lib.ibv_alloc_pd(self.ctx)
        self.cq = lib.ibv_create_cq(self.ctx, 16, None, None, 0)
        if not self.pd or not self.cq:
            raise SystemExit("cannot create the PD or CQ")

    def qp(self, qp_type=IBV_QPT_UD):
        attr = QPInitAttr(send_cq=self.cq, recv_cq=self.cq,
                          cap=QPCap(1, 1, 1, 1, 0), qp_type=qp_type)
        qp = lib.ibv_create_qp(self.pd, ctypes.byref(attr))
        if not qp:
            raise OSError(ctypes.get_errno(), "ibv_create_qp")
        return qp


def attach(qp, g):
    return lib.ibv_attach_mcast(qp, ctypes.byref(g), 0)


def detach(qp, g):
    return lib.ibv_detach_mcast(qp, ctypes.byref(g), 0)


def check(rc, want, what):
    if rc != want:
        raise AssertionError(f"{what}: {errno.errorcode.get(rc, rc)}, "
                             f"want {errno.errorcode.get(want, want)}")
    print(f"ok: {what}" + (f": {errno.errorcode[want]}" if want else ""))


def memberships(netdev):
    """@netdev's IP multicast memberships, from /proc/net/igmp and igmp6
    (what "ip maddr show" prints; read here, since a fork+exec of ip costs
    a second under the debug kernel)"""
    groups = set()
    with open('/proc/net/igmp', encoding='ascii') as f:
        dev = None
        for line in f:
            if not line[:1].isspace():
                # "IDX DEVICE: COUNT QUERIER": a device's section
                head = line.split(':', 1)[0].split()
                dev = head[1] if len(head) == 2 else None
                continue
            fields = line.split()
            if dev == netdev and fields:
                # the group as the kernel holds it (network order), printed
                # as a native-endian u32
                raw = struct.pack('=I', int(fields[0], 16))
                groups.add(str(ipaddress.IPv4Address(raw)))
    with open('/proc/net/igmp6', encoding='ascii') as f:
        for line in f:
            fields = line.split()
            if len(fields) > 2 and fields[1] == netdev:
                groups.add(str(ipaddress.IPv6Address(bytes.fromhex(
                    fields[2]))))
    return groups


def joined(netdev, addr):
    """is @addr among @netdev's IP multicast memberships?"""
    return str(ipaddress.ip_address(addr)) in memberships(netdev)


def expect_joined(netdev, addr, want, what):
    if joined(netdev, addr) != want:
        raise AssertionError(f"{what}: {addr} on {netdev} is "
                             f"{'not ' if want else ''}joined")
    print(f"ok: {what}: {addr} {'joined' if want else 'left'}")


def t_basic(dev, netdev):
    for addr in ('239.26.0.1', 'ff0e::26:1'):
        g = gid(addr)
        a, b = dev.qp(), dev.qp()
        expect_joined(netdev, addr, False, "before attach")
        check(attach(a, g), 0, f"attach QP a to {addr}")
        expect_joined(netdev, addr, True, "first attach")
        check(attach(a, g), 0, "attach QP a again")
        check(attach(b, g), 0, "attach QP b")
        check(detach(a, g), 0, "detach QP a")
        expect_joined(netdev, addr, True, "QP b still attached")
        check(detach(a, g), errno.EINVAL, "detach QP a again")
        check(detach(b, g), 0, "detach QP b")
        expect_joined(netdev, addr, False, "last detach")
        check(attach(b, g), 0, "attach QP b again")
        # ib_uverbs refuses to destroy an attached QP (process exit and
        # kernel consumers detach instead: see 26-mcast.sh)
        check(lib.ibv_destroy_qp(b), errno.EBUSY, "destroy attached QP b")
        expect_joined(netdev, addr, True, "destroy refused")
        check(detach(b, g), 0, "detach QP b")
        expect_joined(netdev, addr, False, "last detach")
        check(lib.ibv_destroy_qp(b), 0, "destroy QP b")
        check(lib.ibv_destroy_qp(a), 0, "destroy QP a")

    # the same group under two LIDs: ib_core lists two attachments and
    # counts both in the QP's use count, so both detach, and then the QP
    # can be destroyed (it stayed in use for ever: issue 15's teardown bug)
    g = gid('239.26.0.3')
    qp = dev.qp()
    check(lib.ibv_attach_mcast(qp, ctypes.byref(g), 0), 0, "attach LID 0")
    check(lib.ibv_attach_mcast(qp, ctypes.byref(g), 7), 0, "attach LID 7")
    check(lib.ibv_detach_mcast(qp, ctypes.byref(g), 0), 0, "detach LID 0")
    expect_joined(netdev, '239.26.0.3', True, "attached under LID 7 still")
    check(lib.ibv_detach_mcast(qp, ctypes.byref(g), 7), 0, "detach LID 7")
    expect_joined(netdev, '239.26.0.3', False, "both detached")
    check(lib.ibv_destroy_qp(qp), 0, "destroy the QP after both detaches")

    ud = dev.qp()
    check(attach(ud, gid('10.26.0.1')), errno.EINVAL, "unicast IPv4 GID")
    check(attach(ud, gid('2001:db8::1')), errno.EINVAL, "unicast IPv6 GID")
    check(detach(ud, gid('239.26.0.9')), errno.EINVAL,
          "detach from a group never joined")
    lib.ibv_destroy_qp(ud)
    for qpt, name in ((IBV_QPT_RC, 'RC'), (IBV_QPT_UC, 'UC')):
        qp = dev.qp(qpt)
        check(attach(qp, gid('239.26.0.2')), errno.EINVAL, f"{name} QP")
        lib.ibv_destroy_qp(qp)


def t_limits(dev, netdev):
    g = gid('239.26.1.1')
    qps = [dev.qp() for _ in range(MAX_QP_ATTACH + 1)]
    for i, qp in enumerate(qps[:-1]):
        rc = attach(qp, g)
        if rc:
            raise AssertionError(f"QP {i}: {errno.errorcode.get(rc, rc)}")
    print(f"ok: {MAX_QP_ATTACH} QPs attached to one group")
    check(attach(qps[-1], g), errno.ENOMEM,
          f"QP {MAX_QP_ATTACH + 1} in one group")
    check(detach(qps[0], g), 0, "detach one QP")
    check(attach(qps[-1], g), 0, f"QP {MAX_QP_ATTACH + 1} in its place")
    for qp in qps[1:]:
        if detach(qp, g) or lib.ibv_destroy_qp(qp):
            raise AssertionError("detach and destroy")
    lib.ibv_destroy_qp(qps[0])
    expect_joined(netdev, '239.26.1.1', False, "all QPs detached")

    # SV_QUICK (the debug kernel: 8192 IGMP joins under KASAN and lockdep
    # take over ten minutes there) fills 512 groups, the same code paths
    # without the exact limit, which the stock kernels check
    quick = bool(os.environ.get('SV_QUICK'))
    ngrp = 512 if quick else MAX_GRP
    qp = dev.qp()
    start = time.time()
    for i in range(ngrp):
        rc = attach(qp, gid(f'239.27.{i >> 8}.{i & 255}'))
        if rc:
            raise AssertionError(f"group {i}: {errno.errorcode.get(rc, rc)}")
    print(f"ok: {ngrp} groups in {time.time() - start:.1f} s")
    if not quick:
        check(attach(qp, gid('239.28.0.1')), errno.ENOMEM,
              f"group {MAX_GRP + 1}")
    # another QP joins an existing group: no new group needed
    other = dev.qp()
    check(attach(other, gid('239.27.0.5')), 0,
          "another QP into an existing group at the group limit")
    lib.ibv_destroy_qp(other)
    for i in range(0, ngrp, 2):
        rc = detach(qp, gid(f'239.27.{i >> 8}.{i & 255}'))
        if rc:
            raise AssertionError(f"detach {i}: {errno.errorcode.get(rc, rc)}")
    check(attach(qp, gid('239.28.0.1')), 0, "a new group after detaching")
    expect_joined(netdev, '239.27.0.1', True, "half the groups left")
    expect_joined(netdev, '239.27.0.0', False, "half the groups left")
    # exit with the QP in half the groups + 1: 26-mcast.sh checks they
    # are left


def t_hold(dev, netdev):
    held = [dev.qp() for _ in range(3)]
    for i, qp in enumerate(held):
        check(attach(qp, gid('239.26.2.1')), 0, f"hold: QP {i} IPv4 group")
        check(attach(qp, gid('ff0e::26:2')), 0, f"hold: QP {i} IPv6 group")
    print("ready", flush=True)
    while True:
        time.sleep(60)


def test_groups(netdev):
    """the groups of these tests (239.26-28.x.x, ff0e::26:x) @netdev is in"""
    return sorted(g for g in memberships(netdev)
                  if g.startswith(('239.26.', '239.27.', '239.28.',
                                   'ff0e::26:')))


def main():
    name, netdev = sys.argv[1:3]
    tests = {'basic': t_basic, 'limits': t_limits, 'hold': t_hold}
    for test in sys.argv[3:]:
        if test not in tests:
            raise SystemExit(f"unknown test {test}")
    for test in sys.argv[3:]:
        if len(sys.argv) > 4:
            print(f"--- {test}", flush=True)
        tests[test](Dev(name), netdev)
        if test == 'basic' and len(sys.argv) > 4:
            left = test_groups(netdev)
            if left:
                raise AssertionError(f"groups left after basic: {left}")
            print("ok: no group left after basic")
    sys.stdout.flush()
    os._exit(0)     # the kernel cleans up after the process


if __name__ == '__main__':
    main()
