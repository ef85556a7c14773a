/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Locks, atomics, reference counts, lists, timers, work items: the types
 * the softverbs objects embed, so that sv.h and its headers compile.  The
 * fuzz targets are single-threaded and call only checks that take no
 * lock, so the locks are empty; atomics and barriers use the compiler's
 * builtins.  Functions declared here without a body are never called by
 * the code built into a fuzz target (the link would fail otherwise).
 */
#ifndef SHIM_LINUX_SHIM_SYNC_H
#define SHIM_LINUX_SHIM_SYNC_H
#include <linux/types.h>

typedef struct { int counter; } atomic_t;
typedef struct { s64 counter; } atomic64_t;

static inline int atomic_read(const atomic_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic_set(atomic_t *v, int i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline int atomic_inc_return(atomic_t *v)
{
	return __atomic_add_fetch(&v->counter, 1, __ATOMIC_SEQ_CST);
}

static inline void atomic_inc(atomic_t *v)
{
	atomic_inc_return(v);
}

static inline void atomic_dec(atomic_t *v)
{
	__atomic_sub_fetch(&v->counter, 1, __ATOMIC_SEQ_CST);
}

static inline bool atomic_add_unless(atomic_t *v, int a, int u)
{
	int c = atomic_read(v);

	do {
		if (c == u)
			return false;
	} while (!__atomic_compare_exchange_n(&v->counter, &c, c + a, false,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	return true;
}

typedef struct { atomic_t refs; } refcount_t;

static inline void refcount_set(refcount_t *r, int n)
{
	atomic_set(&r->refs, n);
}

static inline unsigned int refcount_read(const refcount_t *r)
{
	return atomic_read(&r->refs);
}

static inline bool refcount_inc_not_zero(refcount_t *r)
{
	return atomic_add_unless(&r->refs, 1, 0);
}

static inline void refcount_inc(refcount_t *r)
{
	WARN_ON(!refcount_inc_not_zero(r));
}

static inline bool refcount_dec_and_test(refcount_t *r)
{
	int n = __atomic_sub_fetch(&r->refs.counter, 1, __ATOMIC_SEQ_CST);

	WARN_ON(n < 0);
	return n == 0;
}

#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_mb()		__atomic_thread_fence(__ATOMIC_SEQ_CST)

typedef struct { int unused; } spinlock_t;

static inline void spin_lock_init(spinlock_t *l)
{
	l->unused = 0;
}
typedef struct { int unused; } seqlock_t;
struct mutex { int unused; };
struct lock_class_key { int unused; };
#define lockdep_assert_held(l)	((void)(l))

struct completion { unsigned int done; };
void complete(struct completion *x);

struct list_head { struct list_head *next, *prev; };

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}
struct hlist_head { struct hlist_node *first; };
struct hlist_node { struct hlist_node *next, **pprev; };
struct llist_head { struct llist_node *first; };
struct llist_node { struct llist_node *next; };
#define DECLARE_HASHTABLE(name, bits)	struct hlist_head name[1 << (bits)]

struct rcu_head { void *next; void (*func)(struct rcu_head *head); };

struct timer_list { unsigned long expires; void (*function)(struct timer_list *t); };
struct work_struct { unsigned long data; void (*func)(struct work_struct *w); };
/* struct sv_cq's handler call to another CPU: the fuzzed code makes none */
typedef struct { void (*func)(void *info); void *info; } call_single_data_t;
struct workqueue_struct;
#define WORK_CPU_UNBOUND	64

struct xarray { void *head; };

/* <linux/jump_label.h>: every static key is off */
struct static_key_false { int enabled; };
#define DECLARE_STATIC_KEY_FALSE(name)	extern struct static_key_false name
#define static_branch_unlikely(k)	((void)(k), false)

/* <linux/prandom.h> */
struct rnd_state { u32 s1, s2, s3, s4; };

/* <linux/mm.h> */
#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_ALIGN(x)	ALIGN(x, PAGE_SIZE)
typedef unsigned long vm_flags_t;
struct vm_area_struct { vm_flags_t vm_flags; };
struct page;
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

#endif /* SHIM_LINUX_SHIM_SYNC_H */
