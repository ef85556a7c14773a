#!/bin/bash
# sv-test: kernels=sid needs=rxe,nic cost=XL
# rdma-core 65's own test suite, issue 42's gate: tests/user/63-rdma-core.sh
# (the suite on softverbs through librxe, then through libsoftverbs, then
# on Soft-RoCE on the same NIC, in one boot) with rdma-core 65's pyverbs
# and tests instead of Debian 12's 44.  They need sid's python3.14, so
# they live in the sid root of scripts/test-root.sh, which check.sh boots
# with tests/vm/run.sh --root (kernels=sid): in any other root (the
# host's Debian 12) this test skips.
#
#   init_net:  sv_rc0 (softverbs) on the VM's NIC 10.63.0.1/24, fd63::1/64
#   then:      rxe_rc0 (Soft-RoCE) on the same NIC
#
# Passes as 63 does: no failure and no error on softverbs through either
# library, its rdma_cm tests all pass, and every test that passes on
# Soft-RoCE passes on softverbs.
. "$(dirname "$0")/lib.sh"

want=65
ver=$(dpkg-query -W -f '${Version}' python3-pyverbs 2>/dev/null || true)
if [ -z "$ver" ] || dpkg --compare-versions "$ver" lt "$want"; then
	sv_skip "no rdma-core $want suite here (python3-pyverbs ${ver:-not installed}): it runs in scripts/test-root.sh's sid root"
fi
echo "rdma-core suite of python3-pyverbs $ver ($(. /etc/os-release && echo "$PRETTY_NAME"))"

# What the running kernel lacks and the suite does not skip for.  Each is
# accepted only if the test errors alike on Soft-RoCE (63 checks that).
#  - rdma_resolve_addrinfo() (test_rdmacm_async_resolve_addrinfo) needs
#    ucma's RDMA_USER_CM_CMD_RESOLVE_IB_SERVICE, which 7.x has and 6.12
#    does not: its passive side fails before any traffic.  Asked of the
#    kernel itself, not of its version: is ucma's handler there.
kernel_errors=()
modprobe -q rdma_ucm 2>/dev/null || true
syms=$(grep -F ' ucma_' /proc/kallsyms || true)
if [[ $syms != *' ucma_resolve_ib_service'* ]]; then
	echo "note: this kernel's rdma_ucm has no RESOLVE_IB_SERVICE: test_rdmacm_async_resolve_addrinfo may error"
	kernel_errors+=(tests.test_rdmacm.CMTestCase.test_rdmacm_async_resolve_addrinfo)
fi
SV_63_KERNEL_ERRORS="${kernel_errors[*]}" exec bash "$(dirname "$0")/63-rdma-core.sh"
