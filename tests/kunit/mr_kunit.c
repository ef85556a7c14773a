// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the transport side of kmod/sv_mr.c and kmod/sv_mw.c: the
 * key space, sv_mr_lookup/copy/atomic, fast registration and invalidation,
 * window binds, case by case and without a wire (the user tests reach
 * them through traffic).
 *
 * Each case works on a device made by hand: a zeroed struct sv_dev with
 * just its mr_xa (what sv_mr.c uses of it) and two PDs pointing at it; no
 * ib_core registration.  Fast-reg page lists are built from kernel pages
 * "DMA mapped" the way ib_core's virtual DMA ops do it (DMA address =
 * kernel virtual address).  User MRs need a process (ib_umem) and are
 * covered by tests/user/22-mr.sh instead; only the copy between two of
 * them, which reads their pages alone, is tested on MRs made by hand.
 */
#include <kunit/test.h>
#include <linux/scatterlist.h>

#include "sv.h"
#include "sv_xport_obj.h"

#define NPAGES	3

/* 6.1's KUnit has no KUNIT_EXPECT_MEMEQ */
#define EXPECT_MEM(test, a, b, n) \
	KUNIT_EXPECT_EQ_MSG(test, memcmp(a, b, n), 0, "%s != %s", #a, #b)

struct mr_env {
	struct sv_dev	*sv;
	struct ib_pd	*pd, *pd2;
	void		*page[NPAGES + 2];
};

static int mr_env_init(struct kunit *test)
{
	struct mr_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env);
	env->sv = kunit_kzalloc(test, sizeof(*env->sv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->sv);
	xa_init_flags(&env->sv->mr_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	env->pd = kunit_kzalloc(test, sizeof(*env->pd), GFP_KERNEL);
	env->pd2 = kunit_kzalloc(test, sizeof(*env->pd2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->pd);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->pd2);
	env->pd->device = &env->sv->ibdev;
	env->pd2->device = &env->sv->ibdev;
	for (i = 0; i < ARRAY_SIZE(env->page); i++) {
		env->page[i] = (void *)get_zeroed_page(GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->page[i]);
	}
	test->priv = env;
	return 0;
}

static void mr_env_exit(struct kunit *test)
{
	struct mr_env *env = test->priv;
	int i;

	/* every case frees what it made: no key, no tombstone, no count */
	KUNIT_EXPECT_TRUE(test, xa_empty(&env->sv->mr_xa));
	KUNIT_EXPECT_EQ(test, atomic_read(&env->sv->num_mr), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&env->sv->num_mw), 0);
	xa_destroy(&env->sv->mr_xa);
	for (i = 0; i < ARRAY_SIZE(env->page); i++)
		free_page((unsigned long)env->page[i]);
	/* windows and MRs are freed after a grace period */
	rcu_barrier();
}

static u32 next_variant(u32 key)
{
	return (key & ~SV_MKEY_VARIANT_MASK) | ((key + 1) & SV_MKEY_VARIANT_MASK);
}

/* lookup expected to fail with @err */
static void expect_lookup_err(struct kunit *test, struct sv_dev *sv, u32 key,
			      struct ib_pd *pd, u32 qpn, int access, u64 iova,
			      u64 len, int err)
{
	struct sv_mr *mr = sv_mr_lookup(sv, key, pd, qpn, access, &iova, len);

	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mr), err);
	if (!IS_ERR(mr))
		sv_mr_put(mr);
}

/* the DMA MR of a kernel PD: kernel addresses, local access only */
static void dma_mr(struct kunit *test)
{
	struct mr_env *env = test->priv;
	struct sv_dev *sv = env->sv;
	u64 iova = (uintptr_t)env->page[0] + 100;
	char out[8] = "", in[8] = "abcdefg";
	struct ib_mr *ibmr;
	struct sv_mr *mr;

	KUNIT_EXPECT_EQ(test, PTR_ERR(sv_mr_get_dma(env->pd,
						    IB_ACCESS_REMOTE_READ)),
			-EOPNOTSUPP);
	ibmr = sv_mr_get_dma(env->pd, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ibmr);
	KUNIT_EXPECT_EQ(test, ibmr->lkey, ibmr->rkey);
	KUNIT_EXPECT_NE(test, ibmr->lkey >> 8, 0U);

	mr = sv_mr_lookup(sv, ibmr->lkey, env->pd, 0, IB_ACCESS_LOCAL_WRITE,
			  &iova, sizeof(in));
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, sv_mr_copy(mr, iova, in, sizeof(in),
					 SV_COPY_TO_MR), 0);
	KUNIT_EXPECT_EQ(test, sv_mr_copy(mr, iova, out, sizeof(out),
					 SV_COPY_FROM_MR), 0);
	EXPECT_MEM(test, out, in, sizeof(in));
	EXPECT_MEM(test, (char *)env->page[0] + 100, in, sizeof(in));
	sv_mr_put(mr);

	expect_lookup_err(test, sv, ibmr->lkey, env->pd, 0,
			  IB_ACCESS_REMOTE_WRITE, iova, 8, -EACCES);
	expect_lookup_err(test, sv, ibmr->lkey, env->pd2, 0, 0, iova, 8,
			  -EACCES);
	expect_lookup_err(test, sv, next_variant(ibmr->lkey), env->pd, 0, 0,
			  iova, 8, -EINVAL);
	expect_lookup_err(test, sv, ibmr->lkey, env->pd, 0, 0, U64_MAX - 3, 8,
			  -ERANGE);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(ibmr, NULL), 0);
	expect_lookup_err(test, sv, ibmr->lkey, env->pd, 0, 0, iova, 8,
			  -EINVAL);
}

