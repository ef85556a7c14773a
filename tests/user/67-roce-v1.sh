#!/bin/bash
# sv-test: kernels=debug,stock quick cost=M
# RoCE v1 (IBTA Annex A16: GRH + BTH over Ethernet, ethertype 0x8915)
# between two softverbs devices.
#
#   netns sv-67a                              netns sv-67b
#   sv67a (softverbs) on x67a 10.167.0.1  ==== x67b 10.167.0.2 sv67b (softverbs)
#                           fda7::1                  fda7::2
#
# Every address has a RoCE v1 GID beside its RoCE v2 one, and GID index 0 is
# the v1 link-local GID, as on RoCE NICs.  Over the v1 GIDs of the IPv4
# addresses (and the IPv6 ones for RC): the pingpongs with data checks,
# perftest send/write/read/atomic, every opcode x QP type of
# 53-verbs-matrix.py (data, completions, the UD GRH is the wire GRH), an
# RC bulk transfer through injected receive drops; the counters show v1 packets
# (tx/rx_roce_v1_packets).  A frame built by 67-roce-v1.py from the spec
# (tests/user/lib/roce1.py, sent from an AF_PACKET socket) is received; the
# same with a wrong ICRC is dropped (rx_drop_icrc).  A v1 AV to an address
# behind a router is refused (EHOSTUNREACH, one log line saying why), where
# a v2 one is accepted.  With both devices' default_roce_mode set to RoCE v1
# in rdma_cm's configfs: rping (data verified) and UD multicast to an
# rdma_cm group (mckey receiving, 60-mcast-data.py sending).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong \
	ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw rping mckey stdbuf
py=/usr/bin/python3
here=$(dirname "$0")
$py -c 'import importlib.util as u, sys; sys.exit(not u.find_spec("pyverbs.qp"))' 2>/dev/null ||
	sv_skip "python3-pyverbs is not installed"
XP_PORT=26700
sv_xport_setup 67 softverbs softverbs

# the RoCE v1 GIDs of both sides' addresses
v1_gid() { # SIDE FAM -> index
	local dev=XP_${1}_DEV n=1 g
	[ "$1" = A ] || n=2
	if [ "$2" = 4 ]; then
		g=0000:0000:0000:0000:0000:ffff:0aa7:000$n
	else
		g=fda7:0000:0000:0000:0000:0000:0000:000$n
	fi
	sv_wait_for "_sv_gid_find ${!dev} $g 'IB/RoCE v1'" 20 ||
		sv_fail "${!dev}: no RoCE v1 GID $g"
	echo "$_sv_gid"
}
declare -A v2
for s in A B; do
	for f in 4 6; do
		v=XP_${s}_GID$f
		v2[$s$f]=${!v}
		printf -v "$v" %s "$(v1_gid $s $f)"
	done
done
echo "RoCE v1 GIDs: A $XP_A_GID4 (IPv4) $XP_A_GID6 (IPv6), B $XP_B_GID4 $XP_B_GID6" \
	"(v2: A ${v2[A4]} ${v2[A6]}, B ${v2[B4]} ${v2[B6]})"
t=
read -r t </sys/class/infiniband/$XP_A_DEV/ports/1/gid_attrs/types/0 || true
[ "$t" = "IB/RoCE v1" ] || sv_fail "GID index 0 has type '$t', not IB/RoCE v1"

tmp=$(mktemp -d)
sv_on_exit "rm -rf '$tmp'"
# counter SIDE NAME: one device counter (svctl -j stats)
counter() {
	local dev=XP_${1}_DEV
	xp_svctl "$1" -j stats "${!dev}" |
		$py -c 'import json,sys; print({c["name"]: c["value"] for c in json.load(sys.stdin)[0]["counters"]}[sys.argv[1]])' "$2"
}

# --- data over v1 GIDs -------------------------------------------------------
tx0=$(counter A tx_roce_v1_packets)
xp_case "v1 IPv4 rc_pingpong" xp_pair 4 B A ibv_rc_pingpong -n 20 -s 4096 -c
xp_case "v1 IPv4 uc_pingpong" xp_pair 4 B A ibv_uc_pingpong -n 20 -s 1024 -c
xp_case "v1 IPv4 ud_pingpong" xp_pair 4 B A ibv_ud_pingpong -n 20 -s 1024 -c
xp_case "v1 IPv6 rc_pingpong" xp_pair 6 A B ibv_rc_pingpong -n 20 -s 4096 -c
# SV_QUICK (the debug kernel): perftest's operations are in the verbs
# matrix subset below; the full list runs on the stock kernels
if [ -z "$SV_QUICK" ]; then
	xp_case "v1 IPv4 ib_send_bw" xp_pair 4 B A ib_send_bw -F -n 50 -s 65536
	xp_case "v1 IPv4 ib_write_bw" xp_pair 4 B A ib_write_bw -F -n 50 -s 65536
	xp_case "v1 IPv4 ib_read_bw" xp_pair 4 B A ib_read_bw -F -n 50 -s 65536
	xp_case "v1 IPv4 ib_atomic_bw" xp_pair 4 B A ib_atomic_bw -F -n 50
