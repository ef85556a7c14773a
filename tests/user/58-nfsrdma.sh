#!/bin/bash
# sv-test: kernels=all needs=nfsd quick cost=L
# NFS over RDMA (rpcrdma) between two softverbs devices joined by a veth.
#
#   init_net                                   netns sv-58b
#   sv58a (softverbs) on x58a 10.158.0.1 ===== x58b 10.158.0.2 sv58b (softverbs)
#     nfsd, RDMA listener on port 20049          NFS client: mount -o rdma
#     exports a tmpfs                            (mounted from the netns with
#                                                 nsenter --net, so the mount
#                                                 is visible to this shell)
#
# The NFS client's rdma_cm IDs live in the network namespace it was mounted
# from, the server's in init_net, so every RPC crosses the wire between two
# devices.  NFSv4.2 (the backchannel rides the same RDMA connection) and
# NFSv3: write an 8 MiB pattern buffered and one with O_DIRECT, read both back
# with O_DIRECT and buffered after dropping the caches, compare with what the
# server's tmpfs holds; check /proc/self/mountstats says "xprt: rdma" and the
# devices' counters moved.  Last, delete the client's device while a v4.2
# mount is busy: the client must fail or hang its I/O (bounded by timeouts),
# never oops, and everything must unload (SV_NFS58_REMOVE=server: the
# server's device instead).  The runner checks the kernel log.
# Skips (exit 4) without the nfsd/rpcrdma modules or nfs-kernel-server.
. "$(dirname "$0")/lib.sh"
# shellcheck source=lib/storage.sh
. "$sv_lib/storage.sh"

sv_need ip rdma nsenter rpc.nfsd rpc.mountd exportfs mount.nfs rpcbind dd cmp sha256sum
for m in nfsd nfs rpcrdma; do
	modinfo "$m" >/dev/null 2>&1 || sv_skip "no $m module for $SV_KVER"
done
sv_load_module_init_net
modprobe rdma_cm
# rpcrdma goes last: the client's and server's transports must be gone
# (unless it is built in)
sv_on_exit '[ ! -e /sys/module/rpcrdma/refcnt ] || sv_wait_for "modprobe -r rpcrdma" 30 ||
	echo "rpcrdma does not unload: $(lsmod | grep rpcrdma)"'

srv_ip=10.158.0.1 cli_ip=10.158.0.2 ns=sv-58b
sv_netns_add $ns
sv_veth_pair x58a x58b $ns
ip addr add $srv_ip/24 dev x58a
ip -n $ns addr add $cli_ip/24 dev x58b
rdma link add sv58a type softverbs netdev x58a
sv_on_exit 'rdma link delete sv58a 2>/dev/null'
ip netns exec $ns rdma link add sv58b type softverbs netdev x58b
sv_on_exit "ip netns exec $ns rdma link delete sv58b 2>/dev/null"
for d in sv58a sv58b; do
	sv_wait_for "[[ \"\$(rdma link show $d/1)\" == *'state ACTIVE'* ]]" 20 || sv_fail "$d not ACTIVE"
done
# the client mounts with nsenter: it enters the netns but keeps this shell's
# mount namespace (ip netns exec would give it a private one, hiding the mount)
in_ns="nsenter --net=/run/netns/$ns"

# --- server: rpcbind (NFSv3's MOUNT protocol), mountd, nfsd on RDMA -------
exp=$(mktemp -d /tmp/sv-nfs58-exp.XXXXXX)
mnt=$(mktemp -d /tmp/sv-nfs58-mnt.XXXXXX)
sv_on_exit "rmdir '$exp' '$mnt' 2>/dev/null"
mount -t tmpfs -o size=64m sv58exp "$exp"
sv_on_exit "umount '$exp' 2>/dev/null"
sv_on_exit sv_nfsd_stop
sv_nfsd_start $cli_ip "$exp" || sv_fail "NFS server setup failed"
echo "server: nfsd $(cat /proc/fs/nfsd/versions) listening on: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"

# --- client -----------------------------------------------------------------
sv_on_exit "umount -f -l '$mnt' 2>/dev/null"
pat=$(mktemp) back=$(mktemp)
sv_on_exit "rm -f '$pat' '$back'"
# 8 MiB, 2 MiB under a debug kernel (SV_QUICK)
mib=8
[ -z "${SV_QUICK:-}" ] || mib=2
head -c ${mib}M /dev/urandom >"$pat"
sum=$(sha256sum <"$pat")

# tx_bytes + rx_bytes of a softverbs device, from "rdma statistic"
dev_bytes() {
	rdma statistic show link "$1/1" 2>/dev/null | tr ' ' '\n' |
		awk 'prev == "tx_bytes" || prev == "rx_bytes" { s += $1 } { prev = $1 } END { print s + 0 }'
}

