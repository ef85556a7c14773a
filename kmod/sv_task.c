// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks: one runner at a time, bounded work per run (see sv_task.h).
 */
#include <linux/hardirq.h>
#include <linux/irqflags.h>

#include "sv_task.h"

static void sv_task_work(struct work_struct *work)
{
	struct sv_task *task = container_of(work, struct sv_task, work);

	/* the role was handed over: pending stayed raised for this run */
	sv_task_run(task, task->budget_work);
}

void sv_task_init(struct sv_task *task, struct workqueue_struct *wq,
		  sv_task_fn run, int budget_work)
{
	atomic_set(&task->pending, 0);
	task->cpu = WORK_CPU_UNBOUND;
	task->budget_work = budget_work;
	task->run = run;
	task->wq = wq;
	INIT_WORK(&task->work, sv_task_work);
}

void sv_task_run(struct sv_task *task, int budget)
{
	int seen;

	do {
		/* acquire: see what the callers published before asking */
		seen = atomic_read_acquire(&task->pending);
		if (!task->run(task, &budget)) {
			/* work left: pending stays raised, the work item runs */
			sv_task_defer(task);
			return;
		}
		/* requests that came during the run ask for another one */
	} while (atomic_sub_return(seen, &task->pending));
}

void sv_task_defer(struct sv_task *task)
{
	queue_work_on(task->cpu, task->wq, &task->work);
}

void sv_task_sched(struct sv_task *task, int budget)
{
	if (!sv_task_claim(task))
		return;		/* the runner will run again */
	if (irqs_disabled() || in_hardirq())
		sv_task_defer(task);
	else
		sv_task_run(task, budget);
}

bool sv_task_flush(struct sv_task *task)
{
	flush_work(&task->work);
	return sv_task_idle(task);
}

bool sv_task_take_back(struct sv_task *task)
{
	return cancel_work(&task->work);
}
