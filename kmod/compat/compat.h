/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel compatibility: the only place that knows kernels differ.
 *
 * Kbuild runs compat/probe.sh, which compiles each compat/probes/NAME.c
 * against the target tree and writes SV_HAVE_NAME into compat/config.h.
 * Core code uses only the shims below (and in compat/sv_compat_*.h) and
 * never tests version numbers.  What softverbs cannot build without is
 * listed in compat/required: probe.sh refuses a kernel lacking it with
 * one message naming the probe.
 *
 * Supported kernels: Linux 6.1 to 7.3 (also stated in dkms.conf and
 * README.md).
 */
#ifndef SV_COMPAT_H
#define SV_COMPAT_H

#include "config.h"
#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/timer.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "sv_opcode.h"	/* the IBTA 1.5 numbers checked below */

/*
 * softverbs reports its netdev through ib_device_ops.get_netdev rather
 * than ib_device_set_netdev(): ib_device_get_by_netdev() must never find a
 * softverbs device, because Soft-RoCE shares our driver id (RDMA_DRIVER_RXE,
 * which librxe matches on) and its netdev notifier would treat our device
 * as its own.
 */
#ifndef SV_HAVE_OPS_GET_NETDEV
#error "softverbs supports Linux 6.1 to 7.3: this ib_core has no ib_device_ops.get_netdev"
#endif

/*
 * ib_device_ops.create_cq: the last argument became a uverbs_attr_bundle
 * (NULL for kernel consumers) in place of the udata.
 */
#ifdef SV_HAVE_CREATE_CQ_ATTRS
typedef struct uverbs_attr_bundle *sv_create_cq_arg_t;

static inline struct ib_udata *sv_create_cq_udata(sv_create_cq_arg_t arg)
{
	return arg ? &arg->driver_udata : NULL;
}
#else
typedef struct ib_udata *sv_create_cq_arg_t;

static inline struct ib_udata *sv_create_cq_udata(sv_create_cq_arg_t arg)
{
	return arg;
}
#endif

/*
 * IBTA 1.5 Memory Placement Extensions (RDMA FLUSH, RDMA ATOMIC WRITE).
 *
 * FLUSH needs an ib_core that knows it (6.2+): its MR access rights (6.1's
 * ib_check_mr_access() refuses unknown bits), so without it softverbs
 * neither advertises nor executes FLUSH (SV_MPE false; sv_opcode.c's work
 * request table reads SV_MPE, core files never SV_HAVE_*): such WQEs complete
 * with a local QP operation error and such requests are NAKed as invalid.
 *
 * ATOMIC WRITE needs nothing of ib_core on the user path: librxe writes
 * the WQE into the mapped SQ, the CQE goes into the mapped CQ and the
 * responder needs only remote write access.  So user QPs have it on every
 * kernel, advertised as the uverbs capability bit (SV_DEVICE_ATOMIC_WRITE,
 * 1 << 40 in <rdma/ib_user_verbs.h> of 6.2+, copied to user space whole by
 * 6.1's uverbs too).  Kernel consumers have it only where ib_core defines
 * IB_WR_ATOMIC_WRITE (6.2+, SV_HAVE_IB_MPE).
 */
#define SV_DEVICE_ATOMIC_WRITE	BIT_ULL(40)
#ifdef SV_HAVE_IB_MPE
static_assert(SV_DEVICE_ATOMIC_WRITE == IB_DEVICE_ATOMIC_WRITE);
/* where ib_core has them, the user ABI numbers (sv_opcode.h) are its own */
static_assert(SV_WR_FLUSH == IB_WR_FLUSH);
static_assert(SV_WR_ATOMIC_WRITE == IB_WR_ATOMIC_WRITE);
static_assert(SV_WC_FLUSH == IB_WC_FLUSH);
static_assert(SV_WC_ATOMIC_WRITE == IB_WC_ATOMIC_WRITE);
static_assert(SV_FLUSH_GLOBAL == IB_FLUSH_GLOBAL);
static_assert(SV_FLUSH_PERSISTENT == IB_FLUSH_PERSISTENT);
static_assert(SV_FLUSH_RANGE == IB_FLUSH_RANGE);
static_assert(SV_FLUSH_MR == IB_FLUSH_MR);
#define SV_MPE			true
#define SV_ACCESS_FLUSH_GLOBAL	IB_ACCESS_FLUSH_GLOBAL
#define SV_ACCESS_FLUSH_PERSISTENT IB_ACCESS_FLUSH_PERSISTENT
#define SV_DEVICE_MPE_CAPS	(IB_DEVICE_FLUSH_GLOBAL | SV_DEVICE_ATOMIC_WRITE)
#else
#define SV_MPE			false
#define SV_ACCESS_FLUSH_GLOBAL	0
#define SV_ACCESS_FLUSH_PERSISTENT 0
#define SV_DEVICE_MPE_CAPS	SV_DEVICE_ATOMIC_WRITE
#endif
#define SV_ACCESS_FLUSH	(SV_ACCESS_FLUSH_GLOBAL | SV_ACCESS_FLUSH_PERSISTENT)

/*
 * ODP capability bits for FLUSH and ATOMIC WRITE into ODP MRs, where
 * ib_core names them (the responder faults for both like for a WRITE);
 * FLUSH only where softverbs executes it at all.
 */
