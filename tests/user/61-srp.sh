#!/bin/bash
# sv-test: kernels=all needs=srp cost=M
# SRP (SCSI RDMA Protocol) over RoCE between two softverbs devices: the LIO
# target with ib_srpt on one, the ib_srp initiator on the other.
#
#   init_net                                   netns sv-61b
#   sv61a (softverbs) on x61a 10.161.0.1 ===== x61b 10.161.0.2 sv61b (softverbs)
#     LIO fileio backstore (16 MiB on tmpfs)     ib_srp add_target with
#     ib_srpt, rdma_cm listener on port 5161     dest=10.161.0.1:5161, written
#                                                from the netns -> /dev/sdX
#
# ib_srpt's rdma_cm listener lives in init_net; ib_srp creates its rdma_cm IDs
# in the namespace of whoever writes add_target, so every SRP IU and RDMA
# transfer crosses the wire between the two devices.  RoCE has no subnet
# manager and no SRP DM service, so the initiator uses the rdma_cm form of
# add_target (dest=IP:PORT, not dgid/service_id) and the target is configured
# through configfs directly (LIO, no targetcli).  Write a 4 MiB pattern with
# O_DIRECT, read it back through the initiator and compare, check the
# backing file holds it; log out (delete the remote port), then the
# initiator vanishes without logging out (everything it sends is dropped, its
# device is deleted): the target must still accept a new login from a fresh
# device on the same port and serve I/O; log out, tear the target down, unload
# ib_srp/ib_srpt and softverbs.  The runner checks the kernel log stays clean.
# Skips (exit 4) without the ib_srp/ib_srpt/LIO modules.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma nsenter tc dd cmp
for m in ib_srp ib_srpt target_core_mod target_core_file sd_mod; do
	modinfo "$m" >/dev/null 2>&1 || sv_skip "no $m module for $SV_KVER"
done
modprobe sch_netem 2>/dev/null || sv_skip "no sch_netem module"

sv_load_module_init_net
modprobe rdma_cm
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
# the SRP and LIO modules go last, once the devices and configfs items are gone
sv_on_exit 'modprobe -r ib_srp ib_srpt 2>/dev/null; modprobe -r target_core_file target_core_mod 2>/dev/null'

tgt_ip=10.161.0.1 ini_ip=10.161.0.2 ns=sv-61b cm_port=5161
sv_netns_add $ns
sv_veth_pair x61a x61b $ns
ip addr add $tgt_ip/24 dev x61a
ip -n $ns addr add $ini_ip/24 dev x61b
in_ns="nsenter --net=/run/netns/$ns"

# add_ini_dev: (re)create the initiator's device in the netns
add_ini_dev() {
	ip netns exec $ns rdma link add sv61b type softverbs netdev x61b
	sv_wait_for "[[ \"\$(rdma link show sv61b/1)\" == *'state ACTIVE'* ]]" 20 || sv_fail "sv61b not ACTIVE"
}
rdma link add sv61a type softverbs netdev x61a
sv_on_exit 'rdma link delete sv61a 2>/dev/null'
sv_wait_for "[[ \"\$(rdma link show sv61a/1)\" == *'state ACTIVE'* ]]" 20 || sv_fail "sv61a not ACTIVE"
add_ini_dev
sv_on_exit "ip netns exec $ns rdma link delete sv61b 2>/dev/null"

# GID 0 (the port's default GID) in sysfs notation, without the colons
gid0_hex() { tr -d ':' </sys/class/infiniband/$1/ports/1/gids/0; }

# --- target: a fileio backstore behind ib_srpt ---------------------------
# The SRP target port identifier the initiator must present (id_ext and
# ioc_guid): fixed, instead of the node GUID of whichever device ib_srpt
# happened to see first.
svc_guid=0x5e5e5e5e00000061
modprobe target_core_mod
modprobe target_core_file
modprobe ib_srpt srpt_service_guid=$svc_guid
modprobe ib_srp
modprobe sd_mod

img=$(mktemp /tmp/sv-srp61.XXXXXX)
sv_on_exit "rm -f '$img'"
truncate -s 16M "$img"
lio=/sys/kernel/config/target
bs=$lio/core/fileio_61/srp61
sv_on_exit "rmdir $bs $lio/core/fileio_61 2>/dev/null"
mkdir -p $bs
echo "fd_dev_name=$img,fd_dev_size=$((16 << 20))" >$bs/control
echo 1 >$bs/enable

