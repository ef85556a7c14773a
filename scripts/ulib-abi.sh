#!/bin/bash
# The ABI coverage table of Documentation/ulib.md: every symbol the distro's
# libibverbs.so.1 defines (name and symbol version, default "@@" or
# compatibility "@"), whether libsoftverbs.so.1 defines the same, and why
# not where it does not.
#
#   scripts/ulib-abi.sh            rewrite the table in Documentation/ulib.md
#   scripts/ulib-abi.sh --check    exit 1 if the committed table is stale
#   scripts/ulib-abi.sh --print    print the table only
#
# Env: LIBIBVERBS (default /usr/lib/x86_64-linux-gnu/libibverbs.so.1),
# LIBSOFTVERBS (default ulib/libsoftverbs.so.1; build it first: make -C ulib).
# Needs binutils (readelf). Exits 4 when the distro library is missing.
set -euo pipefail
# shellcheck disable=SC2016  # backquotes in the table text are Markdown

root=$(realpath "$(dirname "$0")/..")
theirs=${LIBIBVERBS:-/usr/lib/x86_64-linux-gnu/libibverbs.so.1}
ours=${LIBSOFTVERBS:-$root/ulib/libsoftverbs.so.1}
doc=$root/Documentation/ulib.md
begin='<!-- ulib-abi.sh: begin (generated, do not edit) -->'
end='<!-- ulib-abi.sh: end -->'

mode="write"
case "${1:-}" in
--check) mode=check ;;
--print) mode=print ;;
"") ;;
*) echo "usage: $0 [--check|--print]" >&2; exit 2 ;;
esac

[ -r "$theirs" ] || { echo "ulib-abi.sh: $theirs not installed" >&2; exit 4; }
[ -r "$ours" ] || { echo "ulib-abi.sh: $ours not built (make -C ulib)" >&2; exit 1; }

# name@@VERSION or name@VERSION for each defined function/object; the
# version nodes themselves (ABS) are not symbols.
defined() {
	readelf --dyn-syms -W "$1" |
		awk '$7 != "UND" && $7 != "ABS" && $8 ~ /@/ { print $8 }' |
		sort -u
}

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
- **provider cmd**: `IBVERBS_PRIVATE_34` command marshalling that provider
  libraries (libmlx5, libefa, librxe, ...) build their verbs from.
  libsoftverbs is itself the (only) provider and loads none, so programs
  linking a provider library directly do not load on it: perftest
  (libmlx5, libefa), pyverbs' `providers/mlx5` and `providers/efa` modules
  (libmlx5, libefa).
- **provider set-up**: `IBVERBS_PRIVATE_34` provider registration and
  context/object initialisation (`verbs_register_driver_34`,
  `verbs_init_and_alloc_context`, `verbs_set_ops`, ...), private sysfs and
  logging helpers: the same reason. Of this node only `ibv_query_gid_type`
  is provided, because `ibv_devinfo` and pyverbs call it directly.
EOT
}

table() {
	local t o sym name ver n_t=0 n_y=0
	t=$(defined "$theirs")
	o=$(defined "$ours")
	echo "Symbols of \`$(basename "$theirs")\` ($(basename "$(realpath "$theirs")")) against \`libsoftverbs.so.1\`,"
	echo 'by symbol version. `@@` is a default version (what new links bind to), `@` a'
	echo 'compatibility version (only old binaries bind to it).'
	echo
	echo '| symbol | version | libsoftverbs | why not |'
	echo '|---|---|---|---|'
	# sort by version node (numerically), then name
	while read -r sym; do
		name=${sym%%@*}
		ver=${sym#"$name"}
		n_t=$((n_t + 1))
		if grep -qxF -- "$sym" <<<"$o"; then
			n_y=$((n_y + 1))
			echo "| \`$name\` | \`$ver\` | yes | |"
		else
			echo "| \`$name\` | \`$ver\` | no | $(reason "$sym") |"
		fi
	done < <(sed 's/^\([^@]*\)\(@@*\)\(.*\)$/\3 \1 \1\2\3/' <<<"$t" |
		 sort -t' ' -k1,1V -k2,2 | cut -d' ' -f3)
	echo
	echo "$n_y of $n_t libibverbs symbols are defined by libsoftverbs with the same version."
	echo
	legend
	echo
	echo 'Ours only (`include/softverbs.h`):'
	grep -v -xF -f <(echo "$t") <<<"$o" | sed 's/^\(.*\)$/`\1`/' | paste -sd' ' -
}

new=$(table)
case $mode in
print)
	echo "$new" ;;
check|write)
	grep -qxF -- "$begin" "$doc" || { echo "ulib-abi.sh: no table markers in $doc" >&2; exit 1; }
	cur=$(sed -n "/^$begin\$/,/^$end\$/p" "$doc" | sed '1d;$d')
	if [ "$mode" = check ]; then
		if [ "$cur" != "$new" ]; then
			echo "ulib-abi.sh: the ABI table in Documentation/ulib.md is stale; run scripts/ulib-abi.sh" >&2
			diff <(echo "$cur") <(echo "$new") >&2 || true
			exit 1
		fi
		exit 0
	fi
	tmp=$(mktemp)
	trap 'rm -f "$tmp"' EXIT
	awk -v b="$begin" -v e="$end" -v f=/dev/stdin '
		$0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$doc" <<<"$new" >"$tmp"
	cat "$tmp" >"$doc" ;;
esac