fi
tx1=$(counter A tx_roce_v1_packets)
echo "A tx_roce_v1_packets $tx0 -> $tx1"
[ "$tx1" -gt "$tx0" ] || xp_case "v1 packets counted" false

matrix_regex=
[ -z "$SV_QUICK" ] ||
	matrix_regex='^(send|send_imm|send_big|write|write_imm|read|cmp_swp|fetch_add|uc_send|uc_write|ud_send|ud_send_imm)$'
xp_case "v1 verbs matrix (every opcode x QP type)" timeout -k 5 600 \
	$py "$here/53-verbs-matrix.py" "$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4" "$matrix_regex"

# --- a frame from the spec, and one with a wrong ICRC ------------------------
frame_case() {
	local smac dmac icrc0 icrc1 rx0 rx1
	smac=$(ip -n "$XP_A_NS" -br link show "$XP_A_IF" | awk '{print $3}')
	dmac=$(ip -n "$XP_B_NS" -br link show "$XP_B_IF" | awk '{print $3}')
	icrc0=$(counter B rx_drop_icrc) rx0=$(counter B rx_roce_v1_packets)
	xp_exec A timeout -k 5 120 $py "$here/67-roce-v1.py" frame "$XP_A_IF" \
		"$smac" "$dmac" "::ffff:$XP_A_IP4" "$XP_B_DEV" "$XP_B_GID4" || return 1
	icrc1=$(counter B rx_drop_icrc) rx1=$(counter B rx_roce_v1_packets)
	echo "B rx_drop_icrc $icrc0 -> $icrc1, rx_roce_v1_packets $rx0 -> $rx1"
	[ $((icrc1 - icrc0)) -eq 1 ] && [ "$rx1" -gt "$rx0" ]
}
xp_case "v1 frame from the spec accepted, bad ICRC dropped" frame_case

# --- off-link: refused for v1, accepted for v2 -------------------------------
offlink_case() {
	local rc=0
	ip -n "$XP_A_NS" route add 10.199.0.0/24 via "$XP_B_IP4" || return 1
	xp_exec A $py "$here/67-roce-v1.py" offlink "$XP_A_DEV" "$XP_A_GID4" \
		"${v2[A4]}" ::ffff:10.199.0.5 || rc=1
	ip -n "$XP_A_NS" route del 10.199.0.0/24
	[ $rc -eq 0 ] || return 1
	dmesg | tail -n 20 | grep "behind a router, and RoCE v1" | tail -n 1 | sed 's/^/  /' |
		grep -q . || { echo "  no log line saying why"; return 1; }
}
xp_case "v1 AV to an off-link address refused" offlink_case

# --- fault injection: drops on the receive side, RC recovers ------------------
# The verbs matrix's bulk case (256 KiB each by WRITE, SEND and READ, data
# compared), not a pingpong: both ends of its QPs live in one process that
# reaps every completion before it destroys them.  Two pingpong processes
# race at the end: the side that finishes first destroys its QP while its
# last ACK may still be lost, and the other side's retries then run out.
fault_case() {
	local r0 r1 rc=0
	xp_svctl B fault "$XP_B_DEV" rx drop 5% seed 67 || return 1
	r0=$(counter A retrans_packets)
	XP_BULK_MIB=0.25 timeout -k 5 600 $py "$here/53-verbs-matrix.py" \
		"$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4" '^bulk$' || rc=1
	r1=$(counter A retrans_packets)
	xp_svctl B -j fault "$XP_B_DEV" >"$tmp/fault.json"
	xp_svctl B fault "$XP_B_DEV" off
	$py -c 'import json,sys; d={x["dir"]: x for x in json.load(open(sys.argv[1]))[0]["dirs"]}; print("B rx fault hook:", d["rx"]); sys.exit(not d["rx"]["dropped"])' "$tmp/fault.json" || rc=1
	echo "A retrans_packets $r0 -> $r1"
	[ "$r1" -gt "$r0" ] || rc=1
	return $rc
}
sv_on_exit "xp_svctl B fault '$XP_B_DEV' off 2>/dev/null"
xp_case "v1 RC through injected rx drops" fault_case

# --- rdma_cm with default_roce_mode RoCE v1: rping, multicast ----------------
cfg=/sys/kernel/config
# roce_mode MODE: default_roce_mode of both devices' port 1 (rdma_cm configfs)
roce_mode() {
	local d s
	for d in "$XP_A_DEV" "$XP_B_DEV"; do
		[ -d "$cfg/rdma_cm/$d" ] || {
			mkdir "$cfg/rdma_cm/$d" || return 1
			sv_on_exit "rmdir '$cfg/rdma_cm/$d' 2>/dev/null"
		}
		echo "$1" >"$cfg/rdma_cm/$d/ports/1/default_roce_mode" || return 1
		read -r s <"$cfg/rdma_cm/$d/ports/1/default_roce_mode"
		[ "$s" = "$1" ] || return 1
	done
	echo "  default_roce_mode of $XP_A_DEV and $XP_B_DEV: $1"
}

