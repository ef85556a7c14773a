#!/bin/bash
# interop-guest.sh: the guest halves of scripts/interop-vms.sh (softverbs and
# Soft-RoCE on two kernels, two VMs on a wire); runs inside them, as root.
#
#   interop-guest.sh a KIND    VM A: KIND's device (softverbs|rxe), the servers
#   interop-guest.sh b KIND    VM B: KIND's device, the clients
#
#   VM A  10.199.0.1/24  ------------ wire ------------  10.199.0.2/24  VM B
#   ibv_rc_pingpong, ibv_ud_pingpong, rping servers        their clients
#
# Sequencing over one TCP control port of A's (18999): A brings up its
# device, starts the three servers and, once they all listen, the control
# listener; B polls it, so a connection means "servers up" (the root has no
# ping).  B then runs the clients one after the other (each retried while
# the server refuses it) and, last, sends "done" on the control port; A
# then reaps its servers.  Every step has a
# timeout (IX_WAIT, default 480 s, for A's wait for B and B's for A), so a
# side whose peer never comes ends by itself.  Both sides use the RoCE v2
# GID of their IPv4 address; the pingpongs check the data (-c), rping
# validates every ping (-V).
#
# Each side prints "RESULT NAME ok|fail" per case (setup, rc_pingpong,
# ud_pingpong, rping); the host pairs A's and B's.  Exit: 0 if all its
# cases passed, 1 otherwise.  Env: SV_MODULE, softverbs.ko to insmod.
set -uo pipefail

root=$(realpath "$(dirname "$0")/../..")
cd "$root" || exit 2
role=${1:-} kind=${2:-}
case $role:$kind in
a:softverbs | a:rxe | b:softverbs | b:rxe) ;;
*) echo "usage: interop-guest.sh a|b softverbs|rxe" >&2; exit 2 ;;
esac

addr_a=10.199.0.1 addr_b=10.199.0.2
mac_a=52:54:00:5e:00:0a mac_b=52:54:00:5e:00:0b
port_rc=18515 port_ud=18516 port_rping=18517 port_ctl=18999
wait_s=${IX_WAIT:-480} run_s=120

# shellcheck source=tests/user/lib.sh
. tests/user/lib.sh
set +e
ulimit -l unlimited

log() { echo "[$role $(date +%T)] $*" >&2; }
failed=0
result() {
	echo "RESULT $1 $2"
	[ "$2" = ok ] || failed=1
}

# wire_nic MAC: the netdev with MAC (the NIC run.sh --wire gave this VM)
wire_nic() {
	local f m
	for f in /sys/class/net/*/address; do
		read -r m <"$f"
		[ "$m" = "$1" ] && { f=${f%/address}; echo "${f##*/}"; return 0; }
	done
	return 1
}

# setup ADDR MAC PEER_ADDR PEER_MAC: the wire NIC with ADDR and a permanent
# neighbour entry for the peer (ib_core's address resolution gives up after
# a second without an ARP reply, which a loaded TCG guest can take), then
# KIND's device on it; sets nic, dev and gid (the index of ADDR's RoCE v2 GID)
setup() {
	local hex g
	modprobe virtio_net
	sv_wait_for "wire_nic $2" 20 || { log "no NIC with MAC $2"; return 1; }
	nic=$(wire_nic "$2")
	ip link set "$nic" up
	ip addr add "$1/24" dev "$nic"
	ip neigh replace "$3" lladdr "$4" dev "$nic" nud permanent
	sv_wait_for "[ \"\$(cat /sys/class/net/$nic/carrier)\" = 1 ]" 20 || { log "$nic has no carrier"; return 1; }
	_sv_modprobe_missing ib_core ib_uverbs rdma_ucm
	if [ "$kind" = rxe ]; then
		modprobe rdma_rxe || { log "no rdma_rxe"; return 1; }
		dev=rxw0
	else
		# in a subshell: sv_load_module's sv_fail exits, and this side
		# still has to report its setup
		# shellcheck disable=SC2119 # no module parameters
		(sv_load_module) || { log "cannot load softverbs"; return 1; }
		dev=svw0
	fi
	rdma link add "$dev" type "$kind" netdev "$nic" || { log "cannot create $dev"; return 1; }
	# shellcheck disable=SC2046,SC2183 # the address's four numbers
	hex=$(printf '%02x%02x:%02x%02x' $(tr . ' ' <<<"$1"))
	g=0000:0000:0000:0000:0000:ffff:$hex
	sv_wait_for "_sv_xport_gid $dev $g" 20 || { log "$dev has no RoCE v2 GID for $1"; return 1; }
	sv_wait_for "[[ \$(rdma link show $dev/1) == *'state ACTIVE'* ]]" 20 || { log "$dev is not ACTIVE"; return 1; }
	gid=$(_sv_xport_gid "$dev" "$g")
	log "$(uname -r): $kind device $dev on $nic ($1, RoCE v2 GID index $gid)"
}

