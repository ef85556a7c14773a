#!/bin/bash
# sv-test: kernels=all quick cost=M
# XRC (IBTA Annex A14) between processes and devices through libsoftverbs:
# ulib/examples/xrcmp, every send opcode with its data checked, many
# initiators into one XRC SRQ, bad input, lifetimes, loss.
#
#   netns sv-36a                              netns sv-36b
#   sv36a (softverbs) on x36a 10.136.0.1  ==== x36b 10.136.0.2 <- sv36b (softverbs)
#   fd88::1                                    fd88::2
#   target: XRC domain, SRQ, receive QPs       initiators: XRC send QPs
#
# The target process (on sv36a) forks the initiator processes (on sv36b,
# each with its own context); the devices are reachable from any
# namespace (ib_core's shared mode), the traffic crosses the veth.
#
#   IPv4, bad input     3 processes x 4 send QPs x 70 requests (SEND, SEND
#                       with immediate, WRITE, WRITE with immediate, READ
#                       back, Fetch & Add on one word, Compare & Swap on
#                       a word per QP; ibv_post_send and ibv_wr_*) into one
#                       SRQ, each received once with its bytes, its receive
#                       QP and its sender; a 4th process's requests fail:
#                       unknown SRQ number and another domain's SRQ
#                       (invalid request), R_Key of another PD (remote
#                       access error), SEND with Invalidate of an R_Key
#                       the target may not invalidate (invalid request),
#                       no valid SRQ number (EINVAL locally)
#   IPv6, loss          the same traffic with 3 % drop, 2 % duplicates,
#                       2 % reordering both ways on sv36a (svctl fault):
#                       still each request exactly once (the atomic words
#                       count every Fetch & Add and Compare & Swap once)
#   lifetimes (IPv4)    a receive QP whose creator exited, opened by
#                       another process, carries traffic; a domain with an
#                       SRQ or an opened QP cannot be closed; an SRQ
#                       destroyed under traffic (invalid request, then
#                       flushes); the last handle takes the QP and the
#                       domain; a process killed under traffic
#   one device (IPv6)   target and initiators on sv36a
#
# Under the debug kernel (SV_QUICK) the traffic runs 2 processes x 2 QPs x
# 35 requests; kmemleak and KASAN judge the destroys and the kill.
. "$(dirname "$0")/lib.sh"

sv_need ip rdma readelf
xrcmp=$SV_TOOLS/ulib/examples/xrcmp
svctl=$SV_TOOLS/tools/svctl
[ -x "$xrcmp" ] || sv_fail "$xrcmp is not built (make -C ulib)"
[ -x "$svctl" ] || sv_fail "$svctl is not built (make -C tools)"
grep -q 'libibverbs' <<<"$(readelf -d "$xrcmp")" && sv_fail "xrcmp links libibverbs"
sv_xport_setup 36 softverbs softverbs

dir=$(mktemp -d)
sv_on_exit "rm -rf '$dir'"
sv_on_exit "xp_svctl A fault '$XP_A_DEV' off 2>/dev/null"
size=(-k 3 -m 4 -n 70)
[ -z "$SV_QUICK" ] || size=(-k 2 -m 2 -n 35)
secs=$(sv_t 120)
[ "$secs" -le 500 ] || secs=500
# the send QPs' local ACK timeout: 67 ms, or under KASAN 1.07 s (a debug
# kernel under TCG takes longer than 67 ms x 7 retries to work off a window)
to=14
[ "$SV_TIME_SCALE" -le 1 ] || to=18
passed=0

# xrcmp_case NAME ARGS...: one run of xrcmp, its output indented; fails the
# test with the kernel's last words if it fails
xrcmp_case() {
	local name=$1 rc=0 t0=$SECONDS out
	shift
	out=$(timeout -k 5 $((secs + 30)) "$xrcmp" -s "$secs" -o $to "$@" "$dir" 2>&1) || rc=$?
	sed 's/^/  /' <<<"$out"
	if [ $rc -ne 0 ]; then
		dmesg | tail -n 20 | sed 's/^/  dmesg| /'
		sv_fail "$name: xrcmp exited $rc"
	fi
	passed=$((passed + $(grep -c ': ok$' <<<"$out")))
	echo "--- $name: ok ($((SECONDS - t0)) s)"
}

A=(-T "$XP_A_DEV") B=(-I "$XP_B_DEV")
xrcmp_case "IPv4, two devices, bad input" "${A[@]}" -t "$XP_A_GID4" "${B[@]}" -i "$XP_B_GID4" "${size[@]}" -e

xp_svctl A fault "$XP_A_DEV" drop 3% dup 2% reorder 2% seed 36 >/dev/null ||
	sv_fail "svctl fault on $XP_A_DEV"
xrcmp_case "IPv6, two devices, loss" "${A[@]}" -t "$XP_A_GID6" "${B[@]}" -i "$XP_B_GID6" "${size[@]}"
faults=$(xp_svctl A -j fault "$XP_A_DEV")
xp_svctl A fault "$XP_A_DEV" off >/dev/null
echo "  faults on $XP_A_DEV: $faults"
# the faults hit: something was dropped and something duplicated
re_drop='"dropped": ?[1-9]' re_dup='"duplicated": ?[1-9]'
[[ $faults =~ $re_drop && $faults =~ $re_dup ]] ||
	sv_fail "no packet was dropped and duplicated under the faults"

xrcmp_case "lifetimes, two devices" -L "${A[@]}" -t "$XP_A_GID4" "${B[@]}" -i "$XP_B_GID4"
xrcmp_case "IPv6, one device" "${A[@]}" -t "$XP_A_GID6" -I "$XP_A_DEV" -i "$XP_A_GID6" -k 2 -m 2 -n 21

echo "SV_SUMMARY: ulib-xrc-mp on $SV_KVER: $passed XRC checks passed"
