// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kmod/sv_parent.c: the device's parent in sysfs outlives
 * the children being removed under it.
 *
 * ib_core removes a compat device (a child of our parent) from a net
 * namespace's exit with nothing a driver can wait on; removing the parent
 * first takes the child's sysfs groups from under it (a WARN in
 * sysfs_remove_group).  The suite plays that child: a device added under
 * the parent and removed while sv_parent_wait_children() waits.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/kthread.h>
#include <linux/slab.h>

#include "sv.h"

struct parent_case {
	struct sv_parent	p;
	struct completion	waited;
};

static int parent_wait_thread(void *data)
{
	struct parent_case *pc = data;

	sv_parent_wait_children(&pc->p);
	complete(&pc->waited);
	return 0;
}

static void parent_dev_release(struct device *dev)
{
	kfree(dev);
}

static struct device *parent_dev_add(struct kunit *test, struct device *parent,
				     const char *name)
{
	struct device *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	device_initialize(dev);
	dev->parent = parent;
	dev->release = parent_dev_release;
	KUNIT_ASSERT_EQ(test, dev_set_name(dev, "%s", name), 0);
	KUNIT_ASSERT_EQ(test, device_add(dev), 0);
	return dev;
}

/*
 * sv_parent_create()'s root device links the owning module, which has no
 * sysfs directory yet while KUnit runs its suites (module load): the
 * parent here is a plain device with the same net/ child.
 */
static void parent_waits_for_child(struct kunit *test)
{
	struct parent_case *pc;
	struct task_struct *t;
	struct device *child;

	pc = kunit_kzalloc(test, sizeof(*pc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pc);
	init_completion(&pc->waited);
	pc->p.dev = parent_dev_add(test, NULL, "sv-kunit-parent");
	pc->p.net = kobject_create_and_add("net", &pc->p.dev->kobj);
	KUNIT_ASSERT_NOT_NULL(test, pc->p.net);
	child = parent_dev_add(test, pc->p.dev, "sv-kunit-child");

	t = kthread_run(parent_wait_thread, pc, "sv-kunit-parent");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* the child is still there: the parent waits */
	msleep(200);
	KUNIT_EXPECT_FALSE(test, completion_done(&pc->waited));
	device_del(child);
	put_device(child);
	/* the child went: so can the parent, long before the 10 s bound */
	if (!wait_for_completion_timeout(&pc->waited, msecs_to_jiffies(5000))) {
		KUNIT_FAIL(test, "still waiting 5 s after the child went");
		wait_for_completion(&pc->waited);
	}
	kobject_put(pc->p.net);
	device_unregister(pc->p.dev);
}

/* no children: nothing to wait for */
static void parent_no_child_no_wait(struct kunit *test)
{
	struct sv_parent p = {};
	unsigned long t0 = jiffies;

	p.dev = parent_dev_add(test, NULL, "sv-kunit-parent");
	p.net = kobject_create_and_add("net", &p.dev->kobj);
	KUNIT_ASSERT_NOT_NULL(test, p.net);
	sv_parent_wait_children(&p);
	KUNIT_EXPECT_LT(test, jiffies - t0, msecs_to_jiffies(1000));
	kobject_put(p.net);
	device_unregister(p.dev);
}

static struct kunit_case parent_cases[] = {
	KUNIT_CASE(parent_waits_for_child),
	KUNIT_CASE(parent_no_child_no_wait),
	{}
};

static struct kunit_suite parent_suite = {
	.name = "softverbs_parent",
	.test_cases = parent_cases,
};
kunit_test_suites(&parent_suite);