# ib_srpt names a port by its GID 0, "0x" and 32 hex digits
tport=$lio/srpt/0x$(gid0_hex sv61a)
tpg=$tport/tpg_1
# the initiator port ID ib_srp sends: initiator_ext (0), then the interface
# ID of its GID 0
acl=$tpg/acls/0x0000000000000000$(gid0_hex sv61b | cut -c17-32)
# mkdir target/srpt (below, through mkdir -p) pins ib_srpt until its rmdir
sv_on_exit "rmdir $lio/srpt 2>/dev/null"
sv_on_exit "rmdir $tport 2>/dev/null"
sv_on_exit "rmdir $tpg 2>/dev/null"
sv_on_exit "rmdir $tpg/lun/lun_0 2>/dev/null"
sv_on_exit "rm -f $tpg/lun/lun_0/srp61"
sv_on_exit "rmdir $acl 2>/dev/null"
sv_on_exit "rmdir $acl/lun_0 2>/dev/null"
sv_on_exit "rm -f $acl/lun_0/lun_0"
sv_on_exit "{ echo 0 >$tpg/enable; } 2>/dev/null"
mkdir -p $tpg/lun/lun_0 || sv_fail "ib_srpt has no port ${tport##*/}: $(ls $lio/srpt)"
ln -s $bs $tpg/lun/lun_0/srp61
mkdir -p $acl/lun_0
ln -s $tpg/lun/lun_0 $acl/lun_0/lun_0
echo 1 >$tpg/enable
# the rdma_cm listener (module-wide, every port; "0" closes it)
sv_on_exit "{ echo 0 >$lio/srpt/discovery_auth/rdma_cm_port; } 2>/dev/null"
echo $cm_port >$lio/srpt/discovery_auth/rdma_cm_port ||
	sv_fail "ib_srpt refuses an rdma_cm listener on $cm_port: $(dmesg | tail -n 5)"
echo "target: ${tport##*/} tpg_1 lun_0 = fileio $img, ACL ${acl##*/}, rdma_cm port $cm_port"

