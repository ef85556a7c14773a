#!/bin/bash
# sv-test: kernels=debug,stock,trixie,sid needs=rxe cost=M
# libfabric's verbs provider (libfabric-bin's fi_pingpong) over softverbs,
# then over Soft-RoCE in the same VM as the baseline: the three endpoint
# types, msg (rdma_cm connection), rdm (ofi_rxm over msg) and dgram (UD,
# which takes the device's GID index 0), with data integrity checks (-c).
#
#   init_net:  sv_fi0 (softverbs) on vA 10.65.0.1/24
#              vA ===== veth ===== vB
#              server and client on the same host, through sv_fi0
#   then:      rxe_fi0 (Soft-RoCE) on the same vA (softverbs unloaded
#              first: both bind UDP 4791 in init_net)
#
# Passes when every endpoint type passes on softverbs; the counts of both
# go out as SV_SUMMARY lines.  FI_UNIVERSE_SIZE=4: with the default the
# rdm endpoint's CQ is larger than a soft device allows.  No Soft-RoCE run
# on a KASAN kernel (as 63).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma fi_pingpong
sv_load_module_init_net
sv_veth_pair vA vB
ip addr add 10.65.0.1/24 dev vA

tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
export FI_UNIVERSE_SIZE=4
port=47592	# fi_pingpong's control port

# pingpong NAME EP: one server and one client of endpoint type EP
pingpong() {
	local name=$1 ep=$2 srv cli spid rc=0
	srv=$tmp/$name-$ep-server cli=$tmp/$name-$ep-client
	timeout -k 5 "$(sv_t 90)" fi_pingpong -p verbs -e "$ep" -I 100 -S 1024 -c >"$srv" 2>&1 &
	spid=$!
	sv_wait_for "sv_tcp_listening $port" 20 || { kill "$spid" 2>/dev/null; return 1; }
	timeout -k 5 "$(sv_t 90)" fi_pingpong -p verbs -e "$ep" -I 100 -S 1024 -c 10.65.0.1 >"$cli" 2>&1 || rc=1
	wait "$spid" || rc=1
	# both print the result row: "1k 100 =100 200k ..."
	sv_file_has "$cli" "=100" && sv_file_has "$srv" "=100" || rc=1
	return $rc
}

# cases DEV NAME: every endpoint type; counts into SV_SUMMARY
cases() {
	local dev=$1 name=$2 ep ok=0 bad=0
	sv_wait_for "[[ \$(rdma link show $dev/1) == *'state ACTIVE'* ]] && grep -q ffff:0a41:0001 /sys/class/infiniband/$dev/ports/1/gids/*" 20 ||
		sv_fail "$dev is not ACTIVE with a GID for 10.65.0.1"
	for ep in msg rdm dgram; do
		if pingpong "$name" $ep; then
			ok=$((ok + 1))
			echo "ok: $name $ep: $(tail -n 1 "$tmp/$name-$ep-client" | tr -s ' ')"
		else
			bad=$((bad + 1))
			echo "FAIL: $name $ep"
			tail -n 10 "$tmp/$name-$ep-server" "$tmp/$name-$ep-client" | sed 's/^/    /'
		fi
	done
	echo "SV_SUMMARY: libfabric on $name: $ok ok, $bad failed"
	return $((bad > 0))
}

rdma link add sv_fi0 type softverbs netdev vA
sv_on_exit 'rdma link delete sv_fi0 2>/dev/null'
cases sv_fi0 softverbs || sv_fail "libfabric fails over softverbs (see FAIL lines)"

sv_baseline_rxe sv_fi0 rxe_fi0 vA || exit 0
cases rxe_fi0 Soft-RoCE || true
