// SPDX-License-Identifier: GPL-2.0
/*
 * The device's parent in sysfs, /sys/devices/softverbsN, whose net/ links
 * the netdev as a NIC's PCI function does; destroy waits for its children.
 *
 * Documentation/design.md, "Device life cycle".
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
