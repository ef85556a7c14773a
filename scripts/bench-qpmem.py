#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Memory per idle QP, for scripts/bench.sh's scaling part (in the VM).

  bench-qpmem.py DEV N   create N RC QPs on DEV (one PD, one CQ; each QP
                         with 64 send and 64 receive WRs of one SGE, what
                         an rdma_cm client commonly asks for), move them to
                         INIT, and print one line

      qpmem DEV N KIB_PER_QP SECONDS_CREATE SECONDS_DESTROY

KIB_PER_QP is the drop of MemFree per QP while they exist (kernel memory,
the rings mapped to user space, and the library's own, as a user sees
them), measured after a settle of the page allocator's per-CPU lists; the
QPs are then destroyed.  Exit status 0, or 77 when pyverbs is missing.
"""
import sys
import time

try:
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.pd import PD
    from pyverbs.qp import QP, QPCap, QPInitAttr, QPAttr
    import pyverbs.enums as e
except ImportError as import_err:
    print(f"SKIP: {import_err}")
    sys.exit(77)


def mem_free_kib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemFree:"):
                return int(line.split()[1])
    raise RuntimeError("no MemFree in /proc/meminfo")


def settle():
    # freed pages sit on per-CPU lists for a while; let them drain, and
    # give RCU-deferred frees a moment
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")
    time.sleep(1)


def main():
    dev, n = sys.argv[1], int(sys.argv[2])
    ctx = Context(name=dev)
    pd = PD(ctx)
    cq = CQ(ctx, 4096)
    cap = QPCap(max_send_wr=64, max_recv_wr=64, max_send_sge=1, max_recv_sge=1)
    init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap)
    attr = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=1)
    attr.qp_access_flags = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
    settle()
    before = mem_free_kib()
    t0 = time.monotonic()
    qps = []
    for _ in range(n):
        qp = QP(pd, init)
        qp.to_init(attr)
        qps.append(qp)
    t_create = time.monotonic() - t0
    settle()
    during = mem_free_kib()
    t0 = time.monotonic()
    for qp in qps:
        qp.close()
    t_destroy = time.monotonic() - t0
    qps = None
    per_qp = (before - during) / n
    print(f"qpmem {dev} {n} {per_qp:.1f} {t_create:.2f} {t_destroy:.2f}")
    cq.close()
    pd.close()
    ctx.close()


if __name__ == "__main__":
    main()
