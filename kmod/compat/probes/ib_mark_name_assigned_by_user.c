// SPDX-License-Identifier: GPL-2.0
/*
 * A driver says that its device's name came from user space (rdma link
 * add NAME) with ib_mark_name_assigned_by_user() (6.11+); nldev reports it
 * (RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE) and rdma-core's rdma_rename (v53+)
 * leaves such a name alone.
 */
#include <rdma/ib_verbs.h>

void (*probe_ib_mark_name_assigned_by_user)(struct ib_device *) =
	ib_mark_name_assigned_by_user;
