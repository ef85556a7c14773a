#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Address handle checks for tests/user/25-ah.sh, through pyverbs and librxe.

  25-ah.py DEV good      AHs to a remote and a local IPv4 address, a remote
                         IPv6 address, a link-local IPv6 address, IPv4 and
                         IPv6 multicast groups, with GRH variants (a
                         32-bit flow label as UCX passes: its low 20 bits
                         are used, as by Soft-RoCE and RoCE NICs); a UD QP
                         sends through one (the WQE is flushed on ERR);
                         1000 AHs created and destroyed
  25-ah.py DEV unreach   destinations no one answers for, or with no route:
                         refused (ETIMEDOUT after ib_core's 1 s resolution,
                         ENETUNREACH without an IPv6 route), never hanging
  25-ah.py DEV bad       an empty source GID index, no GRH, port 2, SL 16,
                         the unspecified address: refused
  25-ah.py DEV late      unsignaled UD sends, then at once the AH and the QP
                         destroyed (what mckey's sender does), while the CPU
                         the QP last sent from is held by a SCHED_FIFO
                         spinner: every datagram arrives (the run deferred
                         to that CPU is taken back by the destroy)
  25-ah.py DEV hold N    create N AHs, print "ready", sleep until killed

Several tests can run in one process (python and pyverbs take seconds to
start under the debug kernel), each on its own context and PD, each
introduced by a "--- TEST" line; the first failure ends the run:

  25-ah.py DEV TEST... [hold N FILE]...
                         the tests, then "cases done"; then per hold: a
                         child process holding N AHs (output to FILE, which
                         gets "ready PID" once it holds them), waited for
                         until something kills it ("holder PID ended:
                         signal S" on stdout)

Without pyverbs it prints "SKIP: ..." and exits 4.

GID indices and addresses come from the environment: V4, V6, LL (RoCEv2
GIDs of the device's IPv4, global IPv6 and link-local IPv6 addresses),
PEER4, PEER6, PEERLL (the peer's
addresses as GIDs in sysfs notation).  Exit status 0 on success; failures
raise (non-zero exit with a traceback).
"""
import ctypes
import errno
import os
import signal
import sys
import time
import traceback

try:
    from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.mr import MR
    from pyverbs.pd import PD
    from pyverbs.pyverbs_error import PyverbsRDMAError
    from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
    from pyverbs.wr import RecvWR, SGE, SendWR
    import pyverbs.enums as e
except ImportError as import_err:
    print(f"SKIP: python3-pyverbs is not installed ({import_err})",
          flush=True)
    sys.exit(4)

ENV = os.environ


def v4gid(addr):
    a = [int(x) for x in addr.split('.')]
    return ('0000:0000:0000:0000:0000:ffff:'
            f'{a[0]:02x}{a[1]:02x}:{a[2]:02x}{a[3]:02x}')


def attr(dgid, sgid_index, hop_limit=64, traffic_class=0, flow_label=0,
         sl=0, is_global=1, port_num=1):
    gr = GlobalRoute(dgid=GID(dgid), sgid_index=sgid_index,
                     hop_limit=hop_limit, traffic_class=traffic_class,
                     flow_label=flow_label)
    return AHAttr(is_global=is_global, port_num=port_num, sl=sl, gr=gr)


def err_code(err):
    code = err.error_code
    if code in (-1, None):
        code = next((c for c in (errno.EINVAL, errno.ENOMEM, errno.EOPNOTSUPP,
                                 errno.ENETUNREACH, errno.EHOSTUNREACH,
                                 errno.ETIMEDOUT, errno.ENODATA,
                                 errno.ENOENT)
                     if os.strerror(c) in str(err)), -1)
    return abs(code)


def refused(pd, a, what, want=None, max_secs=5):
    """creating an AH for @a must fail (with @want if given), in time"""
    start = time.time()
    try:
        ah = AH(pd, attr=a)
    except PyverbsRDMAError as err:
        secs = time.time() - start
        code = err_code(err)
        if want is not None and code != want:
            raise AssertionError(f"{what}: expected {errno.errorcode[want]}, "
                                 f"got {err}") from err
        if secs > max_secs:
            raise AssertionError(f"{what}: took {secs:.1f} s")
        print(f"ok: {what}: {errno.errorcode.get(code, code)} "
              f"after {secs:.1f} s")
        return
    ah.close()
    raise AssertionError(f"{what}: AH created")


def created(pd, a, what):
    ah = AH(pd, attr=a)
    print(f"ok: {what}")
    return ah


def ud_qp(pd, cq, depth):
    """a UD QP in RTS (Q_Key 0x1234), @depth WRs each way, on @cq"""
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=depth, max_recv_wr=depth)))
    for state, mask in ((e.IBV_QPS_INIT, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX |
                         e.IBV_QP_PORT | e.IBV_QP_QKEY),
                        (e.IBV_QPS_RTR, e.IBV_QP_STATE),
                        (e.IBV_QPS_RTS, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN)):
        qa = QPAttr(qp_state=state)
        qa.qkey = 0x1234
        qa.pkey_index = 0
        qa.port_num = 1
        qa.sq_psn = 0
        qp.modify(qa, mask)
    return qp


def t_good(ctx, pd):
    v4, v6, ll = int(ENV['V4']), int(ENV['V6']), int(ENV['LL'])
    my4 = str(ctx.query_gid(1, v4))
    ahs = [
        created(pd, attr(ENV['PEER4'], v4), "IPv4 peer"),
        created(pd, attr(my4, v4), "IPv4 local address (loopback)"),
        created(pd, attr(ENV['PEER6'], v6), "IPv6 peer"),
        created(pd, attr(ENV['PEERLL'], ll), "IPv6 link-local peer"),
        created(pd, attr(v4gid('239.1.2.3'), v4), "IPv4 multicast group"),
        created(pd, attr('ff0e:0000:0000:0000:0000:0000:0001:0002', v6),
                "IPv6 multicast group"),
        created(pd, attr(ENV['PEER6'], v6, hop_limit=1, traffic_class=0xb8,
                         flow_label=0xfffff, sl=7),
                "IPv6 peer with hop limit 1, DSCP, flow label, SL 7"),
        created(pd, attr(ENV['PEER6'], v6, hop_limit=255, traffic_class=106,
                         flow_label=0xffffffff, sl=15),
                "IPv6 peer with flow label ~0, traffic class 106, hop limit "
                "255, SL 15 (UCX's GRH)"),
        created(pd, attr(ENV['PEER4'], v4, traffic_class=255,
                         flow_label=0xffffffff),
                "IPv4 peer with flow label ~0, TOS 255"),
    ]

    # a UD send names the AH (by its ah_num); posted in SQD it waits (the
    # transport starts nothing new there) and ERR flushes it
    cq = CQ(ctx, 16)
    qp = ud_qp(pd, cq, 4)
    qp.modify(QPAttr(qp_state=e.IBV_QPS_SQD), e.IBV_QP_STATE)
    mr = MR(pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
    wr = SendWR(wr_id=77, opcode=e.IBV_WR_SEND, num_sge=1,
                sg=[SGE(mr.buf, 8, mr.lkey)])
    wr.set_wr_ud(ahs[0], 0x123, 0x1234)
    qp.post_send(wr)
    qp.modify(QPAttr(qp_state=e.IBV_QPS_ERR), e.IBV_QP_STATE)
    end = time.time() + 5
    n, wcs = 0, []
    while not n and time.time() < end:
        n, wcs = cq.poll(1)
    if not n or wcs[0].wr_id != 77 or wcs[0].status != e.IBV_WC_WR_FLUSH_ERR:
        raise AssertionError(f"UD send through an AH: {n} completions")
    print("ok: UD send through an AH flushed on ERR")
    qp.close()
    cq.close()
    mr.close()
    for ah in ahs:
        ah.close()

    start = time.time()
    many = [AH(pd, attr=attr(ENV['PEER4'], v4)) for _ in range(1000)]
    for ah in many:
        ah.close()
    print(f"ok: 1000 AHs created and destroyed in {time.time() - start:.1f} s")


def t_unreach(ctx, pd):
    v4, v6 = int(ENV['V4']), int(ENV['V6'])
    # IPv4: with the output interface bound, routing assumes any
    # destination on link, so ARP has to fail: ib_core gives up after 1 s
    refused(pd, attr(v4gid('10.25.0.77'), v4), "IPv4 on link, no one there",
            errno.ETIMEDOUT)
    refused(pd, attr(v4gid('192.0.2.1'), v4), "IPv4 without a route",
            errno.ETIMEDOUT)
    refused(pd, attr('2001:0db8:0025:0000:0000:0000:0000:0077', v6),
            "IPv6 on link, no one there", errno.ETIMEDOUT)
    refused(pd, attr('2001:0db8:0099:0000:0000:0000:0000:0001', v6),
            "IPv6 without a route", errno.ENETUNREACH)


def t_bad(ctx, pd):
    v4 = int(ENV['V4'])
    peer = ENV['PEER4']
    refused(pd, attr(peer, 250), "empty source GID index")
    refused(pd, attr(peer, v4, is_global=0), "no GRH", errno.EINVAL)
    refused(pd, attr(peer, v4, port_num=2), "port 2", errno.EINVAL)
    refused(pd, attr(peer, v4, sl=16), "SL 16", errno.EINVAL)
    refused(pd, attr('0000:0000:0000:0000:0000:0000:0000:0000',
                     int(ENV['V6'])), "unspecified destination")
    refused(pd, attr(v4gid('0.0.0.0'), v4), "IPv4 destination 0.0.0.0")


def t_hold(ctx, pd, count, ready="ready"):
    v4, v6 = int(ENV['V4']), int(ENV['V6'])
    held = []
    for i in range(count):
        held.append(AH(pd, attr=attr(ENV['PEER4'], v4) if i % 2 else
                       attr(ENV['PEER6'], v6)))
    print(ready, flush=True)
    while True:
        time.sleep(60)

def spin_child(cpu, secs):
    """fork a SCHED_FIFO busy loop on @cpu for @secs; returns its pid once
    it spins (the caller must not be on @cpu)"""
    sys.stdout.flush()
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(rfd)
            os.sched_setaffinity(0, {cpu})
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
            os.write(wfd, b'x')
            end = time.monotonic() + secs
            while time.monotonic() < end:
                pass
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    os.close(wfd)
    ready = os.read(rfd, 1)
    os.close(rfd)
    if ready != b'x':
        os.waitpid(pid, 0)
        raise AssertionError("the SCHED_FIFO spinner did not start")
    return pid


def t_late(ctx, pd):
    count = 20
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        print("ok: late: not run, one CPU")
        return
    v4 = int(ENV['V4'])
    my4 = str(ctx.query_gid(1, v4))
    rcq, scq = CQ(ctx, 2 * count), CQ(ctx, 2 * count)
    rqp, sqp = ud_qp(pd, rcq, 2 * count), ud_qp(pd, scq, count)
    rmr = MR(pd, 2 * count * 128, e.IBV_ACCESS_LOCAL_WRITE)
    smr = MR(pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
    for i in range(2 * count):
        rqp.post_recv(RecvWR(wr_id=i, num_sge=1,
                             sg=[SGE(rmr.buf + i * 128, 128, rmr.lkey)]))
    ah = AH(pd, attr=attr(my4, v4))

    # one signaled send from the first CPU: the QP last sent from there
    os.sched_setaffinity(0, {cpus[0]})
    wr = SendWR(wr_id=1, opcode=e.IBV_WR_SEND, num_sge=1,
                sg=[SGE(smr.buf, 16, smr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_ud(ah, rqp.qp_num, 0x1234)
    sqp.post_send(wr)
    end, n = time.time() + 5, 0
    while not n and time.time() < end:
        n, wcs = scq.poll(1)
    if not n or wcs[0].status != e.IBV_WC_SUCCESS:
        raise AssertionError("late: the first UD send did not complete")
    # the poster on another CPU, that one busy: the runs go to a work item
    # that cannot run for about a second
    os.sched_setaffinity(0, {cpus[1]})
    spinner = spin_child(cpus[0], 1.5)
    wr = SendWR(wr_id=2, opcode=e.IBV_WR_SEND, num_sge=1,
                sg=[SGE(smr.buf, 16, smr.lkey)])
    wr.set_wr_ud(ah, rqp.qp_num, 0x1234)
    for _ in range(count - 1):
        sqp.post_send(wr)
    early, wcs = rcq.poll(2 * count)
    ah.close()
    sqp.close()
    if os.waitpid(spinner, 0)[1]:
        raise AssertionError("late: the SCHED_FIFO spinner failed")
    os.sched_setaffinity(0, set(cpus))
    if early >= count:
        raise AssertionError("late: not tested: the sends were not deferred "
                             "(the busy CPU ran the work item)")
    got, end = early, time.time() + 5
    while got < count and time.time() < end:
        n, wcs = rcq.poll(2 * count)
        for wc in wcs[:n]:
            if wc.status != e.IBV_WC_SUCCESS:
                raise AssertionError(f"late: receive status {wc.status}")
        got += n
    if got != count:
        raise AssertionError(f"late: {got} of {count} datagrams arrived "
                             "(sent, then AH and QP destroyed at once)")
    print(f"ok: late: {count} of {count} UD sends arrived although the AH "
          f"and the QP were destroyed right after posting ({early} before)")
    for o in (rqp, rcq, scq, rmr, smr):
        o.close()


PR_SET_PDEATHSIG = 1
TESTS = {'good': t_good, 'unreach': t_unreach, 'bad': t_bad,
         'late': t_late}


def hold_child(dev, count, out):
    """fork a process holding @count AHs (its output to @out); wait for its
    end, which only a signal brings"""
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            # dies with the parent (which the test kills on any failure)
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG,
                                                    signal.SIGKILL)
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.close(fd)
            # its own context: nothing of the parent's is used after fork
            ctx = Context(name=dev)
            t_hold(ctx, PD(ctx), count, f"ready {os.getpid()}")
        except BaseException:  # pylint: disable=broad-except
            traceback.print_exc()
        finally:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        print(f"holder {pid} ended: signal {os.WTERMSIG(status)}", flush=True)
    else:
        print(f"holder {pid} ended: exit {os.WEXITSTATUS(status)}",
              flush=True)


def main():
    dev, test = sys.argv[1], sys.argv[2]
    if test == 'hold' and len(sys.argv) == 4:
        ctx = Context(name=dev)
        t_hold(ctx, PD(ctx), int(sys.argv[3]))
    args = sys.argv[2:]
    holds = []
    if 'hold' in args:
        i = args.index('hold')
        args, rest = args[:i], args[i:]
        while rest:
            if len(rest) < 3 or rest[0] != 'hold':
                raise SystemExit(f"bad hold arguments: {rest}")
            holds.append((int(rest[1]), rest[2]))
            rest = rest[3:]
    for test in args:
        if test not in TESTS:
            raise SystemExit(f"unknown test {test}")
    for test in args:
        print(f"--- {test}", flush=True)
        ctx = Context(name=dev)
        pd = PD(ctx)
        TESTS[test](ctx, pd)
        pd.close()
        ctx.close()
    print("cases done", flush=True)
    for count, out in holds:
        hold_child(dev, count, out)


if __name__ == '__main__':
    main()
