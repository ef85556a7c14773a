/* SPDX-License-Identifier: GPL-2.0 */
/* Network objects sv.h and sv_xport.h name: opaque here. */
#ifndef SHIM_LINUX_SHIM_NET_H
#define SHIM_LINUX_SHIM_NET_H
#include <linux/shim_sync.h>

#define IFNAMSIZ	16
#define ETH_ALEN	6
struct net;
struct net_device;
struct sk_buff;
struct device;
struct kobject;
struct attribute_group;
struct scatterlist;
typedef struct { int unused; } netdevice_tracker;
/* embedded in struct sv_qp (the responder's and completer's ODP queues) */
struct sk_buff_head {
	struct sk_buff *next, *prev;
	unsigned int qlen;
	spinlock_t lock;
};
/* the fuzz targets run in no interrupt or softirq context */
#define in_softirq()	0
#define in_hardirq()	0
#endif
