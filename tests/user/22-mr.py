#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Memory region checks for tests/user/22-mr.sh, through pyverbs and librxe.

  22-mr.py DEV sizes     register and deregister 1 byte .. 64 MiB, at page
                         aligned and unaligned addresses; lkey == rkey, and
                         the restrack view (rdma resource show mr) agrees
  22-mr.py DEV access    every combination of the access flags: legal ones
                         register, remote write/atomic without local write
                         fail with EINVAL, on-demand paging registers,
                         unsupported ones (zero-based, FLUSH_PERSISTENT,
                         unknown bits) are refused; FLUSH_GLOBAL registers exactly
                         where the device advertises FLUSH (6.12)
  22-mr.py DEV bounds    length 0, beyond max_mr_size, wrapping the address
                         space, and on unmapped memory are refused
  22-mr.py DEV memlock   (run without CAP_IPC_LOCK and RLIMIT_MEMLOCK 256 KiB)
                         a region over the limit fails with ENOMEM, one
                         under it registers
  22-mr.py DEV rereg     IB_MR_REREG_ACCESS/_PD/_TRANS alone and combined,
                         issued as raw uverbs commands (librxe has no
                         rereg_mr): PD and access changes keep the keys,
                         a new translation gets new ones, restrack follows,
                         bad requests refused, the MR still deregisters
  22-mr.py DEV stale     deregistered keys are never handed out again in a
                         run of registrations and deregistrations
  22-mr.py DEV hold N    register N MRs, print "ready", sleep until killed

Several cases may be given (22-mr.py DEV CASE CASE ...): they run in that
order in one process, each announced by a line "--- CASE".
Exit status 0 on success; failures raise (non-zero exit with a traceback);
77 when pyverbs cannot be imported.
"""
import ctypes
import errno
import itertools
import json
import os
import struct
import subprocess
import time

import svspawn
from svverbs import expect_errno

try:
    from pyverbs.device import Context
    from pyverbs.mr import MR
    from pyverbs.pd import PD
    import pyverbs.enums as e
except ImportError as import_err:
    svspawn.no_pyverbs(import_err)

PAGE = os.sysconf("SC_PAGE_SIZE")

# uverbs write commands (rdma/ib_user_verbs.h)
IB_USER_VERBS_CMD_REREG_MR = 11
IB_MR_REREG_TRANS = 1
IB_MR_REREG_PD = 2
IB_MR_REREG_ACCESS = 4

LW = e.IBV_ACCESS_LOCAL_WRITE
RW = e.IBV_ACCESS_REMOTE_WRITE
RR = e.IBV_ACCESS_REMOTE_READ
RA = e.IBV_ACCESS_REMOTE_ATOMIC
MW_BIND = e.IBV_ACCESS_MW_BIND
ZERO_BASED = e.IBV_ACCESS_ZERO_BASED
ON_DEMAND = e.IBV_ACCESS_ON_DEMAND
HUGETLB = e.IBV_ACCESS_HUGETLB
RELAXED = e.IBV_ACCESS_RELAXED_ORDERING
FLUSH_GLOBAL = 1 << 8        # IBV_ACCESS_FLUSH_GLOBAL (rdma-core 45+)
FLUSH_PERSISTENT = 1 << 9    # IBV_ACCESS_FLUSH_PERSISTENT
CAP_FLUSH_GLOBAL = 1 << 38   # device_cap_flags_ex (Linux 6.2+)

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
PROT_RW = 3
MAP_PRIVATE_ANON = 0x02 | 0x20


class Buf:
    """Anonymous memory that is ours to register (pyverbs' own buffers
    cannot be placed at an offset or left unmapped)."""

    def __init__(self, size):
        self.size = size
        self.addr = libc.mmap(None, size, PROT_RW, MAP_PRIVATE_ANON, -1, 0)
        if self.addr in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap")
        ctypes.memset(self.addr, 0x5a, size)  # fault the pages in

    def close(self):
        if self.addr:
            libc.munmap(self.addr, self.size)
            self.addr = None


def res_mrs(dev):
    """The restrack view of DEV's MRs: {lkey: {...}}."""
    out = subprocess.run(["rdma", "-j", "-d", "resource", "show", "mr",
                          "dev", dev], capture_output=True, text=True,
                         check=True).stdout
    mrs = json.loads(out) if out.strip() else []
    # keys come as hex strings without "0x"
    return {int(m["lkey"], 16): m for m in mrs if "lkey" in m}