#ifdef SV_HAVE_ODP_SUPPORT_MPE
#define SV_ODP_SUPPORT_MPE	(IB_ODP_SUPPORT_ATOMIC_WRITE | \
				 (SV_MPE ? IB_ODP_SUPPORT_FLUSH : 0))
#else
#define SV_ODP_SUPPORT_MPE	0
#endif

/*
 * Setting flags on a VMA being mapped: vm_flags_set() from 6.3 on (the
 * field became read-only for drivers), a plain write before.
 */
#ifdef SV_HAVE_VM_FLAGS_SET
static inline void sv_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vm_flags_set(vma, flags);
}
#else
static inline void sv_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * The device's name was given by the user (rdma link add): 6.11 on tell
 * ib_core, which tells rdma-core's udev renamer to keep it; before, no
 * kernel records it.
 */
#ifdef SV_HAVE_IB_MARK_NAME_ASSIGNED_BY_USER
static inline void sv_mark_name_assigned_by_user(struct ib_device *ibdev)
{
	ib_mark_name_assigned_by_user(ibdev);
}
#else
static inline void sv_mark_name_assigned_by_user(struct ib_device *ibdev)
{
}
#endif

/*
 * ib_device_ops.reg_user_mr_dmabuf: like create_cq, the last argument
 * became a uverbs_attr_bundle (6.10+) in place of the udata (and later a
 * DMA handle came before it: compat/sv_compat_ops.h).
 */
#if defined(SV_HAVE_REG_DMABUF_ATTRS) || defined(SV_HAVE_REG_DMABUF_DMAH)
typedef struct uverbs_attr_bundle *sv_reg_dmabuf_arg_t;

static inline struct ib_udata *sv_reg_dmabuf_udata(sv_reg_dmabuf_arg_t arg)
{
	return arg ? &arg->driver_udata : NULL;
}
#else
typedef struct ib_udata *sv_reg_dmabuf_arg_t;

static inline struct ib_udata *sv_reg_dmabuf_udata(sv_reg_dmabuf_arg_t arg)
{
	return arg;
}
#endif

/*
 * A kernel mapping of a whole dma-buf: from 6.2 on dma_buf_vmap() wants
 * the reservation lock held and dma_buf_vmap_unlocked() takes it; before,
 * dma_buf_vmap() takes what it needs itself.
 */
#ifdef SV_HAVE_DMA_BUF_VMAP_UNLOCKED
static inline int sv_dma_buf_vmap(struct dma_buf *dmabuf,
				  struct iosys_map *map)
{
	return dma_buf_vmap_unlocked(dmabuf, map);
}

static inline void sv_dma_buf_vunmap(struct dma_buf *dmabuf,
				     struct iosys_map *map)
{
	dma_buf_vunmap_unlocked(dmabuf, map);
}
#else
static inline int sv_dma_buf_vmap(struct dma_buf *dmabuf,
				  struct iosys_map *map)
{
	return dma_buf_vmap(dmabuf, map);
}

static inline void sv_dma_buf_vunmap(struct dma_buf *dmabuf,
				     struct iosys_map *map)
{
	dma_buf_vunmap(dmabuf, map);
}
#endif

/*
 * Workqueues: core code uses today's names.  From 6.17 a per-CPU queue
 * says WQ_PERCPU (without it or WQ_UNBOUND alloc_workqueue() warns), and
 * system_wq is system_percpu_wq (queueing on the old name warns).
 */
#ifndef SV_HAVE_WQ_PERCPU
#define WQ_PERCPU		0
#endif
#ifndef SV_HAVE_SYSTEM_PERCPU_WQ
#define system_percpu_wq	system_wq
#endif

/*
 * Timers: core code uses today's names.  timer_delete[_sync]() came in
 * 6.2 and timer_container_of() in 6.16; the old names are gone in 7.x.
 */
#ifndef SV_HAVE_TIMER_DELETE
#define timer_delete(timer)		del_timer(timer)
#define timer_delete_sync(timer)	del_timer_sync(timer)
#endif
#ifndef SV_HAVE_TIMER_CONTAINER_OF
#define timer_container_of(var, timer, field)	from_timer(var, timer, field)
#endif

/*
 * The module imports the DMA_BUF symbol namespace (dma-buf MRs):
 * MODULE_IMPORT_NS() took an identifier before 6.13, a string since.
 */
#ifdef SV_HAVE_MODULE_IMPORT_NS_IDENT
#define SV_MODULE_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS(DMA_BUF)
#else
#define SV_MODULE_IMPORT_NS_DMA_BUF()	MODULE_IMPORT_NS("DMA_BUF")
#endif

/*
 * Is there an RDMA device of this name already?  Where ib_core no longer
 * lets drivers look devices up by name, the answer is "not known" (false)
 * and ib_register_device() refuses a taken name itself (-ENFILE).
 */
static inline bool sv_ib_device_name_taken(const char *name)
{
#ifdef SV_HAVE_IB_DEVICE_GET_BY_NAME
	struct ib_device *other = ib_device_get_by_name(name,
							RDMA_DRIVER_UNKNOWN);

	if (other)
		ib_device_put(other);
	return other;
#else
	return false;
#endif
}

#endif /* SV_COMPAT_H */
