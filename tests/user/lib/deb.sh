# shellcheck shell=bash
# The Debian packages' fixture, for tests/user/17-deb.sh: source it after
# lib.sh.
#
# The packages are installed on the host, not here: check.sh's deb-install
# stage runs scripts/deb-install.sh for each kernel that runs 17-deb, which
# does "apt install ./*.deb" (DKMS building for that kernel) in a throwaway
# copy of the host, checks dpkg's and DKMS's state, packs what the install
# wrote into build/deb-inst/KVER/root.tar, and then checks that "apt
# remove" leaves nothing.  A DKMS build in a TCG guest took 6-10 minutes in
# make check, on the host it takes seconds; the build and the package
# bookkeeping do not depend on the running kernel.  What does is checked
# here, on the unpacked install: the module is DKMS's, at the package's
# version, and with no further step "rdma link add" autoloads it, rdma-core
# and svctl see the device and a program built with "pkg-config softverbs"
# runs on it.

deb_dir=${SV_DEBS:-$SV_ROOT/build/deb}

# deb_find: set deb_version (make deb's softverbs-dkms), or skip
deb_find() {
	local found
	shopt -s nullglob
	found=("$deb_dir"/softverbs-dkms_*_all.deb)
	shopt -u nullglob
	[ ${#found[@]} -eq 1 ] || sv_skip "no (or more than one) softverbs-dkms package in $deb_dir (make deb)"
	deb_version=$(dpkg-deb -f "${found[0]}" Version)
}

# deb_host_install: set deb_inst, the host's install for this kernel
# (scripts/deb-install.sh's OUT) and this root, deb_suite: build/deb-inst/
# KVER in the host's root ("host"), build/deb-inst/SUITE/KVER in a root of
# scripts/test-root.sh (its .sv-key names the suite; deb-install.sh --root
# made it); or skip when there is none, or fail with its reason when it
# failed
deb_host_install() {
	deb_suite=host
	[ ! -f /.sv-key ] || read -r deb_suite _ </.sv-key
	deb_inst=$SV_ROOT/build/deb-inst/$SV_KVER
	[ "$deb_suite" = host ] || deb_inst=$SV_ROOT/build/deb-inst/$deb_suite/$SV_KVER
	[ -d "$deb_inst" ] ||
		sv_skip "no install of the packages for $SV_KVER in the $deb_suite root (check.sh's deb-install stage runs as root only)"
	[ ! -f "$deb_inst/root" ] || sv_assert_eq "$deb_suite" "$(cat "$deb_inst/root")" "the root the packages were installed in"
	if [ ! -f "$deb_inst/ok" ]; then
		local log
		for log in "$deb_inst"/*.log; do
			echo "--- $log (last lines)"
			tail -n 25 "$log"
		done
		sv_fail "the install on the host failed: $(cat "$deb_inst/failed" 2>/dev/null || echo "no reason recorded")"
	fi
}

# deb_unpack TMP: the host's install unpacked into this guest's root, and
# everything it replaced put back at exit (the tests after this one use
# the module under test, not the package's).  The host's own DKMS
# registration of the same version ("make dkms-install", for 16-dkms) is
# set aside meanwhile, as the install found none.
deb_unpack() {
	local tmp=$1 tar=$deb_inst/root.tar
	[ -e "/lib/modules/$SV_KVER/modules.dep" ] || sv_fail "no module tree for $SV_KVER"
	[ ! -d /sys/module/softverbs ] || sv_fail "softverbs is already loaded"
	tar -tf "$tar" | grep -v '/$' >"$tmp/root.list"
	(
		cd /
		shopt -s nullglob
		{
			# (nullglob, and a glob each: only what exists)
			for f in var/lib/dkms/softverb[s] usr/src/softverbs-* lib/modules/*/updates/dkms/softverbs.ko*; do
				echo "$f"
			done
			while IFS= read -r f; do
				if [ -e "$f" ] || [ -L "$f" ]; then echo "$f"; fi
			done <"$tmp/root.list"
		} | tar -cf "$tmp/replaced.tar" -T -
	)
	sv_on_exit 'tar -C / -xf "'"$tmp"'/replaced.tar"'
	sv_on_exit '(cd / && rm -rf var/lib/dkms/softverbs usr/src/softverbs-* && xargs -d "\n" rm -f <"'"$tmp"'/root.list")'
	sv_on_exit 'rmmod softverbs 2>/dev/null'
	rm -rf /var/lib/dkms/softverbs /usr/src/softverbs-* /lib/modules/*/updates/dkms/softverbs.ko*
	tar -C / -xpf "$tar" || sv_fail "cannot unpack $tar"
}

# deb_module_of VERSION: DKMS's module for this kernel is installed, at
# VERSION; prints its path
deb_module_of() {
	local ko st
	ko=$(modinfo -k "$SV_KVER" -n softverbs) || sv_fail "no softverbs module for $SV_KVER"
	case $ko in
	*/updates/dkms/*) ;;
	*) sv_fail "modinfo finds $ko, not DKMS's module" ;;
	esac
	sv_assert_eq "$1" "$(modinfo -F version "$ko")" "the installed module's version"
	# matched on a copy (see deb_use's ldd check)
	st=$(dkms status -m softverbs -k "$SV_KVER" 2>&1) || true
	grep -q "softverbs/$1, $SV_KVER, .*: installed" <<<"$st" ||
		sv_fail "DKMS has no installed $1 for $SV_KVER: $(dkms status -m softverbs)"
	echo "$ko"
}

# deb_use TMP: with every package installed, it all works with no further
# step: "rdma link add" autoloads the module, rdma-core and svctl see the
# device, a program built with "pkg-config softverbs" runs on it
deb_use() {
	local tmp=$1 v=$deb_version libs out
	if [ -n "$SV_MODULE" ]; then
		sv_assert_eq "$(modinfo -F srcversion "$SV_MODULE")" "$(modinfo -k "$SV_KVER" -F srcversion softverbs)" \
			"srcversion of the packaged module vs the module under test"
	fi
	sv_veth_pair vD0 vD1
	ip addr add 192.0.2.17/24 dev vD0
	rdma link add svd0 type softverbs netdev vD0
	sv_on_exit 'rdma link delete svd0 2>/dev/null'
	[ -d /sys/module/softverbs ] || sv_fail "rdma link add did not load softverbs"
	sv_assert_eq "$v" "$(cat /sys/module/softverbs/version)" "the loaded module's version"
	# shellcheck disable=SC2016 # evaluated by sv_wait_for
	sv_wait_for '[[ "$(rdma link show svd0/1)" == *ACTIVE* ]]' 10 || sv_fail "port not ACTIVE"
	# outputs matched on copies (see the ldd check below)
	out=$(ibv_devinfo -d svd0 2>&1) || true
	grep -q 'PORT_ACTIVE' <<<"$out" || sv_fail "ibv_devinfo does not see svd0 ACTIVE"
	out=$(/usr/sbin/svctl link show svd0 2>&1) || true
	grep -q vD0 <<<"$out" || sv_fail "svctl link show svd0: $out"
	[ -f /usr/share/bash-completion/completions/svctl ] || sv_fail "no bash completion"
	bash -n /usr/share/bash-completion/completions/svctl || sv_fail "the bash completion does not parse"

	# libsoftverbs-dev: its header and pkg-config file, beside libibverbs-dev's
	sv_assert_eq "$v" "$(pkg-config --modversion softverbs)" "pkg-config softverbs"
	# shellcheck disable=SC2046 # pkg-config's words
	gcc -O1 -o "$tmp/devinfo" "$SV_ROOT/ulib/examples/devinfo.c" $(pkg-config --cflags --libs softverbs)
	# matched on a copy: under pipefail, "ldd | grep -q" fails whenever
	# grep exits at its match before ldd has written its last line (ldd
	# then dies of SIGPIPE), which a loaded host makes happen
	libs=$(ldd "$tmp/devinfo" 2>&1) || sv_fail "ldd devinfo: $libs"
	grep -Eq "libsoftverbs.so.1 => (/usr)?/lib/$(gcc -dumpmachine)/libsoftverbs.so.1" <<<"$libs" ||
		sv_fail "devinfo does not use the packaged libsoftverbs: $libs"
	! grep -q libibverbs <<<"$libs" || sv_fail "devinfo links libibverbs too"
	"$tmp/devinfo" -d svd0 >"$tmp/devinfo.out" 2>&1 ||
		{ cat "$tmp/devinfo.out"; sv_fail "the packaged libsoftverbs does not open svd0"; }
	# the extensions' header, <softverbs.h> through pkg-config's -I
	printf '%s\n' '#include <stdio.h>' '#include <softverbs.h>' \
		'int main(void) { printf("%p\n", (void *)softverbs_post_flush); return SOFTVERBS_FLUSH_GLOBAL != 1; }' >"$tmp/ext.c"
	# shellcheck disable=SC2046
	gcc -Wall -Werror -o "$tmp/ext" "$tmp/ext.c" $(pkg-config --cflags --libs softverbs) ||
		sv_fail "softverbs.h does not compile with pkg-config's flags"
	"$tmp/ext" >/dev/null || sv_fail "a program linked with pkg-config's flags does not run"
	rdma link delete svd0
	rmmod softverbs
}