# nfs_round VERS PATH OPTS: mount, move the pattern both ways, compare, unmount
nfs_round() {
	local vers=$1 path=$2 opts=$3 t0 t1 before after
	before=$(($(dev_bytes sv58a)))
	timeout $(sv_t 60) $in_ns mount -t nfs -o "rdma,port=20049,vers=$vers$opts" "$srv_ip:$path" "$mnt" ||
		sv_fail "NFSv$vers mount over RDMA failed: $(dmesg | tail -n 10)"
	local xprt
	xprt=$(awk -v m="$mnt" '$1 == "device" && $5 == m { on = 1; next }
		$1 == "device" { on = 0 } on && $1 == "xprt:" { print $2; exit }' /proc/self/mountstats)
	[ "$xprt" = rdma ] || sv_fail "NFSv$vers mount transport is '$xprt', not rdma"
	t0=$(date +%s.%N)
	timeout $(sv_t 120) dd if="$pat" of="$mnt/buffered" bs=1M conv=fsync status=none ||
		sv_fail "v$vers buffered write failed"
	timeout $(sv_t 120) dd if="$pat" of="$mnt/direct" bs=256k oflag=direct status=none ||
		sv_fail "v$vers O_DIRECT write failed"
	cmp "$pat" "$exp/buffered" || sv_fail "v$vers: the server holds other data (buffered write)"
	cmp "$pat" "$exp/direct" || sv_fail "v$vers: the server holds other data (O_DIRECT write)"
	timeout $(sv_t 120) dd if="$mnt/buffered" of="$back" bs=256k iflag=direct status=none ||
		sv_fail "v$vers O_DIRECT read failed"
	cmp "$pat" "$back" || sv_fail "v$vers: O_DIRECT read back differs"
	echo 3 >/proc/sys/vm/drop_caches
	[ "$(timeout $(sv_t 120) sha256sum <"$mnt/direct")" = "$sum" ] || sv_fail "v$vers: buffered read back differs"
	t1=$(date +%s.%N)
	# a directory listing, rename and remove: plain metadata RPCs
	timeout $(sv_t 30) mv "$mnt/direct" "$mnt/direct2" && [ -f "$exp/direct2" ] || sv_fail "v$vers rename"
	timeout $(sv_t 30) rm -f "$mnt/buffered" "$mnt/direct2" && [ -z "$(ls -A "$mnt")" ] ||
		sv_fail "v$vers remove/readdir"
	after=$(($(dev_bytes sv58a)))
	echo "NFSv$vers over rdma: $((4 * mib)) MiB moved ($((2 * mib)) written, $((2 * mib)) read) in $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s; sv58a counters: $((after - before)) bytes"
	[ "$after" -gt "$((before + 4 * mib * 1024 * 1024))" ] ||
		sv_fail "sv58a's byte counters moved by $((after - before)) only: was this RDMA?"
	timeout $(sv_t 60) umount "$mnt" || sv_fail "v$vers umount failed"
}

nfs_round 4.2 / ""
nfs_round 3 "$exp" ",nolock"

# --- a device disappears under a busy mount ---------------------------------
# The client's device by default: xprtrdma drops its resources on the
# ib_client removal callback.  SV_NFS58_REMOVE=server deletes the server's
# device instead.  Kernels whose svcrdma handles device removal only through
# the rdma_cm DEVICE_REMOVAL event (6.1; 6.12's rpcrdma has the ib_client
# hook, see its svcrdma_device_removal tracepoint) leak the PD and CQs of a
# connection that is being accepted when the device goes: svc_rdma_accept's
# error path frees only the QP and the cm_id.  ib_core then warns
# (rdma_restrack_clean), and so does the provider's own check (softverbs:
# sv_dev_dealloc_driver; Soft-RoCE: rxe_pool_cleanup) - reproduced with both
# providers, see Documentation/transport-tests.md.  The client reconnects on
# every RPC timeout (xprtrdma has no keepalive: a retransmit timeout forces a
# disconnect), so a short timeo on a loaded TCG host puts a reconnect next to
# the deletion.  The server variant therefore waits 10 s per RPC: no RPC
# sent after the mount can time out within the second before the deletion,
# and once the deletion starts rdma_cm removes the device's listeners (made
# before any connection) first, so no new connection reaches svcrdma on it.
# What remains is what this step is for: softverbs tearing down a device
# whose kernel QPs, CQs and PDs svcrdma still uses.
victim=sv58b timeo=20
[ "${SV_NFS58_REMOVE:-client}" != server ] || victim=sv58a timeo=100
timeout $(sv_t 60) $in_ns mount -t nfs -o "rdma,port=20049,vers=4.2,soft,timeo=$timeo,retrans=1" "$srv_ip:/" "$mnt" ||
	sv_fail "remount failed"
timeout $(sv_t 60) dd if=/dev/zero of="$mnt/busy" bs=1M count=64 oflag=direct status=none &
dd_pid=$!
sleep 1
if [ $victim = sv58b ]; then
	ip netns exec $ns rdma link delete sv58b || sv_fail "cannot delete sv58b under a mount"
else
	rdma link delete sv58a || sv_fail "cannot delete sv58a under a mount"
fi
rc=0
wait $dd_pid || rc=$?
echo "dd while $victim went away: exit $rc (an error or timeout is fine)"
timeout $(sv_t 30) umount -f -l "$mnt" || sv_fail "forced lazy umount hangs"
timeout $(sv_t 60) rpc.nfsd 0 || sv_fail "nfsd does not stop"
echo "$victim deleted under a busy mount: no oops; unmounted, nfsd stopped"