def check_key(mr, what):
    if mr.lkey != mr.rkey:
        raise AssertionError(f"{what}: lkey {mr.lkey:#x} != rkey {mr.rkey:#x}")
    if mr.lkey >> 8 == 0:
        raise AssertionError(f"{what}: key {mr.lkey:#x} has index 0")


def test_sizes(dev):
    with Context(name=dev) as ctx, PD(ctx) as pd:
        for size in (1, 100, PAGE - 1, PAGE, PAGE + 1, 3 * PAGE + 7,
                     1 << 20, 64 << 20):
            mr = MR(pd, size, LW)
            check_key(mr, f"MR of {size} bytes")
            res = res_mrs(dev).get(mr.lkey)
            if res is None or res.get("mrlen") != size:
                raise AssertionError(f"restrack for {size} bytes: {res}")
            key = mr.lkey
            mr.close()
            print(f"ok: {size} bytes, key {key:#x}")
        buf = Buf(8 * PAGE)
        try:
            for off, size in ((1, 10), (PAGE - 1, 2), (123, 5 * PAGE),
                              (PAGE + 17, 6 * PAGE - 40)):
                mr = MR(pd, size, LW | RR, address=buf.addr + off)
                check_key(mr, f"unaligned MR +{off}")
                mr.close()
                print(f"ok: {size} bytes at page offset {off % PAGE}")
        finally:
            buf.close()
        # several at once, all with distinct keys
        mrs = [MR(pd, PAGE, LW) for _ in range(64)]
        keys = {m.lkey for m in mrs}
        if len(keys) != len(mrs):
            raise AssertionError("two live MRs share a key")
        for m in mrs:
            m.close()
        print("ok: 64 MRs at once, distinct keys")


def legal(flags):
    return not (flags & (RW | RA)) or bool(flags & LW)


def test_access(dev):
    base = [LW, RW, RR, RA, MW_BIND, RELAXED, HUGETLB]
    buf = Buf(4 * PAGE)
    n_ok = n_inval = 0
    try:
        with Context(name=dev) as ctx, PD(ctx) as pd:
            for r in range(len(base) + 1):
                for combo in itertools.combinations(base, r):
                    flags = 0
                    for f in combo:
                        flags |= f
                    if legal(flags):
                        mr = MR(pd, 2 * PAGE, flags, address=buf.addr)
                        check_key(mr, f"access {flags:#x}")
                        mr.close()
                        n_ok += 1
                    else:
                        expect_errno(errno.EINVAL,
                                     lambda: MR(pd, 2 * PAGE, flags,
                                                address=buf.addr),
                                     f"access {flags:#x}", quiet=True)
                        n_inval += 1
            print(f"ok: {n_ok} legal combinations registered, "
                  f"{n_inval} illegal ones refused with EINVAL")
            # on-demand paging registers (IBK_ON_DEMAND_PAGING is set;
            # 28-odp tests what it does)
            mr = MR(pd, PAGE, LW | ON_DEMAND, address=buf.addr)
            check_key(mr, "access on-demand")
            mr.close()
            print("ok: on-demand paging registers")
            refused = [
                (LW | ZERO_BASED, errno.EOPNOTSUPP, "zero-based MR"),
                # persistence cannot be promised by a software device,
                # whatever the kernel (57-mpe checks it is not advertised)
                (LW | FLUSH_PERSISTENT, (errno.EINVAL, errno.EOPNOTSUPP),
                 "FLUSH_PERSISTENT"),
                (LW | (1 << 15), errno.EINVAL, "unknown flag 1<<15")]
            # FLUSH_GLOBAL registers exactly where the device advertises
            # global-visibility FLUSH (6.12's ib_core has it, 6.1's not)
            caps = ctx.query_device_ex().device_cap_flags_ex
            if caps & CAP_FLUSH_GLOBAL:
                for flags in (LW | FLUSH_GLOBAL, LW | RW | FLUSH_GLOBAL):
                    mr = MR(pd, PAGE, flags, address=buf.addr)
                    check_key(mr, f"access {flags:#x}")
                    mr.close()
                print("ok: FLUSH_GLOBAL registers (device advertises it)")
            else:
                refused.append((LW | FLUSH_GLOBAL,
                                (errno.EINVAL, errno.EOPNOTSUPP),
                                "FLUSH_GLOBAL (not advertised)"))
            for flags, want, what in refused:
                expect_errno(want, lambda: MR(pd, PAGE, flags,
                                              address=buf.addr), what)
    finally:
        buf.close()


