// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for L_Key/R_Key generation (kmod/sv_mr.c, sv_mkey_*): the
 * key layout, uniqueness, cyclic hand-out of indices and the variant that
 * makes keys of freed objects stale (IBTA 10.6: the low byte is the
 * consumer-owned "key" part; softverbs changes it on every reuse).
 *
 * Keys are made through the smallest public constructor, the DMA MR of a
 * kernel PD, on a hand-made device (see mr_kunit.c for the pattern).
 */
#include <kunit/test.h>

#include "sv.h"
#include "sv_xport_obj.h"

struct mkey_env {
	struct sv_dev	*sv;
	struct ib_pd	*pd;
};

static int mkey_env_init(struct kunit *test)
{
	struct mkey_env *env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env);
	env->sv = kunit_kzalloc(test, sizeof(*env->sv), GFP_KERNEL);
	env->pd = kunit_kzalloc(test, sizeof(*env->pd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->sv);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, env->pd);
	xa_init_flags(&env->sv->mr_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	env->pd->device = &env->sv->ibdev;
	test->priv = env;
	return 0;
}

static void mkey_env_exit(struct kunit *test)
{
	struct mkey_env *env = test->priv;

	/* the last MR gone, no key and no tombstone may remain */
	KUNIT_EXPECT_TRUE_MSG(test, xa_empty(&env->sv->mr_xa),
			      "tombstones left after the last MR");
	KUNIT_EXPECT_EQ(test, atomic_read(&env->sv->num_mr), 0);
	xa_destroy(&env->sv->mr_xa);
	rcu_barrier();
}

static struct ib_mr *new_mr(struct kunit *test)
{
	struct mkey_env *env = test->priv;
	struct ib_mr *mr = sv_mr_get_dma(env->pd, IB_ACCESS_LOCAL_WRITE);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	return mr;
}

static void free_mr(struct kunit *test, struct ib_mr *mr)
{
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(mr, NULL), 0);
}

/* does @key resolve (as an L_Key of the env's PD)? */
static int lookup(struct kunit *test, u32 key)
{
	struct mkey_env *env = test->priv;
	u64 iova = 0;
	struct sv_mr *mr;

	mr = sv_mr_lookup(env->sv, key, env->pd, 0, 0, &iova, 0);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	sv_mr_put(mr);
	return 0;
}

/* key = index << 8 | variant; index 1..SV_MKEY_INDEX_MAX; lkey == rkey */
static void mkey_layout(struct kunit *test)
{
	struct ib_mr *mr = new_mr(test);
	u32 index = mr->lkey >> 8;

	KUNIT_EXPECT_EQ_MSG(test, mr->lkey, mr->rkey,
			    "an MR's L_Key and R_Key are one key");
	KUNIT_EXPECT_GE_MSG(test, index, 1U, "index 0 is never handed out");
	KUNIT_EXPECT_LE(test, index, (u32)SV_MKEY_INDEX_MAX);
	KUNIT_EXPECT_EQ(test, lookup(test, mr->lkey), 0);
	free_mr(test, mr);
}

/* only the exact variant matches: 255 wrong variants, index 0, others */
static void mkey_exact_match(struct kunit *test)
{
	struct ib_mr *mr = new_mr(test);
	u32 v, key = mr->lkey, base = key & ~SV_MKEY_VARIANT_MASK;
	int wrong = 0;

	for (v = 0; v <= SV_MKEY_VARIANT_MASK; v++)
		if ((base | v) != key && lookup(test, base | v) != -EINVAL)
			wrong++;
	KUNIT_EXPECT_EQ_MSG(test, wrong, 0,
			    "variants other than %#x of key %#x resolved",
			    key & SV_MKEY_VARIANT_MASK, key);
	for (v = 0; v <= SV_MKEY_VARIANT_MASK; v++)
		KUNIT_EXPECT_EQ_MSG(test, lookup(test, v), -EINVAL,
				    "key %#x (index 0) resolved", v);
	KUNIT_EXPECT_EQ_MSG(test, lookup(test, key + 0x100), -EINVAL,
			    "unused index %#x resolved", (key >> 8) + 1);
	free_mr(test, mr);
}

/* many live MRs: distinct indices, every key resolves to its own MR */
static void mkey_unique(struct kunit *test)
{
	enum { N = 512 };
	struct ib_mr **mrs = kunit_kcalloc(test, N, sizeof(*mrs), GFP_KERNEL);
	struct mkey_env *env = test->priv;
	int i, j, dup = 0, bad = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mrs);
	for (i = 0; i < N; i++)
		mrs[i] = new_mr(test);
	for (i = 0; i < N; i++) {
		u64 iova = 0;
		struct sv_mr *mr = sv_mr_lookup(env->sv, mrs[i]->lkey, env->pd,
						0, 0, &iova, 0);

		if (IS_ERR(mr) || &mr->ibmr != mrs[i])
			bad++;
		if (!IS_ERR(mr))
			sv_mr_put(mr);
		for (j = 0; j < i; j++)
			if ((mrs[j]->lkey >> 8) == (mrs[i]->lkey >> 8))
				dup++;
	}
	KUNIT_EXPECT_EQ_MSG(test, dup, 0, "indices handed out twice");
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "keys not resolving to their MR");
	for (i = 0; i < N; i++)
		free_mr(test, mrs[i]);
}

