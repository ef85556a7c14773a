#!/bin/sh
# selftest.sh SVCTL: offline checks of svctl's command line (no RDMA kernel
# needed): usage errors exit 2 before touching the kernel, help and -V exit
# 0.  The kernel-facing behaviour is tests/user/40-svctl.sh's, in the VM.
svctl=${1:-./svctl}
fails=0

# check WANT_RC ARG...
check() {
	want=$1
	shift
	"$svctl" "$@" >/dev/null 2>&1
	rc=$?
	if [ "$rc" = "$want" ]; then
		echo "ok: svctl $* (exit $rc)"
	else
		echo "FAIL: svctl $*: exit $rc, expected $want"
		fails=$((fails + 1))
	fi
}

check 2
check 2 bogus
check 2 -Z dev
check 2 -n
check 2 link add
check 2 link add x
check 2 link add x netdev
check 2 link add x foo bar
check 2 link add 'x%d' netdev y
check 2 link add x netdev 0123456789abcdef
check 2 link del
check 2 link del a b
check 2 dev show a b
check 2 link show a/0
check 2 link show a/x
check 2 res show a b
check 2 qp a b
check 2 help bogus
check 2 link save bogus
check 2 link apply file
check 2 link watch file ''
# the configuration is read, and refused, before any netlink
conf=$(mktemp)
printf 'sv0 netdev eth0\nsv1 netdev eth0\n' >"$conf"
check 1 link apply file "$conf"
printf 'sv0 netdev eth0 netns a/b\n' >"$conf"
check 1 link watch file "$conf"
printf 'sv0 netdev eth0 mtu 9000\n' >"$conf"
check 1 link apply file "$conf"
rm -f "$conf"
check 1 link apply file /nonexistent/links.conf
check 2 stats -w
check 2 stats -w 0
check 2 stats -w x
check 2 stats a b
check 2 fault sv0 bogus 1
check 2 fault sv0 drop
check 2 fault sv0 drop 2
check 2 fault sv0 drop -0.1
check 2 fault sv0 drop 5x
check 2 fault sv0 seed
check 2 fault sv0 seed -1
check 2 fault sv0 tx
check 2 fault sv0 off now
check 2 fault show a b
check 2 fault "$(printf 'n%.0s' $(seq 64))"
check 2 set
check 2 set sv0
check 2 set sv0 fault
check 2 set sv0 mtu 1
check 0 help
check 0 help link
check 0 -h
check 0 -V
check 0 link help
check 0 dev help
check 0 res help
check 0 qp help
check 0 stats help
check 0 fault help
check 0 set help
check 0 help stats
check 0 help fault
check 1 -n /nonexistent/netns dev

[ $fails = 0 ] && echo "svctl selftest: all passed" && exit 0
echo "svctl selftest: $fails failed"
exit 1
