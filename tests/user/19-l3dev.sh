#!/bin/bash
# sv-test: kernels=all cost=XL
# softverbs on IP-only (L3) netdevs: RoCEv2 needs UDP/IP, not Ethernet.
#
#   netns sv-19a                                   netns sv-19b
#   x19a 192.168.19.1 ========= veth ========= x19b 192.168.19.2   (underlay)
#   w19a 10.119.0.1 fd77::1  == WireGuard ==  w19b 10.119.0.2 fd77::2
#   s19a fd78::1             ==  sit (6in4) == s19b fd78::2
#   i19a 10.121.0.1          ==  ipip      ==  i19b 10.121.0.2
#   g19a 10.122.0.1 fd7a::1  ==  gre       ==  g19b 10.122.0.2 fd7a::2
#   t19a 10.123.0.1 fd7b::1  ==  tun, a forwarder process == t19b ...
#
# A softverbs device on each end of a tunnel: its GID table holds RoCE v2
# GIDs of the tunnel's addresses only (no RoCE v1 GID, no MAC-derived
# link-local default GID), the port's MTU fits the tunnel's, the verbs tools
# carry data across (no MAC or neighbour resolution, the packets go to the
# tunnel without a link header), rdma_cm cannot be switched to RoCE v1
# there, an address added later becomes a GID, and deleting the tunnel
# removes its device.  Each tunnel type runs where the kernel has it (the
# debug kernel: sit only; Debian's 6.1 and 6.12: all, WireGuard with `wg`
# from wireguard-tools).
. "$(dirname "$0")/lib.sh"

sv_need ip rdma ibv_rc_pingpong ib_write_bw ib_read_bw
XP_PORT=21900
A=sv-19a B=sv-19b kinds=

sv_load_module
sv_on_exit sv_unload_module
ulimit -l unlimited
for ns in $A $B; do
	sv_netns_add $ns
	ip -n $ns link set lo up
done
ip link add x19a netns $A type veth peer name x19b netns $B
ip -n $A -batch - <<EOF
link set x19a up
addr add 192.168.19.1/24 dev x19a
EOF
ip -n $B -batch - <<EOF
link set x19b up
addr add 192.168.19.2/24 dev x19b
EOF

have_kind() {
	ip link add sv19probe type "$1" ${2:-} >/dev/null 2>&1 || return 1
	ip link del sv19probe
}

gid_v4() { # 10.x.y.z -> sysfs GID
	local IFS=. a
	read -ra a <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "${a[@]}"
}

# check_dev DEV NETDEV MTU GID...: the port of DEV on NETDEV (MTU bytes):
# only RoCE v2 GIDs, each an address of NETDEV, these GIDs among them,
# active_mtu as the MTU allows, link layer Ethernet
check_dev() {
	local dev=$1 nd=$2 mtu=$3 p=/sys/class/infiniband/$1/ports/1 f g t want n=0 am l=
	shift 3
	for g in "$@"; do
		sv_wait_for "sv_gid_present $dev $g" 10 || sv_fail "$dev: no GID $g"
	done
	# one grep over the 1024 entries (a shell read each is slow there)
	for f in $(grep -lv '^0000:0000:0000:0000:0000:0000:0000:0000$' "$p"/gids/*); do
		read -r g <"$f"
		[ "$g" != fe80:0000:0000:0000:0000:0000:0000:0000 ] ||
			sv_fail "$dev: the MAC-less default GID fe80:: is listed (${f##*/})"
		read -r t <"$p/gid_attrs/types/${f##*/}"
		[ "$t" = "RoCE v2" ] || sv_fail "$dev: GID ${f##*/} $g of type '$t' on an L3 netdev"
		n=$((n + 1)) l+=" ${f##*/}=$g"
	done
	read -r am <"$p/link_layer"
	[ "$am" = Ethernet ] || sv_fail "$dev: link layer '$am'"
	# IPv6 (40) + UDP (8) + BTH and extension headers (40) + ICRC (4)
	if [ "$mtu" -ge $((4096 + 92)) ]; then want=4096
	elif [ "$mtu" -ge $((2048 + 92)) ]; then want=2048
	elif [ "$mtu" -ge $((1024 + 92)) ]; then want=1024
	elif [ "$mtu" -ge $((512 + 92)) ]; then want=512
	else want=256; fi
	am=$(ibv_devinfo -d "$dev" | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p')
	[ "$am" = "$want" ] || sv_fail "$dev on $nd (MTU $mtu): active_mtu $am, expected $want"
	echo "$dev on $nd: $n GIDs, all RoCE v2; active_mtu $am (netdev MTU $mtu); GIDs:$l"
}

