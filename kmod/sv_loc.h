/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verbs entry points (struct ib_device_ops in sv_dev.c) and what the
 * object files call of each other, grouped by the file that defines them.
 * Included through sv.h.  What the transport calls is in sv_xport_obj.h.
 */
#ifndef SV_LOC_H
#define SV_LOC_H

#include <rdma/ib_verbs.h>

#include "compat/compat.h"

/* sv_ucontext.c */
int sv_ucontext_alloc(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sv_ucontext_dealloc(struct ib_ucontext *ibuc);
void sv_ucontext_disassociate(struct ib_ucontext *ibuc);
int sv_ucontext_charge(struct sv_ucontext *uc, size_t bytes);
void sv_ucontext_uncharge(struct sv_ucontext *uc, size_t bytes);

/* sv_xrcd.c */
int sv_xrcd_alloc(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int sv_xrcd_dealloc(struct ib_xrcd *ibxrcd, struct ib_udata *udata);

/* sv_pd.c */
int sv_pd_alloc(struct ib_pd *ibpd, struct ib_udata *udata);
int sv_pd_dealloc(struct ib_pd *ibpd, struct ib_udata *udata);

/* sv_cq.c */
int sv_cq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		 sv_create_cq_arg_t arg);
int sv_cq_destroy(struct ib_cq *ibcq, struct ib_udata *udata);
int sv_cq_resize(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sv_cq_poll(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int sv_cq_req_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* sv_srq.c */
int sv_srq_create(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		  struct ib_udata *udata);
int sv_srq_modify(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		  enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sv_srq_query(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sv_srq_destroy(struct ib_srq *ibsrq, struct ib_udata *udata);
int sv_srq_post_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);

/* sv_cntr.c (the ib_core entry points: compat/sv_compat_cntr.h) */
void sv_cntr_qp_detach(struct sv_qp *qp);

/* sv_qp.c */
int sv_qp_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		 struct ib_udata *udata);
int sv_qp_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_udata *udata);
int sv_qp_query(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		struct ib_qp_init_attr *init);
int sv_qp_destroy(struct ib_qp *ibqp, struct ib_udata *udata);
int sv_qp_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sv_qp_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

/*
 * sv_wqe.c, for posting (sv_qp.c): check a kernel consumer's send work
 * request against the QP and sum its SGE lengths into *@length
 * (@flush_err: the SQ flushes, any known opcode will do); write a checked
 * send WR, or check and write a receive WR, as the next ring slot, under
 * the work queue's producer lock with the queue not full (a full RQ:
 * -ENOMEM).
 */
int sv_wqe_check_send_wr(struct sv_qp *qp, const struct ib_send_wr *wr,
			 bool flush_err, u64 *length);
void sv_wqe_write_send(struct sv_qp *qp, const struct ib_send_wr *wr,
		       u32 length);
int sv_wqe_write_recv(struct sv_qp *qp, const struct ib_recv_wr *wr);

/* sv_av.c */
struct sv_path *sv_path_create(struct sv_dev *sv,
			       const struct rdma_ah_attr *attr,
			       unsigned int flags, gfp_t gfp);
void sv_path_free(struct sv_path *path);
void sv_path_free_rcu(struct sv_path *path);
int sv_ah_create(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		 struct ib_udata *udata);
int sv_ah_query(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int sv_ah_destroy(struct ib_ah *ibah, u32 flags);

/* sv_mcast.c: multicast groups of UD QPs */
int sv_mcast_attach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int sv_mcast_detach(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
void sv_mcast_detach_all(struct sv_qp *qp);

/* sv_mr.c */
struct ib_mr *sv_mr_get_dma(struct ib_pd *ibpd, int access);
struct ib_mr *sv_mr_reg_user(struct ib_pd *ibpd, u64 start, u64 length,
			     u64 iova, int access, struct ib_udata *udata);
struct ib_mr *sv_mr_rereg_user(struct ib_mr *ibmr, int flags, u64 start,
			       u64 length, u64 iova, int access,
			       struct ib_pd *pd, struct ib_udata *udata);
int sv_mr_dereg(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *sv_mr_reg_dmabuf(struct ib_pd *ibpd, u64 offset, u64 length,
			       u64 iova, int fd, int access,
			       sv_reg_dmabuf_arg_t arg);
int sv_mr_advise(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		 u32 flags, struct ib_sge *sg_list, u32 num_sge,
		 struct uverbs_attr_bundle *attrs);
struct ib_mr *sv_mr_alloc_fast(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg);
int sv_mr_map_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset);

/* sv_mw.c */
int sv_mw_alloc(struct ib_mw *ibmw, struct ib_udata *udata);
int sv_mw_dealloc(struct ib_mw *ibmw);
/*
 * The QP of @binds is being destroyed, its requester stopped: every type 2
 * window bound to it goes back to Free (nothing else could use it, and its
 * MR can be deregistered again).  Work bounded by those windows.
 */
void sv_mw_invalidate_qp(struct sv_mw_binds *binds);

#endif /* SV_LOC_H */
