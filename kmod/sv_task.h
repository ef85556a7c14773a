/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A task: work that any context may ask for, done by one runner at a time,
 * a bounded amount per run.  The requester (sv_req.c) and the completer's
 * retiring (sv_comp.c) are tasks.
 *
 * Asking (sv_task_claim()) counts a request.  The caller that raises the
 * count from 0 becomes the runner: it runs the task inline
 * (sv_task_run()) or hands the role to the work item (sv_task_defer()).
 * Every other caller returns at once: the runner calls ->run again before
 * it gives the role up, so nothing asked for is lost, and a caller never
 * waits for, recurses into or deadlocks with a run in progress (a
 * completion handler may ask again from inside a run).
 *
 * Bounded work: ->run does at most *budget units and returns false when it
 * stopped with work left (budget used up); the runner then hands the role
 * to the work item, which runs with budget_work and requeues itself the
 * same way.  So a caller's share is bounded whatever other threads keep
 * asking for (e.g. a process advancing its mapped producer index): that
 * cost lands on a work item that yields, never on a softirq, a timer or
 * another task's system call.
 *
 * Ordering: sv_task_claim() is a full barrier, and the runner reads the
 * count with acquire before each ->run, so a run sees everything a caller
 * published before asking.
 */
#ifndef SV_TASK_H
#define SV_TASK_H

#include <linux/atomic.h>
#include <linux/workqueue.h>

struct sv_task;

/*
 * Do at most *@budget units of work, counting them down.  Returns true
 * when there is nothing more to do now, false when work is left.
 */
typedef bool (*sv_task_fn)(struct sv_task *task, int *budget);

/**
 * struct sv_task - one runner at a time, bounded work per run
 * @pending:	requests not yet seen by the runner; non-zero while a runner
 *		(an inline caller or the work item) owns the task
 * @cpu:	where the work item is queued: WORK_CPU_UNBOUND, or a CPU
 *		the owner's run pins it to; written only by the runner
 * @budget_work: the budget of a run from the work item
 * @run:	the work (sv_task_fn)
 * @wq:	the workqueue of the work item
 * @work:	runs the task when the role was handed over
 */
struct sv_task {
	atomic_t		pending;
	int			cpu;
	int			budget_work;
	sv_task_fn		run;
	struct workqueue_struct	*wq;
	struct work_struct	work;
};

void sv_task_init(struct sv_task *task, struct workqueue_struct *wq,
		  sv_task_fn run, int budget_work);

/*
 * Ask for a run.  Returns true if the caller became the runner: it must
 * then call sv_task_run() or sv_task_defer().  Any context; full barrier.
 */
static inline bool sv_task_claim(struct sv_task *task)
{
	return atomic_inc_return(&task->pending) == 1;
}

/* The runner runs until no request is left or its budget is used up. */
void sv_task_run(struct sv_task *task, int budget);
/* The runner hands its role to the work item.  Any context. */
void sv_task_defer(struct sv_task *task);

/*
 * Ask for a run and, if the caller became the runner, run inline with
 * @budget, or in the work item when interrupts are off (the tasks take
 * bottom-half locks).
 */
void sv_task_sched(struct sv_task *task, int budget);

/*
 * Take the runner role back from a work item that is queued and has not
 * started (process context).  Returns true if the caller is now the
 * runner and must call sv_task_run() or sv_task_defer(); false if no
 * work item was waiting (idle, or a runner is running now).  A work item
 * that requeued itself is done with the task once it is queued
 * (sv_task_defer() is a runner's last act), so taking it back never
 * makes two runners.
 */
bool sv_task_take_back(struct sv_task *task);

/* No runner owns the task (nothing asked for is left undone). */
static inline bool sv_task_idle(const struct sv_task *task)
{
	return !atomic_read(&task->pending);
}

/*
 * Wait for the work item (process context).  Returns true when the task
 * is idle; false when a runner still owns it (an inline caller on another
 * CPU, or a work item that requeued itself): the caller waits and asks
 * again.
 */
bool sv_task_flush(struct sv_task *task);

#endif /* SV_TASK_H */
