// SPDX-License-Identifier: GPL-2.0
/*
 * softverbs: a software RDMA (RoCEv2) provider on any Ethernet netdev.
 *
 * Module init and exit.  Exit undoes init in exact reverse order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "sv.h"
#include "sv_icrc.h"
#include "sv_xport.h"

struct workqueue_struct *sv_wq;

static struct rdma_link_ops sv_link_ops = {
	.type = "softverbs",
	.newlink = sv_dev_newlink,
};

static int __init sv_init(void)
{
	int err;

	/*
	 * Device unregistration on netdev removal; see sv_dev.c.  Not
	 * WQ_MEM_RECLAIM: ib_unregister_device() flushes ib_core's own
	 * "infiniband" workqueue, which is not a reclaim queue, and a reclaim
	 * queue may not wait on one (check_flush_dependency() warns).
	 * Nothing on the memory reclaim path ever waits for this work.
	 */
	sv_wq = alloc_workqueue("softverbs", WQ_UNBOUND, 0);
	if (!sv_wq)
		return -ENOMEM;

	err = sv_req_wq_create();
	if (err)
		goto err_destroy_wq;

	err = sv_icrc_init();
	if (err)
		goto err_destroy_req_wq;

	err = sv_net_init();
	if (err)
		goto err_icrc_exit;

	err = sv_dev_notifier_register();
	if (err)
		goto err_net_exit;

	/* management plane: the softverbs generic netlink family */
	err = sv_nl_init();
	if (err)
		goto err_notifier_unregister;

	rdma_link_register(&sv_link_ops);
	pr_info("loaded, version " SV_VERSION "\n");
	return 0;

err_notifier_unregister:
	sv_dev_notifier_unregister();
err_net_exit:
	sv_net_exit();
err_icrc_exit:
	sv_icrc_exit();
err_destroy_req_wq:
	sv_req_wq_destroy();
err_destroy_wq:
	destroy_workqueue(sv_wq);
	return err;
}

static void __exit sv_exit(void)
{
	rdma_link_unregister(&sv_link_ops);
	sv_nl_exit();	/* management plane */
	sv_dev_remove_all();
	sv_dev_notifier_unregister();
	sv_net_exit();
	sv_icrc_exit();
	sv_req_wq_destroy();
	destroy_workqueue(sv_wq);
	rcu_barrier();	/* sv_path_free_rcu()'s callbacks are module code */
	pr_info("unloaded\n");
}

module_init(sv_init);
module_exit(sv_exit);

MODULE_AUTHOR("softverbs developers");
MODULE_DESCRIPTION("softverbs: software RDMA over Converged Ethernet (RoCEv2) provider");
MODULE_LICENSE("GPL");
MODULE_VERSION(SV_VERSION);
MODULE_ALIAS_RDMA_LINK("softverbs");
/* dma-buf MRs (sv_mr.c) */
SV_MODULE_IMPORT_NS_DMA_BUF();