/* a scatterlist over @n of the env's pages, mapped like virtual DMA ops do */
static struct scatterlist *make_sg(struct kunit *test, struct mr_env *env,
				   int first, int n)
{
	struct scatterlist *sgl, *sg;
	int i;

	sgl = kunit_kcalloc(test, n, sizeof(*sgl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sgl);
	sg_init_table(sgl, n);
	for_each_sg(sgl, sg, n, i) {
		sg_set_buf(sg, env->page[first + i], PAGE_SIZE);
		sg_dma_address(sg) = (uintptr_t)env->page[first + i];
		sg_dma_len(sg) = PAGE_SIZE;
	}
	return sgl;
}

static struct ib_mr *alloc_fast(struct kunit *test, struct mr_env *env,
				u32 max_sg)
{
	struct ib_mr *ibmr = sv_mr_alloc_fast(env->pd, IB_MR_TYPE_MEM_REG,
					      max_sg);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ibmr);
	/* what ib_alloc_mr() fills in */
	ibmr->device = &env->sv->ibdev;
	ibmr->pd = env->pd;
	ibmr->type = IB_MR_TYPE_MEM_REG;
	return ibmr;
}

static int map(struct ib_mr *ibmr, struct scatterlist *sg, int n,
	       unsigned int offset)
{
	ibmr->page_size = PAGE_SIZE;	/* what ib_map_mr_sg() does */
	return sv_mr_map_sg(ibmr, sg, n, offset ? &offset : NULL);
}

