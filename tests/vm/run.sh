#!/bin/bash
# run.sh: boot a throwaway qemu VM and run one command in it.
#
#   run.sh [--kver KVER | --kernel IMAGE [--modules DIR]] [--log FILE] [--results FILE]
#          [--timeout SEC] [--mem MB] [--smp N] [--append 'CMDLINE'] [--nic] [--fs 9p|virtiofs]
#          [--wire PATH:a|b] [--root DIR] [--tcg-single] [--icount OPTS]
#          [--plugin SO[,ARGS]] -- COMMAND [ARG...]
#
#   --kver KVER     a stock kernel: /boot/vmlinuz-KVER + /lib/modules/KVER (default: uname -r),
#                   or a kernel unpacked by scripts/cloud-kernel.sh ($SV_CACHE/cloud/KVER)
#                   or scripts/trixie-kernel.sh ($SV_CACHE/trixie/KVER), used when
#                   /boot has no vmlinuz-KVER
#   --kernel IMAGE  a custom kernel (bzImage or ELF vmlinux) with virtio-pci, 9p (and
#                   virtio-fs, if its .config beside it says so) and overlayfs built in; --modules DIR is its modules tree (the directory
#                   that holds modules.dep, or a modules_install staging dir),
#                   bind-mounted at /lib/modules/$(uname -r) in the guest
#   --log FILE      kernel console (ttyS0); default: a temp file, shown on failure
#   --results FILE  the command's stdout+stderr (ttyS1), also streamed to our stdout
#   --timeout SEC   kill the VM after SEC seconds (default 600)
#   --mem MB        guest memory (default 1024); --smp N: vCPUs (default 2)
#   --append STR    extra kernel command line (e.g. kmemleak=on)
#   --nic           a virtio-net NIC (a PCI function, as a cloud VM's NIC) on
#                   qemu's user network, restricted: nothing leaves the VM.
#                   The guest loads virtio_net itself (no udev there); its
#                   netdev is eth0.  For tests of a device on a NIC with a
#                   parent (63-rdma-core); the others build veth pairs.
#   --fs FS         how the guest gets the host root: 9p, or virtiofs
#                   (needs root and qemu's virtiofsd); default: virtio-fs
#                   where the kernel has it and we are root (faster under
#                   TCG), else 9p
#   --wire PATH:a|b one end of a point-to-point Ethernet wire between two VMs
#                   (scripts/bench.sh's two-host benchmark): a virtio-net NIC
#                   on qemu's dgram netdev over a pair of unix datagram
#                   sockets, PATH.a and PATH.b (PATH: a fresh name in a
#                   directory both runs can write; one VM takes side a, the
#                   other b).  Nothing else is on the wire: each frame one
#                   guest sends is one datagram the other's qemu receives.
#                   The NIC's MAC is 52:54:00:5e:00:0a or ...:0b (the
#                   guest finds its netdev by it: eth0, or eth1 with --nic);
#                   the guest loads virtio_net and sets the address itself.
#   --root DIR      the guest's root is DIR (a Debian root made by
#                   scripts/test-root.sh), not the host's /: still read-only
#                   with a tmpfs overlay, and with this checkout (its tests
#                   and built tools, build/ included) at its own path, an
#                   overlay of its own, and the kernel's modules from the
#                   host's tree at /lib/modules/KVER.  DIR is reached
#                   through the same one share of the host's / (a second
#                   virtio device costs boot time), so it must be on the host
# Env: SV_CACHE (default /var/tmp/softverbs-cache) holds the extracted vmlinux and
# the initramfs; SV_VM_BZIMAGE=1 boots the compressed image instead.
#
# The guest sees the host's / read-only with a tmpfs overlay (tests/vm/init), so
# COMMAND uses host paths; over 9p, or over virtio-fs for a kernel whose config
# has no 9p but virtio-fs (Debian's cloud kernels): run.sh then starts qemu's
# virtiofsd on a read-only view of the host root (needs root); it runs as root with cwd = the repo root. One
# argument is a bash command string ('make -C x && ./y'); several are argv.
# Exit status: the command's, 124 on timeout, 125 if the guest never reported
# one (panic, init failure), 2 on usage errors.
#
# Boot cost, measured on the 2-core TCG test bed with `run.sh --kver K -- true`
# (wall clock from start to qemu exit, caches warm). The box was shared with
# kernel builds, so the load average is given; numbers scale with it.
#   6.1.0-56-amd64        ELF vmlinux: /init at 2.4 s, 5.3-6.9 s total (load ~5)
#                         ELF 8.5-9.6 s vs bzImage 14.5-17 s (load ~6.5)
#   6.12.117+deb12-amd64  ELF vmlinux: ~6.0 s total (load ~5); /init at 5.2-6.1 s,
#                         16-17.5 s total (load ~11; 6.1 at the same load: 3.3 s, 13-14 s)
#                         ELF 14-17.5 s vs bzImage 13.5-15 s (load ~7)
#   debug 6.1.192-svdebug (KASAN, lockdep, kmemleak=on): /init at ~63 s (load ~15)
# Past /init: ~1 s to load the 9p/overlay modules and mount, then every
# exec of a host binary costs 50-120 ms under TCG.
#   6.1.0-56-cloud-amd64, 6.12.117+deb12-cloud-amd64 (virtio-fs, ELF vmlinux):
#                         /init at ~3 s, 4.6-4.9 s total (load ~5), virtiofsd included
set -euo pipefail

