#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Memory per idle QP, for scripts/bench.sh's scaling part (in the VM).

  bench-qpmem.py [--init|--rts] [--detail] DEV N
                         create N RC QPs on DEV (one PD, one CQ; each QP
                         with 64 send and 64 receive WRs of one SGE, what
                         an rdma_cm client commonly asks for), move them to
                         INIT (the default), or with --rts on to RTS, each
                         connected to itself through DEV's RoCE v2 GID
                         with 16 RDMA READ/atomic each way (an idle
                         connection), and print one line

      qpmem DEV N KIB_PER_QP SECONDS_CREATE SECONDS_DESTROY

KIB_PER_QP is the drop of MemFree per QP while they exist (kernel memory,
the rings mapped to user space, and the library's own, as a user sees
them), measured after a settle of the page allocator's per-CPU lists; the
QPs are then destroyed.  --detail adds where it went, per QP: lines

      qpmem-meminfo FIELD KIB        /proc/meminfo fields
      qpmem-accounted KIB            their sum over slab, vmalloc, page
                                     tables, anonymous, per-CPU memory
                                     and kernel stacks (steadier than
                                     MemFree, which the page cache moves)
      qpmem-slab CACHE KIB           slab caches that grew (pages)
      qpmem-vmalloc CALLER KIB       /proc/vmallocinfo by caller (pages)

Exit status 0, or 77 when pyverbs is missing.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'tests', 'user'))
from svverbs import gid_index  # noqa: E402

try:
    from pyverbs.addr import AHAttr, GlobalRoute
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.pd import PD
    from pyverbs.qp import QP, QPCap, QPInitAttr, QPAttr
    import pyverbs.enums as e
except ImportError as import_err:
    print(f"SKIP: {import_err}")
    sys.exit(77)

MEMINFO = ("MemFree", "Slab", "SUnreclaim", "SReclaimable", "VmallocUsed",
           "PageTables", "AnonPages", "Percpu", "KernelStack", "Shmem",
           "Cached", "Buffers")
# what the QPs can take, each counted once: MemFree also moves with the
# page cache and with pages parked on the allocator's per-CPU lists
ACCOUNTED = ("Slab", "VmallocUsed", "PageTables", "AnonPages", "Percpu",
             "KernelStack")


def meminfo():
    vals = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            vals[k] = int(v.split()[0])
    return vals


def slabinfo():
    """cache -> KiB of its slabs"""
    vals = {}
    try:
        with open("/proc/slabinfo") as f:
            for line in f.readlines()[2:]:
                p = line.split()
                # name active num objsize objperslab pagesperslab : ... slabdata active num shared
                vals[p[0]] = int(p[14]) * int(p[5]) * 4
    except OSError:
        pass
    return vals


def vmallocinfo():
    """caller -> KiB of the areas (guard page left out)"""
    vals = {}
    try:
        with open("/proc/vmallocinfo") as f:
            for line in f:
                p = line.split()
                m = re.search(r"pages=(\d+)", line)
                if len(p) < 3 or not m:
                    continue
                caller = re.sub(r"\+0x.*", "", p[2])
                vals[caller] = vals.get(caller, 0) + int(m.group(1)) * 4
    except OSError:
        pass
    return vals


def settle():
    # freed pages sit on per-CPU lists for a while; let them drain, and
    # give RCU-deferred frees a moment
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")
    time.sleep(1)


def delta(before, after, n):
    out = []
    for k in after:
        d = (before.get(k, 0) - after[k]) / n
        if abs(d) >= 0.05:
            out.append((k, -d))
    return sorted(out, key=lambda x: -abs(x[1]))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = set(sys.argv[1:]) - set(args)
    if flags - {"--init", "--rts", "--detail"} or len(args) != 2:
        sys.exit(__doc__)
    rts = "--rts" in flags
    detail = "--detail" in flags
    dev, n = args[0], int(args[1])
    ctx = Context(name=dev)
    pd = PD(ctx)
    cq = CQ(ctx, 4096)
    cap = QPCap(max_send_wr=64, max_recv_wr=64, max_send_sge=1, max_recv_sge=1)
    init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap)
    attr = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=1)
    attr.qp_access_flags = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
    if rts:
        idx = gid_index(dev)
        attr.path_mtu = e.IBV_MTU_1024
        attr.max_dest_rd_atomic = 16
        attr.max_rd_atomic = 16
        attr.min_rnr_timer = 12
        attr.timeout = 14
        attr.retry_cnt = 7
        attr.rnr_retry = 7
        gr = GlobalRoute(dgid=ctx.query_gid(1, idx), sgid_index=idx)
        attr.ah_attr = AHAttr(port_num=1, is_global=1, gr=gr)
        attr.rq_psn = 0
        attr.sq_psn = 0
    settle()
    before, slab0, vm0 = meminfo(), slabinfo(), vmallocinfo()
    t0 = time.monotonic()
    qps = []
    for _ in range(n):
        qp = QP(pd, init)
        if rts:
            attr.dest_qp_num = qp.qp_num
            qp.to_rts(attr)
        else:
            qp.to_init(attr)
        qps.append(qp)
    t_create = time.monotonic() - t0
    settle()
    during, slab1, vm1 = meminfo(), slabinfo(), vmallocinfo()
    t0 = time.monotonic()
    for qp in qps:
        qp.close()
    t_destroy = time.monotonic() - t0
    qps = None
    per_qp = (before["MemFree"] - during["MemFree"]) / n
    print(f"qpmem {dev} {n} {per_qp:.1f} {t_create:.2f} {t_destroy:.2f}")
    if detail:
        for k in MEMINFO:
            if k in during:
                print(f"qpmem-meminfo {k} {(during[k] - before[k]) / n:.2f}")
        acc = sum(during.get(k, 0) - before.get(k, 0) for k in ACCOUNTED)
        print(f"qpmem-accounted {acc / n:.1f}")
        for k, d in delta(slab0, slab1, n)[:15]:
            print(f"qpmem-slab {k} {d:.2f}")
        for k, d in delta(vm0, vm1, n)[:10]:
            print(f"qpmem-vmalloc {k} {d:.2f}")
    cq.close()
    pd.close()
    ctx.close()


if __name__ == "__main__":
    main()