rping_case() {
	local pid rc=0 rs=0 r0 r1 l
	r0=$(counter B rx_roce_v1_packets)
	_xp_runt
	xp_exec B timeout -k 5 "$_xp_t" rping -s -v -V -C 10 -S 1000 -a "$XP_B_IP4" -p 26799 >"$tmp/rping.srv" 2>&1 &
	pid=$!
	sv_wait_for "grep -q 'state LISTEN.*comm rping' <<<\"\$(xp_exec B rdma resource show cm_id 2>/dev/null)\"" 30 || true
	xp_exec A timeout -k 5 "$_xp_t" rping -c -v -V -C 10 -S 1000 -a "$XP_B_IP4" -p 26799 >"$tmp/rping.cli" 2>&1 || rc=$?
	[ $rc -eq 0 ] || kill "$pid" 2>/dev/null
	wait "$pid" || rs=$?
	r1=$(counter B rx_roce_v1_packets)
	echo "  rping server rc $rs, client rc $rc; B rx_roce_v1_packets $r0 -> $r1"
	tail -n 1 "$tmp/rping.cli" | cut -c1-60 | sed 's/^/  cli| /'
	if [ $rs -ne 0 ] || [ $rc -ne 0 ]; then
		cut -c1-100 "$tmp/rping.srv" | tail -n 20 | sed 's/^/  srv| /'
		cut -c1-100 "$tmp/rping.cli" | tail -n 20 | sed 's/^/  cli| /'
		return 1
	fi
	# ten pings of 1000 bytes: SENDs, READs, WRITEs, all over v1
	[ $((r1 - r0)) -ge 30 ]
}

# mcast_case: mckey joins an IPv4 group on B through rdma_cm (a RoCE v1
# group: MGID ff0e::ffff:<group>, MAC 33:33:<group>), 60-mcast-data.py
# sends 10 UD datagrams to it from A; mckey must get all of them
mcast_case() {
	local ro=$tmp/mc.recv so=$tmp/mc.send rr=0 rs=0 pid spid w gofd t r0 r1
	t=$(_xp_run_timeout)
	r0=$(counter B rx_roce_v1_packets)
	xp_exec B timeout -k 5 "$t" stdbuf -oL mckey -m 239.1.67.1 -b "$XP_B_IP4" -C 10 -S 256 >"$ro" 2>&1 &
	pid=$!
	coproc MC_SEND { xp_exec A timeout -k 5 "$t" $py "$here/60-mcast-data.py" \
		--go "$XP_A_IP4" 239.1.67.1 10 256 >"$so" 2>&1; }
	spid=$MC_SEND_PID w=${MC_SEND[1]}
	exec {gofd}>&"$w" {w}>&-
	sv_wait_for "sv_file_has '$ro' 'joined dgid'" 30 || rr=1
	[ $rr -ne 0 ] || (trap '' PIPE; echo go >&"$gofd") 2>/dev/null || true
	exec {gofd}>&-
	wait "$spid" || rs=$?
	[ $rr -eq 0 ] || kill "$pid" 2>/dev/null
	wait "$pid" || rr=$?
	r1=$(counter B rx_roce_v1_packets)
	echo "  mckey rc $rr, sender rc $rs; B rx_roce_v1_packets $r0 -> $r1"
	grep -E 'joined dgid' "$ro" | sed 's/^/  recv| /'
	if [ $rr -ne 0 ] || [ $rs -ne 0 ] || ! grep -q 'data transfers complete' "$ro"; then
		sed 's/^/  recv| /' "$ro" | tail -n 20
		sed 's/^/  send| /' "$so" | tail -n 20
		return 1
	fi
	grep -q 'joined dgid: ff0e::ffff:' "$ro" && [ $((r1 - r0)) -ge 10 ]
}

modprobe rdma_ucm 2>/dev/null || true
[ -d $cfg/rdma_cm ] || mount -t configfs none $cfg 2>/dev/null || true
if [ -d $cfg/rdma_cm ]; then
	sv_on_exit "roce_mode 'RoCE v2' >/dev/null 2>&1"
	xp_case "rdma_cm: default_roce_mode RoCE v1" roce_mode "IB/RoCE v1"
	xp_case "rdma_cm (rping -v -V) over RoCE v1" rping_case
	for s in A B; do
		ifv=XP_${s}_IF
		xp_exec "$s" ip -6 route add ff0e::/16 dev "${!ifv}" 2>/dev/null || true
		xp_exec "$s" ip route add 224.0.0.0/4 dev "${!ifv}" 2>/dev/null || true
	done
	xp_case "rdma_cm UD multicast over RoCE v1 (mckey)" mcast_case
	roce_mode "RoCE v2" >/dev/null
else
	xp_case "rdma_cm configfs (CONFIG_INFINIBAND_ADDR_TRANS_CONFIGFS)" false
fi
xp_summary
