# shellcheck shell=bash
# debian-apt.sh: sourced by the scripts that take packages of Debian suites
# the host does not list (trixie, trixie-backports) without changing the
# host's apt configuration.
#
#   sv_apt_mirror          the Debian mirror the host's apt sources name
#   sv_apt_update          write the private source list and fetch its
#                          package lists (again when older than a day)
#   sv_apt ARGS...         apt-get with the private lists
#   sv_apt_cache ARGS...   apt-cache with the private lists
#
# The private state lives in $SV_CACHE/apt: sources.list, lists/, the
# binary caches, and an empty dpkg status (so that the host's installed
# packages never decide a candidate).  The mirror is read from the host's
# sources at run time and written nowhere else.

sv_apt_dir=${SV_CACHE:-/var/tmp/softverbs-cache}/apt
sv_apt_suites=${SV_APT_SUITES:-"trixie trixie-updates trixie-backports"}

sv_apt_mirror() {
	local f uri
	# deb822 sources first (URIs: of a stanza that is not the security
	# archive), then one-line sources
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		uri=$(awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
		[ -z "$uri" ] || { echo "${uri%/}"; return 0; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($i !~ /security/) { print $i; exit } break } }' "$f")
		[ -z "$uri" ] || { echo "${uri%/}"; return 0; }
	done
	echo "debian-apt.sh: no Debian mirror in the host's apt sources" >&2
	return 1
}

sv_apt_opts() {
	printf '%s\n' \
		-o "Dir::Etc::SourceList=$sv_apt_dir/sources.list" \
		-o "Dir::Etc::SourceParts=$sv_apt_dir/empty" \
		-o "Dir::State::Lists=$sv_apt_dir/lists" \
		-o "Dir::State::status=$sv_apt_dir/status" \
		-o "Dir::Cache=$sv_apt_dir/cache" \
		-o "Dir::Etc::Preferences=$sv_apt_dir/empty/preferences" \
		-o "Dir::Etc::PreferencesParts=$sv_apt_dir/empty" \
		-o APT::Default-Release= \
		-o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root
}

sv_apt() {
	local opts
	mapfile -t opts < <(sv_apt_opts)
	apt-get "${opts[@]}" "$@"
}

sv_apt_cache() {
	local opts
	mapfile -t opts < <(sv_apt_opts)
	apt-cache "${opts[@]}" "$@"
}

sv_apt_update() {
	local mirror list s stamp=$sv_apt_dir/lists/.sv-updated
	mirror=$(sv_apt_mirror) || return 1
	mkdir -p "$sv_apt_dir/empty" "$sv_apt_dir/lists/partial" "$sv_apt_dir/cache/archives/partial"
	[ -f "$sv_apt_dir/status" ] || : >"$sv_apt_dir/status"
	list=$(for s in $sv_apt_suites; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main"
	done)
	if [ -f "$sv_apt_dir/sources.list" ] && [ "$(cat "$sv_apt_dir/sources.list")" = "$list" ] &&
		[ -f "$stamp" ] && [ -z "$(find "$stamp" -mmin +1440)" ]; then
		return 0
	fi
	echo "$list" >"$sv_apt_dir/sources.list"
	sv_apt update -q >"$sv_apt_dir/update.log" 2>&1 || {
		cat "$sv_apt_dir/update.log" >&2
		return 1
	}
	touch "$stamp"
}
