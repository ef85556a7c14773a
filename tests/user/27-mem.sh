#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# Queue memory is the process's, driven by distro rdma-core (librxe) through
# pyverbs.
#
#   init_net:  sv_mem0 (softverbs) on vA 10.27.0.1/24, vA ===== veth ===== vB
#
# A user queue's ring is kernel memory that cannot be swapped (one QP at the
# device's maximum capacities takes ~100 MiB), so it is bounded twice:
#   - per user context, by the module parameter ctx_mem_max_mb: 27-mem.py
#     fills one context with CQs up to a 16 MiB limit (the next is refused
#     with ENOMEM, the count is exact), a QP whose SQ passes the limit is
#     refused, a second context has its own limit, a destroyed CQ gives its
#     share back, and a fresh context gets the whole limit again; the
#     refusal is logged with the parameter's name;
#   - by the memory cgroup (kernels with CONFIG_MEMCG, not the debug one):
#     a process in a cgroup with memory.max 64 MiB creates the largest CQs
#     until one fails with ENOMEM, and the cgroup's OOM killer never runs.
# The module unloads and the kernel log stays clean.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma
py=/usr/bin/python3
helper=$(dirname "$0")/27-mem.py
[ -x $py ] || sv_skip "python3 is not installed"

log_start=$(dmesg | wc -l)
param=/sys/module/softverbs/parameters/ctx_mem_max_mb

sv_load_module
sv_on_exit sv_unload_module
[ -w $param ] || sv_fail "no writable $param"
sv_veth_pair vA vB
ip addr add 10.27.0.1/24 dev vA
rdma link add sv_mem0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_mem0 2>/dev/null'

default=$(cat $param)
sv_assert_eq 1024 "$default" "ctx_mem_max_mb default"

echo "--- per-context limit"
echo 16 >$param
sv_on_exit "[ ! -w $param ] || echo $default >$param"
rc=0
$py "$helper" sv_mem0 ctxlimit 16 || rc=$?
[ $rc != 77 ] || sv_skip "python3-pyverbs is not installed"
[ $rc = 0 ] || sv_fail "27-mem.py ctxlimit failed"
grep -q 'ctx_mem_max_mb=16' <<<"$(dmesg | tail -n +"$((log_start + 1))")" ||
	sv_fail "no log line naming ctx_mem_max_mb for the refusal"
echo "ok: the refusal is logged with the parameter"
echo "$default" >$param

echo "--- memory cgroup"
if ! grep -qw memory /proc/cgroups 2>/dev/null ||
	[ "$(awk '$1 == "memory" { print $4 }' /proc/cgroups)" != 1 ]; then
	echo "note: this kernel has no memory cgroup controller: memcg case not run"
else
	cg=/sys/fs/cgroup
	if [ ! -f $cg/cgroup.controllers ]; then
		mount -t cgroup2 none $cg || sv_fail "cannot mount cgroup2 on $cg"
		sv_on_exit "umount $cg"
	fi
	grep -qw memory $cg/cgroup.controllers || sv_fail "cgroup2 has no memory controller"
	grep -qw memory $cg/cgroup.subtree_control || echo +memory >$cg/cgroup.subtree_control
	mkdir $cg/sv-mem
	sv_on_exit "rmdir $cg/sv-mem"
	echo 64M >$cg/sv-mem/memory.max
	$py "$helper" sv_mem0 memcg $cg/sv-mem || sv_fail "27-mem.py memcg failed"
	kills=$(awk '$1 == "oom_kill" { print $2 }' $cg/sv-mem/memory.events)
	hits=$(awk '$1 == "max" { print $2 }' $cg/sv-mem/memory.events)
	sv_assert_eq 0 "$kills" "OOM kills in the cgroup"
	[ "${hits:-0}" -gt 0 ] || sv_fail "the cgroup never reached memory.max: rings not charged?"
	echo "ok: the rings were charged to the cgroup ($hits times at memory.max), no OOM kill"
fi

sv_unload_clean "$log_start"
