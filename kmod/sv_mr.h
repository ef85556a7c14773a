/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The MR room's inside: what sv_mr.c (MR objects, their copies and
 * atomics) and sv_mr_odp.c (ODP MRs) call of each other.  Included by
 * those two files only, after sv_xport_obj.h.
 */
#ifndef SV_MR_H
#define SV_MR_H

/*
 * sv_mr.c gives the MR's life cycle and the atomic operation itself,
 * sv_mr_odp.c the ODP kind's creation, release, copy and atomic.  Process
 * context but for the copies and atomics (any context, as sv_mr_copy()
 * and sv_mr_atomic()).
 */
struct sv_mr *sv_mr_alloc(struct sv_dev *sv, struct ib_pd *pd,
			  enum sv_mr_kind kind, int access);
void sv_mr_free(struct sv_mr *mr);
u64 sv_mr_do_atomic(u64 *p, enum sv_atomic_op op, u64 compare_add, u64 swap);
struct sv_mr *sv_mr_odp_create(struct sv_dev *sv, struct ib_pd *pd, u64 start,
			       u64 length, u64 iova, int access);
void sv_mr_odp_release(struct sv_mr *mr);
int sv_mr_copy_odp(struct sv_mr *mr, u64 iova, void *buf, u32 len,
		   enum sv_copy_dir dir);
int sv_mr_atomic_odp(struct sv_mr *mr, u64 iova, enum sv_atomic_op op,
		     u64 compare_add, u64 swap, u64 *orig);

/*
 * A user MR's extent: its length in [1, SV_MAX_MR_SIZE] and its iova
 * range not wrapping.  Return: 0, or -EINVAL.
 */
static inline int sv_mr_check_extent(struct sv_dev *sv, u64 length, u64 iova)
{
	if (!length || length > SV_MAX_MR_SIZE) {
		sv_dbg_dev(sv, "MR length %llu not in [1, %llu]\n", length,
			   SV_MAX_MR_SIZE);
		return -EINVAL;
	}
	return iova + length - 1 < iova ? -EINVAL : 0;
}

/*
 * sv_mr_alloc() for a user MR of @length bytes at @iova, once its extent
 * passed sv_mr_check_extent().  Return: the MR, or ERR_PTR().
 */
static inline struct sv_mr *sv_mr_alloc_extent(struct sv_dev *sv,
					       struct ib_pd *pd,
					       enum sv_mr_kind kind,
					       int access, u64 length,
					       u64 iova)
{
	int err = sv_mr_check_extent(sv, length, iova);

	if (err)
		return ERR_PTR(err);
	return sv_mr_alloc(sv, pd, kind, access);
}

/* copy between @buf and the kernel address @va */
static inline void sv_mr_copy_va(void *va, void *buf, u32 len,
				 enum sv_copy_dir dir)
{
	if (dir == SV_COPY_TO_MR)
		memcpy(va, buf, len);
	else
		memcpy(buf, va, len);
}

#endif /* SV_MR_H */
