// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libibverbs' provider ABI (IBVERBS_PRIVATE_65) as inert entry points, so
 * that rdma-core 65's provider libraries load when a program links them
 * directly: perftest links libmlx5, libefa and libhns for their direct
 * verbs, and those are linked with -z now, so the dynamic loader refuses
 * them unless every function they import exists.
 *
 * libsoftverbs is its own (only) provider and loads none.  A provider
 * library that is loaded anyway registers itself from its constructor
 * (verbs_register_driver_65), which is ignored; no device is ever handed
 * to it, so it never makes a context and nothing below is reached through
 * libsoftverbs.  If a provider's code calls one anyway, it fails: the
 * commands with EOPNOTSUPP (returned, and in errno), the constructors
 * with NULL and errno EOPNOTSUPP; the rest do nothing.  (The node's
 * ibv_query_gid_type and ibv_wr_opcode_str work: compat.c, str.c.)
 *
 * The prototypes are rdma-core's driver.h and cmd_*.h ones; none is
 * declared here, the arguments are never read, and a function taking more
 * arguments than its definition names is harmless in the C calling
 * conventions of the supported ABIs (the caller owns the stack).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "ulib.h"

#define SV_PROVIDER_CMD(name)						\
	SV_EXPORT int name(void);					\
	SV_EXPORT int name(void)					\
	{								\
		errno = EOPNOTSUPP;					\
		return EOPNOTSUPP;					\
	}

#define SV_PROVIDER_NEW(name)						\
	SV_EXPORT void *name(void);					\
	SV_EXPORT void *name(void)					\
	{								\
		errno = EOPNOTSUPP;					\
		return NULL;						\
	}

#define SV_PROVIDER_NOP(name)						\
	SV_EXPORT void name(void);					\
	SV_EXPORT void name(void)					\
	{								\
	}

