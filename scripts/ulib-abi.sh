#!/bin/bash
# The ABI coverage tables of Documentation/ulib.md: every symbol a
# libibverbs.so.1 defines (name and symbol version, default "@@" or
# compatibility "@"), whether libsoftverbs.so.1 defines the same, and why
# not where it does not.  Two references, one table each:
#
#   distro  the installed libibverbs.so.1 (rdma-core 44 on Debian 12)
#   65      rdma-core 65's libibverbs.so.1.18, from the symbol list
#           scripts/ulib-abi-65.syms (no rdma-core 65 needed here)
#
#   scripts/ulib-abi.sh [REF]            rewrite the table(s) in ulib.md
#   scripts/ulib-abi.sh --check [REF]    exit 1 if a committed table is stale
#   scripts/ulib-abi.sh --print [REF]    print the table(s) only
#   scripts/ulib-abi.sh --missing [REF]  list the public symbols of REF that
#                                        libsoftverbs lacks; exit 1 if any
#   scripts/ulib-abi.sh --save LIB       rewrite scripts/ulib-abi-65.syms from
#                                        rdma-core 65's libibverbs.so.1 (e.g.
#                                        unpacked from Debian's libibverbs1)
#   scripts/ulib-abi.sh --imports        list the libibverbs imports of
#                                        rdma-core 65's programs that
#                                        libsoftverbs lacks; exit 1 if any
#   scripts/ulib-abi.sh --save-imports DEB...
#                                        rewrite scripts/ulib-abi-65-imports.syms
#                                        from those packages' ELF files
#
# The imports list (scripts/ulib-abi-65-imports.syms) holds every versioned
# symbol that the programs and libraries of the given packages (Debian's
# ibverbs-utils, librdmacm1t64, rdmacm-utils, python3-pyverbs, perftest,
# ibverbs-providers) take from libibverbs.so.1, each with the files that
# take it: a program loads on libsoftverbs only if each is defined under
# the same version node (default or not; the dynamic loader binds either).
# That includes the provider libraries programs link directly (perftest:
# libmlx5, libefa, libhns); the plug-ins libibverbs itself would dlopen
# (.../libibverbs/*) are left out.  --check checks it too.
#
# REF is distro or 65; without it, both (distro is skipped with a note when
# the library is not installed; exit 4 when REF=distro names it alone).
# Env: LIBIBVERBS (default /usr/lib/x86_64-linux-gnu/libibverbs.so.1),
# LIBSOFTVERBS (default ulib/libsoftverbs.so.1; build it first: make -C ulib).
# Needs binutils (readelf).
# shellcheck disable=SC2016  # backquotes in the table text are Markdown
set -euo pipefail

root=$(realpath "$(dirname "$0")/..")
theirs=${LIBIBVERBS:-/usr/lib/x86_64-linux-gnu/libibverbs.so.1}
ours=${LIBSOFTVERBS:-$root/ulib/libsoftverbs.so.1}
syms65=$root/scripts/ulib-abi-65.syms
imports65=$root/scripts/ulib-abi-65-imports.syms
doc=$root/Documentation/ulib.md

usage() {
	echo "usage: $0 [--check|--print|--missing] [distro|65]" >&2
	echo "       $0 --save LIBIBVERBS_65" >&2
	echo "       $0 --imports | --save-imports DEB..." >&2
	exit 2
}

# name@@VERSION or name@VERSION for each defined function/object; the
# version nodes themselves (ABS) are not symbols.
defined() {
	readelf --dyn-syms -W "$1" |
		awk '$7 != "UND" && $7 != "ABS" && $8 ~ /@/ { print $8 }' |
		sort -u
}

# The same version node, default or not: what the dynamic loader binds a
# versioned reference to.  (Static links take only the default.)
node_key() {
	sed 's/@@/@/'
}