def test_bounds(dev):
    with Context(name=dev) as ctx, PD(ctx) as pd:
        max_size = ctx.query_device().max_mr_size
        print(f"max_mr_size {max_size:#x}")
        buf = Buf(4 * PAGE)
        try:
            expect_errno(errno.EINVAL, lambda: MR(pd, 0, LW,
                                                  address=buf.addr),
                         "length 0")
            expect_errno(errno.EINVAL, lambda: MR(pd, max_size + 1, LW,
                                                  address=buf.addr),
                         "length max_mr_size + 1")
            expect_errno(errno.EINVAL, lambda: MR(pd, (1 << 64) - PAGE, LW,
                                                  address=buf.addr),
                         "length wrapping the address space")
            # pages that are not mapped cannot be pinned
            hole = Buf(4 * PAGE)
            addr = hole.addr
            hole.close()
            expect_errno(errno.EFAULT, lambda: MR(pd, 2 * PAGE, LW,
                                                  address=addr),
                         "unmapped memory")
        finally:
            buf.close()


def test_memlock(dev):
    with Context(name=dev) as ctx, PD(ctx) as pd:
        big = Buf(4 << 20)
        try:
            expect_errno(errno.ENOMEM, lambda: MR(pd, 4 << 20, LW,
                                                  address=big.addr),
                         "4 MiB over RLIMIT_MEMLOCK")
            mr = MR(pd, 64 << 10, LW, address=big.addr)
            mr.close()
            print("ok: 64 KiB under RLIMIT_MEMLOCK registers")
        finally:
            big.close()


class Cmd:
    """Raw uverbs write() commands on the context's command fd."""

    def __init__(self, ctx):
        self.fd = ctx.cmd_fd

    def rereg(self, mr, flags, pd=None, start=0, length=0, access=0):
        resp = ctypes.create_string_buffer(8)
        cmd = struct.pack("<IHHQIIQQQII", IB_USER_VERBS_CMD_REREG_MR,
                          (8 + 48) // 4, 8 // 4, ctypes.addressof(resp),
                          mr.handle, flags, start, length, start,
                          pd.handle if pd else 0, access)
        os.write(self.fd, cmd)
        return struct.unpack("<II", resp.raw)


class Rereg:
    """Call rereg and return an object with the new keys, for expect_errno."""

    def __init__(self, cmd, mr, flags, **kw):
        self.lkey, self.rkey = cmd.rereg(mr, flags, **kw)