static void fast_reg(struct kunit *test)
{
	struct mr_env *env = test->priv;
	struct sv_dev *sv = env->sv;
	struct scatterlist *sg = make_sg(test, env, 0, NPAGES);
	int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	char in[16] = "0123456789abcde", out[16];
	struct ib_mr *ibmr;
	struct sv_mr *mr;
	u32 key;
	u64 iova;

	KUNIT_EXPECT_EQ(test, PTR_ERR(sv_mr_alloc_fast(env->pd,
						       IB_MR_TYPE_SG_GAPS, 4)),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, PTR_ERR(sv_mr_alloc_fast(env->pd,
						       IB_MR_TYPE_MEM_REG, 0)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(sv_mr_alloc_fast(env->pd, IB_MR_TYPE_MEM_REG,
						 SV_MAX_FAST_REG_PAGES + 1)),
			-EINVAL);

	ibmr = alloc_fast(test, env, 4);
	key = ibmr->lkey;
	/* Free: no access until registered */
	iova = 0;
	expect_lookup_err(test, sv, key, env->pd, 0, 0, iova, 0, -EINVAL);

	KUNIT_ASSERT_EQ(test, map(ibmr, sg, NPAGES, 0), NPAGES);
	KUNIT_EXPECT_EQ(test, ibmr->iova, (u64)(uintptr_t)env->page[0]);
	KUNIT_EXPECT_EQ(test, ibmr->length, (u64)NPAGES * PAGE_SIZE);

	/* the key's index is the MR's; another PD; bad rights */
	KUNIT_EXPECT_EQ(test, sv_mr_fast_reg(ibmr, env->pd, key + 0x100, rw),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sv_mr_fast_reg(ibmr, env->pd2, key, rw),
			-EACCES);
	KUNIT_EXPECT_EQ(test, sv_mr_fast_reg(ibmr, env->pd, key,
					     IB_ACCESS_REMOTE_WRITE), -EINVAL);

	ib_update_fast_reg_key(ibmr, (key + 1) & 0xff);
	KUNIT_ASSERT_EQ(test, sv_mr_fast_reg(ibmr, env->pd, ibmr->rkey, rw), 0);
	/* Valid: a second REG_MR must wait for an invalidate */
	KUNIT_EXPECT_EQ(test, sv_mr_fast_reg(ibmr, env->pd, ibmr->rkey, rw),
			-EINVAL);
	expect_lookup_err(test, sv, key, env->pd, 0, 0, ibmr->iova, 8,
			  -EINVAL);
	expect_lookup_err(test, sv, ibmr->rkey, env->pd, 0,
			  IB_ACCESS_REMOTE_READ, ibmr->iova, 8, -EACCES);
	expect_lookup_err(test, sv, ibmr->rkey, env->pd, 0, 0,
			  ibmr->iova + NPAGES * PAGE_SIZE - 4, 8, -ERANGE);

	/* a copy across the page boundary lands in both pages */
	iova = ibmr->iova + PAGE_SIZE - 8;
	mr = sv_mr_lookup(sv, ibmr->rkey, env->pd, 0, IB_ACCESS_REMOTE_WRITE,
			  &iova, sizeof(in));
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, sv_mr_copy(mr, iova, in, sizeof(in),
					 SV_COPY_TO_MR), 0);
	EXPECT_MEM(test, (char *)env->page[0] + PAGE_SIZE - 8, in, 8);
	EXPECT_MEM(test, (char *)env->page[1], in + 8, 8);
	KUNIT_EXPECT_EQ(test, sv_mr_copy(mr, iova, out, sizeof(out),
					 SV_COPY_FROM_MR), 0);
	EXPECT_MEM(test, out, in, sizeof(in));
	KUNIT_EXPECT_EQ(test, sv_mr_copy(mr, ibmr->iova + NPAGES * PAGE_SIZE -
					 4, in, 8, SV_COPY_TO_MR), -ERANGE);

	/* invalidate: wrong key, wrong PD, then for real */
	KUNIT_EXPECT_EQ(test, sv_mr_invalidate(sv, key, env->pd, 0, false),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sv_mr_invalidate(sv, ibmr->rkey, env->pd2, 0,
					       true), -EACCES);
	KUNIT_EXPECT_EQ(test, sv_mr_invalidate(sv, ibmr->rkey, env->pd, 0,
					       true), 0);
	/* a reference taken before cannot copy after the invalidate */
	KUNIT_EXPECT_EQ(test, sv_mr_copy(mr, iova, in, 8, SV_COPY_TO_MR),
			-EINVAL);
	sv_mr_put(mr);
	expect_lookup_err(test, sv, ibmr->rkey, env->pd, 0, 0, ibmr->iova, 8,
			  -EINVAL);
	/* invalidating a Free MR is allowed */
	KUNIT_EXPECT_EQ(test, sv_mr_invalidate(sv, ibmr->rkey, env->pd, 0,
					       false), 0);

	/* zero-based, from an offset into the first page */
	KUNIT_ASSERT_EQ(test, map(ibmr, sg, NPAGES, 100), NPAGES);
	KUNIT_EXPECT_EQ(test, ibmr->length, (u64)NPAGES * PAGE_SIZE - 100);
	ibmr->iova = 0;		/* ib_map_mr_sg_zbva() */
	KUNIT_ASSERT_EQ(test, sv_mr_fast_reg(ibmr, env->pd, ibmr->rkey,
					     IB_ACCESS_LOCAL_WRITE), 0);
	iova = 0;
	mr = sv_mr_lookup(sv, ibmr->lkey, env->pd, 0, IB_ACCESS_LOCAL_WRITE,
			  &iova, 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, sv_mr_copy(mr, 0, "ZBVA", 4, SV_COPY_TO_MR), 0);
	EXPECT_MEM(test, (char *)env->page[0] + 100, "ZBVA", 4);
	sv_mr_put(mr);
	KUNIT_EXPECT_EQ(test, sv_mr_invalidate(sv, ibmr->lkey, env->pd, 0,
					       false), 0);

	/* more pages than max_num_sg: only a prefix is mapped */
	sg = make_sg(test, env, 0, NPAGES + 2);
	KUNIT_EXPECT_EQ(test, map(ibmr, sg, NPAGES + 2, 0), 4);

	/* user MR verbs do not apply */
	KUNIT_EXPECT_EQ(test, PTR_ERR(sv_mr_rereg_user(ibmr, IB_MR_REREG_PD, 0,
						       0, 0, 0, env->pd2,
						       NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(ibmr, NULL), 0);
}

static void atomics(struct kunit *test)
{
	struct mr_env *env = test->priv;
	struct sv_dev *sv = env->sv;
	struct scatterlist *sg = make_sg(test, env, 0, 1);
	u64 *word = env->page[0] + 64;
	struct ib_mr *ibmr;
	struct sv_mr *mr;
	u64 orig, iova;

	ibmr = alloc_fast(test, env, 1);
	KUNIT_ASSERT_EQ(test, map(ibmr, sg, 1, 0), 1);
	KUNIT_ASSERT_EQ(test, sv_mr_fast_reg(ibmr, env->pd, ibmr->rkey,
					     IB_ACCESS_LOCAL_WRITE |
					     IB_ACCESS_REMOTE_ATOMIC), 0);
	iova = ibmr->iova + 64;
	mr = sv_mr_lookup(sv, ibmr->rkey, env->pd, 0, IB_ACCESS_REMOTE_ATOMIC,
			  &iova, 8);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);

	*word = 40;
	KUNIT_EXPECT_EQ(test, sv_mr_atomic(mr, iova, SV_ATOMIC_FETCH_ADD, 2, 0,
					   &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 40ULL);
	KUNIT_EXPECT_EQ(test, *word, 42ULL);
	KUNIT_EXPECT_EQ(test, sv_mr_atomic(mr, iova, SV_ATOMIC_CMP_SWAP, 41, 7,
					   &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 42ULL);
	KUNIT_EXPECT_EQ(test, *word, 42ULL);	/* compare failed */
	KUNIT_EXPECT_EQ(test, sv_mr_atomic(mr, iova, SV_ATOMIC_CMP_SWAP, 42, 7,
					   &orig), 0);
	KUNIT_EXPECT_EQ(test, *word, 7ULL);
	/* IBTA 1.5 ATOMIC WRITE: the value stored as it is */
	KUNIT_EXPECT_EQ(test, sv_mr_atomic(mr, iova, SV_ATOMIC_WRITE,
					   0x1122334455667788ULL, 0, &orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 7ULL);
	KUNIT_EXPECT_EQ(test, *word, 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, sv_mr_atomic(mr, iova + 4, SV_ATOMIC_FETCH_ADD, 1,
					   0, &orig), -EINVAL);
	KUNIT_EXPECT_EQ(test, sv_mr_atomic(mr, iova + 4, SV_ATOMIC_WRITE, 1, 0,
					   &orig), -EINVAL);
	KUNIT_EXPECT_EQ(test, sv_mr_atomic(mr, ibmr->iova + PAGE_SIZE,
					   SV_ATOMIC_FETCH_ADD, 1, 0, &orig),
			-ERANGE);
	sv_mr_put(mr);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(ibmr, NULL), 0);
}

/* a freed index remembers its variant: reused, it gets the next one */
static void key_reuse(struct kunit *test)
{
	struct mr_env *env = test->priv;
	struct sv_dev *sv = env->sv;
	struct ib_mr *a, *b, *keep;
	u32 key;

	/* something live, so the tombstones survive until the end */
	keep = sv_mr_get_dma(env->pd, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, keep);

	sv->mkey_next = SV_MKEY_INDEX_MAX;
	a = sv_mr_get_dma(env->pd, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	key = a->lkey;
	KUNIT_EXPECT_EQ(test, key >> 8, (u32)SV_MKEY_INDEX_MAX);
	KUNIT_EXPECT_EQ(test, sv->mkey_next, 1U);	/* wrapped */
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(a, NULL), 0);

	sv->mkey_next = SV_MKEY_INDEX_MAX;
	b = sv_mr_get_dma(env->pd, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	KUNIT_EXPECT_EQ(test, b->lkey, next_variant(key));
	expect_lookup_err(test, sv, key, env->pd, 0, 0, 0, 8, -EINVAL);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(b, NULL), 0);

	/* the cursor skips live indices and tombstones alike until wrap */
	sv->mkey_next = 1;
	a = sv_mr_get_dma(env->pd, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	KUNIT_EXPECT_NE(test, a->lkey >> 8, keep->lkey >> 8);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(a, NULL), 0);

	/* the last MR gone, the tombstones go too (checked in exit) */
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(keep, NULL), 0);
}

struct mw_env {
	struct sv_mw_obj	*obj;
	struct sv_mw		*mw;
};

static struct ib_mw *alloc_mw(struct kunit *test, struct mr_env *env,
			      enum ib_mw_type type)
{
	struct sv_mw_obj *obj = kunit_kzalloc(test, sizeof(*obj), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, obj);
	/* what ib_uverbs fills in before alloc_mw */
	obj->ibmw.device = &env->sv->ibdev;
	obj->ibmw.pd = env->pd;
	obj->ibmw.type = type;
	KUNIT_ASSERT_EQ(test, sv_mw_alloc(&obj->ibmw, NULL), 0);
	return &obj->ibmw;
}

/* the type 2 window lists of QPs 5 and 9, as their QPs would have them */
static struct sv_mw_binds *qp_binds(u32 qpn)
{
	static struct sv_mw_binds binds[2];

	if (!binds[0].qpn) {
		sv_mw_binds_init(&binds[0], 5);
		sv_mw_binds_init(&binds[1], 9);
	}
	return &binds[qpn == 9];
}

static int bind(struct sv_dev *sv, struct ib_pd *pd, u32 qpn, u32 mw_rkey,
		u32 new_rkey, u32 mr_lkey, u64 addr, u64 length, int access)
{
	struct sv_mw_bind_args args = {
		.mw_rkey = mw_rkey, .new_rkey = new_rkey, .mr_lkey = mr_lkey,
		.addr = addr, .length = length, .access = access,
	};

	return sv_mw_bind(sv, pd, qp_binds(qpn), &args);
}

static void windows(struct kunit *test)
{
	struct mr_env *env = test->priv;
	struct sv_dev *sv = env->sv;
	struct scatterlist *sg = make_sg(test, env, 0, NPAGES);
	int rw = IB_ACCESS_REMOTE_WRITE;
	struct ib_mw *mw1, *mw2;
	struct ib_mr *ibmr, *nobind;
	struct sv_mr *mr;
	u64 base, iova;
	u32 r1, r2, lkey;

	ibmr = alloc_fast(test, env, NPAGES);
	KUNIT_ASSERT_EQ(test, map(ibmr, sg, NPAGES, 0), NPAGES);
	KUNIT_ASSERT_EQ(test, sv_mr_fast_reg(ibmr, env->pd, ibmr->rkey,
					     IB_ACCESS_LOCAL_WRITE |
					     IB_ACCESS_MW_BIND), 0);
	lkey = ibmr->lkey;
	base = ibmr->iova;
	nobind = sv_mr_get_dma(env->pd, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, nobind);

	mw1 = alloc_mw(test, env, IB_MW_TYPE_1);
	mw2 = alloc_mw(test, env, IB_MW_TYPE_2);
	KUNIT_EXPECT_NE(test, mw1->rkey >> 8, lkey >> 8);
	KUNIT_EXPECT_NE(test, mw1->rkey >> 8, mw2->rkey >> 8);
	r1 = mw1->rkey;
	r2 = next_variant(mw2->rkey);

	/* type 2: refusals first */
	KUNIT_EXPECT_EQ(test, bind(sv, env->pd2, 5, mw2->rkey, r2, lkey,
				   base, PAGE_SIZE, rw), -EACCES);
	KUNIT_EXPECT_EQ(test, bind(sv, env->pd, 5, mw2->rkey, r2 + 0x100, lkey,
				   base, PAGE_SIZE, rw), -EINVAL);
	KUNIT_EXPECT_EQ(test, bind(sv, env->pd, 5, mw2->rkey, r2, lkey,
				   base, 0, rw), -EINVAL);
	KUNIT_EXPECT_EQ(test, bind(sv, env->pd, 5, mw2->rkey, r2,
				   nobind->lkey, base, PAGE_SIZE, rw), -EACCES);
	KUNIT_EXPECT_EQ(test, bind(sv, env->pd, 5, mw2->rkey, r2, lkey,
				   base + PAGE_SIZE, NPAGES * PAGE_SIZE, rw),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, bind(sv, env->pd, 5, mw2->rkey, r2,
				   next_variant(lkey), base, PAGE_SIZE, rw),
			-EINVAL);

	/* zero-based type 2 window on the MR's second page, for QP 5 */
	KUNIT_ASSERT_EQ(test, bind(sv, env->pd, 5, mw2->rkey, r2, lkey,
				   base + PAGE_SIZE, PAGE_SIZE,
				   rw | IB_ZERO_BASED), 0);
	KUNIT_EXPECT_EQ(test, bind(sv, env->pd, 5, mw2->rkey, next_variant(r2),
				   lkey, base, PAGE_SIZE, rw), -EINVAL);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(ibmr, NULL), -EBUSY);
	KUNIT_EXPECT_EQ(test, sv_mr_invalidate(sv, lkey, env->pd, 0, false),
			-EBUSY);

	iova = 8;
	mr = sv_mr_lookup(sv, r2, env->pd, 5, IB_ACCESS_REMOTE_WRITE, &iova, 8);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, iova, base + PAGE_SIZE + 8);
	KUNIT_EXPECT_EQ(test, sv_mr_copy(mr, iova, "window!", 8,
					 SV_COPY_TO_MR), 0);
	EXPECT_MEM(test, (char *)env->page[1] + 8, "window!", 8);
	sv_mr_put(mr);
	expect_lookup_err(test, sv, r2, env->pd, 6, IB_ACCESS_REMOTE_WRITE,
			  8, 8, -EACCES);
	expect_lookup_err(test, sv, r2, env->pd, 5, IB_ACCESS_REMOTE_READ,
			  8, 8, -EACCES);
	expect_lookup_err(test, sv, r2, env->pd, 5, IB_ACCESS_REMOTE_WRITE,
			  PAGE_SIZE - 4, 8, -ERANGE);
	expect_lookup_err(test, sv, r2, env->pd, 5, IB_ACCESS_LOCAL_WRITE,
			  8, 8, -EINVAL);
	expect_lookup_err(test, sv, mw2->rkey, env->pd, 5,
			  IB_ACCESS_REMOTE_WRITE, 8, 8, -EINVAL);

	/* remote invalidate only from the window's QP */
	KUNIT_EXPECT_EQ(test, sv_mr_invalidate(sv, r2, env->pd, 6, true),
			-EACCES);
	KUNIT_EXPECT_EQ(test, sv_mr_invalidate(sv, r2, env->pd, 5, true), 0);
	expect_lookup_err(test, sv, r2, env->pd, 5, IB_ACCESS_REMOTE_WRITE,
			  8, 8, -EINVAL);
	KUNIT_EXPECT_EQ(test, sv_mr_invalidate(sv, r2, env->pd, 5, false),
			-EINVAL);

	/* type 1: virtually addressed only, rebindable, unbound by length 0 */
	KUNIT_EXPECT_EQ(test, bind(sv, env->pd, 9, r1, next_variant(r1), lkey,
				   base, PAGE_SIZE, rw | IB_ZERO_BASED),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, bind(sv, env->pd, 9, r1, next_variant(r1), lkey,
				   base, PAGE_SIZE, IB_ACCESS_REMOTE_READ), 0);
	r1 = next_variant(r1);
	iova = base + 16;
	mr = sv_mr_lookup(sv, r1, env->pd, 77, IB_ACCESS_REMOTE_READ, &iova, 8);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);	/* any QP of the PD */
	KUNIT_EXPECT_EQ(test, iova, base + 16);
	sv_mr_put(mr);
	KUNIT_ASSERT_EQ(test, bind(sv, env->pd, 9, r1, next_variant(r1), lkey,
				   base + PAGE_SIZE, 2 * PAGE_SIZE, rw), 0);
	expect_lookup_err(test, sv, r1, env->pd, 9, IB_ACCESS_REMOTE_WRITE,
			  base + PAGE_SIZE, 8, -EINVAL);
	r1 = next_variant(r1);
	KUNIT_EXPECT_EQ(test, sv_mr_invalidate(sv, r1, env->pd, 9, false),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(ibmr, NULL), -EBUSY);
	KUNIT_ASSERT_EQ(test, bind(sv, env->pd, 9, r1, next_variant(r1), 0,
				   0, 0, 0), 0);
	r1 = next_variant(r1);
	expect_lookup_err(test, sv, r1, env->pd, 9, IB_ACCESS_REMOTE_WRITE,
			  base + PAGE_SIZE, 8, -EINVAL);

	/* a type 2 window of a destroyed QP goes back to Free */
	KUNIT_ASSERT_EQ(test, bind(sv, env->pd, 5, mw2->rkey,
				   next_variant(r2), lkey, base, PAGE_SIZE,
				   rw), 0);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(ibmr, NULL), -EBUSY);
	KUNIT_EXPECT_FALSE(test, list_empty(&qp_binds(5)->list));
	sv_mw_invalidate_qp(qp_binds(5));
	KUNIT_EXPECT_TRUE(test, list_empty(&qp_binds(5)->list));
	expect_lookup_err(test, sv, next_variant(r2), env->pd, 5,
			  IB_ACCESS_REMOTE_WRITE, base, 8, -EINVAL);

	/* a bound window dies with its dealloc and frees the MR */
	KUNIT_ASSERT_EQ(test, bind(sv, env->pd, 5, mw2->rkey, r2, lkey,
				   base, PAGE_SIZE, rw), 0);
	KUNIT_EXPECT_EQ(test, sv_mw_dealloc(mw2), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&qp_binds(5)->list));
	KUNIT_EXPECT_EQ(test, sv_mw_dealloc(mw1), 0);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(ibmr, NULL), 0);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(nobind, NULL), 0);
}

