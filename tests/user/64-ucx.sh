#!/bin/bash
# sv-test: kernels=debug,stock,trixie needs=rxe cost=L
# UCX (ucx-utils' ucx_perftest) over softverbs, then over Soft-RoCE in the
# same VM as the baseline: UCP put bandwidth, tag-matching latency and
# bandwidth and active-message latency, each over rc_verbs (UCX_TLS=rc_v:
# rc_verbs with ud_verbs for wire-up; rc_verbs alone refuses a device
# without an auxiliary transport) and over ud_verbs, in loopback (-l: one
# process talks to itself through the device).
#
#   init_net:  sv_ux0 (softverbs) on vA 10.64.0.1/24, fd64::1/64
#              vA ===== veth ===== vB
#   then:      rxe_ux0 (Soft-RoCE) on the same vA (softverbs unloaded
#              first: both bind UDP 4791 in init_net)
#
# UCX on RoCE puts a flow label of ~0 and a traffic class into its GRHs:
# softverbs used to refuse both at RTR and create_ah (sv_av.c now takes
# the low 20 bits, as Soft-RoCE and NICs do).  Passes when every case
# passes on softverbs (and so wherever it passes on Soft-RoCE); the
# counts of both go out as SV_SUMMARY lines.  UCX's UD transport drops a
# datagram whose destination in the GRH area is not one of its GIDs, and
# learns where to look (IPv4 or IPv6 header) from the CQE's sl, as RoCE
# NICs report it: softverbs does (uapi/softverbs-abi.h), Soft-RoCE does not,
# so Soft-RoCE needs UCX_UD_VERBS_ETH_DGID_CHECK=n over the IPv4 GID UCX
# picks, and softverbs runs with UCX's defaults.  No Soft-RoCE run on a
# KASAN kernel (as 63).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma ucx_perftest
sv_dev_shm

sv_load_module_init_net
sv_veth_pair vA vB
ip addr add 10.64.0.1/24 dev vA
ip -6 addr add fd64::1/64 dev vA nodad

tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
# short runs: the point is that every operation completes with the right
# data, not a figure (make bench measures)
iters=(-n 2000 -w 200)
[ "$SV_TIME_SCALE" -eq 1 ] || iters=(-n 200 -w 20)

# cases DEV NAME [ENV...]: every case on DEV; prints one line per case,
# counts into SV_SUMMARY; "FAIL" lines name the failed ones
cases() {
	local dev=$1 name=$2 tls t ok=0 bad=0 out
	shift 2
	sv_wait_for "[[ \$(rdma link show $dev/1) == *'state ACTIVE'* ]] && grep -q ffff:0a40:0001 /sys/class/infiniband/$dev/ports/1/gids/*" 20 ||
		sv_fail "$dev is not ACTIVE with a GID for 10.64.0.1"
	for tls in rc_v ud_v; do
		for t in ucp_put_bw tag_lat tag_bw ucp_am_lat; do
			out=$tmp/$name-$tls-$t
			if timeout -k 5 "$(sv_t 120)" env UCX_NET_DEVICES="$dev:1" UCX_TLS=$tls "$@" \
				ucx_perftest -l -t $t "${iters[@]}" >"$out" 2>&1 &&
				grep -q '^Final:' "$out"; then
				ok=$((ok + 1))
				echo "ok: $name $tls $t: $(grep '^Final:' "$out" | tr -s ' ')"
			else
				bad=$((bad + 1))
				echo "FAIL: $name $tls $t"
				tail -n 15 "$out" | sed 's/^/    /'
			fi
		done
	done
	echo "SV_SUMMARY: UCX on $name: $ok ok, $bad failed"
	return $((bad > 0))
}

rdma link add sv_ux0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_ux0 2>/dev/null'
cases sv_ux0 softverbs || sv_fail "UCX fails over softverbs (see FAIL lines)"

sv_baseline_rxe sv_ux0 rxe_ux0 vA || exit 0
# the baseline's own failures are its own: reported, not fatal
cases rxe_ux0 Soft-RoCE UCX_UD_VERBS_ETH_DGID_CHECK=n || true
