#!/bin/bash
# compare-rxe.sh: softverbs and Soft-RoCE (rdma_rxe) side by side on the
# running kernel, each feature checked by trying it, not by reading docs.
#
#   compare-rxe.sh [MODULE]       (as root; MODULE: softverbs.ko, default
#                                  modprobe softverbs)
#   compare-rxe.sh --table FILE...  one markdown table from the CMP lines
#                                  of several runs (a column per provider
#                                  and kernel, in the order they come)
#
# In a test VM:
#   tests/vm/run.sh --kver 7.3.4+deb13-amd64 -- bash scripts/compare-rxe.sh /tmp/kb-7.3m/kmod/softverbs.ko
#
# The providers are measured one after the other (rdma_rxe of 6.x binds
# UDP 4791 in init_net as soon as it loads, so softverbs cannot listen
# there beside it): load one, build the topology, try everything, tear
# it down, unload, then the other.
#
#   init_net                     netns cmp-a                  netns cmp-b
#   cmp0 10.77.0.1 == veth == cmp0p          (device DEV0 on cmp0: caps, verbs)
#                                cva 192.168.77.1 == veth == cvb 192.168.77.2
#                                wga 10.79.0.1 == WireGuard == wgb 10.79.0.2
#
# DEV0 (init_net): RoCE v1 GIDs, ibv_devinfo -v (ODP caps, limits), hw
# counters, and tests/tools/compare-probe.c (ODP explicit/implicit
# registration, RDMA WRITE into pages not yet faulted, ibv_advise_mr
# prefetch, XRC domain and SRQ, memory windows type 1 and 2 bound and
# written through, ATOMIC WRITE, device capability flags), through the
# distro's libibverbs (rdma-core 44 on Debian 12: librxe drives both);
# again through rdma-core 65 (Debian sid root of scripts, if cached) and,
# for softverbs, through libsoftverbs (if ulib/ is built).
# Namespaces: a device created from inside cmp-a and cmp-b on the veth
# ends, and ibv_rc_pingpong between them.  IP-only netdev: a device on
# each WireGuard end, its GIDs, ibv_rc_pingpong between them.
#
# Output: one line per feature per provider,
#   CMP <provider> <kernel> <feature> <result>
# then a markdown table of all of them.  Exit 0 when everything could be
# tried (whatever the results), 1 when the set-up itself failed.
set -uo pipefail

if [ "${1:-}" = --table ]; then
	shift
	exec awk '
		$1 == "CMP" && NF >= 5 {
			col = $2 " " $3
			if (!(col in seen)) { seen[col] = 1; cols[++nc] = col }
			if (!($4 in known)) { known[$4] = 1; rows[++nr] = $4 }
			v[col, $4] = $5
		}
		END {
			line = "| feature |"; sep = "|---|"
			for (c = 1; c <= nc; c++) {
				split(cols[c], w, " ")
				line = line " " (w[1] == "rxe" ? "Soft-RoCE" : w[1]) " " w[2] " |"
				sep = sep "---|"
			}
			print line; print sep
			for (r = 1; r <= nr; r++) {
				line = "| " rows[r] " |"
				for (c = 1; c <= nc; c++)
					line = line " " ((cols[c], rows[r]) in v ? v[cols[c], rows[r]] : "not measured") " |"
				print line
			}
		}' "$@"
fi
here=$(dirname "$(realpath "$0")")
root=$(realpath "$here/..")
export SV_MODULE=${1:-${SV_MODULE:-}}
# shellcheck source=tests/user/lib.sh
. "$root/tests/user/lib.sh"
set +e

kver=$(uname -r)
work=$(mktemp -d /tmp/sv-compare.XXXXXX)
sv_on_exit "rm -rf '$work'"
sid=${SV_SID_ROOT:-/var/tmp/softverbs-cache/test-root-sid}
ulimit -l unlimited