# --- initiator ---------------------------------------------------------------
# srp_host: the initiator's SCSI host on sv61b (ib_srp's sysfs attributes
# name the RDMA device it logged in through); srp_disk: its disk
srp_host() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[ "$(cat "$h/local_ib_device" 2>/dev/null)" = sv61b ] && { echo "${h##*/}"; return 0; }
	done
	return 1
}
srp_disk() {
	local h b
	h=$(srp_host) || return 1
	for b in /sys/class/scsi_host/$h/device/target*/*/block/*; do
		[ -e "$b" ] && { echo "${b##*/}"; return 0; }
	done
	return 1
}
# login: add_target from the initiator's netns; wait for the disk
login() {
	local host=/sys/class/infiniband_srp/srp-sv61b-1
	local try err
	sv_wait_for "[ -e $host/add_target ]" 10 || sv_fail "ib_srp has no $host"
	for try in 1 2 3 4 5 6 7 8 9 10; do
		err=$(echo "id_ext=$svc_guid,ioc_guid=$svc_guid,dest=$tgt_ip:$cm_port" |
			timeout "$(sv_t 60)" $in_ns tee $host/add_target 2>&1 >/dev/null) && break
		# ib_srp keeps a logged-out target on its list until the removal
		# work has torn its channels down, which ends after the SCSI host
		# left sysfs (logout's wait): a login meanwhile gets EEXIST
		# ("Already connected to target port").  Seen once on stock 6.1.
		if [[ $err != *"File exists"* ]] || [ $try -eq 10 ]; then
			sv_fail "add_target failed: $err: $(dmesg | tail -n 15)"
		fi
		sv_sleep 1
	done
	sv_wait_for srp_disk 30 || sv_fail "no SCSI disk behind $(srp_host): $(dmesg | tail -n 10)"
	disk=$(srp_disk)
	sv_wait_for "[ -b /dev/$disk ] && [ \$(cat /sys/class/block/$disk/size) -gt 0 ]" 30 ||
		sv_fail "/dev/$disk does not appear or has size 0"
	echo "initiator: $(srp_host) via sv61b -> /dev/$disk ($(cat /sys/class/block/$disk/device/vendor) $(cat /sys/class/block/$disk/device/model)), $(($(cat /sys/class/block/$disk/size) / 2048)) MiB"
}
# logout: delete the SRP remote port (ib_srp disconnects and removes the host)
logout() {
	local h p
	h=$(srp_host) || return 0
	for p in /sys/class/srp_remote_ports/port-${h#host}:*; do
		echo 1 >"$p/delete"
	done
	sv_wait_for '! srp_host' 30 || sv_fail "$h still there after deleting its remote port"
}
sv_on_exit logout

pat=$(mktemp) back=$(mktemp)
sv_on_exit "rm -f '$pat' '$back'"
# tx_bytes + rx_bytes of a softverbs device, from "rdma statistic"
dev_bytes() {
	rdma statistic show link "$1/1" 2>/dev/null | tr ' ' '\n' |
		awk 'prev == "tx_bytes" || prev == "rx_bytes" { s += $1 } { prev = $1 } END { print s + 0 }'
}
# pattern_round MIB: write MIB MiB of fresh random data with O_DIRECT, read
# it back through the initiator and from the backing file, compare; the
# target's device must have carried at least both directions' payload
pattern_round() {
	local mib=$1 t0 t1 before after
	head -c ${mib}M /dev/urandom >"$pat"
	before=$(dev_bytes sv61a)
	t0=$(date +%s.%N)
	timeout "$(sv_t 120)" dd if="$pat" of=/dev/$disk bs=256k oflag=direct status=none ||
		sv_fail "write to /dev/$disk failed: $(dmesg | tail -n 10)"
	timeout "$(sv_t 120)" dd if=/dev/$disk of="$back" bs=256k count=$((mib * 4)) iflag=direct status=none ||
		sv_fail "read from /dev/$disk failed: $(dmesg | tail -n 10)"
	t1=$(date +%s.%N)
	cmp "$pat" "$back" || sv_fail "data read back through SRP differs"
	head -c ${mib}M "$img" | cmp - "$pat" || sv_fail "the backing file does not hold the data"
	after=$(dev_bytes sv61a)
	echo "$mib MiB written and read back over SRP in $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s: identical (and in the backing file); sv61a counters: $((after - before)) bytes"
	[ "$after" -gt $((before + 2 * mib * 1024 * 1024)) ] ||
		sv_fail "sv61a's byte counters moved by $((after - before)) only: was this RDMA?"
}

login
pattern_round 4
logout
echo "logged out"

# --- the initiator vanishes without logging out ------------------------------
# Everything the initiator sends is dropped first (netem on its veth end; the
# target's link stays up), so nothing it sends on the way out (ib_srp's DREQ
# when its device goes away) reaches the target, whose channels are left
# facing a dead peer.  A new device on the same port then logs in with the
# same initiator port ID: ib_srpt must close the stale channels of that I_T
# nexus (its DREQs now reach a device that does not know them) and serve I/O.
login
ip netns exec $ns tc qdisc add dev x61b root netem loss 100%
sv_on_exit "ip netns exec $ns tc qdisc del dev x61b root 2>/dev/null"
ip netns exec $ns rdma link delete sv61b || sv_fail "cannot delete sv61b while logged in"
sv_wait_for '! srp_host' 60 || sv_fail "ib_srp keeps $(srp_host) after its device went away"
ip netns exec $ns tc qdisc del dev x61b root
add_ini_dev
login
pattern_round 2
logout
echo "the target accepted a new login after the initiator vanished, and served I/O"

# --- teardown ------------------------------------------------------------------
echo 0 >$lio/srpt/discovery_auth/rdma_cm_port
echo 0 >$tpg/enable
rm -f $acl/lun_0/lun_0
rmdir $acl/lun_0 $acl
rm -f $tpg/lun/lun_0/srp61
rmdir $tpg/lun/lun_0 $tpg $tport $lio/srpt
timeout "$(sv_t 60)" rmdir $bs $lio/core/fileio_61 || sv_fail "the backstore does not go away"
sv_wait_for 'modprobe -r ib_srp ib_srpt' 30 || sv_fail "ib_srp/ib_srpt do not unload: $(lsmod | grep srp)"
ip netns exec $ns rdma link delete sv61b
rdma link delete sv61a
echo "target removed, ib_srp/ib_srpt unloaded, devices deleted"