here=$(dirname "$(realpath "$0")")
root=$(realpath "$here/../..")
cache=${SV_CACHE:-/var/tmp/softverbs-cache}

usage() { sed -n '2,/^set -euo/{/^set/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }

kver= kernel= modules= log= results= timeout=600 mem=1024 smp=2 append= nic=(-nic none) fs= wire=()
guest_root=
tcg=multi extra=()
wire_sock=
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--kernel) kernel=$(realpath "$2"); shift 2 ;;
	--modules) modules=$(realpath "$2"); shift 2 ;;
	--log) log=$(realpath -m "$2"); shift 2 ;;
	--results) results=$(realpath -m "$2"); shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--root)
		guest_root=$(realpath "$2")
		if [ ! -x "$guest_root/usr/bin/env" ] || [ ! -x "$guest_root/bin/bash" ]; then
			echo "run.sh: --root $2 is not a root with bash and env" >&2
			exit 2
		fi
		shift 2
		;;
	--fs)
		fs=$2
		[ "$fs" = 9p ] || [ "$fs" = virtiofs ] || { echo "run.sh: --fs 9p or virtiofs" >&2; exit 2; }
		shift 2
		;;
	--nic)
		# romfile=: no iPXE option ROM, the kernel is booted directly
		# shellcheck disable=SC2054 # qemu's commas
		nic=(-netdev user,id=n0,restrict=on -device virtio-net-pci,netdev=n0,romfile=)
		shift
		;;
	--wire)
		case $2 in
		*:a) side=a peer=b ;;
		*:b) side=b peer=a ;;
		*) echo "run.sh: --wire PATH:a or PATH:b" >&2; usage ;;
		esac
		wire_path=$(realpath -m "${2%:?}")
		wire_sock=$wire_path.$side
		# unix socket addresses hold 107 bytes
		[ ${#wire_sock} -lt 100 ] || { echo "run.sh: --wire path too long" >&2; exit 2; }
		# shellcheck disable=SC2054 # qemu's commas
		wire=(-netdev "dgram,id=w0,local.type=unix,local.path=$wire_sock,remote.type=unix,remote.path=$wire_path.$peer"
			-device "virtio-net-pci,netdev=w0,romfile=,mac=52:54:00:5e:00:0$side")
		shift 2
		;;
	--tcg-single) tcg=single; shift ;;
	--icount) tcg=single extra+=(-icount "$2"); shift 2 ;;
	--plugin) extra+=(-plugin "$2"); shift 2 ;;
	--) shift; break ;;
	-h | --help) usage ;;
	*) echo "run.sh: unknown option $1" >&2; usage ;;
	esac