/*
 * The walk of an ODP range chunk by chunk ends at the range's end from
 * anywhere, the last chunk of the address space included: a step that
 * wrapped to 0 there kept an implicit-MR prefetch walking for days.
 */
static void odp_chunk_next(struct kunit *test)
{
	const u64 cs = SV_ODP_CHUNK_SIZE;
	const u64 top = U64_MAX - cs + 1;	/* the last chunk */
	u64 a, steps;

	KUNIT_EXPECT_EQ(test, sv_mr_odp_chunk_next(0, 1), 1ULL);
	KUNIT_EXPECT_EQ(test, sv_mr_odp_chunk_next(0, cs), cs);
	KUNIT_EXPECT_EQ(test, sv_mr_odp_chunk_next(0, cs + 1), cs);
	KUNIT_EXPECT_EQ(test, sv_mr_odp_chunk_next(cs - 1, 3 * cs), cs);
	KUNIT_EXPECT_EQ(test, sv_mr_odp_chunk_next(cs + 5, 2 * cs), 2 * cs);
	/* the finding: addr 0xFFFFFFFFFFF00000, 4 KiB, in the last chunk */
	KUNIT_EXPECT_EQ(test, sv_mr_odp_chunk_next(0xFFFFFFFFFFF00000ULL,
						   0xFFFFFFFFFFF01000ULL),
			0xFFFFFFFFFFF01000ULL);
	KUNIT_EXPECT_EQ(test, sv_mr_odp_chunk_next(top, U64_MAX), U64_MAX);
	KUNIT_EXPECT_EQ(test, sv_mr_odp_chunk_next(top - 1, U64_MAX), top);
	/* a walk over the top three chunks takes three steps, upwards */
	for (a = top - 2 * cs + 7, steps = 0; a < U64_MAX && steps < 10;
	     steps++) {
		u64 next = sv_mr_odp_chunk_next(a, U64_MAX);

		KUNIT_ASSERT_GT(test, next, a);
		a = next;
	}
	KUNIT_EXPECT_EQ(test, a, U64_MAX);
	KUNIT_EXPECT_EQ(test, steps, 3ULL);
}

