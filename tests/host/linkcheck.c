// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Compiled against the distro <infiniband/verbs.h> and linked with
 * -lsoftverbs only: every function libibverbs exports for verbs programs
 * must resolve, so existing programs link unchanged.  rdma-core 65's
 * additions come from verbs65.h where the distro header lacks them.
 */
#include <stdio.h>

#include <infiniband/verbs.h>

#include "verbs65.h"

#define F(f) ((void (*)(void))(f))

int main(void)
{
	void (*volatile fns[])(void) = {
		F(ibv_get_device_list), F(ibv_free_device_list),
		F(ibv_get_device_name), F(ibv_get_device_guid),
		F(ibv_get_device_index), F(ibv_open_device),
		F(ibv_close_device), F(ibv_import_device),
		F(ibv_get_async_event), F(ibv_ack_async_event),
		F(ibv_query_device), F(ibv_query_gid), F(_ibv_query_gid_ex),
		F(_ibv_query_gid_table), F(ibv_query_pkey),
		F(ibv_get_pkey_index), F(ibv_alloc_pd), F(ibv_dealloc_pd),
		F(ibv_import_pd), F(ibv_unimport_pd), F(ibv_reg_mr_iova2),
		F(ibv_reg_dmabuf_mr), F(ibv_rereg_mr), F(ibv_dereg_mr),
		F(ibv_import_mr), F(ibv_unimport_mr), F(ibv_import_dm),
		F(ibv_unimport_dm), F(ibv_create_comp_channel),
		F(ibv_destroy_comp_channel), F(ibv_create_cq),
		F(ibv_resize_cq), F(ibv_destroy_cq), F(ibv_get_cq_event),
		F(ibv_ack_cq_events), F(ibv_create_srq), F(ibv_modify_srq),
		F(ibv_query_srq), F(ibv_destroy_srq), F(ibv_create_qp),
		F(ibv_modify_qp), F(ibv_query_qp), F(ibv_destroy_qp),
		F(ibv_qp_to_qp_ex), F(ibv_query_qp_data_in_order),
		F(ibv_create_ah), F(ibv_destroy_ah), F(ibv_init_ah_from_wc),
		F(ibv_create_ah_from_wc), F(ibv_attach_mcast),
		F(ibv_detach_mcast), F(ibv_fork_init),
		F(ibv_is_fork_initialized), F(ibv_node_type_str),
		F(ibv_port_state_str), F(ibv_event_type_str),
		F(ibv_wc_status_str), F(ibv_resolve_eth_l2_from_gid),
		F(ibv_rate_to_mult), F(mult_to_ibv_rate),
		F(ibv_rate_to_mbps), F(mbps_to_ibv_rate), F(ibv_set_ece),
		F(ibv_query_ece), F(ibv_reg_mr_ex), F(ibv_alloc_dmah),
		F(ibv_dealloc_dmah), F(ibv_query_port_speed),
		F(ibv_dm_export_dmabuf_fd), F(ibv_alloc_buf), F(ibv_free_buf),
		F(ibv_reg_buf_mr), F(ibv_export_buf_dmabuf_fd),
		F(_ibv_query_comp_cntr_caps), F(ibv_create_comp_cntr),
		F(ibv_destroy_comp_cntr), F(ibv_set_comp_cntr),
		F(ibv_set_err_comp_cntr), F(ibv_inc_comp_cntr),
		F(ibv_inc_err_comp_cntr), F(ibv_read_comp_cntr),
		F(ibv_read_err_comp_cntr), F(ibv_qp_attach_comp_cntr),
	};
	unsigned int i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!fns[i])
			return 1;
	/* The macro forms too. */
	if (0) {
		struct ibv_port_attr pa;

		ibv_query_port(NULL, 1, &pa);
		ibv_reg_mr(NULL, NULL, 0, 0);
		ibv_reg_mr_iova(NULL, NULL, 0, 0, 0);
		ibv_query_comp_cntr_caps(NULL, NULL);
	}
	printf("linkcheck: ok\n");
	return 0;
}
