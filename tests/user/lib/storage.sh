# shellcheck shell=bash
# tests/user/lib/storage.sh: the storage fixture (source lib.sh first, then
# this: . "$sv_lib/storage.sh"): an NVMe-oF target on an RDMA port and the
# host's view of it, and an NFS server with an RDMA listener.  Used by
# tests/user/56-nvmeof.sh, 58-nfsrdma.sh and make bench's storage part
# (scripts/bench-ulp.sh), so a fix to the setup reaches all three.
#
# The helpers return non-zero with a reason on stderr instead of failing:
# a test turns that into sv_fail, the benchmark into a missing figure.
# Each *_add/*_start has a *_del/*_stop that undoes whatever part of it
# exists, so a test can register the undo with sv_on_exit before the setup.

sv_nvmet_cfg=/sys/kernel/config/nvmet

# sv_nvmet_add NQN BDEV ADDR PORTID: an nvmet subsystem NQN (any host may
# connect) with namespace 1 on block device BDEV, offered on an RDMA port
# PORTID at ADDR:4420 (IPv4).  Needs nvmet and nvmet_rdma loaded and configfs
# mounted.
sv_nvmet_add() {
	local nqn=$1 bdev=$2 addr=$3 port=$sv_nvmet_cfg/ports/$4
	local sub=$sv_nvmet_cfg/subsystems/$1
	mkdir "$sub" && echo 1 >"$sub/attr_allow_any_host" &&
		mkdir "$sub/namespaces/1" && echo "$bdev" >"$sub/namespaces/1/device_path" &&
		echo 1 >"$sub/namespaces/1/enable" || { echo "nvmet: subsystem $nqn on $bdev refused" >&2; return 1; }
	mkdir "$port" && echo rdma >"$port/addr_trtype" && echo ipv4 >"$port/addr_adrfam" &&
		echo "$addr" >"$port/addr_traddr" && echo 4420 >"$port/addr_trsvcid" &&
		ln -s "$sub" "$port/subsystems/$nqn" || { echo "nvmet: rdma port $addr:4420 refused" >&2; return 1; }
}

# sv_nvmet_del NQN PORTID: undo sv_nvmet_add, whatever part of it exists
sv_nvmet_del() {
	local port=$sv_nvmet_cfg/ports/$2 sub=$sv_nvmet_cfg/subsystems/$1
	rm -f "$port/subsystems/$1" 2>/dev/null
	rmdir "$port" 2>/dev/null
	rmdir "$sub/namespaces/1" 2>/dev/null
	rmdir "$sub" 2>/dev/null
	[ ! -e "$port" ] && [ ! -e "$sub" ]
}

# sv_nvme_ctrl NQN: the name of the host's controller connected to NQN (nvmeX)
sv_nvme_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$1" ] && { echo "${c##*/}"; return 0; }
	done
	return 1
}

# sv_nvme_ns NQN: the name of NQN's namespace block device (nvmeXnY), once
# its node is in /dev.  With native multipath (Debian's default) that is the
# subsystem's head disk; the controller's own path (nvmeXcZnY) is hidden,
# has no node in /dev, and a program given /dev/nvmeXcZnY would make a
# plain file there.
sv_nvme_ns() {
	local b
	for b in /sys/block/nvme*n*; do
		[[ ${b##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		[ -b "/dev/${b##*/}" ] || continue
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$1" ] && { echo "${b##*/}"; return 0; }
	done
	return 1
}

# sv_nvme_connect NQN ADDR HOSTNQN: nvme-rdma connects to NQN at ADDR:4420
# and waits for its namespace; prints the namespace's block device name
sv_nvme_connect() {
	timeout "$(sv_t 120)" nvme connect -t rdma -a "$2" -s 4420 -n "$1" --hostnqn="$3" >/dev/null ||
		{ echo "nvme connect to $1 at $2 failed" >&2; return 1; }
	sv_wait_for "sv_nvme_ns '$1'" 30 || { echo "no namespace block device for $1" >&2; return 1; }
	sv_nvme_ns "$1"
}

# sv_nfsd_start CLIENT EXPORT: an NFS server (nfsd, mountd, rpcbind) in this
# network namespace exporting directory EXPORT to CLIENT (an address or
# pattern) as NFSv4's pseudo-root (fsid=0: nfsd cannot export the VM's
# overlay root above it), with an RDMA listener on port 20049 and short
# lease and grace times, so v4 opens do not wait out the default 90 s.
# Loads nfsd and rpcrdma.  sv_nfsd_stop undoes it.
_sv_nfsd_pids=
sv_nfsd_start() {
	local client=$1 exp=$2
	modprobe nfsd && modprobe rpcrdma || { echo "nfsd: no nfsd or rpcrdma module" >&2; return 1; }
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd ||
		{ echo "nfsd: cannot mount /proc/fs/nfsd" >&2; return 1; }
	mkdir -p /run/rpcbind /var/lib/nfs/rpc_pipefs /var/lib/nfs/v4recovery
	# rpcbind: NFSv3's MOUNT protocol finds mountd through it
	rpcbind -f -w &
	_sv_nfsd_pids+=" $!"
	sv_wait_for 'rpcinfo -p 127.0.0.1 >/dev/null 2>&1' 10 || { echo "nfsd: rpcbind does not answer" >&2; return 1; }
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	exportfs -o rw,fsid=0,no_root_squash,no_subtree_check,insecure,sync "$client:$exp" ||
		{ echo "nfsd: exportfs of $exp failed" >&2; return 1; }
	rpc.mountd -F -N 2 >/dev/null 2>&1 &
	_sv_nfsd_pids+=" $!"
	rpc.nfsd 4 || { echo "nfsd: rpc.nfsd failed" >&2; return 1; }
	echo "rdma 20049" >/proc/fs/nfsd/portlist && grep -qx 'rdma 20049' /proc/fs/nfsd/portlist ||
		{ echo "nfsd refuses an RDMA listener: $(tr '\n' ' ' </proc/fs/nfsd/portlist); $(dmesg | tail -n 5)" >&2; return 1; }
	echo Y >/proc/fs/nfsd/v4_end_grace 2>/dev/null || true
}

# sv_nfsd_stop: undo sv_nfsd_start, whatever part of it exists (nfsd and
# rpcrdma stay loaded: the caller unloads them once every mount is gone)
sv_nfsd_stop() {
	local rc=0 p
	if [ -e /proc/fs/nfsd/threads ]; then
		timeout "$(sv_t 60)" rpc.nfsd 0 2>/dev/null || rc=1
	fi
	exportfs -ua 2>/dev/null
	for p in $_sv_nfsd_pids; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	_sv_nfsd_pids=
	umount /proc/fs/nfsd 2>/dev/null
	return $rc
}
