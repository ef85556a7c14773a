// SPDX-License-Identifier: GPL-2.0
/*
 * The device's parent in sysfs: /sys/devices/softverbsN, with a net/
 * directory that links the netdev, as the PCI function of a RoCE NIC has
 * one.  Tools find an RDMA device's netdev there (rdma-core's tests read
 * /sys/class/infiniband/DEV/device/net/ and skip their rdma_cm cases
 * without it), and a device without a parent is a top-level class device
 * that such tools cannot place.
 *
 * Not the netdev's own parent device: rdma-core's udev rule
 * (60-rdma-persistent-naming.rules, NAME_FALLBACK) renames every RDMA
 * device whose parent is a PCI function, so on a host with a PCI NIC the
 * device a user named "sv0" would become "rocep0s3" under them.  A root
 * device has no subsystem and no firmware index: the rule leaves its
 * children's names alone.
 *
 * Lifetime: created before the ib_device is registered (device_add()
 * takes a reference on its parent) and unregistered after it
 * (dealloc_driver); the struct device itself goes with the last reference.
 * The link is renamed with the netdev, under RTNL (sv_dev.c's notifier).
 *
 * Our children are the ib_device and its compat devices, the device's view
 * in each other net namespace (ib_core, shared mode).  ib_core removes a
 * compat device from that namespace's exit (rdma_dev_exit_net()) holding
 * nothing we can wait on, and can still be at it when our ib_device is
 * unregistered and dealloc_driver runs: removing our directory then takes
 * its attribute groups from under it and its removal warns
 * (sysfs_remove_group: "group not found").  Each child holds a reference to
 * us until its device_del() ends, so we wait for those first.
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/idr.h>
#include <linux/netdevice.h>
#include <linux/sysfs.h>

#include "sv.h"

static DEFINE_IDA(sv_parent_ida);

int sv_parent_create(struct sv_dev *sv)
{
	struct sv_parent *p = &sv->parent;
	char name[32];
	int id, err;

	id = ida_alloc(&sv_parent_ida, GFP_KERNEL);
	if (id < 0)
		return id;
	snprintf(name, sizeof(name), "softverbs%d", id);
	p->dev = root_device_register(name);
	if (IS_ERR(p->dev)) {
		err = PTR_ERR(p->dev);
		goto err_free_id;
	}
	p->net = kobject_create_and_add("net", &p->dev->kobj);
	if (!p->net) {
		err = -ENOMEM;
		goto err_unregister;
	}
	rtnl_lock();
	strscpy(p->ifname, sv->ndev->name, sizeof(p->ifname));
	err = sysfs_create_link(p->net, &sv->ndev->dev.kobj, p->ifname);
	rtnl_unlock();
	if (err)
		goto err_put_net;
	p->id = id;
	return 0;

err_put_net:
	kobject_put(p->net);
err_unregister:
	root_device_unregister(p->dev);
err_free_id:
	ida_free(&sv_parent_ida, id);
	p->dev = NULL;
	return err;
}

/*
 * The netdev was renamed: so is its link.  Under RTNL.  Removed and made
 * again, not sysfs_rename_link(): that looks the old name up with the
 * netdev's namespace tag, which our net/ directory does not carry.
 */
void sv_parent_netdev_renamed(struct sv_dev *sv)
{
	struct sv_parent *p = &sv->parent;

	ASSERT_RTNL();
	if (!p->dev || !strcmp(p->ifname, sv->ndev->name))
		return;
	sysfs_remove_link(p->net, p->ifname);
	strscpy(p->ifname, sv->ndev->name, sizeof(p->ifname));
	if (sysfs_create_link(p->net, &sv->ndev->dev.kobj, p->ifname))
		sv_err_dev(sv, "no link to %s in sysfs\n", p->ifname);
}

/*
 * References to our device other than ours and net/'s are children being
 * removed (above).  Each is a few sysfs removals away from dropping it;
 * the bound only keeps a leaked reference from hanging the unregister.
 */
void sv_parent_wait_children(struct sv_parent *p)
{
	unsigned int waited_ms = 0;

	might_sleep();
	while (kref_read(&p->dev->kobj.kref) > 2) {
		if (waited_ms >= 10000) {
			dev_warn(p->dev, "a child device is still being removed, removing ours\n");
			return;
		}
		msleep(20);
		waited_ms += 20;
	}
}

void sv_parent_destroy(struct sv_dev *sv)
{
	struct sv_parent *p = &sv->parent;

	if (!p->dev)
		return;
	sv_parent_wait_children(p);
	rtnl_lock();
	sysfs_remove_link(p->net, p->ifname);
	rtnl_unlock();
	kobject_put(p->net);
	root_device_unregister(p->dev);
	ida_free(&sv_parent_ida, p->id);
	p->dev = NULL;
}