/* commands and ioctl marshalling: int, an errno value on failure */
SV_PROVIDER_CMD(execute_ioctl)
SV_PROVIDER_CMD(ibv_cmd_advise_mr)
SV_PROVIDER_CMD(ibv_cmd_alloc_dm)
SV_PROVIDER_CMD(ibv_cmd_alloc_dmah)
SV_PROVIDER_CMD(ibv_cmd_alloc_mw)
SV_PROVIDER_CMD(ibv_cmd_alloc_pd)
SV_PROVIDER_CMD(ibv_cmd_attach_mcast)
SV_PROVIDER_CMD(ibv_cmd_close_xrcd)
SV_PROVIDER_CMD(ibv_cmd_create_ah)
SV_PROVIDER_CMD(ibv_cmd_create_comp_cntr)
SV_PROVIDER_CMD(ibv_cmd_create_counters)
SV_PROVIDER_CMD(ibv_cmd_create_cq)
SV_PROVIDER_CMD(ibv_cmd_create_cq_ex2)
SV_PROVIDER_CMD(ibv_cmd_create_cq_ex)
SV_PROVIDER_CMD(ibv_cmd_create_flow)
SV_PROVIDER_CMD(ibv_cmd_create_flow_action_esp)
SV_PROVIDER_CMD(ibv_cmd_create_qp)
SV_PROVIDER_CMD(ibv_cmd_create_qp_ex2)
SV_PROVIDER_CMD(ibv_cmd_create_qp_ex)
SV_PROVIDER_CMD(ibv_cmd_create_rwq_ind_table)
SV_PROVIDER_CMD(ibv_cmd_create_srq)
SV_PROVIDER_CMD(ibv_cmd_create_srq_ex)
SV_PROVIDER_CMD(ibv_cmd_create_wq)
SV_PROVIDER_CMD(ibv_cmd_dealloc_mw)
SV_PROVIDER_CMD(ibv_cmd_dealloc_pd)
SV_PROVIDER_CMD(ibv_cmd_dereg_mr)
SV_PROVIDER_CMD(ibv_cmd_destroy_ah)
SV_PROVIDER_CMD(ibv_cmd_destroy_comp_cntr)
SV_PROVIDER_CMD(ibv_cmd_destroy_counters)
SV_PROVIDER_CMD(ibv_cmd_destroy_cq)
SV_PROVIDER_CMD(ibv_cmd_destroy_flow)
SV_PROVIDER_CMD(ibv_cmd_destroy_flow_action)
SV_PROVIDER_CMD(ibv_cmd_destroy_qp)
SV_PROVIDER_CMD(ibv_cmd_destroy_rwq_ind_table)
SV_PROVIDER_CMD(ibv_cmd_destroy_srq)
SV_PROVIDER_CMD(ibv_cmd_destroy_wq)
SV_PROVIDER_CMD(ibv_cmd_detach_mcast)
SV_PROVIDER_CMD(ibv_cmd_export_dmabuf_fd)
SV_PROVIDER_CMD(ibv_cmd_free_dm)
SV_PROVIDER_CMD(ibv_cmd_free_dmah)
SV_PROVIDER_CMD(ibv_cmd_get_context)
SV_PROVIDER_CMD(ibv_cmd_inc_comp_cntr)
SV_PROVIDER_CMD(ibv_cmd_inc_err_comp_cntr)
SV_PROVIDER_CMD(ibv_cmd_modify_cq)
SV_PROVIDER_CMD(ibv_cmd_modify_flow_action_esp)
SV_PROVIDER_CMD(ibv_cmd_modify_qp)
SV_PROVIDER_CMD(ibv_cmd_modify_qp_ex)
SV_PROVIDER_CMD(ibv_cmd_modify_srq)
SV_PROVIDER_CMD(ibv_cmd_modify_wq)
SV_PROVIDER_CMD(ibv_cmd_open_qp)
SV_PROVIDER_CMD(ibv_cmd_open_xrcd)
SV_PROVIDER_CMD(ibv_cmd_poll_cq)
SV_PROVIDER_CMD(ibv_cmd_post_recv)
SV_PROVIDER_CMD(ibv_cmd_post_send)
SV_PROVIDER_CMD(ibv_cmd_post_srq_recv)
SV_PROVIDER_CMD(ibv_cmd_qp_attach_comp_cntr)
SV_PROVIDER_CMD(ibv_cmd_query_comp_cntr_caps)
SV_PROVIDER_CMD(ibv_cmd_query_context)
SV_PROVIDER_CMD(ibv_cmd_query_device_any)
SV_PROVIDER_CMD(ibv_cmd_query_mr)
SV_PROVIDER_CMD(ibv_cmd_query_port)
SV_PROVIDER_CMD(ibv_cmd_query_port_speed)
SV_PROVIDER_CMD(ibv_cmd_query_qp)
SV_PROVIDER_CMD(ibv_cmd_query_srq)
SV_PROVIDER_CMD(ibv_cmd_read_comp_cntr)
SV_PROVIDER_CMD(ibv_cmd_read_counters)
SV_PROVIDER_CMD(ibv_cmd_read_err_comp_cntr)
SV_PROVIDER_CMD(ibv_cmd_reg_dm_mr)
SV_PROVIDER_CMD(ibv_cmd_reg_dmabuf_mr)
SV_PROVIDER_CMD(ibv_cmd_reg_mr)
SV_PROVIDER_CMD(ibv_cmd_reg_mr_ex)
SV_PROVIDER_CMD(ibv_cmd_req_notify_cq)
SV_PROVIDER_CMD(ibv_cmd_rereg_mr)
SV_PROVIDER_CMD(ibv_cmd_resize_cq)
SV_PROVIDER_CMD(ibv_cmd_set_comp_cntr)
SV_PROVIDER_CMD(ibv_cmd_set_err_comp_cntr)

/* context, device and dma-buf heap constructors */
SV_PROVIDER_NEW(_verbs_init_and_alloc_context)
SV_PROVIDER_NEW(ibv_dmabuf_heap_alloc)
SV_PROVIDER_NEW(ibv_dmabuf_heap_cc_shared_init)
SV_PROVIDER_NEW(verbs_open_device)

/* registration (ignored), set-up and teardown, logging */
SV_PROVIDER_NOP(__verbs_log)
SV_PROVIDER_NOP(ibv_dmabuf_heap_destroy)
SV_PROVIDER_NOP(ibv_dmabuf_heap_free)
SV_PROVIDER_NOP(verbs_init_cq)
SV_PROVIDER_NOP(verbs_register_driver_65)
SV_PROVIDER_NOP(verbs_set_ops)
SV_PROVIDER_NOP(verbs_uninit_context)

/* -1 and errno, like the sysfs readers of compat.c */
SV_EXPORT int ibv_read_ibdev_sysfs_file(void);
SV_EXPORT int ibv_read_ibdev_sysfs_file(void)
{
	errno = EOPNOTSUPP;
	return -1;
}

/* the attribute count an ioctl buffer is sized by: none */
SV_EXPORT unsigned int __ioctl_final_num_attrs(void);
SV_EXPORT unsigned int __ioctl_final_num_attrs(void)
{
	return 0;
}

/* read by providers at context teardown; as in libibverbs, off */
SV_EXPORT bool verbs_allow_disassociate_destroy;