/*
 * sv_mr_copy_in(): a payload by reference (a DMA MR's bytes: a kind
 * sv_mr_can_ref() takes) placed across a fast-reg MR's page boundary in
 * one call, as bytes too; a fast-reg MR is never referenced; a source
 * range that wraps is refused.
 */
static void copy_in(struct kunit *test)
{
	struct mr_env *env = test->priv;
	struct sv_dev *sv = env->sv;
	struct scatterlist *sg = make_sg(test, env, 0, NPAGES);
	u64 siova = (uintptr_t)env->page[NPAGES] + 50, diova;
	struct ib_mr *dma, *fast;
	struct sv_mr *src, *dst;
	struct sv_pay pay;
	int i;

	for (i = 0; i < 64; i++)
		((u8 *)env->page[NPAGES])[50 + i] = i + 1;
	dma = sv_mr_get_dma(env->pd, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dma);
	src = sv_mr_lookup(sv, dma->lkey, env->pd, 0, 0, &siova, 64);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, src);
	KUNIT_EXPECT_TRUE(test, sv_mr_can_ref(src));

	fast = alloc_fast(test, env, NPAGES);
	KUNIT_ASSERT_EQ(test, map(fast, sg, NPAGES, 0), NPAGES);
	KUNIT_ASSERT_EQ(test, sv_mr_fast_reg(fast, env->pd, fast->rkey,
					     IB_ACCESS_LOCAL_WRITE |
					     IB_ACCESS_REMOTE_WRITE), 0);
	diova = fast->iova + PAGE_SIZE - 24;
	dst = sv_mr_lookup(sv, fast->rkey, env->pd, 0, IB_ACCESS_REMOTE_WRITE,
			   &diova, 64);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dst);
	KUNIT_EXPECT_FALSE(test, sv_mr_can_ref(dst));

	/* 60 bytes from 4 into the payload, straddling dst's pages */
	pay = (struct sv_pay){ .mr = src, .iova = siova };
	KUNIT_EXPECT_EQ(test, sv_mr_copy_in(dst, diova, &pay, 4, 60), 0);
	EXPECT_MEM(test, (char *)env->page[0] + PAGE_SIZE - 24,
		   (char *)env->page[NPAGES] + 54, 24);
	EXPECT_MEM(test, (char *)env->page[1], (char *)env->page[NPAGES] + 78,
		   36);
	/* the same from bytes */
	pay = (struct sv_pay){ .buf = "by bytes" };
	KUNIT_EXPECT_EQ(test, sv_mr_copy_in(dst, diova, &pay, 3, 5), 0);
	EXPECT_MEM(test, (char *)env->page[0] + PAGE_SIZE - 24, "bytes", 5);
	/* a source range that wraps; a destination outside the MR */
	pay = (struct sv_pay){ .mr = src, .iova = U64_MAX - 7 };
	KUNIT_EXPECT_EQ(test, sv_mr_copy_in(dst, diova, &pay, 0, 16), -ERANGE);
	pay = (struct sv_pay){ .mr = src, .iova = siova };
	KUNIT_EXPECT_EQ(test, sv_mr_copy_in(dst, fast->iova + NPAGES *
					    PAGE_SIZE - 8, &pay, 0, 16),
			-ERANGE);

	sv_mr_put(dst);
	sv_mr_put(src);
	KUNIT_EXPECT_EQ(test, sv_mr_invalidate(sv, fast->rkey, env->pd, 0,
					       false), 0);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(fast, NULL), 0);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(dma, NULL), 0);
}

