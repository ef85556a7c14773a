# SPDX-License-Identifier: GPL-2.0
"""Verbs checks shared by the pyverbs helpers of tests/user (the
verbs-object tests 20-cq to 24-qp, and 69-ringfuzz): expecting an errno,
finding the queue rings in this process's mappings, plain libibverbs
through ctypes where pyverbs hides what a case needs, and a QP's restrack
driver detail.

Nothing here imports pyverbs at import time: the helper does, and exits 77
when it cannot (svspawn.no_pyverbs).
"""
import ctypes
import errno
import os
import re
import subprocess

# the errnos a creation failure may carry in pyverbs' message alone
_TEXT_ERRNOS = (errno.EINVAL, errno.ENOMEM, errno.EBUSY, errno.EOPNOTSUPP,
                errno.EFAULT, errno.EPERM, errno.ENETUNREACH,
                errno.ETIMEDOUT, errno.ENODATA)


def err_code(err):
    """the errno of a PyverbsRDMAError: pyverbs reports creation failures
    with error_code -1 (or none) and the errno in the text"""
    code = err.error_code
    if code in (-1, 0, None):
        code = next((c for c in _TEXT_ERRNOS if os.strerror(c) in str(err)),
                    -1)
    return abs(code)


def expect_errno(want, fn, what, quiet=False):
    """fn() must fail with want (an errno, or a tuple of those); what it
    returns if it succeeds is closed"""
    from pyverbs.pyverbs_error import PyverbsRDMAError
    wants = (want,) if isinstance(want, int) else want
    names = "/".join(errno.errorcode[w] for w in wants)
    try:
        obj = fn()
    except PyverbsRDMAError as err:
        code = err_code(err)
        if code not in wants:
            raise AssertionError(f"{what}: expected {names}, got {err}") \
                from err
    except OSError as err:
        code = err.errno
        if code not in wants:
            raise AssertionError(f"{what}: expected {names}, got {err}") \
                from err
    else:
        if hasattr(obj, "close"):
            obj.close()
        raise AssertionError(f"{what}: expected {names}, succeeded")
    if not quiet:
        print(f"ok: {what} refused: {errno.errorcode[code]}")


def ring_mappings():
    """(start, end) of this process's mappings of the uverbs device"""
    maps = []
    with open("/proc/self/maps", encoding="utf-8") as f:
        for line in f:
            if "/dev/infiniband/uverbs" in line:
                start, end = (int(x, 16) for x in line.split()[0].split("-"))
                maps.append((start, end))
    return maps


def new_ring(make, what):
    """(make(), the address of the one ring mapping it added): the ring of
    a queue make() creates or resizes, whose indices a case overwrites
    through /proc/self/mem"""
    before = set(ring_mappings())
    obj = make()
    new = [m for m in ring_mappings() if m not in before]
    if len(new) != 1:
        raise AssertionError(f"cannot find the {what} ring mapping: {new}")
    return obj, new[0][0]


# --- libibverbs through ctypes ---------------------------------------------
# pyverbs' close() of a CQ or SRQ first closes the QPs using it, so the
# "destroy refused with EBUSY while a QP uses it" cases need the plain calls.

class IbvQPCap(ctypes.Structure):
    # struct ibv_qp_cap
    _fields_ = [(name, ctypes.c_uint32) for name in (
        "max_send_wr", "max_recv_wr", "max_send_sge", "max_recv_sge",
        "max_inline_data")]


class IbvQPInitAttr(ctypes.Structure):
    # struct ibv_qp_init_attr
    _fields_ = [("qp_context", ctypes.c_void_p),
                ("send_cq", ctypes.c_void_p),
                ("recv_cq", ctypes.c_void_p),
                ("srq", ctypes.c_void_p),
                ("cap", IbvQPCap),
                ("qp_type", ctypes.c_int),
                ("sq_sig_all", ctypes.c_int)]


class IbvSrqInitAttr(ctypes.Structure):
    # struct ibv_srq_init_attr
    _fields_ = [("srq_context", ctypes.c_void_p)] + [
        (name, ctypes.c_uint32) for name in ("max_wr", "max_sge", "srq_limit")]


def libibverbs():
    """libibverbs with the prototypes of the calls used here"""
    lib = ctypes.CDLL("libibverbs.so.1", use_errno=True)
    vp = ctypes.c_void_p
    for name, res, args in (
            ("ibv_get_device_list", vp, [ctypes.POINTER(ctypes.c_int)]),
            ("ibv_free_device_list", None, [vp]),
            ("ibv_get_device_name", ctypes.c_char_p, [vp]),
            ("ibv_open_device", vp, [vp]),
            ("ibv_close_device", ctypes.c_int, [vp]),
            ("ibv_alloc_pd", vp, [vp]),
            ("ibv_dealloc_pd", ctypes.c_int, [vp]),
            ("ibv_create_cq", vp, [vp, ctypes.c_int, vp, vp, ctypes.c_int]),
            ("ibv_destroy_cq", ctypes.c_int, [vp]),
            ("ibv_create_srq", vp, [vp, ctypes.POINTER(IbvSrqInitAttr)]),
            ("ibv_destroy_srq", ctypes.c_int, [vp]),
            ("ibv_create_qp", vp, [vp, ctypes.POINTER(IbvQPInitAttr)]),
            ("ibv_destroy_qp", ctypes.c_int, [vp])):
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


def open_device(lib, dev):
    """ibv_open_device() of the device named dev"""
    num = ctypes.c_int()
    devs = lib.ibv_get_device_list(ctypes.byref(num))
    arr = ctypes.cast(devs, ctypes.POINTER(ctypes.c_void_p))
    ctx = None
    for i in range(num.value):
        if lib.ibv_get_device_name(arr[i]).decode() == dev:
            ctx = lib.ibv_open_device(arr[i])
    lib.ibv_free_device_list(devs)
    if not ctx:
        raise AssertionError(f"cannot open {dev}")
    return ctx


def gid_index(dev):
    """A RoCE v2 GID of port 1, else 0."""
    base = f"/sys/class/infiniband/{dev}/ports/1"
    for i in range(16):
        try:
            with open(f"{base}/gid_attrs/types/{i}") as f:
                if f.read().strip() != "RoCE v2":
                    continue
            with open(f"{base}/gids/{i}") as f:
                if f.read().strip().replace(":", "").strip("0"):
                    return i
        except OSError:
            continue
    return 0


def qp_driver_field(dev, qpn, name):
    """A number from QP @qpn's restrack driver detail (rdma -dd resource
    show qp: drv_in_flight, drv_rq_psn, ...), as an int."""
    out = subprocess.run(['rdma', '-dd', 'resource', 'show', 'qp', 'link',
                          f'{dev}/1', 'lqpn', str(qpn)],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(rf' drv_{name} (\d+)\b', out)
    if not m:
        raise AssertionError(f"no drv_{name} in: {out!r}")
    return int(m.group(1))