declare -A res
features=()
# record PROVIDER FEATURE RESULT
record() {
	local feat=$2 val=${3:-?}
	val=${val// /_}
	[[ " ${features[*]} " == *" $feat "* ]] || features+=("$feat")
	res[$1,$feat]=$val
	echo "CMP $1 $kver $feat $val"
}

# The probe, built from source when missing or older than it
probe_src=$root/tests/tools/compare-probe.c
probe=$work/compare-probe
gcc -O2 -Wall -o "$probe" "$probe_src" -libverbs ||
	sv_fail "cannot build $probe_src"
probe_sv=
if [ -f "$root/ulib/libsoftverbs.so" ]; then
	probe_sv=$work/compare-probe-sv
	gcc -O2 -Wall -o "$probe_sv" "$probe_src" -L"$root/ulib" -lsoftverbs \
		-Wl,-rpath,"$root/ulib" || probe_sv=
fi

# the sid root (rdma-core 65) for a second userland, its mounts undone at exit
sid_ok=
if [ -x "$sid/usr/bin/ibv_devinfo" ] && [ -d "$sid/proc" ]; then
	mkdir -p "$sid/tmp"
	if mount --bind /proc "$sid/proc" && mount --bind /sys "$sid/sys" &&
		mount --bind /dev "$sid/dev"; then
		cp "$probe" "$sid/tmp/compare-probe" && sid_ok=1
	fi
	sv_on_exit "umount '$sid/dev' '$sid/sys' '$sid/proc' 2>/dev/null"
fi

gid_v4() { # 10.x.y.z -> sysfs GID
	local IFS=. a
	read -ra a <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "${a[@]}"
}

# wait_gid DEV IPV4: print DEV's RoCE v2 GID index of IPV4 (10 s at most)
wait_gid() {
	local g
	g=$(gid_v4 "$2")
	sv_wait_for "sv_gid_present $1 $g" 10 || return 1
	sv_gid_index "$1" "$g"
}

# devinfo_caps DEV: ODP caps and limits from ibv_devinfo -v, one
# "name=value" a line (caps joined by +)
devinfo_caps() {
	# a cap list is a "\tNAME_odp_caps:" line, then one cap a line at five
	# tabs ("NO SUPPORT", or "Unknown flags: 0x.." for bits rdma-core 44
	# has no name for: 0x40 FLUSH, 0x80 ATOMIC_WRITE in the kernel's enum)
	ibv_devinfo -v -d "$1" | awk '
		function flush() { if (sec != "") print sec "=" (v[sec] == "" ? "none" : v[sec]); sec = "" }
		/^\t[a-z]+_odp_caps:$/ { flush(); sec = substr($0, 2); sub(/:$/, "", sec); next }
		sec != "" && /^\t\t\t\t\t/ {
			c = $0; sub(/^\t+/, "", c); sub(/^Unknown flags: /, "unknown:", c); gsub(/ /, "_", c)
			v[sec] = v[sec] (v[sec] == "" ? "" : "+") c; next
		}
		{ flush() }
		/^\t(max_qp|max_mr|max_cqe|max_mr_size):/ { n = $1; sub(/:$/, "", n); print n "=" $2 }
		END { flush() }'
}

# pingpong NS_S DEV_S GID_S NS_C DEV_C GID_C SERVER_IP: ibv_rc_pingpong
# between two namespaces; prints ok or fail
pingpong() {
	local pid rc=0 rs=0
	ip netns exec "$1" timeout 30 ibv_rc_pingpong -d "$2" -g "$3" -n 5 -p 18515 \
		>"$work/pp.s" 2>&1 &
	pid=$!
	sv_wait_for "sv_tcp_listening 18515 $pid" 10
	ip netns exec "$4" timeout 20 ibv_rc_pingpong -d "$5" -g "$6" -n 5 -p 18515 "$7" \
		>"$work/pp.c" 2>&1 || rc=$?
	[ $rc -eq 0 ] || kill "$pid" 2>/dev/null
	wait "$pid" || rs=$?
	if [ $rc -eq 0 ] && [ $rs -eq 0 ]; then
		echo ok
	else
		sed 's/^/    /' "$work/pp.s" "$work/pp.c" >&2
		[ $rc -eq 124 ] && rc=timeout
		echo "fail(server:$rs,client:$rc)"
	fi
}

wg_keys() {
	(
		umask 077
		wg genkey >"$work/a" && wg pubkey <"$work/a" >"$work/a.pub"
		wg genkey >"$work/b" && wg pubkey <"$work/b" >"$work/b.pub"
	)
}

# measure PROVIDER KIND: everything for one provider (KIND for rdma link)
measure() {
	local p=$1 kind=$2 dev=${1}_cmp0 gi line f v n ka kb r
	echo "## $p on $kver"
	ip link add cmp0 type veth peer name cmp0p
	ip link set cmp0 up
	ip link set cmp0p up
	ip addr add 10.77.0.1/24 dev cmp0
	if ! rdma link add "$dev" type "$kind" netdev cmp0; then
		record "$p" device fail
		ip link del cmp0
		return
	fi
	record "$p" device ok
	gi=$(wait_gid "$dev" 10.77.0.1) || gi=
	[ -n "$gi" ] || echo "$p: no IPv4 GID on $dev" >&2

	# RoCE v1: GIDs of type "IB/RoCE v1" (the IPv6 link-local address is
	# there on both, so a device with v1 lists at least one)
	n=$(grep -lsx 'IB/RoCE v1' /sys/class/infiniband/"$dev"/ports/1/gid_attrs/types/* | wc -l)
	if [ "$n" -gt 0 ]; then record "$p" roce_v1_gids "yes($n)"; else record "$p" roce_v1_gids no; fi

	echo "### ibv_devinfo -v -d $dev"
	ibv_devinfo -v -d "$dev"
	while IFS='=' read -r f v; do
		record "$p" "$f" "$v"
	done < <(devinfo_caps "$dev")
	n=$(find /sys/class/infiniband/"$dev"/ports/1/hw_counters -maxdepth 1 -type f ! -name lifespan 2>/dev/null | wc -l)
	record "$p" hw_counters_port "$n"
	n=$(find /sys/class/infiniband/"$dev"/hw_counters -maxdepth 1 -type f ! -name lifespan 2>/dev/null | wc -l)
	record "$p" hw_counters_dev "$n"

	# the verbs, through each user library there is
	if [ -n "$gi" ]; then
		local t0 w0
		t0=$SECONDS w0=$(dmesg | grep -c 'WARNING:')
		while IFS='=' read -r f v; do
			record "$p" "$f" "$v"
		done < <("$probe" "$dev" "$gi")
		record "$p" probe_secs $((SECONDS - t0))
		record "$p" probe_kernel_warnings $(($(dmesg | grep -c 'WARNING:') - w0))
		if [ -n "$sid_ok" ]; then
			while IFS='=' read -r f v; do
				case $f in
				odp_* | xrc* | mw* | atomic_write) record "$p" "$f@rdma-core65" "$v" ;;
				esac
			done < <(chroot "$sid" /tmp/compare-probe "$dev" "$gi")
		fi
		if [ -n "$probe_sv" ] && [ "$p" = softverbs ]; then
			while IFS='=' read -r f v; do
				case $f in
				odp_* | xrc* | mw* | atomic_write) record "$p" "$f@libsoftverbs" "$v" ;;
				esac
			done < <("$probe_sv" "$dev" "$gi")
		fi
	fi
	rdma link delete "$dev"
	ip link del cmp0

	# devices in two network namespaces, created from inside them
	ip netns add cmp-a
	ip netns add cmp-b
	ip -n cmp-a link set lo up
	ip -n cmp-b link set lo up
	ip link add cva netns cmp-a type veth peer name cvb netns cmp-b
	ip -n cmp-a addr add 192.168.77.1/24 dev cva
	ip -n cmp-b addr add 192.168.77.2/24 dev cvb
	ip -n cmp-a link set cva up
	ip -n cmp-b link set cvb up
	local ga gb
	if ip netns exec cmp-a rdma link add "${p}_na" type "$kind" netdev cva &&
		ip netns exec cmp-b rdma link add "${p}_nb" type "$kind" netdev cvb; then
		record "$p" netns_create ok
		ga=$(wait_gid "${p}_na" 192.168.77.1) && gb=$(wait_gid "${p}_nb" 192.168.77.2)
		if [ -n "$ga" ] && [ -n "$gb" ]; then
			record "$p" netns_traffic "$(pingpong cmp-a "${p}_na" "$ga" cmp-b "${p}_nb" "$gb" 192.168.77.1)"
		else
			record "$p" netns_traffic no-gid
		fi
	else
		record "$p" netns_create fail
		record "$p" netns_traffic skip
	fi

	# an IP-only netdev: WireGuard between the two namespaces
	if wg_keys && ip -n cmp-a link add wga type wireguard && ip -n cmp-b link add wgb type wireguard; then
		read -r ka <"$work/a.pub"
		read -r kb <"$work/b.pub"
		ip netns exec cmp-a wg set wga private-key "$work/a" listen-port 51820 \
			peer "$kb" allowed-ips 10.79.0.2/32 endpoint 192.168.77.2:51820
		ip netns exec cmp-b wg set wgb private-key "$work/b" listen-port 51820 \
			peer "$ka" allowed-ips 10.79.0.1/32 endpoint 192.168.77.1:51820
		ip -n cmp-a addr add 10.79.0.1/24 dev wga
		ip -n cmp-b addr add 10.79.0.2/24 dev wgb
		ip -n cmp-a link set wga up
		ip -n cmp-b link set wgb up
		if r=$(ip netns exec cmp-a rdma link add "${p}_wa" type "$kind" netdev wga 2>&1) &&
			ip netns exec cmp-b rdma link add "${p}_wb" type "$kind" netdev wgb; then
			record "$p" ipnetdev_create ok
			n=$(grep -lvsx '0000:0000:0000:0000:0000:0000:0000:0000' /sys/class/infiniband/"${p}_wa"/ports/1/gids/* | wc -l)
			ga=$(wait_gid "${p}_wa" 10.79.0.1) && gb=$(wait_gid "${p}_wb" 10.79.0.2)
			if [ -n "$ga" ] && [ -n "$gb" ]; then
				record "$p" ipnetdev_gids "ipv4-gid($n)"
				record "$p" ipnetdev_traffic "$(pingpong cmp-a "${p}_wa" "$ga" cmp-b "${p}_wb" "$gb" 192.168.77.1)"
			else
				record "$p" ipnetdev_gids "no-ipv4-gid($n)"
				record "$p" ipnetdev_traffic skip
			fi
		else
			echo "$p: rdma link add on wga: $r" >&2
			record "$p" ipnetdev_create "fail:${r##*: }"
			record "$p" ipnetdev_gids skip
			record "$p" ipnetdev_traffic skip
		fi
	else
		record "$p" ipnetdev_create no-wireguard
	fi
	for line in "${p}_na" "${p}_nb" "${p}_wa" "${p}_wb"; do
		[ ! -e /sys/class/infiniband/"$line" ] || rdma link delete "$line"
	done
	ip netns del cmp-a
	ip netns del cmp-b
}

dmesg_start=$(dmesg | wc -l)

# Soft-RoCE first, alone
[ ! -d /sys/module/softverbs ] || rmmod softverbs
if modprobe rdma_rxe; then
	measure rxe rxe
	modprobe -r rdma_rxe || sv_fail "cannot unload rdma_rxe"
else
	echo "no rdma_rxe for $kver" >&2
fi

# then softverbs
# shellcheck disable=SC2119 # no module parameters
sv_load_module || sv_fail "cannot load softverbs"
measure softverbs softverbs
sv_unload_module

echo "## kernel log (rdma_rxe, softverbs, ib_core)"
dmesg | tail -n +"$((dmesg_start + 1))" | grep -iE 'rxe|softverbs|infiniband|ib_core|BUG|WARNING' | tail -40

echo
echo "| feature | Soft-RoCE $kver | softverbs $kver |"
echo "|---|---|---|"
for f in "${features[@]}"; do
	echo "| $f | ${res[rxe,$f]:-not measured} | ${res[softverbs,$f]:-not measured} |"
done
