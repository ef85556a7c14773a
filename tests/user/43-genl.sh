#!/bin/bash
# sv-test: kernels=debug,stock cost=S
# The softverbs generic netlink family from a raw netlink client (43-genl.py):
# validation, permissions, namespaces.
#
#   init_net                                  netns sv-genl
#   +---------------------------------------+ +-----------------------------+
#   | sv_g0 (softverbs) on gA               | | sv_g1 (softverbs) on gC     |
#   |                  gA ===== veth ===== gB | gC ===== veth ===== gD      |
#   +---------------------------------------+ +-----------------------------+
#
# Well-formed requests work (DEV_GET dump and do, STATS_GET, FAULT_SET and
# FAULT_GET round trip with a seed, FAULT_OFF).  Malformed ones are refused
# with the right errno and an extack message: wrong attribute types and
# sizes, an oversized or unterminated name, a probability out of range,
# reply-only and unknown attributes, a missing or unknown device, name and
# index naming different devices; DEV_SET is not implemented (no tunables
# yet).  An unprivileged user (setpriv to nobody) reads but cannot change
# (EPERM).  Each namespace sees only its own devices: sv_g1 is invisible
# from init_net (dump, name, index) and sv_g0 from sv-genl.
. "$(dirname "$0")/lib.sh"

sv_need ip python3 setpriv
helper=$(dirname "$0")/43-genl.py

sv_load_module
sv_on_exit sv_unload_module

sv_veth_pair gA gB
rdma link add sv_g0 type softverbs netdev gA || sv_fail "rdma link add sv_g0"
sv_on_exit 'rdma link delete sv_g0 2>/dev/null'

echo "--- permissions"
# a user who can read the helper: nobody, no capabilities
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
	python3 "$helper" unpriv sv_g0 || sv_fail "unprivileged checks"

echo "--- namespaces"
sv_netns_add sv-genl
ip -n sv-genl link add gC type veth peer name gD
ip -n sv-genl link set gC up
ip -n sv-genl link set gD up
ip netns exec sv-genl rdma link add sv_g1 type softverbs netdev gC ||
	sv_fail "rdma link add sv_g1 in sv-genl"
sv_on_exit 'ip netns exec sv-genl rdma link delete sv_g1 2>/dev/null'
idx1=$(rdma dev show sv_g1 2>/dev/null | sed -n 's/^\([0-9]*\):.*/\1/p')
[ -n "$idx1" ] || idx1=$(ip netns exec sv-genl rdma dev show sv_g1 | sed -n 's/^\([0-9]*\):.*/\1/p')

# the init_net checks, then (setns) the sv-genl ones, in one python process
# (it starts in seconds under a debug kernel); it prints "--- CHECK ARG..."
# before each, and a failure is named after the last one
echo "--- requests, malformed requests; namespaces"
tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
rc=0
python3 "$helper" malformed sv_g0 visible sv_g0 invisible sv_g1 "$idx1" \
	netns sv-genl visible sv_g1 invisible sv_g0 0 | tee "$tmp/out" || rc=$?
if [ $rc != 0 ]; then
	out=$'\n'$(<"$tmp/out")
	last=${out##*$'\n'--- }
	case ${last%%$'\n'*} in
	malformed*) sv_fail "malformed-request checks" ;;
	"visible sv_g0") sv_fail "sv_g0 in init_net" ;;
	"invisible sv_g1"*) sv_fail "sv_g1 seen from init_net" ;;
	netns*) sv_fail "entering sv-genl" ;;
	"visible sv_g1") sv_fail "sv_g1 in its namespace" ;;
	"invisible sv_g0"*) sv_fail "sv_g0 seen from sv-genl" ;;
	*) sv_fail "43-genl.py failed before its first check" ;;
	esac
fi
echo "genl: validation, permissions and namespaces as expected"