done
[ $# -gt 0 ] || { echo "run.sh: no command" >&2; usage; }
if [ -n "$kver" ] && [ -n "$kernel" ]; then
	echo "run.sh: --kver and --kernel exclude each other" >&2
	exit 2
fi

# The guest command as one bash string, started in the repo root.
if [ $# -eq 1 ]; then
	cmd=$1
else
	cmd=$(printf '%q ' "$@")
fi
cmd="cd $(printf '%q' "$root") && $cmd"

mkdir -p "$cache"

# vmlinux_for IMAGE KEY: print a bootable ELF for IMAGE, cached as vmlinux-KEY.
# qemu can boot an ELF kernel only through its PVH entry point (an ELF note of
# type XEN_ELFNOTE_PHYS32_ENTRY = 0x12, CONFIG_PVH); without it use the bzImage.
vmlinux_for() {
	local img=$1 key=$2 elf
	# SV_VM_BZIMAGE=1 boots the image as given (to compare, or to rule out extraction).
	[ "${SV_VM_BZIMAGE:-0}" = 0 ] || { echo "$img"; return; }
	elf=$cache/vmlinux-$key-$(stat -c '%s-%Y' "$img")
	if [ ! -f "$elf" ]; then
		if [ "$(od -An -t x1 -N 4 "$img" | tr -d ' ')" = 7f454c46 ]; then
			elf=$img
		elif ! "$here/extract-vmlinux.sh" "$img" "$elf" >&2; then
			echo "$img"
			return
		fi
		find "$cache" -maxdepth 1 -name "vmlinux-$key-*" ! -path "$elf" -delete
	fi
	# a copy, not "readelf | grep -q": with pipefail, readelf's SIGPIPE
	# after grep's early exit would make the pipeline false
	if grep -q 'Unknown note type: (0x00000012)' <<<"$(readelf -n "$elf" 2>/dev/null)"; then
		echo "$elf"
	else
		echo "$img"
	fi
}

# --modules may also be a staging dir (make INSTALL_MOD_PATH=DIR modules_install):
# then use its one lib/modules/<kver>.
if [ -n "$modules" ] && [ ! -f "$modules/modules.dep" ]; then
	trees=("$modules"/lib/modules/*/modules.dep)
	if [ ${#trees[@]} -ne 1 ] || [ ! -f "${trees[0]}" ]; then
		echo "run.sh: --modules $modules: no modules.dep, nor one lib/modules/*/modules.dep" >&2
		exit 2
	fi
	modules=$(dirname "${trees[0]}")
fi
# How the guest gets the host root.  virtio-fs where it can: the kernel has
# it, virtiofsd is installed and we are root (virtiofsd runs as root).  Under
# TCG it is markedly faster for what tests do (exec host binaries, read
# trees): the first stock kernel's VM of make check took ~15-20 % less per
# test over virtio-fs than over 9p, side by side on one host (2026-11-26).
# 9p otherwise, and only virtio-fs for a kernel without 9p (Debian's cloud
# flavour).  A --kernel is ours: its config is the .config beside the image
# (a build tree's vmlinux or arch/x86/boot/bzImage), 9p built in.
virtiofsd=/usr/lib/qemu/virtiofsd
# fs_default CONFIG: the share for a kernel whose .config is CONFIG (may be absent)
fs_default() {
	local config=$1
	if [ -f "$config" ] && grep -Eq '^CONFIG_VIRTIO_FS=[ym]$' "$config" &&
		[ "$(id -u)" = 0 ] && [ -x "$virtiofsd" ]; then
		echo virtiofs
	elif [ -f "$config" ] && ! grep -Eq '^CONFIG_NET_9P_VIRTIO=[ym]$' "$config" &&
		grep -Eq '^CONFIG_VIRTIO_FS=[ym]$' "$config"; then
		echo virtiofs	# it has nothing else: the checks below say what is missing
	else
		echo 9p
	fi
}
if [ -n "$kernel" ]; then
	kconfig=$(dirname "$kernel")/.config
	[ -f "$kconfig" ] || kconfig=$(dirname "$kernel")/../../../.config
	fs=${fs:-$(fs_default "$kconfig")}
	if [ "$fs" = virtiofs ] && ! grep -Eqs '^CONFIG_VIRTIO_FS=y$' "$kconfig"; then
		echo "run.sh: --fs virtiofs needs a --kernel with CONFIG_VIRTIO_FS=y (no .config beside it says so)" >&2
		exit 2
	fi
	image=$(vmlinux_for "$kernel" "custom-$(echo "$kernel" | sha1sum | cut -c1-8)")
	initrd=$("$here/mkinitramfs.sh" --builtin)
else
	kver=${kver:-$(uname -r)}
	kroot=/
	kimage=/boot/vmlinuz-$kver
	config=/boot/config-$kver
	if [ ! -f "$kimage" ]; then
		# unpacked by scripts/cloud-kernel.sh (image in boot/) or
		# scripts/trixie-kernel.sh (Debian 13's split packages keep it
		# in lib/modules/KVER); its modules are bind-mounted at
		# /lib/modules/KVER in the guest (sv.modules)
		for t in "$cache/cloud/$kver" "$cache/trixie/$kver"; do
			if [ -f "$t/boot/vmlinuz-$kver" ]; then
				kimage=$t/boot/vmlinuz-$kver
				config=$t/boot/config-$kver
			elif [ -f "$t/lib/modules/$kver/vmlinuz" ]; then
				kimage=$t/lib/modules/$kver/vmlinuz
				config=$t/lib/modules/$kver/config
			else
				continue
			fi
			kroot=$t
			modules=$kroot/lib/modules/$kver
			break
		done
	fi
	[ -f "$kimage" ] || {
		echo "run.sh: no /boot/vmlinuz-$kver (nor an unpacked kernel in $cache/cloud or $cache/trixie: scripts/cloud-kernel.sh fetch, scripts/trixie-kernel.sh fetch)" >&2
		exit 2
	}
	fs=${fs:-$(fs_default "$config")}
	if [ -f "$config" ] && ! grep -Eq '^CONFIG_NET_9P_VIRTIO=[ym]$' "$config" &&
		! grep -Eq '^CONFIG_VIRTIO_FS=[ym]$' "$config"; then
		echo "run.sh: $kver has neither 9p over virtio nor virtio-fs: no way to share the host root" >&2
		exit 2
	fi
	image=$(vmlinux_for "$kimage" "$kver")
	initrd=$("$here/mkinitramfs.sh" --kver "$kver" --root "$kroot" --fs "$fs")
fi
if [ "$fs" = virtiofs ]; then
	[ -x "$virtiofsd" ] || { echo "run.sh: virtio-fs needs $virtiofsd (qemu-system-common)" >&2; exit 2; }
	[ "$(id -u)" = 0 ] || { echo "run.sh: virtio-fs needs root (virtiofsd); ${kver:-this kernel} has no 9p" >&2; exit 2; }
fi

tmp=$(mktemp -d)
qemu_pid= vfs_pid=
cleanup() {
	[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null
	[ -n "$vfs_pid" ] && kill "$vfs_pid" 2>/dev/null
	[ -z "$wire_sock" ] || rm -f "$wire_sock"
	# --one-file-system: never into a mount (there is none: virtiofsd's view
	# of / is mounted in its own namespace)
	rm -rf --one-file-system "$tmp" 2>/dev/null || true
}
trap cleanup EXIT
keep_log=1
[ -n "$log" ] || { log=$tmp/console.log; keep_log=0; }
[ -n "$results" ] || results=$tmp/results.log
mkdir -p "$(dirname "$log")" "$(dirname "$results")"
: >"$log"
: >"$results"

# no_timer_check: on a loaded host a TCG vCPU can be too slow for the boot's
# IO-APIC timer check, which then panics ("IO-APIC + timer doesn't work!");
# the timer is emulated and fine, as virtual machines commonly assume.
cmdline="console=ttyS0 panic=-1 no_timer_check sv.cmd=$(printf '%s' "$cmd" | base64 -w0)"
# with --root, a /boot kernel's modules come from the host's tree as well
[ -z "$guest_root" ] || [ -n "$modules" ] || [ -z "$kver" ] || modules=/lib/modules/$kver
[ -n "$modules" ] && cmdline+=" sv.modules=$modules"
[ -z "$guest_root" ] || cmdline+=" sv.root=$guest_root sv.repo=$root"
[ "$fs" = 9p ] || cmdline+=" sv.fs=$fs"
[ -n "$append" ] && cmdline+=" $append"
# x86 COMMAND_LINE_SIZE is 2048; a longer line is silently cut, losing the command.
if [ ${#cmdline} -ge 2000 ]; then
	echo "run.sh: guest command too long for the kernel command line; put it in a script" >&2
	exit 2
fi

# -nodefaults drops the VGA card, floppy, CD-ROM and NIC that a test VM never
# uses but the kernel would spend boot time probing; the tests build their
# networks from veth pairs (a NIC only with --nic). One share of the host
# root only: each virtio device costs boot time.
# shellcheck disable=SC2054 # qemu's commas
if [ "$fs" = 9p ]; then
	share=(-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap)
else
	# vhost-user: virtiofsd reads the guest's memory, so it must be shared
	share=(-object "memory-backend-memfd,id=mem,size=${mem}M,share=on" -machine memory-backend=mem
		-chardev "socket,id=vfs,path=$tmp/vfs.sock" -device vhost-user-fs-pci,chardev=vfs,tag=host)
fi
qemu=(qemu-system-x86_64 -accel "tcg,thread=$tcg" -cpu max -m "$mem" -smp "$smp"
	-nographic -nodefaults -no-reboot "${nic[@]}" "${wire[@]}" -monitor none "${extra[@]}"
	-kernel "$image" -initrd "$initrd" -append "$cmdline"
	"${share[@]}"
	-serial "file:$log" -serial "file:$results")

# start_virtiofsd: qemu's virtiofsd serving the host root on $tmp/vfs.sock,
# read-only.  virtiofsd (qemu 7.2's) has no read-only mode, and the 9p
# share's readonly=on is enforced by qemu, not by the guest: so it runs in a
# mount namespace of its own on a recursive bind of / in which the kernel's
# pseudo file systems (the host's /proc, /sys, /dev ...) are unmounted and
# every other mount is read-only, checked before virtiofsd starts.  It
# serves one guest connection and exits with it.
start_virtiofsd() {
	rm -f "$tmp/vfs.sock"
	mkdir -p "$tmp/vfs-root"
	# shellcheck disable=SC2016 # the script expands its own arguments
	unshare --mount --propagation private /bin/bash -c '
		set -e
		v=$1 sock=$2 vfsd=$3
		mount --rbind / "$v"
		findmnt -R -n -r -o TARGET,FSTYPE "$v" | tac | while read -r t fstype; do
			case $fstype in
			proc | sysfs | devtmpfs | devpts | cgroup | cgroup2 | mqueue | debugfs | tracefs | \
			securityfs | pstore | bpf | configfs | fusectl | hugetlbfs | binfmt_misc | autofs | \
			efivarfs | rpc_pipefs | nsfs | selinuxfs)
				umount -l "$t" 2>/dev/null || true ;;
			esac
		done
		findmnt -R -n -r -o TARGET "$v" | while read -r t; do
			mount -o remount,bind,ro "$t"
		done
		if findmnt -R -n -r -o TARGET,OPTIONS "$v" | awk "\$2 !~ /^ro(,|\$)/ { bad = 1 } END { exit !bad }"; then
			echo "run.sh: could not make the virtio-fs view of / read-only" >&2
			exit 1
		fi
		exec "$vfsd" --socket-path="$sock" -o source="$v" -o cache=always -o log_level=err
	' start-virtiofsd "$tmp/vfs-root" "$tmp/vfs.sock" "$virtiofsd" >"$tmp/virtiofsd.log" 2>&1 &
	vfs_pid=$!
	local i
	for ((i = 0; i < 100; i++)); do
		[ -S "$tmp/vfs.sock" ] && return 0
		kill -0 "$vfs_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "run.sh: virtiofsd did not start:" >&2
	cat "$tmp/virtiofsd.log" >&2
	return 1
}

# Boot watchdog: a TCG guest on an overloaded host has hung early in boot
# with its timer interrupts lost (guest clock stopped, no panic), which
# would otherwise sit out the whole --timeout.  Seen again on the debug
# kernel with one other VM running: silent after "Running RCU-tasks wait
# API self tests" at 0.7-3.7 s, in 3 of about 20 boots of the debug kernel
# on 2026-11-23.  No "Run /init" on the console within SV_BOOT_TIMEOUT
# seconds (default 600; a KASAN kernel normally needs 15-60), or a console
# that stops growing for SV_BOOT_STALL seconds before it (default 60; the
# longest silence of a good debug boot is 3.5 s idle, or ~30 s in the ACPI
# _PRT loop when pci=noacpi is not given), kills the VM, and the boot is
# tried once more.  So is a kernel that panicked before "Run /init": no
# module of ours and no test had run yet.  Seen on 2026-11-30: the 7.3
# cloud kernel, two vCPUs, died at 1.75 s of an int3 Oops in
# sched_clock_cpu() while its boot patched that code (TCG), in one of the
# eight 7.3 boots of a make check.
boot_timeout=${SV_BOOT_TIMEOUT:-600}
boot_stall=${SV_BOOT_STALL:-60}
start=$(date +%s.%N)
for attempt in 1 2; do
	: >"$log"
	: >"$results"
	rm -f "$tmp/boot-hung" "$tmp/boot-died"
	[ "$fs" = 9p ] || start_virtiofsd || exit 125
	# qemu binds its end of the wire; a socket file left over (a killed
	# run, or the first boot attempt) would make the bind fail
	[ -z "$wire_sock" ] || rm -f "$wire_sock"
	timeout -k 5 "$timeout" "${qemu[@]}" </dev/null >"$tmp/qemu.out" 2>&1 &
	qemu_pid=$!
	(
		waited=0 size=0 still=0
		while kill -0 "$qemu_pid" 2>/dev/null; do
			grep -q 'Run /init' "$log" 2>/dev/null && exit 0
			now=$(stat -c %s "$log" 2>/dev/null || echo 0)
			if [ "$now" -eq "$size" ]; then
				still=$((still + 5))
			else
				size=$now still=0
			fi
			if [ "$waited" -ge "$boot_timeout" ] || [ "$still" -ge "$boot_stall" ]; then
				touch "$tmp/boot-hung"
				kill "$qemu_pid" 2>/dev/null
				exit 0
			fi
			sleep 5
			waited=$((waited + 5))
		done
	) &
	watch_pid=$!
	# Stream the results while the VM runs; --pid ends tail once qemu is gone.
	tail -n +1 -s 0.2 -f --pid="$qemu_pid" "$results" | sed -u 's/\r$//; /^SV-VM-EXIT [0-9]*$/d' &
	tail_pid=$!
	set +e
	wait "$qemu_pid"
	qrc=$?
	set -e
	qemu_pid=
	wait "$tail_pid" 2>/dev/null || true
	kill "$watch_pid" 2>/dev/null || true
	wait "$watch_pid" 2>/dev/null || true
	if [ -n "$vfs_pid" ]; then
		# it exits with its guest; a hung boot may have left it waiting
		kill "$vfs_pid" 2>/dev/null || true
		wait "$vfs_pid" 2>/dev/null || true
		vfs_pid=
	fi
	if [ ! -f "$tmp/boot-hung" ] && ! grep -q 'Run /init' "$log" 2>/dev/null &&
	   grep -q 'Kernel panic' "$log" 2>/dev/null; then
		touch "$tmp/boot-died"
	fi
	if [ -f "$tmp/boot-hung" ]; then
		echo "run.sh: no /init on the console, boot hung (limits: ${boot_timeout}s, ${boot_stall}s of silence), attempt $attempt" >&2
	elif [ -f "$tmp/boot-died" ]; then
		echo "run.sh: the kernel panicked before /init, attempt $attempt" >&2
	else
		break
	fi
	tail -n 5 "$log" >&2
done
elapsed=$(echo "$(date +%s.%N) - $start" | bc)

rc=$(sed 's/\r$//' "$results" | sed -n 's/.*SV-VM-EXIT \([0-9]*\)$/\1/p' | tail -1)
# The marker has served its purpose; leave a clean TAP/log file behind.
sed -i '/^SV-VM-EXIT [0-9]*\r\{0,1\}$/d' "$results"
if [ "$qrc" -eq 124 ]; then
	echo "run.sh: timeout after ${timeout}s, VM killed" >&2
	rc=124
elif [ -z "$rc" ]; then
	echo "run.sh: the guest never reported an exit code (qemu rc $qrc)" >&2
	rc=125
fi
if [ "$rc" -ge 124 ] || [ "$qrc" -ne 0 ]; then
	cat "$tmp/qemu.out" >&2
	if [ $keep_log -eq 0 ]; then
		echo "run.sh: last console lines:" >&2
		tail -n 40 "$log" >&2
	else
		echo "run.sh: console log: $log" >&2
	fi
fi
# The CPU time qemu used (user + system of this script's children: qemu and
# the small tail/sed helpers) against the wall time says how busy the guest
# kept the host: make check uses it to size its VM lanes.
# (`times` in this shell: a $(...) subshell would report its own children)
times >"$tmp/times"
cpu=$(awk 'NR == 2 {
	n = split($1 " " $2, t, /[ ms]+/); s = 0
	for (i = 1; i + 1 <= n; i += 2) s += t[i] * 60 + t[i + 1]
	printf "%.0f", s }' "$tmp/times")
printf 'run.sh: %s: exit %s after %.1f s, qemu CPU %s s\n' "$(basename "$image")" "$rc" "$elapsed" "$cpu" >&2
exit "$rc"