/*
 * Indices are handed out cyclically: a freed index is not the next one
 * given, so a stale key keeps failing for as long as possible.
 */
static void mkey_cyclic(struct kunit *test)
{
	struct ib_mr *keep = new_mr(test), *a, *b;
	u32 ia;

	a = new_mr(test);
	ia = a->lkey >> 8;
	free_mr(test, a);
	b = new_mr(test);
	KUNIT_EXPECT_NE_MSG(test, b->lkey >> 8, ia,
			    "freed index %u reused at once", ia);
	KUNIT_EXPECT_GT_MSG(test, b->lkey >> 8, ia,
			    "the cursor went backwards");
	free_mr(test, b);
	free_mr(test, keep);
}

/*
 * A reused index comes back with the next variant (mod 256): the old key
 * is stale.  Drive one index through all 256 variants: each reuse adds
 * one, 0xff wraps to 0x00, and every earlier key stays dead.
 */
static void mkey_reuse_variant_wraps(struct kunit *test)
{
	struct mkey_env *env = test->priv;
	struct ib_mr *keep = new_mr(test), *mr;
	u32 index, first, prev, i;
	int stale_ok = 0, step_bad = 0;

	/* the top index: the cursor wraps to it again after each free */
	env->sv->mkey_next = SV_MKEY_INDEX_MAX;
	mr = new_mr(test);
	index = mr->lkey >> 8;
	KUNIT_ASSERT_EQ(test, index, (u32)SV_MKEY_INDEX_MAX);
	first = prev = mr->lkey;
	for (i = 0; i < 256; i++) {
		free_mr(test, mr);
		if (lookup(test, prev) != -EINVAL)
			stale_ok++;
		env->sv->mkey_next = SV_MKEY_INDEX_MAX;
		mr = new_mr(test);
		KUNIT_ASSERT_EQ(test, mr->lkey >> 8, index);
		if ((mr->lkey & SV_MKEY_VARIANT_MASK) !=
		    ((prev + 1) & SV_MKEY_VARIANT_MASK))
			step_bad++;
		prev = mr->lkey;
	}
	KUNIT_EXPECT_EQ_MSG(test, stale_ok, 0, "a freed key still resolved");
	KUNIT_EXPECT_EQ_MSG(test, step_bad, 0,
			    "reuse did not advance the variant by one");
	/* 256 reuses: back at the first variant, having passed 0xff -> 0 */
	KUNIT_EXPECT_EQ(test, prev, first);
	KUNIT_EXPECT_EQ(test, lookup(test, prev), 0);
	free_mr(test, mr);
	free_mr(test, keep);
}

/* a fast-reg consumer changes only the variant; REG_MR keeps the index */
static void mkey_fast_reg_variant(struct kunit *test)
{
	struct mkey_env *env = test->priv;
	struct ib_mr *mr = sv_mr_alloc_fast(env->pd, IB_MR_TYPE_MEM_REG, 1);
	u32 key;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mr);
	/* what ib_alloc_mr() fills in */
	mr->device = &env->sv->ibdev;
	mr->pd = env->pd;
	mr->type = IB_MR_TYPE_MEM_REG;
	key = mr->lkey;
	ib_update_fast_reg_key(mr, (key + 7) & 0xff);
	KUNIT_EXPECT_EQ(test, mr->lkey >> 8, key >> 8);
	/* another index in the new key is refused */
	KUNIT_EXPECT_EQ(test, sv_mr_fast_reg(mr, env->pd, mr->rkey ^ 0x100,
					     IB_ACCESS_LOCAL_WRITE), -EINVAL);
	KUNIT_EXPECT_EQ(test, sv_mr_dereg(mr, NULL), 0);
}

static struct kunit_case mkey_cases[] = {
	KUNIT_CASE(mkey_layout),
	KUNIT_CASE(mkey_exact_match),
	KUNIT_CASE(mkey_unique),
	KUNIT_CASE(mkey_cyclic),
	KUNIT_CASE(mkey_reuse_variant_wraps),
	KUNIT_CASE(mkey_fast_reg_variant),
	{}
};

static struct kunit_suite mkey_suite = {
	.name = "mkey_kunit",
	.init = mkey_env_init,
	.exit = mkey_env_exit,
	.test_cases = mkey_cases,
};

kunit_test_suites(&mkey_suite);
