// SPDX-License-Identifier: GPL-2.0
/*
 * Code under test: compile kmod/sv_dev.c into softverbs_kunit.ko.
 *
 * And the one suite that needs its statics (the device list): a device
 * leaves the list only once every receive path that found it on the list
 * is done with it, so that its per-CPU counters are not written after
 * they are freed (issue 15 #4).  The receive path is played by a thread
 * that finds the device under RCU and stays inside its read-side section
 * for a while.
 */
#include "../../kmod/sv_dev.c"

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/kthread.h>

struct dev_unlist_case {
	struct sv_dev		*sv;
	struct completion	found;
	bool			found_it;
	bool			reader_done;	/* set before rcu_read_unlock() */
};

static int dev_unlist_reader(void *data)
{
	struct dev_unlist_case *c = data;

	rcu_read_lock();
	c->found_it = sv_dev_find_rcu(c->sv->ndev) == c->sv;
	complete(&c->found);
	mdelay(200);		/* counting into the device's stats */
	WRITE_ONCE(c->reader_done, true);
	rcu_read_unlock();
	return 0;
}

static void dev_unlist_waits_for_readers(struct kunit *test)
{
	struct dev_unlist_case *c;
	struct task_struct *t;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->sv = kunit_kzalloc(test, sizeof(*c->sv), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->sv);
	/* a netdev only by address: the list compares pointers */
	c->sv->ndev = kunit_kzalloc(test, sizeof(*c->sv->ndev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->sv->ndev);
	init_completion(&c->found);
	mutex_lock(&sv_devices_mutex);
	list_add_tail_rcu(&c->sv->list, &sv_devices);
	mutex_unlock(&sv_devices_mutex);

	t = kthread_run(dev_unlist_reader, c, "sv-kunit-reader");
	if (IS_ERR(t)) {
		sv_dev_unlist(c->sv);
		KUNIT_FAIL(test, "no reader thread");
		return;
	}
	wait_for_completion(&c->found);
	sv_dev_unlist(c->sv);
	KUNIT_EXPECT_TRUE(test, c->found_it);
	/* the reader that found it was done before unlist returned */
	KUNIT_EXPECT_TRUE(test, READ_ONCE(c->reader_done));
	rcu_read_lock();
	KUNIT_EXPECT_NULL(test, sv_dev_find_rcu(c->sv->ndev));
	rcu_read_unlock();
}

static struct kunit_case dev_unlist_cases[] = {
	KUNIT_CASE(dev_unlist_waits_for_readers),
	{}
};

static struct kunit_suite dev_unlist_suite = {
	.name = "softverbs_dev_unlist",
	.test_cases = dev_unlist_cases,
};
kunit_test_suites(&dev_unlist_suite);