# cm_listening: an rping cm_id listens (ss cannot see rdma_cm listeners)
# shellcheck disable=SC2317 # called through sv_wait_for's eval
cm_listening() {
	[[ $(rdma resource show cm_id 2>/dev/null) == *"state LISTEN "*"comm rping"* ]]
}

# show NAME FILE [N]: FILE's last N (15) lines, prefixed, cut at 160 columns
show() { tail -n "${3:-15}" "$2" | cut -c 1-160 | sed "s/^/  $1| /" >&2; }

case $role in
a)
	if ! setup $addr_a $mac_a $addr_b $mac_b; then
		result setup fail
		exit 1
	fi
	result setup ok
	d=$(mktemp -d)
	names=(rc_pingpong ud_pingpong rping)
	timeout -k 5 "$wait_s" ibv_rc_pingpong -d "$dev" -i 1 -g "$gid" -p $port_rc -n 50 -s 4096 -c \
		>"$d/rc_pingpong" 2>&1 &
	pids=($!)
	timeout -k 5 "$wait_s" ibv_ud_pingpong -d "$dev" -i 1 -g "$gid" -p $port_ud -n 50 -s 512 -c \
		>"$d/ud_pingpong" 2>&1 &
	pids+=($!)
	timeout -k 5 "$wait_s" rping -s -v -V -C 5 -S 1000 -a $addr_a -p $port_rping >"$d/rping" 2>&1 &
	pids+=($!)
	sv_wait_for "sv_tcp_listening $port_rc && sv_tcp_listening $port_ud && cm_listening" 60 ||
		log "not every server listens; going on"
	log "servers up, waiting for B's done on $port_ctl"
	# the control listener: B's probes (empty) until its "done"
	python3 -c '
import socket, sys, time
s = socket.create_server((sys.argv[1], int(sys.argv[2])))
end = time.monotonic() + float(sys.argv[3])
while True:
    s.settimeout(max(end - time.monotonic(), 0.1))
    try:
        c, _ = s.accept()
    except socket.timeout:
        sys.exit("interop-guest: B never said done")
    c.settimeout(5)
    try:
        line = c.makefile().readline()
    except OSError:
        line = ""
    c.close()
    if line.strip() == "done":
        break
' $addr_a $port_ctl "$wait_s"
	# B's clients have ended: each server ends within moments of its own
	sv_wait_for "! kill -0 ${pids[*]} 2>/dev/null" 20 || kill "${pids[@]}" 2>/dev/null
	for i in "${!names[@]}"; do
		wait "${pids[i]}"
		rc=$?
		if [ $rc -eq 0 ]; then
			result "${names[i]}" ok
			show "${names[i]}" "$d/${names[i]}" 2
		else
			log "${names[i]} server exited $rc"
			show "${names[i]}" "$d/${names[i]}"
			result "${names[i]}" fail
		fi
	done
	;;
b)
	if ! setup $addr_b $mac_b $addr_a $mac_a; then
		result setup fail
		failed=1
	else
		result setup ok
	fi
	log "waiting for A's servers (its control port)"
	# a SYN to an address A has not set yet goes unanswered: 3 s a probe
	a_up=1
	if ! sv_wait_for "timeout 3 bash -c ': <>/dev/tcp/$addr_a/$port_ctl'" "$wait_s"; then
		log "A never came up"
		failed=1 a_up=0
	fi
	d=$(mktemp -d)
	# client NAME RETRY_REGEX CMD...: CMD, again while its output matches
	# RETRY_REGEX (the server is not listening yet), under run_s each
	client() {
		local name=$1 re=$2 try rc out
		shift 2
		for try in 1 2 3 4 5 6; do
			[ $try -eq 1 ] || sv_sleep 2
			timeout -k 5 $run_s "$@" >"$d/$name" 2>&1
			rc=$?
			[ $rc -ne 0 ] || break
			out=$(<"$d/$name")
			[[ ${out,,} =~ $re ]] || break
			log "$name: not accepted yet (try $try)"
		done
		if [ $rc -eq 0 ]; then
			result "$name" ok
			show "$name" "$d/$name" 2
		else
			log "$name client exited $rc"
			show "$name" "$d/$name"
			dmesg | tail -n 10 | sed 's/^/  dmesg| /' >&2
			result "$name" fail
		fi
	}
	if [ $failed = 0 ]; then
		client rc_pingpong "couldn't connect" \
			ibv_rc_pingpong -d "$dev" -i 1 -g "$gid" -p $port_rc -n 50 -s 4096 -c $addr_a
		client ud_pingpong "couldn't connect" \
			ibv_ud_pingpong -d "$dev" -i 1 -g "$gid" -p $port_ud -n 50 -s 512 -c $addr_a
		client rping "reject|unreachable|connect error|event 8" \
			rping -c -v -V -C 5 -S 1000 -a $addr_a -p $port_rping
	fi
	# done: A reaps its servers
	[ $a_up = 0 ] || sv_wait_for "timeout 3 bash -c 'echo done <>/dev/tcp/$addr_a/$port_ctl >&0'" 30 ||
		log "cannot tell A we are done"
	;;
esac
exit $failed