# name@NODE FILE for each versioned symbol an ELF file under $1 takes from
# libibverbs.so.1; FILE is the path below $1 without usr/bin/ and the
# library directories.
imports_of() {
	local dir=$1 f rel
	while IFS= read -r -d '' f; do
		[ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
		case $f in */libibverbs.so*|*/libibverbs/*) continue ;; esac
		rel=${f#"$dir"/}
		rel=${rel#usr/bin/}
		rel=${rel#usr/lib/x86_64-linux-gnu/}
		rel=${rel#usr/lib/python3/dist-packages/}
		readelf --dyn-syms -W "$f" |
			awk -v f="$rel" '$7 == "UND" && $8 ~ /@IBVERBS_/ {
				sub(/ \([0-9]+\)$/, "", $8); print $8, f }'
	done < <(find "$dir" -type f -print0)
}

save_imports() {
	local tmp deb
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064  # expand now: tmp is local
	trap "rm -rf '$tmp'" EXIT
	for deb in "$@"; do
		dpkg-deb -x "$deb" "$tmp/root"
	done
	{
		echo "# libibverbs.so.1 imports of rdma-core 65's programs: scripts/ulib-abi.sh --save-imports"
		for deb in "$@"; do
			echo "# $(dpkg-deb --showformat='${Package} ${Version}' -W "$deb")"
		done
		imports_of "$tmp/root" | sort -k1,1 -k2,2 |
			awk '$1 != last { if (last != "") print line; last = $1; line = $1 }
			     { line = line " " $2 }
			     END { if (last != "") print line }'
	} >"$imports65"
}

# the imports of $imports65 that libsoftverbs does not define
imports_missing() {
	local o sym files n=0
	o=$(defined "$ours" | node_key)
	while read -r sym files; do
		grep -qxF -- "$sym" <<<"$o" && continue
		echo "$sym (taken by: $files)"
		n=$((n + 1))
	done < <(grep -v '^#' "$imports65")
	if [ $n -gt 0 ]; then
		echo "ulib-abi.sh: $n libibverbs imports of rdma-core 65's programs missing" >&2
		return 1
	fi
	return 0
}

mode="write"
case "${1:-}" in
--check) mode=check; shift ;;
--print) mode=print; shift ;;
--missing) mode=missing; shift ;;
--imports)
	[ $# -eq 1 ] || usage
	[ -r "$ours" ] || { echo "ulib-abi.sh: $ours not built (make -C ulib)" >&2; exit 1; }
	imports_missing
	exit ;;
--save-imports)
	shift
	[ $# -gt 0 ] || usage
	save_imports "$@"
	exit 0 ;;
--save)
	[ $# -eq 2 ] || usage
	[ -r "$2" ] || { echo "ulib-abi.sh: $2 not readable" >&2; exit 1; }
	{
		echo "# $(basename "$(realpath "$2")") (rdma-core 65): scripts/ulib-abi.sh --save"
		defined "$2"
	} >"$syms65"
	exit 0 ;;
-*) usage ;;
esac
refs=${1:-distro 65}
[ $# -le 1 ] || usage
case $refs in distro|65|"distro 65") ;; *) usage ;; esac

[ -r "$ours" ] || { echo "ulib-abi.sh: $ours not built (make -C ulib)" >&2; exit 1; }

# Why a libibverbs symbol is not ours: a short key, explained under the
# table. A public symbol that falls through to the last case is a gap.
reason() {
	local name=${1%%@*} sym=$1
	case "$sym" in
	*@IBVERBS_1.0) echo "1.0 ABI" ;;
	ibv_register_driver@IBVERBS_1.1) echo "old provider" ;;
	*@@IBVERBS_PRIVATE_*)
		case "$name" in
		ibv_cmd_*|execute_ioctl|__ioctl_final_num_attrs) echo "provider cmd" ;;
		*) echo "provider set-up" ;;
		esac ;;
	*) echo "**not implemented yet**" ;;
	esac
}

legend() {
	cat <<'EOT'
- **1.0 ABI**: the compatibility versions for binaries linked against
  libibverbs 1.0 (2006). That ABI wraps every object in a `*_1_0` struct with
  its own ops table and translates each call; only such binaries bind to the
  `@IBVERBS_1.0` versions, and nothing built since libibverbs 1.1 does.
  Left out rather than carry a second, untestable object layer.
- **old provider**: the registration hook of pre-rdma-core provider
  libraries (non-default version, kept by libibverbs for them only).
- **provider cmd**: `IBVERBS_PRIVATE_<n>` command marshalling that provider
  libraries (libmlx5, libefa, librxe, ...) build their verbs from.
  libsoftverbs is itself the (only) provider and loads none. rdma-core
  65's node is exported anyway, as inert entry points (`provider_abi.c`:
  registration ignored, commands failing with `EOPNOTSUPP`), so that 65's
  provider libraries load where a program links them directly: perftest
  (libmlx5, libefa, libhns), pyverbs' `providers/mlx5` and `providers/efa`
  modules. Older nodes are not, so programs linking rdma-core 44's
  provider libraries (Debian 12's perftest) do not load on libsoftverbs.
- **provider set-up**: `IBVERBS_PRIVATE_<n>` provider registration and
  context/object initialisation (`verbs_register_driver_<n>`,
  `verbs_init_and_alloc_context`, `verbs_set_ops`, ...), private sysfs and
  logging helpers: the same reason. Of this node only `ibv_query_gid_type`
  is provided, because `ibv_devinfo` and pyverbs call it directly: under
  every name the node has had since rdma-core 44 (`IBVERBS_PRIVATE_34`
  for 25 to 56, `_57`, `_59`, `_64`, `_65`), the default `@@` being 65's.
  A program binds the node, not the kind, so "yes, as `@...`" is a match.
EOT
}

# the reference's symbols, and its library file name for the heading
ref_syms() {
	case $1 in
	distro) defined "$theirs" ;;
	65) grep -v '^#' "$syms65" ;;
	esac
}

ref_name() {
	case $1 in
	distro) basename "$(realpath "$theirs")" ;;
	65) sed -n '1s/^# \([^ ]*\).*/\1/p' "$syms65" ;;
	esac
}

# sorted by version node (numerically), then name
by_version() {
	sed 's/^\([^@]*\)\(@@*\)\(.*\)$/\3 \1 \1\2\3/' | sort -t' ' -k1,1V -k2,2 |
		cut -d' ' -f3
}

# ours SYM: libsoftverbs defines SYM exactly ("same"), or (a private node
# only, which nothing links against statically) as the other kind of
# version of the same node ("node"); else fails.  $o: defined "$ours".
ours() {
	if grep -qxF -- "$1" <<<"$o"; then
		echo same
	elif [[ $1 == *@IBVERBS_PRIVATE_* ]] &&
		grep -qxF -- "$(node_key <<<"$1")" <<<"$(node_key <<<"$o")"; then
		echo node
	else
		return 1
	fi
}

missing() {
	local t o sym
	t=$(ref_syms "$1")
	o=$(defined "$ours")
	while read -r sym; do
		ours "$sym" >/dev/null && continue
		[ "$(reason "$sym")" = "**not implemented yet**" ] && echo "$sym"
	done < <(by_version <<<"$t")
	return 0
}

# the version libsoftverbs defines SYM's name under in SYM's node
ours_ver() {
	local name=${1%%@*} node=${1##*@}
	grep -- "^$name@@*$node\$" <<<"$o" | sed "s/^$name//"
}

table() {
	local t o sym name ver how extra n_t=0 n_y=0 n_gap=0 why
	t=$(ref_syms "$1")
	o=$(defined "$ours")
	echo "Symbols of \`libibverbs.so.1\` ($(ref_name "$1")) against \`libsoftverbs.so.1\`,"
	echo 'by symbol version. `@@` is a default version (what new links bind to), `@` a'
	echo 'compatibility version (only old binaries bind to it).'
	echo
	echo '| symbol | version | libsoftverbs | why not |'
	echo '|---|---|---|---|'
	while read -r sym; do
		name=${sym%%@*}
		ver=${sym#"$name"}
		n_t=$((n_t + 1))
		if how=$(ours "$sym"); then
			n_y=$((n_y + 1))
			if [ "$how" = same ]; then
				echo "| \`$name\` | \`$ver\` | yes | |"
			else
				echo "| \`$name\` | \`$ver\` | yes, as \`$(ours_ver "$sym")\` | |"
			fi
		else
			why=$(reason "$sym")
			[ "$why" = "**not implemented yet**" ] && n_gap=$((n_gap + 1))
			echo "| \`$name\` | \`$ver\` | no | $why |"
		fi
	done < <(by_version <<<"$t")
	echo
	echo "$n_y of $n_t libibverbs symbols are defined by libsoftverbs under the same version;"
	echo "$n_gap public symbols are missing."
	echo
	legend
	echo
	# ours that the reference lacks (a private node's other kind of
	# version counts as had, as in the table)
	extra=$(while read -r sym; do
		grep -qxF -- "$sym" <<<"$t" && continue
		[[ $sym == *@IBVERBS_PRIVATE_* ]] &&
			grep -qxF -- "$(node_key <<<"$sym")" <<<"$(node_key <<<"$t")" &&
			continue
		echo "$sym"
	done <<<"$o")
	echo 'Ours only (`include/softverbs.h`):'
	grep -v '@@*IBVERBS_' <<<"$extra" | sort |
		sed 's/^\(.*\)$/`\1`/' | paste -sd' ' -
	if grep -q '@@*IBVERBS_' <<<"$extra"; then
		echo
		echo 'Under libibverbs versions this one does not have:'
		grep '@@*IBVERBS_' <<<"$extra" |
			by_version | sed 's/^\(.*\)$/`\1`/' | paste -sd' ' -
	fi
}

markers() {
	case $1 in
	distro)
		begin='<!-- ulib-abi.sh: begin (generated, do not edit) -->'
		end='<!-- ulib-abi.sh: end -->' ;;
	65)
		begin='<!-- ulib-abi.sh 65: begin (generated, do not edit) -->'
		end='<!-- ulib-abi.sh 65: end -->' ;;
	esac
}

one() {
	local ref=$1 new cur tmp
	markers "$ref"
	case $mode in
	missing)
		new=$(missing "$ref")
		if [ -n "$new" ]; then
			echo "$new"
			return 1
		fi
		echo "ulib-abi.sh: 0 public symbols of $(ref_name "$ref") missing" >&2
		return 0 ;;
	print)
		table "$ref"
		return 0 ;;
	esac
	new=$(table "$ref")
	grep -qxF -- "$begin" "$doc" || { echo "ulib-abi.sh: no $ref table markers in $doc" >&2; return 1; }
	cur=$(awk -v b="$begin" -v e="$end" '$0 == e { p = 0 } p; $0 == b { p = 1 }' "$doc")
	if [ "$mode" = check ]; then
		if [ "$cur" != "$new" ]; then
			echo "ulib-abi.sh: the $ref ABI table in Documentation/ulib.md is stale; run scripts/ulib-abi.sh" >&2
			diff <(echo "$cur") <(echo "$new") >&2 || true
			return 1
		fi
		return 0
	fi
	tmp=$(mktemp)
	awk -v b="$begin" -v e="$end" -v f=/dev/stdin '
		$0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$doc" <<<"$new" >"$tmp"
	cat "$tmp" >"$doc"
	rm -f "$tmp"
}

rc=0
done_any=
for ref in $refs; do
	if [ "$ref" = distro ] && [ ! -r "$theirs" ]; then
		echo "ulib-abi.sh: $theirs not installed; distro table skipped" >&2
		continue
	fi
	done_any=1
	one "$ref" || rc=1
done
if [ "$mode" = check ]; then
	imports_missing >&2 || rc=1
fi
[ -n "$done_any" ] || exit 4
exit $rc