# stat_sum NS DEV PREFIX VAR: VAR = the sum of DEV's counters whose names
# start with PREFIX (rdma statistic)
stat_sum() {
	local out w prev= n=0
	out=$(ip netns exec "$1" rdma statistic show link "$2/1") ||
		sv_fail "rdma statistic show link $2/1"
	for w in $out; do
		[[ $prev == "$3"* && $w =~ ^[0-9]+$ ]] && n=$((n + w))
		prev=$w
	done
	printf -v "$4" %s "$n"
}

# l3_pair KIND TAG IP4 IP6: devices sv${TAG}a/b on the L3 netdevs ${TAG}a/b
# (already up with their addresses), XP_* set for xp_pair
l3_pair() {
	local kind=$1 t=$2 ip4=$3 ip6=$4 s ns dev nd n g4 g6 mtu
	for s in A B; do
		ns=${s/A/$A} ns=${ns/B/$B} n=1
		[ $s = A ] || n=2
		nd=${t}${s,} dev=sv${t}${s,}
		ip netns exec $ns rdma link add $dev type softverbs netdev $nd ||
			sv_fail "cannot create $dev on $kind netdev $nd"
		sv_on_exit "ip netns exec $ns rdma link delete $dev 2>/dev/null"
		sv_wait_for "st= && read -r st </sys/class/infiniband/$dev/ports/1/state && [[ \$st == *ACTIVE ]]" 20 ||
			sv_fail "$dev port not ACTIVE: $(ip netns exec $ns rdma link show $dev/1 2>&1)"
		mtu=$(ip -n $ns -o link show $nd | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
		g4= g6=
		[ -z "$ip4" ] || g4=$(gid_v4 "$ip4$n")
		[ -z "$ip6" ] || g6=$(printf '%s:0000:0000:0000:0000:0000:0000:%04x' "$ip6" $n)
		check_dev $dev $nd "$mtu" $g4 $g6
		printf -v "XP_${s}_NS" %s $ns
		printf -v "XP_${s}_DEV" %s $dev
		# the tools' out-of-band TCP: over the tunnel, or the underlay
		if [ -n "$ip4" ]; then
			printf -v "XP_${s}_IP4" %s "$ip4$n"
		else
			printf -v "XP_${s}_IP4" %s "192.168.19.$n"
		fi
		[ -z "$g4" ] || printf -v "XP_${s}_GID4" %s "$(sv_gid_index $dev $g4)"
		[ -z "$g6" ] || printf -v "XP_${s}_GID6" %s "$(sv_gid_index $dev $g6)"
	done
}

# --- WireGuard --------------------------------------------------------------
wg_setup() {
	local d key ka kb
	d=$(mktemp -d)
	sv_on_exit "rm -rf '$d'"
	(
		umask 077
		wg genkey >"$d/a" && wg pubkey <"$d/a" >"$d/a.pub"
		wg genkey >"$d/b" && wg pubkey <"$d/b" >"$d/b.pub"
	)
	read -r ka <"$d/a.pub"
	read -r kb <"$d/b.pub"
	ip -n $A link add w19a type wireguard
	ip -n $B link add w19b type wireguard
	ip netns exec $A wg set w19a private-key "$d/a" listen-port 51819 \
		peer "$kb" allowed-ips 10.119.0.2/32,fd77::2/128 endpoint 192.168.19.2:51819
	ip netns exec $B wg set w19b private-key "$d/b" listen-port 51819 \
		peer "$ka" allowed-ips 10.119.0.1/32,fd77::1/128 endpoint 192.168.19.1:51819
	ip -n $A -batch - <<EOF
addr add 10.119.0.1/24 dev w19a
addr add fd77::1/64 dev w19a nodad
link set w19a up
EOF
	ip -n $B -batch - <<EOF
addr add 10.119.0.2/24 dev w19b
addr add fd77::2/64 dev w19b nodad
link set w19b up
EOF
}

# rping over rdma_cm: ib_core's rdma_cm (6.1, 6.12) binds a RoCE port only
# through an Ethernet netdev (cma_validate_port() looks a non-Ethernet
# netdev's address up as an IB GID), so on an L3 netdev it must either work
# or be refused at once with ENODEV, never hang or fail otherwise
rping_case() {
	local pid rs=0 rc=0 d refused=
	d=$(mktemp -d)
	_xp_runt
	ip netns exec $B timeout -k 5 "$_xp_t" rping -s -V -C 5 -S 1000 -a 10.119.0.2 -p 21999 >"$d/srv" 2>&1 &
	pid=$!
	sv_sleep 2
	ip netns exec $A timeout -k 5 "$_xp_t" rping -c -V -C 5 -S 1000 -a 10.119.0.2 -p 21999 >"$d/cli" 2>&1 || rc=$?
	[ $rc -eq 0 ] || kill "$pid" 2>/dev/null
	wait "$pid" || rs=$?
	echo "  rping server rc $rs, client rc $rc"
	sed 's/^/  srv| /' "$d/srv" | head -n 5
	sed 's/^/  cli| /' "$d/cli" | head -n 5
	sv_file_has "$d/cli" "RDMA_CM_EVENT_ADDR_ERROR, error -19" &&
		sv_file_has "$d/srv" "rdma_bind_addr: No such device" && refused=1
	rm -rf "$d"
	if [ $rc -eq 0 ] && [ $rs -eq 0 ]; then
		echo "  rping over WireGuard: works"
		return 0
	fi
	[ -n "$refused" ] || { echo "  rping failed, but not with ENODEV from rdma_cm"; return 1; }
	echo "  rping over WireGuard: refused by ib_core's rdma_cm (ENODEV: non-Ethernet netdev)"
}

# RoCE v1 cannot be chosen for rdma_cm on an L3 device (no v1 GID type)
v1_refused() {
	local cfg=/sys/kernel/config/rdma_cm/$XP_A_DEV rc=0
	[ -d /sys/kernel/config/rdma_cm ] || mount -t configfs none /sys/kernel/config 2>/dev/null || true
	[ -d /sys/kernel/config/rdma_cm ] || { echo "  (no rdma_cm configfs)"; return 0; }
	mkdir "$cfg" || return 1
	echo "IB/RoCE v1" >"$cfg/ports/1/default_roce_mode" 2>/dev/null && rc=1
	echo "RoCE v2" >"$cfg/ports/1/default_roce_mode" || rc=1
	rmdir "$cfg"
	[ $rc -eq 0 ] && echo "  default_roce_mode 'IB/RoCE v1' refused, 'RoCE v2' taken"
	return $rc
}

# svctl lists the device on its tunnel
svctl_case() {
	local o
	o=$(ip netns exec $A "$SV_TOOLS/tools/svctl" dev svw19a) || return 1
	echo "$o" | sed 's/^/  /'
	[[ $o == *w19a* ]]
}

if have_kind wireguard && command -v wg >/dev/null; then
	wg_setup
	l3_pair WireGuard w19 10.119.0. fd77
	kinds+=" WireGuard"
	xp_case "WireGuard IPv4 rc_pingpong" xp_pair 4 B A ibv_rc_pingpong -n 50 -s 4096 -c
	xp_case "WireGuard IPv6 rc_pingpong" xp_pair 6 A B ibv_rc_pingpong -n 50 -s 4096 -c
	xp_case "WireGuard IPv4 ud_pingpong" xp_pair 4 B A ibv_ud_pingpong -n 20 -s 512 -c
	xp_case "WireGuard IPv4 ib_write_bw" xp_pair 4 B A ib_write_bw -F -n 50 -s 65536
	xp_case "WireGuard IPv6 ib_read_bw" xp_pair 6 A B ib_read_bw -F -n 50 -s 65536
	xp_case "WireGuard IPv6 ib_write_bw" xp_pair 6 A B ib_write_bw -F -n 20 -s 65536
	xp_case "WireGuard IPv4 ib_read_bw" xp_pair 4 B A ib_read_bw -F -n 20 -s 65536
	xp_case "WireGuard rping: works or ENODEV from rdma_cm" rping_case
	xp_case "WireGuard RoCE v1 refused" v1_refused
	xp_case "svctl dev on WireGuard" svctl_case
	# an address added after creation becomes a GID (ib_core does not
	# follow address events of non-Ethernet netdevs: softverbs rescans)
	ip -n $A addr add 10.119.1.1/24 dev w19a
	xp_case "WireGuard later address becomes a GID" \
		sv_wait_for "sv_gid_present svw19a $(gid_v4 10.119.1.1)" 10
	# a removed address keeps its GID (ib_core exports no GID delete):
	# reported, not judged
	ip -n $A addr del 10.119.1.1/24 dev w19a
	sv_sleep 1
	if sv_gid_present svw19a "$(gid_v4 10.119.1.1)"; then
		echo "removed address 10.119.1.1: its GID stays until the device goes"
	else
		echo "removed address 10.119.1.1: its GID went too"
	fi
	# the tunnel goes: its device goes with it
	ip -n $A link del w19a
	xp_case "WireGuard netdev deleted: device removed" \
		sv_wait_for '[ ! -e /sys/class/infiniband/svw19a ]' 20
	ip -n $B link del w19b
	sv_wait_for '[ ! -e /sys/class/infiniband/svw19b ]' 20 || sv_fail "svw19b outlived w19b"
else
	echo "no WireGuard on $(uname -r) (module or wg tool): skipped"
fi

# --- sit (IPv6 in IPv4) -----------------------------------------------------
if have_kind sit "local 192.168.254.1"; then
	ip -n $A link add s19a type sit local 192.168.19.1 remote 192.168.19.2 ttl 64
	ip -n $B link add s19b type sit local 192.168.19.2 remote 192.168.19.1 ttl 64
	ip -n $A -batch - <<EOF
addr add fd78::1/64 dev s19a nodad
link set s19a up
EOF
	ip -n $B -batch - <<EOF
addr add fd78::2/64 dev s19b nodad
link set s19b up
EOF
	l3_pair sit s19 "" fd78
	kinds+=" sit"
	xp_case "sit IPv6 rc_pingpong" xp_pair 6 A B ibv_rc_pingpong -n 50 -s 4096 -c
	xp_case "sit IPv6 ib_write_bw" xp_pair 6 B A ib_write_bw -F -n 20 -s 65536
	xp_case "sit IPv6 ib_read_bw" xp_pair 6 A B ib_read_bw -F -n 20 -s 65536
	ip -n $A addr add fd79::1/64 dev s19a nodad
	xp_case "sit later IPv6 address becomes a GID" \
		sv_wait_for "sv_gid_present svs19a fd79:0000:0000:0000:0000:0000:0000:0001" 10
	# a removed address keeps its GID (ib_core exports no GID delete),
	# but nothing goes out from it any more (issue 40, finding 8): IPv6's
	# route lookup, unlike IPv4's, takes any source address
	g79=fd79:0000:0000:0000:0000:0000:0000:0001
	gi79=$(sv_gid_index svs19a $g79) || sv_fail "no RoCE v2 GID fd79::1 on svs19a"
	ip -n $A addr del fd79::1/64 dev s19a
	if sv_gid_present svs19a $g79; then
		stat_sum $A svs19a rx_ b0
		stat_sum $B svs19b rx_ b0
		stat_sum $A svs19a tx_drops a0
		ip netns exec $A /usr/bin/python3 "$SV_ROOT/tests/user/lib/ud_send.py" svs19a "$gi79" \
			fd78:0000:0000:0000:0000:0000:0000:0002 || sv_fail "ud_send.py svs19a"
		sv_sleep 0.5
		stat_sum $B svs19b rx_ b1
		stat_sum $A svs19a tx_drops a1
		xp_case "sit removed IPv6 address: its stale GID sends nothing (svs19b rx $b0 -> $b1, svs19a tx_drops $a0 -> $a1)" \
			test "$b1" = "$b0" -a "$a1" -gt "$a0"
	else
		echo "removed address fd79::1: its GID went too"
	fi
	ip -n $B link del s19b
	xp_case "sit netdev deleted: device removed" \
		sv_wait_for '[ ! -e /sys/class/infiniband/svs19b ]' 20
else
	echo "no sit on $(uname -r): skipped"
fi

# --- ipip and gre -------------------------------------------------------------
# tunnel KIND TAG IP4 [IP6]: a KIND tunnel ${TAG}a/b over the underlay
tunnel() {
	local kind=$1 t=$2 ip4=$3 ip6=${4:-} s ns n l r
	for s in a b; do
		ns=$A n=1 l=1 r=2
		[ $s = a ] || { ns=$B n=2 l=2 r=1; }
		ip -n $ns link add $t$s type "$kind" local 192.168.19.$l remote 192.168.19.$r ttl 64
		ip -n $ns addr add "$ip4$n/24" dev $t$s
		[ -z "$ip6" ] || ip -n $ns addr add "$ip6::$n/64" dev $t$s nodad
		ip -n $ns link set $t$s up
	done
}
if have_kind ipip "local 192.168.254.1"; then
	tunnel ipip i19 10.121.0.
	l3_pair ipip i19 10.121.0. ""
	kinds+=" ipip"
	xp_case "ipip IPv4 rc_pingpong" xp_pair 4 A B ibv_rc_pingpong -n 50 -s 4096 -c
	xp_case "ipip IPv4 ib_read_bw" xp_pair 4 B A ib_read_bw -F -n 20 -s 65536
else
	echo "no ipip on $(uname -r): skipped"
fi
if have_kind gre "local 192.168.254.1"; then
	tunnel gre g19 10.122.0. fd7a
	l3_pair gre g19 10.122.0. fd7a
	kinds+=" gre"
	xp_case "gre IPv4 rc_pingpong" xp_pair 4 A B ibv_rc_pingpong -n 50 -s 4096 -c
	xp_case "gre IPv6 ib_write_bw" xp_pair 6 B A ib_write_bw -F -n 20 -s 65536
else
	echo "no gre on $(uname -r): skipped"
fi

# --- tun, with a forwarder process between the two devices -------------------
if [ -c /dev/net/tun ] || modprobe tun 2>/dev/null; then
	fwd_out=$(mktemp)
	sv_on_exit "rm -f '$fwd_out'"
	python3 "$SV_ROOT/tests/user/19-l3dev.py" $A t19a $B t19b >"$fwd_out" 2>&1 &
	fwd=$!
	sv_on_exit "kill $fwd 2>/dev/null"
	sv_wait_for "sv_file_has '$fwd_out' ready || ! kill -0 $fwd" 30 || true
	sv_file_has "$fwd_out" ready || sv_fail "tun forwarder: $(cat "$fwd_out")"
	for s in a b; do
		ns=$A n=1
		[ $s = a ] || { ns=$B n=2; }
		ip -n $ns -batch - <<EOT
addr add 10.123.0.$n/24 dev t19$s
addr add fd7b::$n/64 dev t19$s nodad
link set t19$s up
EOT
	done
	l3_pair tun t19 10.123.0. fd7b
	kinds+=" tun"
	xp_case "tun IPv4 rc_pingpong" xp_pair 4 A B ibv_rc_pingpong -n 50 -s 4096 -c
	xp_case "tun IPv6 ib_write_bw" xp_pair 6 B A ib_write_bw -F -n 20 -s 65536
	xp_case "tun IPv4 ib_read_bw" xp_pair 4 A B ib_read_bw -F -n 20 -s 65536
	# the forwarder's exit closes the tun devices: their devices go
	kill $fwd
	wait $fwd 2>/dev/null || true
	xp_case "tun netdevs gone: devices removed" \
		sv_wait_for '[ ! -e /sys/class/infiniband/svt19a ] && [ ! -e /sys/class/infiniband/svt19b ]' 20
else
	echo "no tun on $(uname -r): skipped"
fi

# ib_core offers each L3 device its MAC-derived default GID, which
# softverbs refuses (sv_port_add_gid()); ib_core logs each refusal
echo "ib_core's 'GID add failed' lines (refused default GIDs): $(dmesg | grep -c 'GID add failed' || true)"
echo "SV_SUMMARY: L3 netdevs: ${kinds# } (${#_xp_pass[@]} cases passed, ${#_xp_fail[@]} failed)"
xp_summary