def test_rereg(dev):
    with Context(name=dev) as ctx, PD(ctx) as pd, PD(ctx) as pd2:
        cmd = Cmd(ctx)
        a, b = Buf(16 * PAGE), Buf(16 * PAGE)
        try:
            mr = MR(pd, 4 * PAGE, LW, address=a.addr)
            key = mr.lkey
            seen = {key}
            pdn = res_mrs(dev)[key]["pdn"]

            def step(what, flags, want_len, in_place, **kw):
                nonlocal key
                r = Rereg(cmd, mr, flags, **kw)
                if r.lkey != r.rkey:
                    raise AssertionError(f"{what}: lkey != rkey")
                # in place: the keys stay; a new MR: a key never seen
                if in_place and r.lkey != key:
                    raise AssertionError(f"{what}: key {key:#x} -> "
                                         f"{r.lkey:#x}, kept in place")
                if not in_place and r.lkey in seen:
                    raise AssertionError(f"{what}: key {r.lkey:#x} reused")
                res = res_mrs(dev).get(r.lkey)
                if res is None or res.get("mrlen") != want_len:
                    raise AssertionError(f"{what}: restrack {res}")
                if not in_place and key in res_mrs(dev):
                    raise AssertionError(f"{what}: old key still listed")
                print(f"ok: {what}: key {key:#x} -> {r.lkey:#x}")
                key = r.lkey
                seen.add(key)
                return res

            # in place: the same keys
            step("access", IB_MR_REREG_ACCESS, 4 * PAGE, True,
                 access=LW | RR | RW | MW_BIND)
            res = step("pd", IB_MR_REREG_PD, 4 * PAGE, True, pd=pd2)
            if res["pdn"] == pdn:
                raise AssertionError(f"pd rereg: still on pdn {pdn}")
            expect_errno(errno.EBUSY, pd2.close, "dealloc of the MR's new PD")
            step("pd back", IB_MR_REREG_PD, 4 * PAGE, True, pd=pd)
            # new translation: a new MR, here with pages pinned read-only
            step("trans+access", IB_MR_REREG_TRANS | IB_MR_REREG_ACCESS,
                 6 * PAGE, False, start=b.addr, length=6 * PAGE, access=RR)
            step("read-only access", IB_MR_REREG_ACCESS, 6 * PAGE, True,
                 access=0)
            # read-only pages made writable: pinned again, a new MR
            step("access -> write", IB_MR_REREG_ACCESS, 6 * PAGE, False,
                 access=LW | RR)
            step("trans", IB_MR_REREG_TRANS, 5 * PAGE, False,
                 start=a.addr, length=5 * PAGE)
            step("trans+pd+access", IB_MR_REREG_TRANS | IB_MR_REREG_PD |
                 IB_MR_REREG_ACCESS, 3 * PAGE, False, start=a.addr + PAGE,
                 length=3 * PAGE, pd=pd2, access=LW | RR)
            step("all back", IB_MR_REREG_TRANS | IB_MR_REREG_PD |
                 IB_MR_REREG_ACCESS, 16 * PAGE, False, start=b.addr,
                 length=16 * PAGE, pd=pd, access=LW)

            for flags, kw, want, what in (
                    (0, {}, errno.EINVAL, "no flags"),
                    (8, {}, errno.EOPNOTSUPP, "unknown rereg flag"),
                    (IB_MR_REREG_ACCESS, {"access": RW}, errno.EINVAL,
                     "remote write without local write"),
                    (IB_MR_REREG_ACCESS, {"access": LW | ZERO_BASED},
                     errno.EOPNOTSUPP, "zero-based access"),
                    (IB_MR_REREG_TRANS, {"start": a.addr, "length": 0},
                     errno.EINVAL, "new length 0")):
                expect_errno(want, lambda: Rereg(cmd, mr, flags, **kw),
                             f"rereg {what}")
            if key not in res_mrs(dev):
                raise AssertionError("failed rereg changed the MR")
            mr.close()
            if key in res_mrs(dev):
                raise AssertionError("rereg'd MR still listed after dereg")
            print("ok: re-registered MR deregisters")
        finally:
            a.close()
            b.close()


def test_stale(dev):
    with Context(name=dev) as ctx, PD(ctx) as pd:
        freed = set()
        live = {}
        for i in range(600):
            mr = MR(pd, PAGE, LW)
            if mr.lkey in freed or mr.lkey in live:
                raise AssertionError(f"registration {i}: key {mr.lkey:#x} "
                                     "was handed out before")
            live[mr.lkey] = mr
            if i % 3 != 2:	# keep every third one for a while
                freed.add(mr.lkey)
                live.pop(mr.lkey).close()
            if len(live) > 20:
                k, m = live.popitem()
                freed.add(k)
                m.close()
        for m in live.values():
            m.close()
        print("ok: 600 registrations, no key handed out twice")


def test_hold(dev, n):
    ctx = Context(name=dev)
    pd = PD(ctx)
    mrs = [MR(pd, 2 * PAGE, LW | RR) for _ in range(n)]
    print("ready", flush=True)
    while True:
        time.sleep(60)
    del mrs


def case(dev, what):
    globals()[f"test_{what}"](dev)


if __name__ == "__main__":
    svspawn.main(case, test_hold)