/*
 * A user MR made by hand on four @pages, @off bytes into the first, at
 * iova @base + @off: what a copy between user MRs reads of one.  On the
 * heap: struct sv_mr is too large for a KASAN kernel's stack twice.
 */
static struct sv_mr *user_mr(struct kunit *test, struct page **pages,
			     u64 base, u32 off)
{
	struct sv_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mr);
	mr->kind = SV_MR_USER;
	mr->iova = base + off;
	mr->length = 4 * PAGE_SIZE - off;
	mr->pages = pages;
	mr->npages = 4;
	mr->page_offset = off;
	return mr;
}

/*
 * Two user MRs made by hand (what the copy reads of one: kind, range,
 * pages): the source on one block of four adjacent pages, the destination
 * on two adjacent pages, then two single ones.  A copy between them at
 * different page offsets (sv_mr_copy_user_user()'s walk of both) puts
 * every byte where the MRs' page lists say; a range past either MR's end
 * is refused before anything is copied.
 */
static void copy_user_pages(struct kunit *test)
{
	struct page *block = alloc_pages(GFP_KERNEL | __GFP_ZERO, 2);
	struct page *pair = alloc_pages(GFP_KERNEL | __GFP_ZERO, 1);
	struct page *one = alloc_page(GFP_KERNEL | __GFP_ZERO);
	struct page *two = alloc_page(GFP_KERNEL | __GFP_ZERO);
	struct page *spages[4], *dpages[4];
	struct sv_mr *src, *dst;
	u32 soff = 100, doff = 3000, len = 3 * PAGE_SIZE + 500, i;
	struct sv_pay pay;
	u8 *want;

	KUNIT_ASSERT_NOT_NULL(test, block);
	KUNIT_ASSERT_NOT_NULL(test, pair);
	KUNIT_ASSERT_NOT_NULL(test, one);
	KUNIT_ASSERT_NOT_NULL(test, two);
	want = kunit_kzalloc(test, 4 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	for (i = 0; i < 4; i++)
		spages[i] = block + i;
	dpages[0] = pair;
	dpages[1] = pair + 1;
	dpages[2] = one;
	dpages[3] = two;
	for (i = 0; i < 4 * PAGE_SIZE; i++)
		((u8 *)page_address(block))[i] = i * 7 + 3;
	src = user_mr(test, spages, 0x10000, soff);
	dst = user_mr(test, dpages, 0x70000, doff);

	pay = (struct sv_pay){ .mr = src, .iova = src->iova };
	KUNIT_EXPECT_EQ(test, sv_mr_copy_in(dst, dst->iova, &pay, 0, len), 0);
	/* what the destination's pages must hold, in MR order */
	memcpy(want + doff, (u8 *)page_address(block) + soff, len);
	for (i = 0; i < 4; i++)
		EXPECT_MEM(test, page_address(dpages[i]), want + i * PAGE_SIZE,
			   PAGE_SIZE);
	/* past either MR's end: refused, nothing copied */
	KUNIT_EXPECT_EQ(test, sv_mr_copy_in(dst, dst->iova + PAGE_SIZE, &pay,
					    0, len), -ERANGE);
	KUNIT_EXPECT_EQ(test, sv_mr_copy_in(dst, dst->iova, &pay, PAGE_SIZE,
					    len), -ERANGE);
	for (i = 0; i < 4; i++)
		EXPECT_MEM(test, page_address(dpages[i]), want + i * PAGE_SIZE,
			   PAGE_SIZE);

	__free_page(two);
	__free_page(one);
	__free_pages(pair, 1);
	__free_pages(block, 2);
}

static struct kunit_case mr_cases[] = {
	KUNIT_CASE(odp_chunk_next),
	KUNIT_CASE(dma_mr),
	KUNIT_CASE(copy_in),
	KUNIT_CASE(copy_user_pages),
	KUNIT_CASE(fast_reg),
	KUNIT_CASE(atomics),
	KUNIT_CASE(key_reuse),
	KUNIT_CASE(windows),
	{}
};

static struct kunit_suite mr_suite = {
	.name = "mr_kunit",
	.init = mr_env_init,
	.exit = mr_env_exit,
	.test_cases = mr_cases,
};

kunit_test_suites(&mr_suite);
