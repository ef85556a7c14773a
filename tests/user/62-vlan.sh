#!/bin/bash
# sv-test: kernels=debug,stock needs=rxe cost=XL
# RoCE v2 over 802.1Q VLANs (issue 4: "RoCEv2 over UDP port 4791 on IPv4 and
# IPv6 (VLAN netdevs too)"):
#
#   netns sv-62a                              netns sv-62b
#   sv62a on x62a, GIDs from x62a.62  ====  sv62b on x62b, GIDs from x62b.62
#   10.162.0.1, fda2::1 on x62a.62          10.162.0.2, fda2::2 on x62b.62
#
# The devices sit on the Ethernet devices; ib_core's GID table lists the
# addresses of their VLAN upper devices, tagged with the VLAN, and
# softverbs must send through and receive from those VLAN devices.  (A
# device on a VLAN device itself is refused: 10-link.)  The verbs tools
# run over the VLAN GIDs in both directions on IPv4 and IPv6, the GID
# table must name the VLAN, and the VLAN devices' counters prove the
# traffic was tagged.  Then softverbs and Soft-RoCE over a VLAN, both ways.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma ibv_rc_pingpong ibv_ud_pingpong ib_write_bw ib_read_bw
XP_PORT=26200

# vlan_rx NS IF VAR: VAR = received packets on IF (stats64.rx.packets of
# ip's JSON, matched in bash: a python3 per call costs seconds under the
# debug kernel)
vlan_rx() {
	local j re='"stats64":\{"rx":\{"bytes":[0-9]+,"packets":([0-9]+)'
	j=$(ip ${1:+-n "$1"} -s -j link show "$2")
	[[ $j =~ $re ]] || sv_fail "no rx packet count for $2 in: $j"
	printf -v "$3" %s "${BASH_REMATCH[1]}"
}

modinfo 8021q >/dev/null 2>&1 && modprobe 8021q
XP_VLAN=62 sv_xport_setup 62 softverbs softverbs
# the GIDs belong to the VLAN device (sysfs gid_attrs/ndevs)
for s in A B; do
	dv=XP_${s}_DEV g=XP_${s}_GID4 ifv=XP_${s}_IF nd=
	read -r nd <"/sys/class/infiniband/${!dv}/ports/1/gid_attrs/ndevs/${!g}"
	[ "$nd" = "${!ifv}" ] || sv_fail "${!dv} GID ${!g}: netdev $nd, expected ${!ifv}"
done
echo "GIDs: $XP_A_DEV/$XP_A_GID4 and $XP_B_DEV/$XP_B_GID4 on $XP_A_IF, $XP_B_IF"
vlan_rx "$XP_A_NS" x62a.62 a0
vlan_rx "$XP_B_NS" x62b.62 b0
xp_tools_suite 4 A B quick
xp_tools_suite 6 B A quick
vlan_rx "$XP_A_NS" x62a.62 a1
vlan_rx "$XP_B_NS" x62b.62 b1
echo "VLAN 62 rx packets: x62a.62 +$((a1 - a0)), x62b.62 +$((b1 - b0))"
# every RDMA packet crossed the VLAN devices: thousands, not a few ARPs
xp_case "traffic tagged (x62a.62, x62b.62 received > 1000 packets each)" \
	test $((a1 - a0)) -gt 1000 -a $((b1 - b0)) -gt 1000

if [ "${SV_XPORT_DUT:-}" != rxe ] && modinfo rdma_rxe >/dev/null 2>&1; then
	XP_VLAN=63 sv_xport_setup 63 softverbs rxe
	xp_case "IPv4 rxe<-softverbs rc_pingpong" xp_pair 4 B A ibv_rc_pingpong -n 20 -s 4096 -c
	xp_case "IPv4 softverbs<-rxe ib_write_bw" xp_pair 4 A B ib_write_bw -F -n 20 -s 65536
	xp_case "IPv6 softverbs<-rxe ud_pingpong" xp_pair 6 A B ibv_ud_pingpong -n 20 -s 512 -c
fi
xp_summary
