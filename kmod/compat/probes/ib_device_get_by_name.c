// SPDX-License-Identifier: GPL-2.0
/* drivers may look an RDMA device up by name (ib_device_get_by_name) */
#include <rdma/ib_verbs.h>

struct ib_device *(*probe_ib_device_get_by_name)(const char *,
						  enum rdma_driver_id) =
	ib_device_get_by_name;
