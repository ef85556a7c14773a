#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Queue memory checks for tests/user/27-mem.sh, through pyverbs and librxe.

  27-mem.py DEV ctxlimit MB   with the module's ctx_mem_max_mb at MB: one
                              context's CQs stop at the limit with ENOMEM, a
                              QP whose SQ would pass it is refused, a second
                              context has a limit of its own, destroying a
                              CQ gives its share back, and a fresh context
                              gets the whole limit again
  27-mem.py DEV memcg CGROUP  move into the cgroup (v2 directory CGROUP,
                              whose memory.max the caller set) and create
                              the largest CQs until one fails: it must fail
                              with ENOMEM, not an OOM kill

Exit status 0 on success; failures raise; 77 when pyverbs cannot be imported.
"""
import errno
import os
import sys

try:
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.pd import PD
    from pyverbs.qp import QP, QPCap, QPInitAttr
    from pyverbs.pyverbs_error import PyverbsRDMAError
    import pyverbs.enums as e
except ImportError as import_err:
    print(f"SKIP: {import_err}")
    sys.exit(77)

MIB = 1 << 20
# a user CQE is 64 bytes in the ring (struct ib_uverbs_wc, rounded up)
CQE_BYTES = 64


def errno_of(err):
    code = err.error_code
    if code == -1:
        code = next((c for c in (errno.ENOMEM, errno.EINVAL)
                     if os.strerror(c) in str(err)), -1)
    return code


def fill(ctx, cqe, bound):
    """CQs of cqe entries until one is refused; returns (cqs, errno)."""
    cqs = []
    while len(cqs) < bound:
        try:
            cqs.append(CQ(ctx, cqe))
        except PyverbsRDMAError as err:
            return cqs, errno_of(err)
    return cqs, 0


def t_ctxlimit(dev, limit_mb):
    limit = limit_mb * MIB
    # 2 MiB of slots, plus the ring's header page
    cqe = 2 * MIB // CQE_BYTES - 1
    ring = 2 * MIB + 4096
    a = Context(name=dev)
    cqs, err = fill(a, cqe, 4 * limit_mb)
    if err != errno.ENOMEM:
        raise AssertionError(f"CQ {len(cqs) + 1} of a context: expected "
                             f"ENOMEM at the limit, got {err}")
    want = limit // ring
    if len(cqs) != want:
        raise AssertionError(f"{len(cqs)} CQs of {ring} bytes under a "
                             f"{limit_mb} MiB limit, expected {want}")
    print(f"ok: {len(cqs)} CQs of {ring} bytes, the next refused: ENOMEM")

    b = Context(name=dev)
    other = CQ(b, cqe)
    print("ok: another context has a limit of its own")

    # an SQ of 32 SGEs per WQE (1 KiB slots) and twice the limit's bytes
    pd = PD(b)
    cap = QPCap(max_send_wr=min(limit // 1024,
                                b.query_device().max_qp_wr),
                max_recv_wr=1, max_send_sge=32, max_recv_sge=1)
    try:
        qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=other, rcq=other,
                               cap=cap))
        qp.close()
        raise AssertionError("a QP whose SQ passes the limit was created")
    except PyverbsRDMAError as err:
        if errno_of(err) != errno.ENOMEM:
            raise AssertionError(f"QP over the limit: {err}") from err
    print("ok: a QP whose SQ would pass the limit refused: ENOMEM")

    cqs.pop().close()
    cqs.append(CQ(a, cqe))
    print("ok: a destroyed CQ's share is given back")

    for cq in cqs:
        cq.close()
    pd.close()
    other.close()
    b.close()
    a.close()

    c = Context(name=dev)
    again, err = fill(c, cqe, want)
    if len(again) != want:
        raise AssertionError(f"a fresh context got {len(again)} CQs "
                             f"(errno {err}), expected {want}")
    for cq in again:
        cq.close()
    c.close()
    print(f"ok: a fresh context gets the whole limit again ({want} CQs)")


def t_memcg(dev, cgroup):
    # everything imported and started: from here on the cgroup pays
    with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))
    ctx = Context(name=dev)
    cqe = ctx.query_device().max_cqe
    cqs, err = fill(ctx, cqe, 64)
    if err != errno.ENOMEM:
        raise AssertionError(f"CQ {len(cqs) + 1} of {cqe} entries: expected "
                             f"ENOMEM from the cgroup's limit, got {err}")
    print(f"ok: {len(cqs)} CQs of {cqe} entries, the next refused: ENOMEM")
    for cq in cqs:
        cq.close()
    ctx.close()


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    dev, what, arg = sys.argv[1:]
    sys.stdout.reconfigure(line_buffering=True)
    if what == "ctxlimit":
        t_ctxlimit(dev, int(arg))
    elif what == "memcg":
        t_memcg(dev, arg)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
