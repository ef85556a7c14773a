#!/bin/sh
# Which parts of rdma-core 65's verbs API (libibverbs 1.15 to 1.18, and
# 45's wr_flush) the distro <infiniband/verbs.h> already declares, as -D
# flags for verbs65.h and ulib.h:
#
#   SV_HAVE_VERBS_WR_FLUSH   ibv_qp_ex.wr_flush (rdma-core 45)
#   SV_HAVE_VERBS_MR_EX      struct ibv_mr_init_attr, DMA handles (rdma-core 59)
#   SV_HAVE_VERBS_MR_BUF     ibv_mr_init_attr.buf, ibv_alloc_buf (rdma-core 64)
#   SV_HAVE_VERBS_COMP_CNTR  completion counters (rdma-core 65)
#
#   ulib/probe-verbs.sh CC [CFLAGS...]
set -u
cc=${1:-cc}
[ $# -gt 0 ] && shift

# probe NAME CODE: -DNAME when CODE compiles after verbs.h
probe() {
	name=$1 code=$2
	shift 2
	printf '#include <infiniband/verbs.h>\n%s\n' "$code" |
		$cc "$@" -x c -fsyntax-only - 2>/dev/null && printf ' -D%s' "$name"
}

probe SV_HAVE_VERBS_WR_FLUSH 'int x = sizeof(((struct ibv_qp_ex *)0)->wr_flush);' "$@"
probe SV_HAVE_VERBS_MR_EX 'int x = sizeof(struct ibv_mr_init_attr);' "$@"
probe SV_HAVE_VERBS_MR_BUF 'int x = sizeof(((struct ibv_mr_init_attr *)0)->buf);' "$@"
probe SV_HAVE_VERBS_COMP_CNTR 'int x = sizeof(struct ibv_comp_cntr_init_attr);' "$@"
echo
