#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Ring fuzzer for 69-ringfuzz.sh: a process that scribbles on its own
mapped rings while it uses them.

  69-ringfuzz.py run DEV GID ROUNDS SECONDS
        ROUNDS children, one after the other (a seed each, printed).  The
        parent kills each with SIGKILL at a random moment up to SECONDS,
        or lets it finish and tear down by itself.
  69-ringfuzz.py child DEV GID SEED SECONDS
        Makes CQs (one with a completion channel), an SRQ, an RC QP
        connected to itself, a UD QP and an RC QP on the SRQ, an MR.  A
        thread writes random bytes into the process's mappings of the
        uverbs device (the rings: headers and indices half of the time,
        anywhere else the other half, through /proc/self/mem) while the
        main thread posts sends and receives (each post rings the doorbell
        over whatever the ring holds), posts to the SRQ, polls and arms
        CQs, moves QPs to ERR (flushing garbage) and back to RTS, resizes
        CQs and sets SRQ limits, every error ignored.  librxe trusts its
        rings, so the child itself may crash: only the kernel's behaviour
        is judged (by 69-ringfuzz.sh and the guest runner).

Exit status 0 on success; failures raise.
"""
import importlib.util
import os
import random
import signal
import subprocess
import sys
import threading
import time

from svverbs import ring_mappings

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def scribbler(rng, stop, counts):
    fd = os.open("/proc/self/mem", os.O_RDWR)
    try:
        while not stop.is_set():
            maps = ring_mappings()
            if not maps:
                time.sleep(0.001)
                continue
            start, end = rng.choice(maps)
            if rng.random() < 0.5:
                off = rng.randrange(0, min(512, end - start))
            else:
                off = rng.randrange(0, end - start)
            n = min(rng.choice([1, 4, 8, 16, 64]), end - start - off)
            try:
                os.pwrite(fd, rng.randbytes(n), start + off)
                counts['writes'] += 1
            except OSError:
                pass    # unmapped meanwhile (a resize, a destroy)
            if counts['writes'] % 64 == 0:
                time.sleep(0.0005)
    finally:
        os.close(fd)


def child(dev, gid, seed, seconds):
    m = load('matrix', os.path.join(HERE, '53-verbs-matrix.py'))
    e = m.e
    from pyverbs.pyverbs_error import PyverbsError
    from pyverbs.srq import SRQ, SrqInitAttr, SrqAttr
    from pyverbs.qp import QP, QPCap, QPInitAttr
    from pyverbs.wr import RecvWR, SendWR

    rng = random.Random(seed)
    side = m.Side(dev, gid)
    rc = m.make_qp(side, e.IBV_QPT_RC)
    m.connect(rc, e.IBV_QPT_RC, side, side, rc.qp_num)
    ud = m.make_qp(side, e.IBV_QPT_UD)
    m.connect(ud, e.IBV_QPT_UD, side, side, ud.qp_num)
    srq = SRQ(side.pd, SrqInitAttr(SrqAttr(max_wr=64, max_sge=2)))
    cap = QPCap(max_send_wr=16, max_recv_wr=0, max_send_sge=2,
                max_recv_sge=2)
    on_srq = QP(side.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=side.scq,
                                    rcq=side.rcq, srq=srq, cap=cap))
    m.connect(on_srq, e.IBV_QPT_RC, side, side, rc.qp_num)

    stop = threading.Event()
    counts = {'writes': 0, 'ops': 0, 'errors': 0}
    t = threading.Thread(target=scribbler,
                         args=(random.Random(seed + 1), stop, counts))
    t.start()

    def send(qp):
        wr = SendWR(wr_id=rng.getrandbits(16), opcode=e.IBV_WR_RDMA_WRITE,
                    num_sge=1, sg=[side.sge(rng.randrange(0, 65536), 64)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(side.mr.rkey, side.addr(rng.randrange(0, 65536)))
        qp.post_send(wr)

    def recv(target):
        target.post_recv(RecvWR(wr_id=1, num_sge=1,
                                sg=[side.sge(rng.randrange(0, 65536), 64)]))

    def cycle(qp, qpt, peer):
        m.modify(qp, e.IBV_QP_STATE, qp_state=e.IBV_QPS_ERR)
        m.modify(qp, e.IBV_QP_STATE, qp_state=e.IBV_QPS_RESET)
        m.connect(qp, qpt, side, side, peer)

    ops = [
        lambda: send(rc), lambda: send(rc), lambda: send(on_srq),
        lambda: recv(rc), lambda: recv(srq), lambda: recv(ud),
        lambda: side.scq.poll(16), lambda: side.rcq.poll(16),
        lambda: side.rcq.req_notify(rng.getrandbits(1)),
        lambda: cycle(rc, e.IBV_QPT_RC, rc.qp_num),
        lambda: cycle(ud, e.IBV_QPT_UD, ud.qp_num),
        lambda: m.modify(rc, e.IBV_QP_STATE, qp_state=e.IBV_QPS_ERR),
        lambda: side.scq.resize(rng.choice([1, 16, 64, 256, 1000])),
        lambda: srq.modify(SrqAttr(srq_limit=rng.randrange(0, 64)),
                           e.IBV_SRQ_LIMIT),
    ]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            rng.choice(ops)()
        except (PyverbsError, ValueError, OSError):
            counts['errors'] += 1
        counts['ops'] += 1
    stop.set()
    t.join()
    print(f"child {seed}: {counts}", flush=True)
    for obj in (on_srq, rc, ud, srq):
        obj.close()
    side.ctx.close()


def run(dev, gid, rounds, seconds):
    seed0 = int(os.environ.get('SV_FUZZ_SEED', str(int(time.time()))))
    print(f"ringfuzz: seed {seed0} (SV_FUZZ_SEED to repeat), {rounds} "
          f"rounds of up to {seconds} s", flush=True)
    rng = random.Random(seed0)
    ended = {'killed': 0, 'exited': 0, 'crashed': 0}
    for r in range(rounds):
        seed = seed0 + 2 * r
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__),
                              'child', dev, str(gid), str(seed),
                              str(seconds)])
        deadline = time.monotonic() + rng.uniform(0.2, seconds + 5)
        while p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            p.wait()
            ended['killed'] += 1
        elif p.returncode == 0:
            ended['exited'] += 1
        else:
            ended['crashed'] += 1
            print(f"child {seed}: exit {p.returncode} (librxe trusts its "
                  "rings: a crash of the scribbler itself is allowed)")
    print(f"ok: {rounds} rounds: {ended}")
    if ended['killed'] + ended['exited'] + ended['crashed'] != rounds:
        raise AssertionError("rounds lost")


def main():
    if len(sys.argv) == 6 and sys.argv[1] == 'run':
        run(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
            float(sys.argv[5]))
        return 0
    if len(sys.argv) == 6 and sys.argv[1] == 'child':
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
              float(sys.argv[5]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
