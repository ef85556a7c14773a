#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Queue pair checks for tests/user/24-qp.sh, through pyverbs and librxe.

  24-qp.py DEV GID4 caps     RC/UC/UD QPs with small, mixed and maximal caps
                             (the caps written back are at least what was
                             asked, at most the device's); caps beyond the
                             limits refused with EINVAL; a QP on an SRQ
  24-qp.py DEV GID4 states   every legal transition of RC, UC and UD QPs,
                             with every attribute each one takes; query_qp
                             returns exactly what was set after each step
  24-qp.py DEV GID4 errors   illegal transitions, wrong attribute masks,
                             wrong current state and bad values: EINVAL;
                             APM (path migration) EOPNOTSUPP; a path MTU
                             above the active one accepted and kept; a
                             32-bit flow label (UCX's ~0), the widest
                             traffic class and SL, a static rate accepted,
                             the flow label kept as its low 20 bits
  24-qp.py DEV GID4 flush    modify to ERR flushes posted receives and sends
                             (unsignaled too) with IBV_WC_WR_FLUSH_ERR, in
                             order; WRs posted in ERR are flushed at the next
                             doorbell; destroy with posted WRs completes
                             nothing and leaves the CQ usable
  24-qp.py DEV GID4 early    send WRs posted in RESET, INIT and RTR (RC, UD):
                             EINVAL from the doorbell, and never executed,
                             not even once the QP reaches RTS
  24-qp.py DEV GID4 toolong  UD and UC sends longer than the posted receive:
                             dropped, the receive kept for the next message
                             (not completed in error: a flood of them would
                             use up the receives, QP1's included)
  24-qp.py DEV GID4 events   SQ_DRAINED on entering SQD (only when asked),
                             LAST_WQE_REACHED for a QP on an SRQ entering ERR
  24-qp.py DEV GID4 qkey-unpriv  a controlled Q_Key needs CAP_NET_RAW: EPERM
                             (run it without that capability)
  24-qp.py DEV GID4 hold N   create N QPs (with WRs posted), print "ready",
                             sleep until killed

GID4 is the index of a RoCEv2 GID of the device's IPv4 address (QPs are
connected to themselves through it).  Several cases may be given
(24-qp.py DEV GID4 caps states ...): they run in that order in one process,
each announced by a line "--- CASE", each with its own context.  Exit status
0 on success; failures raise (non-zero exit with a traceback); 77 when
pyverbs cannot be imported.
"""
import errno
import os
import select
import time

import svspawn
from svverbs import expect_errno

try:
    from pyverbs.addr import AHAttr, GID, GlobalRoute
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.mr import MR
    from pyverbs.pd import PD
    from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
    from pyverbs.srq import SRQ, SrqInitAttr, SrqAttr
    from pyverbs.wr import RecvWR, SendWR, SGE
    import pyverbs.enums as e
except ImportError as import_err:
    svspawn.no_pyverbs(import_err)

# limits of softverbs that ib_device_attr cannot report (sv_param.h)
MAX_INLINE = 512

MASKS = {
    'qp_state': e.IBV_QP_STATE,
    'cur_qp_state': e.IBV_QP_CUR_STATE,
    'en_sqd_async_notify': e.IBV_QP_EN_SQD_ASYNC_NOTIFY,
    'qp_access_flags': e.IBV_QP_ACCESS_FLAGS,
    'pkey_index': e.IBV_QP_PKEY_INDEX,
    'port_num': e.IBV_QP_PORT,
    'qkey': e.IBV_QP_QKEY,
    'ah_attr': e.IBV_QP_AV,
    'path_mtu': e.IBV_QP_PATH_MTU,
    'timeout': e.IBV_QP_TIMEOUT,
    'retry_cnt': e.IBV_QP_RETRY_CNT,
    'rnr_retry': e.IBV_QP_RNR_RETRY,
    'rq_psn': e.IBV_QP_RQ_PSN,
    'max_rd_atomic': e.IBV_QP_MAX_QP_RD_ATOMIC,
    'min_rnr_timer': e.IBV_QP_MIN_RNR_TIMER,
    'sq_psn': e.IBV_QP_SQ_PSN,
    'max_dest_rd_atomic': e.IBV_QP_MAX_DEST_RD_ATOMIC,
    'path_mig_state': e.IBV_QP_PATH_MIG_STATE,
    'dest_qp_num': e.IBV_QP_DEST_QPN,
}
NOT_QUERIED = ('cur_qp_state', 'en_sqd_async_notify')
STATE_NAMES = {e.IBV_QPS_RESET: 'RESET', e.IBV_QPS_INIT: 'INIT',
               e.IBV_QPS_RTR: 'RTR', e.IBV_QPS_RTS: 'RTS',
               e.IBV_QPS_SQD: 'SQD', e.IBV_QPS_SQE: 'SQE',
               e.IBV_QPS_ERR: 'ERR'}
TYPE_NAMES = {e.IBV_QPT_RC: 'RC', e.IBV_QPT_UC: 'UC', e.IBV_QPT_UD: 'UD'}


class Env:
    def __init__(self, dev, gid4):
        self.ctx = Context(name=dev)
        self.dev_attr = self.ctx.query_device()
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 256)
        self.gid4 = gid4
        self.my_gid = str(self.ctx.query_gid(1, gid4))


def make_qp(env, qpt, srq=None, cq=None, sig_all=0, **caps):
    cap = dict(max_send_wr=16, max_recv_wr=16, max_send_sge=1,
               max_recv_sge=1, max_inline_data=0)
    cap.update(caps)
    cq = cq or env.cq
    init = QPInitAttr(qp_type=qpt, scq=cq, rcq=cq, srq=srq,
                      cap=QPCap(**cap), sq_sig_all=sig_all)
    return QP(env.pd, init)


def av(env, gid=None, sgid_index=None, hop_limit=64, traffic_class=0,
       flow_label=0, sl=0, is_global=1, port_num=1, static_rate=0):
    gr = GlobalRoute(dgid=GID(gid or env.my_gid),
                     sgid_index=env.gid4 if sgid_index is None else sgid_index,
                     hop_limit=hop_limit, traffic_class=traffic_class,
                     flow_label=flow_label)
    return AHAttr(is_global=is_global, port_num=port_num, sl=sl, gr=gr,
                  static_rate=static_rate)


def modify(qp, **fields):
    attr = QPAttr()
    mask = 0
    for name, value in fields.items():
        setattr(attr, name, value)
        mask |= MASKS[name]
    qp.modify(attr, mask)


def same_av(got, want):
    return (got.dgid == want.dgid and got.sgid_index == want.sgid_index and
            got.hop_limit == want.hop_limit and
            got.traffic_class == want.traffic_class and
            got.flow_label == want.flow_label and got.sl == want.sl and
            got.static_rate == want.static_rate and
            got.port_num == want.port_num and got.is_global == want.is_global)


def check(qp, what, **fields):
    """query_qp must return exactly the values @fields"""
    attr, _ = qp.query(0x1fffff)
    for name, want in fields.items():
        if name in NOT_QUERIED:
            continue
        got = getattr(attr, name)
        ok = same_av(got, want) if name == 'ah_attr' else got == want
        if not ok:
            raise AssertionError(f"{what}: query_qp {name} = {got}, "
                                 f"set {want}")


def step(qp, what, **fields):
    modify(qp, **fields)
    check(qp, what, **fields)
    print(f"ok: {what}")


def expect_modify(want, qp, what, **fields):
    expect_errno(want, lambda: modify(qp, **fields), what)


# --- caps ------------------------------------------------------------------

def check_caps(env, qp, asked, what):
    _, init = qp.query(0x1fffff)
    got = init.cap
    d = env.dev_attr
    for name, limit in (('max_send_wr', d.max_qp_wr),
                        ('max_recv_wr', d.max_qp_wr),
                        ('max_send_sge', d.max_sge),
                        ('max_recv_sge', d.max_sge),
                        ('max_inline_data', MAX_INLINE)):
        g = getattr(got, name)
        if g < asked.get(name, 0) or g > limit:
            raise AssertionError(f"{what}: {name} {g}, asked "
                                 f"{asked.get(name, 0)}, limit {limit}")
    return got


def t_caps(env):
    d = env.dev_attr
    shapes = [
        dict(max_send_wr=1, max_recv_wr=1, max_send_sge=1, max_recv_sge=1),
        dict(max_send_wr=0, max_recv_wr=100, max_send_sge=0, max_recv_sge=0),
        dict(max_send_wr=33, max_recv_wr=7, max_send_sge=3, max_recv_sge=5,
             max_inline_data=100),
        dict(max_send_wr=d.max_qp_wr, max_recv_wr=d.max_qp_wr,
             max_send_sge=d.max_sge, max_recv_sge=d.max_sge,
             max_inline_data=MAX_INLINE),
    ]
    for qpt in (e.IBV_QPT_RC, e.IBV_QPT_UC, e.IBV_QPT_UD):
        for shape in shapes:
            qp = make_qp(env, qpt, **shape)
            got = check_caps(env, qp, shape, f"{TYPE_NAMES[qpt]} {shape}")
            print(f"ok: {TYPE_NAMES[qpt]} caps {shape} -> "
                  f"{got.max_send_wr}/{got.max_recv_wr} wr, "
                  f"{got.max_send_sge}/{got.max_recv_sge} sge, "
                  f"{got.max_inline_data} inline")
            qp.close()

    for name, value in (('max_send_wr', d.max_qp_wr + 1),
                        ('max_recv_wr', d.max_qp_wr + 1),
                        ('max_send_sge', d.max_sge + 1),
                        ('max_recv_sge', d.max_sge + 1),
                        ('max_inline_data', MAX_INLINE + 1)):
        expect_errno(errno.EINVAL,
                     lambda: make_qp(env, e.IBV_QPT_RC, **{name: value}),
                     f"{name} = {value}")

    # on an SRQ: no RQ, the receive caps are ignored and reported as 0
    srq = SRQ(env.pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
    qp = make_qp(env, e.IBV_QPT_RC, srq=srq, max_recv_wr=d.max_qp_wr + 1,
                 max_recv_sge=d.max_sge + 1)
    _, init = qp.query(0x1fffff)
    if init.cap.max_recv_wr or init.cap.max_recv_sge:
        raise AssertionError(f"QP on SRQ reports receive caps "
                             f"{init.cap.max_recv_wr}/{init.cap.max_recv_sge}")
    print("ok: QP on an SRQ ignores the receive caps")
    qp.close()
    srq.close()


# --- states ----------------------------------------------------------------

RW = e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
RWA = RW | e.IBV_ACCESS_REMOTE_ATOMIC


def to_init(qp, qpt):
    if qpt == e.IBV_QPT_UD:
        modify(qp, qp_state=e.IBV_QPS_INIT, pkey_index=0, port_num=1,
               qkey=0x11111111)
    else:
        modify(qp, qp_state=e.IBV_QPS_INIT, pkey_index=0, port_num=1,
               qp_access_flags=RW if qpt == e.IBV_QPT_RC else
               e.IBV_ACCESS_REMOTE_WRITE)


def rtr_fields(env, qp, qpt):
    if qpt == e.IBV_QPT_UD:
        return {}
    f = dict(ah_attr=av(env), path_mtu=e.IBV_MTU_1024,
             dest_qp_num=qp.qp_num, rq_psn=0x123456)
    if qpt == e.IBV_QPT_RC:
        f.update(max_dest_rd_atomic=16, min_rnr_timer=12)
    return f


def rts_fields(qpt):
    f = dict(sq_psn=0xabcdef)
    if qpt == e.IBV_QPT_RC:
        f.update(timeout=14, retry_cnt=7, rnr_retry=7, max_rd_atomic=8)
    return f


def to_state(env, qp, qpt, state):
    """RESET -> ... -> @state along the usual path"""
    if state == e.IBV_QPS_RESET:
        return
    to_init(qp, qpt)
    if state == e.IBV_QPS_INIT:
        return
    modify(qp, qp_state=e.IBV_QPS_RTR, **rtr_fields(env, qp, qpt))
    if state == e.IBV_QPS_RTR:
        return
    modify(qp, qp_state=e.IBV_QPS_RTS, **rts_fields(qpt))
    if state == e.IBV_QPS_RTS:
        return
    if state == e.IBV_QPS_SQD:
        modify(qp, qp_state=e.IBV_QPS_SQD)
    elif state == e.IBV_QPS_ERR:
        modify(qp, qp_state=e.IBV_QPS_ERR)


def walk(env, qpt):
    n = TYPE_NAMES[qpt]
    qp = make_qp(env, qpt)
    check(qp, f"{n} new", qp_state=e.IBV_QPS_RESET)
    step(qp, f"{n} RESET -> RESET", qp_state=e.IBV_QPS_RESET)
    if qpt == e.IBV_QPT_UD:
        step(qp, f"{n} RESET -> INIT", qp_state=e.IBV_QPS_INIT,
             pkey_index=0, port_num=1, qkey=0x11111111)
        step(qp, f"{n} INIT -> INIT", qp_state=e.IBV_QPS_INIT,
             qkey=0x22222222, pkey_index=0, port_num=1)
        step(qp, f"{n} INIT -> RTR", qp_state=e.IBV_QPS_RTR, qkey=0x33333333)
        step(qp, f"{n} RTR -> RTS", qp_state=e.IBV_QPS_RTS, sq_psn=0xabcdef,
             qkey=0x44444444)
        step(qp, f"{n} RTS -> RTS", qp_state=e.IBV_QPS_RTS,
             cur_qp_state=e.IBV_QPS_RTS, qkey=0x55555555)
        sqd_sqd = dict(qkey=0x66666666, pkey_index=0)
        sqd_rts = dict(cur_qp_state=e.IBV_QPS_SQD, qkey=0x77777777)
    else:
        access = RW if qpt == e.IBV_QPT_RC else e.IBV_ACCESS_REMOTE_WRITE
        step(qp, f"{n} RESET -> INIT", qp_state=e.IBV_QPS_INIT,
             pkey_index=0, port_num=1, qp_access_flags=access)
        step(qp, f"{n} INIT -> INIT", qp_state=e.IBV_QPS_INIT,
             qp_access_flags=RWA if qpt == e.IBV_QPT_RC else 0)
        rtr = rtr_fields(env, qp, qpt)
        rtr['ah_attr'] = av(env, traffic_class=32, flow_label=0x12345)
        step(qp, f"{n} INIT -> RTR", qp_state=e.IBV_QPS_RTR,
             qp_access_flags=access, pkey_index=0, **rtr)
        rts = rts_fields(qpt)
        if qpt == e.IBV_QPT_RC:
            rts.update(min_rnr_timer=3)
        step(qp, f"{n} RTR -> RTS", qp_state=e.IBV_QPS_RTS,
             cur_qp_state=e.IBV_QPS_RTR, path_mig_state=e.IBV_MIG_MIGRATED,
             **rts)
        rts_rts = dict(qp_access_flags=access)
        if qpt == e.IBV_QPT_RC:
            rts_rts.update(min_rnr_timer=20)
        step(qp, f"{n} RTS -> RTS", qp_state=e.IBV_QPS_RTS,
             cur_qp_state=e.IBV_QPS_RTS, **rts_rts)
        sqd_sqd = dict(qp_access_flags=access, pkey_index=0)
        if qpt == e.IBV_QPT_RC:
            # ib_uverbs adds IB_QP_PORT to an AV change outside INIT ->
            # RTR, which ib_core's table allows in SQD -> SQD for RC only
            sqd_sqd.update(ah_attr=av(env, traffic_class=64,
                                      flow_label=0x54321),
                           timeout=20, retry_cnt=3, rnr_retry=5,
                           max_rd_atomic=4, max_dest_rd_atomic=32, port_num=1)
        sqd_rts = dict(cur_qp_state=e.IBV_QPS_SQD)
    step(qp, f"{n} RTS -> SQD", qp_state=e.IBV_QPS_SQD, en_sqd_async_notify=0)
    check(qp, f"{n} SQD drained", sq_draining=0)
    step(qp, f"{n} SQD -> SQD", qp_state=e.IBV_QPS_SQD, **sqd_sqd)
    step(qp, f"{n} SQD -> RTS", qp_state=e.IBV_QPS_RTS, **sqd_rts)
    step(qp, f"{n} RTS -> ERR", qp_state=e.IBV_QPS_ERR)
    step(qp, f"{n} ERR -> RESET", qp_state=e.IBV_QPS_RESET)
    # after RESET the QP starts over
    to_state(env, qp, qpt, e.IBV_QPS_RTS)
    check(qp, f"{n} RTS again", qp_state=e.IBV_QPS_RTS)
    print(f"ok: {n} RESET -> ... -> RTS again")
    qp.close()

    # the transitions to RESET and ERR from every state
    for start in (e.IBV_QPS_INIT, e.IBV_QPS_RTR, e.IBV_QPS_RTS,
                  e.IBV_QPS_SQD, e.IBV_QPS_ERR):
        for target in (e.IBV_QPS_RESET, e.IBV_QPS_ERR):
            qp = make_qp(env, qpt)
            to_state(env, qp, qpt, start)
            step(qp, f"{n} {STATE_NAMES[start]} -> {STATE_NAMES[target]}",
                 qp_state=target)
            qp.close()


def t_states(env):
    for qpt in (e.IBV_QPT_RC, e.IBV_QPT_UC, e.IBV_QPT_UD):
        walk(env, qpt)


# --- errors ----------------------------------------------------------------

def t_errors(env):
    rc = e.IBV_QPT_RC
    qp = make_qp(env, rc)
    # illegal transitions, with the attributes the target would take
    for target, fields in (
            (e.IBV_QPS_RTR, rtr_fields(env, qp, rc)),
            (e.IBV_QPS_RTS, rts_fields(rc)),
            (e.IBV_QPS_SQD, {}),
            (e.IBV_QPS_ERR, {})):
        expect_modify(errno.EINVAL, qp, f"RESET -> {STATE_NAMES[target]}",
                      qp_state=target, **fields)
    to_init(qp, rc)
    expect_modify(errno.EINVAL, qp, "INIT -> RTS", qp_state=e.IBV_QPS_RTS,
                  **rts_fields(rc))
    expect_modify(errno.EINVAL, qp, "INIT -> SQD", qp_state=e.IBV_QPS_SQD)
    modify(qp, qp_state=e.IBV_QPS_RTR, **rtr_fields(env, qp, rc))
    expect_modify(errno.EINVAL, qp, "RTR -> SQD", qp_state=e.IBV_QPS_SQD)
    expect_modify(errno.EINVAL, qp, "RTR -> INIT", qp_state=e.IBV_QPS_INIT)
    expect_modify(errno.EINVAL, qp, "RTR -> RTS with current state RTS",
                  qp_state=e.IBV_QPS_RTS, cur_qp_state=e.IBV_QPS_RTS,
                  **rts_fields(rc))
    expect_modify(errno.EOPNOTSUPP, qp, "RTR -> RTS path_mig_state REARM",
                  qp_state=e.IBV_QPS_RTS, path_mig_state=e.IBV_MIG_REARM,
                  **rts_fields(rc))
    modify(qp, qp_state=e.IBV_QPS_RTS, **rts_fields(rc))
    expect_modify(errno.EINVAL, qp, "RTS -> INIT", qp_state=e.IBV_QPS_INIT)
    expect_modify(errno.EINVAL, qp, "RTS -> RTR", qp_state=e.IBV_QPS_RTR)
    expect_modify(errno.EINVAL, qp, "RTS -> RTS with PATH_MTU",
                  qp_state=e.IBV_QPS_RTS, path_mtu=e.IBV_MTU_1024)
    modify(qp, qp_state=e.IBV_QPS_ERR)
    expect_modify(errno.EINVAL, qp, "ERR -> INIT", qp_state=e.IBV_QPS_INIT)
    expect_modify(errno.EINVAL, qp, "ERR -> RTS", qp_state=e.IBV_QPS_RTS)
    qp.close()

    # wrong attribute masks
    qp = make_qp(env, rc)
    expect_modify(errno.EINVAL, qp, "RC RESET -> INIT without PORT",
                  qp_state=e.IBV_QPS_INIT, pkey_index=0, qp_access_flags=RW)
    expect_modify(errno.EINVAL, qp, "RC RESET -> INIT with QKEY",
                  qp_state=e.IBV_QPS_INIT, pkey_index=0, port_num=1,
                  qp_access_flags=RW, qkey=1)
    expect_modify(errno.EINVAL, qp, "RESET -> INIT with CUR_STATE",
                  qp_state=e.IBV_QPS_INIT, cur_qp_state=e.IBV_QPS_RESET,
                  pkey_index=0, port_num=1, qp_access_flags=RW)
    expect_modify(errno.EINVAL, qp, "attributes without a state in RESET",
                  qp_access_flags=RW)
    to_init(qp, rc)
    f = rtr_fields(env, qp, rc)
    del f['min_rnr_timer']
    expect_modify(errno.EINVAL, qp, "RC INIT -> RTR without MIN_RNR_TIMER",
                  qp_state=e.IBV_QPS_RTR, **f)
    f = rtr_fields(env, qp, rc)
    expect_modify(errno.EINVAL, qp, "RC INIT -> RTR with SQ_PSN",
                  qp_state=e.IBV_QPS_RTR, sq_psn=1, **f)
    modify(qp, qp_state=e.IBV_QPS_RTR, **f)
    f = rts_fields(rc)
    del f['sq_psn']
    expect_modify(errno.EINVAL, qp, "RC RTR -> RTS without SQ_PSN",
                  qp_state=e.IBV_QPS_RTS, **f)
    qp.close()
    ud = make_qp(env, e.IBV_QPT_UD)
    expect_modify(errno.EINVAL, ud, "UD RESET -> INIT with ACCESS_FLAGS",
                  qp_state=e.IBV_QPS_INIT, pkey_index=0, port_num=1, qkey=1,
                  qp_access_flags=RW)
    expect_modify(errno.EINVAL, ud, "UD RESET -> INIT without QKEY",
                  qp_state=e.IBV_QPS_INIT, pkey_index=0, port_num=1)
    to_init(ud, e.IBV_QPT_UD)
    expect_modify(errno.EINVAL, ud, "UD INIT -> RTR with AV",
                  qp_state=e.IBV_QPS_RTR, ah_attr=av(env))
    ud.close()

    # bad values in legal transitions
    def init_with(**over):
        fields = dict(qp_state=e.IBV_QPS_INIT, pkey_index=0, port_num=1,
                      qp_access_flags=RW)
        fields.update(over)
        return fields

    qp = make_qp(env, rc)
    for what, over in (("pkey_index 1", dict(pkey_index=1)),
                       ("port_num 2", dict(port_num=2)),
                       ("access flags with MW_BIND",
                        dict(qp_access_flags=RW | e.IBV_ACCESS_MW_BIND))):
        expect_modify(errno.EINVAL, qp, f"RESET -> INIT {what}",
                      **init_with(**over))
    to_init(qp, rc)
    for what, over, err in (
            ("path_mtu 7", dict(path_mtu=7), errno.EINVAL),
            ("dest_qp_num 2^24", dict(dest_qp_num=1 << 24), errno.EINVAL),
            ("max_dest_rd_atomic 129", dict(max_dest_rd_atomic=129),
             errno.EINVAL),
            ("min_rnr_timer 32", dict(min_rnr_timer=32), errno.EINVAL),
            ("AV without GRH", dict(ah_attr=av(env, is_global=0)),
             errno.EINVAL),
            ("AV sl 16", dict(ah_attr=av(env, sl=16)), errno.EINVAL),
            ("AV multicast dgid", dict(ah_attr=av(
                env, gid='ff0e:0000:0000:0000:0000:0000:0001:0002')),
             errno.EINVAL),
            # ib_core finds no GID there before asking us
            ("AV sgid_index 250 (empty)",
             dict(ah_attr=av(env, sgid_index=250)), errno.ENODATA)):
        f = rtr_fields(env, qp, rc)
        f.update(over)
        expect_modify(err, qp, f"INIT -> RTR {what}",
                      qp_state=e.IBV_QPS_RTR, **f)

    # a path MTU above the active MTU is kept as set (IBTA bounds it by
    # the port's MTU cap, 4096); the transport uses the smaller one
    f = rtr_fields(env, qp, rc)
    f['path_mtu'] = e.IBV_MTU_4096
    step(qp, "INIT -> RTR path_mtu 4096 above the active MTU",
         qp_state=e.IBV_QPS_RTR, **f)
    for what, over in (("max_rd_atomic 129", dict(max_rd_atomic=129)),
                       ("retry_cnt 8", dict(retry_cnt=8)),
                       ("rnr_retry 8", dict(rnr_retry=8)),
                       ("timeout 32", dict(timeout=32))):
        f = rts_fields(rc)
        f.update(over)
        expect_modify(errno.EINVAL, qp, f"RTR -> RTS {what}",
                      qp_state=e.IBV_QPS_RTS, **f)
    check(qp, "still RTR after refused modifies", qp_state=e.IBV_QPS_RTR)
    # PSNs are 24 bits: ib_core masks larger values (with a warning)
    f = rts_fields(rc)
    f['sq_psn'] = 0x1abcdef
    modify(qp, qp_state=e.IBV_QPS_RTS, **f)
    check(qp, "sq_psn masked to 24 bits", sq_psn=0xabcdef)
    print("ok: sq_psn 0x1abcdef masked to 0xabcdef")
    qp.close()

    # What the IBTA, ib_core and RoCE NICs take is taken.  The flow label
    # is a 20-bit field that the verbs carry in 32 bits: UCX passes ~0 on
    # RoCE, and Soft-RoCE and NICs use its low 20 bits, as query_qp then
    # shows.  Each on a QP of its own: RTR is reached once.
    for what, over, shown in (
            ("flow_label 0xffffffff (UCX)", dict(flow_label=0xffffffff),
             dict(flow_label=0xfffff)),
            ("flow_label 0x123456", dict(flow_label=0x123456),
             dict(flow_label=0x23456)),
            # (no hop limit: ib_core puts the route's into a user AV)
            ("traffic_class 255", dict(traffic_class=255), {}),
            ("traffic_class 106 (UCX)", dict(traffic_class=106), {}),
            ("sl 15", dict(sl=15), {}),
            ("static_rate 7 (recorded)", dict(static_rate=7), {})):
        qp = make_qp(env, rc)
        to_init(qp, rc)
        f = rtr_fields(env, qp, rc)
        f['ah_attr'] = av(env, **over)
        modify(qp, qp_state=e.IBV_QPS_RTR, **f)
        f['ah_attr'] = av(env, **dict(over, **shown))
        check(qp, f"INIT -> RTR {what}", qp_state=e.IBV_QPS_RTR, **f)
        print(f"ok: INIT -> RTR {what}: accepted")
        qp.close()

    # a controlled Q_Key is fine with CAP_NET_RAW (see qkey-unpriv)
    ud = make_qp(env, e.IBV_QPT_UD)
    step(ud, "UD controlled Q_Key with CAP_NET_RAW", qp_state=e.IBV_QPS_INIT,
         pkey_index=0, port_num=1, qkey=0x80010000)
    ud.close()


def t_qkey_unpriv(env):
    ud = make_qp(env, e.IBV_QPT_UD)
    expect_modify(errno.EPERM, ud, "controlled Q_Key without CAP_NET_RAW",
                  qp_state=e.IBV_QPS_INIT, pkey_index=0, port_num=1,
                  qkey=0x80010000)
    step(ud, "ordinary Q_Key without CAP_NET_RAW", qp_state=e.IBV_QPS_INIT,
         pkey_index=0, port_num=1, qkey=0x10000)
    ud.close()


# --- flush -----------------------------------------------------------------

def sge(env):
    """one 8-byte SGE (pyverbs wants at least one per WR)"""
    if not hasattr(env, 'mr'):
        env.mr = MR(env.pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
    return [SGE(env.mr.buf, 8, env.mr.lkey)]


def post_recvs(env, qp, ids):
    for i in ids:
        qp.post_recv(RecvWR(wr_id=i, num_sge=1, sg=sge(env)))


def post_sends(env, qp, ids, ah=None):
    for i in ids:
        wr = SendWR(wr_id=i, opcode=e.IBV_WR_SEND, num_sge=1, sg=sge(env),
                    send_flags=0)
        if ah is not None:
            wr.set_wr_ud(ah, qp.qp_num, 0x11111111)
        qp.post_send(wr)


def poll_all(cq, want, what, timeout=5):
    """poll until @want completions arrived (or timeout); return them"""
    wcs = []
    end = time.time() + timeout
    while len(wcs) < want and time.time() < end:
        n, got = cq.poll(want - len(wcs))
        wcs += got[:n]
        if not n:
            time.sleep(0.01)
    time.sleep(0.1)
    n, extra = cq.poll(16)
    if n:
        raise AssertionError(f"{what}: {n} completions more than {want}")
    if len(wcs) != want:
        raise AssertionError(f"{what}: {len(wcs)} completions, want {want}")
    return wcs


def check_flushed(wcs, ids, what):
    got = [(wc.wr_id, wc.status) for wc in wcs]
    want = [(i, e.IBV_WC_WR_FLUSH_ERR) for i in ids]
    if got != want:
        raise AssertionError(f"{what}: completions {got}, want {want}")
    print(f"ok: {what}: {len(ids)} flushed in order")


def own_qp(env, qpt, sig_all):
    """a QP of @qpt with CQs of its own and, for UD, an AH to itself;
    returns (init attributes, QP, send CQ, receive CQ, AH or None)"""
    from pyverbs.addr import AH
    scq, rcq = CQ(env.ctx, 64), CQ(env.ctx, 64)
    init = QPInitAttr(qp_type=qpt, scq=scq, rcq=rcq,
                      cap=QPCap(max_send_wr=16, max_recv_wr=16,
                                max_send_sge=1, max_recv_sge=1),
                      sq_sig_all=sig_all)
    ah = AH(env.pd, attr=av(env)) if qpt == e.IBV_QPT_UD else None
    return init, QP(env.pd, init), scq, rcq, ah


def t_flush(env):
    from pyverbs.addr import AH
    for qpt in (e.IBV_QPT_RC, e.IBV_QPT_UD):
        n = TYPE_NAMES[qpt]
        init, qp, scq, rcq, ah = own_qp(env, qpt, 0)
        to_state(env, qp, qpt, e.IBV_QPS_INIT)
        post_recvs(env, qp, range(100, 105))
        to_state_from_init(env, qp, qpt)
        # SQD: the transport starts nothing new, so the sends wait in the
        # SQ (in RTS they would go out) and nothing completes before ERR
        modify(qp, qp_state=e.IBV_QPS_SQD)
        post_sends(env, qp, range(200, 203), ah=ah)
        time.sleep(0.2)
        if scq.poll(1)[0] or rcq.poll(1)[0]:
            raise AssertionError(f"{n}: completions before ERR")
        modify(qp, qp_state=e.IBV_QPS_ERR)
        check_flushed(poll_all(rcq, 5, f"{n} RQ"), range(100, 105),
                      f"{n} ERR flushes the RQ")
        check_flushed(poll_all(scq, 3, f"{n} SQ"), range(200, 203),
                      f"{n} ERR flushes the SQ (unsignaled WRs too)")
        # in ERR: receives go into the ring without a system call and are
        # flushed at the next kernel entry, here the send doorbell
        post_recvs(env, qp, (300, 301))
        post_sends(env, qp, (400,), ah=ah)
        check_flushed(poll_all(scq, 1, f"{n} SQ in ERR"), (400,),
                      f"{n} send posted in ERR")
        check_flushed(poll_all(rcq, 2, f"{n} RQ in ERR"), (300, 301),
                      f"{n} receives posted in ERR, at the doorbell")
        qp.close()
        if ah:
            ah.close()

        # destroy with WRs posted: discarded, no completion names the QP
        qp = QP(env.pd, init)
        ah = AH(env.pd, attr=av(env)) if qpt == e.IBV_QPT_UD else None
        to_state(env, qp, qpt, e.IBV_QPS_INIT)
        post_recvs(env, qp, range(500, 508))
        to_state_from_init(env, qp, qpt)
        modify(qp, qp_state=e.IBV_QPS_SQD)	# the sends stay posted
        post_sends(env, qp, range(600, 610), ah=ah)
        qp.close()
        time.sleep(0.2)
        if scq.poll(1)[0] or rcq.poll(1)[0]:
            raise AssertionError(f"{n}: completions after destroy")
        print(f"ok: {n} destroy with posted WRs completes nothing")
        if ah:
            ah.close()
        scq.close()
        rcq.close()


def t_early(env):
    """IBTA 10.3.1: a send WR posted in RESET, INIT or RTR is an immediate
    error.  librxe writes the WQE into the ring before it rings the
    doorbell; the doorbell's EINVAL must mean it never runs, not even once
    the QP reaches RTS (else it would run long after its poster was told
    it failed)."""
    for qpt in (e.IBV_QPT_RC, e.IBV_QPT_UD):
        n = TYPE_NAMES[qpt]
        _, qp, scq, rcq, ah = own_qp(env, qpt, 1)
        # room for a UD receive's 40-byte GRH before the 8 bytes sent
        rmr = MR(env.pd, 128, e.IBV_ACCESS_LOCAL_WRITE)
        wr_id = 700
        for state in (e.IBV_QPS_RESET, e.IBV_QPS_INIT, e.IBV_QPS_RTR):
            if state == e.IBV_QPS_INIT:
                to_init(qp, qpt)
                for i in range(100, 104):
                    qp.post_recv(RecvWR(wr_id=i, num_sge=1,
                                        sg=[SGE(rmr.buf, 128, rmr.lkey)]))
            elif state == e.IBV_QPS_RTR:
                modify(qp, qp_state=e.IBV_QPS_RTR,
                       **rtr_fields(env, qp, qpt))
            expect_errno(errno.EINVAL,
                         lambda: post_sends(env, qp, (wr_id,), ah=ah),
                         f"{n} send posted in {STATE_NAMES[state]}")
            wr_id += 1
        # connected to itself: the send PSN must be the expected one
        modify(qp, qp_state=e.IBV_QPS_RTS,
               **dict(rts_fields(qpt), sq_psn=0x123456))
        time.sleep(0.1)
        if scq.poll(1)[0] or rcq.poll(1)[0]:
            raise AssertionError(f"{n}: a refused send ran on entering RTS")
        post_sends(env, qp, (800,), ah=ah)
        wcs = poll_all(scq, 1, f"{n} SQ")
        if (wcs[0].wr_id, wcs[0].status) != (800, e.IBV_WC_SUCCESS):
            raise AssertionError(f"{n}: send completion {wcs[0].wr_id} "
                                 f"status {wcs[0].status}, want 800 success")
        wcs = poll_all(rcq, 1, f"{n} RQ")
        if (wcs[0].wr_id, wcs[0].status) != (100, e.IBV_WC_SUCCESS):
            raise AssertionError(f"{n}: receive {wcs[0].wr_id} status "
                                 f"{wcs[0].status}, want 100 success")
        # a RoCEv2 datagram's CQE: GRH, and the packet type in sl as RoCE
        # NICs report it (UDP | IPv4: 0xa; uapi/softverbs-abi.h)
        if qpt == e.IBV_QPT_UD and (not wcs[0].wc_flags & e.IBV_WC_GRH or
                                    wcs[0].sl != 0xa):
            raise AssertionError(f"{n}: receive wc_flags {wcs[0].wc_flags:#x}"
                                 f" sl {wcs[0].sl:#x}, want GRH and 0xa")
        print(f"ok: {n} sends refused before RTS never ran; the first send "
              "in RTS is the only one")
        qp.close()
        if ah:
            ah.close()
        rmr.close()
        scq.close()
        rcq.close()


def t_toolong(env):
    for qpt in (e.IBV_QPT_UD, e.IBV_QPT_UC):
        n = TYPE_NAMES[qpt]
        _, qp, scq, rcq, ah = own_qp(env, qpt, 1)
        grh = 40 if qpt == e.IBV_QPT_UD else 0
        # receive buffer at 0, what is sent from 2048 (up to 3000 bytes)
        mr = MR(env.pd, 8192, e.IBV_ACCESS_LOCAL_WRITE)
        mr.write(bytes(range(256)) * 8, 2048, 2048)
        to_init(qp, qpt)
        # one receive of room for 16 bytes of payload
        qp.post_recv(RecvWR(wr_id=100, num_sge=1,
                            sg=[SGE(mr.buf, grh + 16, mr.lkey)]))
        to_state_from_init(env, qp, qpt, same_psn=True)

        def send(wr_id, length):
            wr = SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND, num_sge=1,
                        sg=[SGE(mr.buf + 2048, length, mr.lkey)])
            if ah is not None:
                wr.set_wr_ud(ah, qp.qp_num, 0x11111111)
            qp.post_send(wr)
            wcs = poll_all(scq, 1, f"{n} send of {length} bytes")
            if wcs[0].status != e.IBV_WC_SUCCESS:
                raise AssertionError(f"{n}: send status {wcs[0].status}")

        # longer than the receive, one packet and (UC) three packets
        for i, length in enumerate((17, 1000, 3000 if qpt == e.IBV_QPT_UC
                                    else 1000)):
            send(200 + i, length)
        time.sleep(0.2)
        n_got, wcs = rcq.poll(1)
        if n_got:
            raise AssertionError(f"{n}: a too long message completed the "
                                 f"receive: status {wcs[0].status}")
        send(300, 16)
        wcs = poll_all(rcq, 1, f"{n} receive")
        if (wcs[0].wr_id, wcs[0].status, wcs[0].byte_len) != \
                (100, e.IBV_WC_SUCCESS, grh + 16):
            raise AssertionError(f"{n}: receive {wcs[0].wr_id} status "
                                 f"{wcs[0].status} {wcs[0].byte_len} bytes")
        if mr.read(16, grh) != (bytes(range(256)) * 8)[:16]:
            raise AssertionError(f"{n}: received data differs")
        print(f"ok: {n} messages longer than the receive dropped, the "
              "receive kept for the next one")
        qp.close()
        if ah:
            ah.close()
        mr.close()
        scq.close()
        rcq.close()


def to_state_from_init(env, qp, qpt, same_psn=False):
    modify(qp, qp_state=e.IBV_QPS_RTR, **rtr_fields(env, qp, qpt))
    f = rts_fields(qpt)
    if same_psn:
        # connected to itself: the send PSN is the one it expects
        f['sq_psn'] = rtr_fields(env, qp, qpt).get('rq_psn', 0)
    modify(qp, qp_state=e.IBV_QPS_RTS, **f)


# --- events ----------------------------------------------------------------

def async_fds():
    """the process's uverbs event files (the async event file among them)"""
    fds = []
    for fd in os.listdir('/proc/self/fd'):
        try:
            if os.readlink(f'/proc/self/fd/{fd}') == \
                    'anon_inode:[infinibandevent]':
                fds.append(int(fd))
        except OSError:
            pass
    return fds


def wait_event(ctx, timeout):
    """the next async event type of @ctx, or None after @timeout seconds

    pyverbs blocks in ibv_get_async_event() without releasing the GIL, so
    wait for the event file to become readable first.  The event is acked
    here: libibverbs' destroy_qp waits until every event of the QP is.
    """
    ready, _, _ = select.select(async_fds(), [], [], timeout)
    if not ready:
        return None
    ev = ctx.get_async_event()
    code = ev.event_type
    ev.ack()
    return code


def t_events(env):
    rc = e.IBV_QPT_RC
    qp = make_qp(env, rc)
    to_state(env, qp, rc, e.IBV_QPS_RTS)
    # nothing in flight (sends in RTS would go out to a peer that never
    # answers and keep the SQ from draining until their retries ran out)
    modify(qp, qp_state=e.IBV_QPS_SQD, en_sqd_async_notify=1)
    ev = wait_event(env.ctx, 5)
    if ev != e.IBV_EVENT_SQ_DRAINED:
        raise AssertionError(f"SQD: event {ev}, want SQ_DRAINED")
    print("ok: RTS -> SQD reports SQ_DRAINED")
    modify(qp, qp_state=e.IBV_QPS_RTS)
    modify(qp, qp_state=e.IBV_QPS_SQD, en_sqd_async_notify=0)
    ev = wait_event(env.ctx, 1)
    if ev is not None:
        raise AssertionError(f"SQD without notify: event {ev}")
    print("ok: no SQ_DRAINED when not asked for")
    qp.close()

    srq = SRQ(env.pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
    qp = make_qp(env, rc, srq=srq)
    to_state(env, qp, rc, e.IBV_QPS_RTS)
    modify(qp, qp_state=e.IBV_QPS_ERR)
    ev = wait_event(env.ctx, 5)
    if ev != e.IBV_EVENT_QP_LAST_WQE_REACHED:
        raise AssertionError(f"SRQ QP to ERR: event {ev}, "
                             "want QP_LAST_WQE_REACHED")
    print("ok: a QP on an SRQ entering ERR reports LAST_WQE_REACHED")
    qp.close()
    srq.close()


# --- hold ------------------------------------------------------------------

def t_hold(env, count):
    from pyverbs.addr import AH
    held = []
    ah = AH(env.pd, attr=av(env))
    srq = SRQ(env.pd, SrqInitAttr(SrqAttr(max_wr=16, max_sge=1)))
    held += [ah, srq]
    types = (e.IBV_QPT_RC, e.IBV_QPT_UC, e.IBV_QPT_UD)
    for i in range(count):
        qpt = types[i % 3]
        qp = make_qp(env, qpt, srq=srq if i % 4 == 3 else None)
        to_state(env, qp, qpt, e.IBV_QPS_INIT)
        if i % 4 != 3:
            post_recvs(env, qp, range(4))
        if i % 2:
            to_state_from_init(env, qp, qpt)
            post_sends(env, qp, range(4), ah=ah if qpt == e.IBV_QPT_UD else None)
        held.append(qp)
    print("ready", flush=True)
    while True:
        time.sleep(60)


def hold(dev, gid4, count):
    t_hold(Env(dev, int(gid4)), count)


CASES = {'caps': t_caps, 'states': t_states, 'errors': t_errors,
         'early': t_early, 'toolong': t_toolong, 'flush': t_flush,
         'events': t_events, 'qkey-unpriv': t_qkey_unpriv}


def case(dev, gid4, test):
    if test not in CASES:
        raise SystemExit(f"unknown test {test}")
    # each case on its own Env (context, PD, CQ)
    env = Env(dev, int(gid4))
    CASES[test](env)
    # closes what the case left open, as its process exit did
    env.ctx.close()


if __name__ == '__main__':
    svspawn.main(case, hold, lead=2)
