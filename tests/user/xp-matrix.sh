# shellcheck shell=bash
# One long-lived 53-verbs-matrix.py --serve between the two devices of
# sv_xport_setup, driven through two FIFOs (see below): the tests that take
# counter snapshots or change fault settings between cases run them all in
# one python and pyverbs start (seconds each under the debug kernel) instead
# of one per case.  Source after lib.sh; one server at a time.
#
#   xp_matrix_start [KEY=VALUE...]  start it on XP_A_DEV/XP_A_GID4 and
#                                   XP_B_DEV/XP_B_GID4 (KEY=VALUE into its
#                                   environment, e.g. XP_BULK_MIB); returns
#                                   at once, the setup overlaps what follows
#   xp_matrix_ready SEC             wait for its setup: 0 ready, 2 pyverbs is
#                                   not installed, 1 anything else (its
#                                   output printed)
#   xp_matrix SEC REGEX [KEY=VALUE...]
#                                   run the cases REGEX names, print their
#                                   lines; 0 if none failed, 1 otherwise or
#                                   when no answer came within SEC seconds
#                                   (the server is stopped then)
#   xp_matrix_send REGEX [KEY=...]  only send the request (xp_matrix_answer
#   xp_matrix_answer SEC            reads its answer later)
#   xp_matrix_close                 close its stdin: it ends after the
#                                   request it is running, as a one-shot
#                                   53-verbs-matrix.py would (its answer can
#                                   still be read)
#   xp_matrix_stop                  end it (stdin closed), wait for its exit
#
# The server talks through two FIFOs, not a bash coproc: a coproc's own fds
# stay open in the shell until it is reaped, so closing a copy would not end
# its stdin.  A closed pipe would kill the writer with SIGPIPE: requests go
# out only while the server runs.  Processes started while it runs inherit
# the request end: one that outlives xp_matrix_stop delays its end.

xp_matrix_pid=
xp_matrix_in= xp_matrix_out=

xp_matrix_dir=
xp_matrix_start() {
	local script
	script=$(dirname "${BASH_SOURCE[0]}")/53-verbs-matrix.py
	if [ -z "$xp_matrix_dir" ]; then
		xp_matrix_dir=$(mktemp -d)
		mkfifo "$xp_matrix_dir/in" "$xp_matrix_dir/out"
		sv_on_exit "xp_matrix_stop; rm -rf '$xp_matrix_dir'"
	fi
	env "$@" python3 "$script" --serve "$XP_A_DEV" "$XP_A_GID4" "$XP_B_DEV" "$XP_B_GID4" \
		<"$xp_matrix_dir/in" >"$xp_matrix_dir/out" 2>&1 &
	xp_matrix_pid=$!
	# (in the order the server opens them, or both opens would block)
	exec {xp_matrix_in}>"$xp_matrix_dir/in" {xp_matrix_out}<"$xp_matrix_dir/out"
}

# _xp_matrix_read_until SEC PREFIX: print the server's lines up to and
# including the one starting with PREFIX (that one in xp_matrix_line); 1 on
# end of output or timeout
_xp_matrix_read_until() {
	local end=$((SECONDS + $1)) left
	xp_matrix_line=
	[ -n "$xp_matrix_out" ] || return 1
	while :; do
		left=$((end - SECONDS))
		[ $left -gt 0 ] || left=1
		IFS= read -r -t "$left" xp_matrix_line <&"$xp_matrix_out" || return 1
		echo "$xp_matrix_line"
		[[ $xp_matrix_line != "$2"* ]] || return 0
	done
}

xp_matrix_ready() {
	local out
	out=$(_xp_matrix_read_until "$1" ready) && return 0
	echo "$out"
	xp_matrix_stop
	[[ $out != *"No module named 'pyverbs"* ]] || return 2
	echo "verbs matrix server: not ready within $1 s"
	return 1
}

xp_matrix_send() {
	[ -n "$xp_matrix_in" ] && kill -0 "$xp_matrix_pid" 2>/dev/null || {
		echo "verbs matrix server: not running"
		return 1
	}
	echo "$*" >&"$xp_matrix_in"
}

xp_matrix_answer() {
	if ! _xp_matrix_read_until "$1" done; then
		echo "verbs matrix server: no answer within $1 s"
		xp_matrix_stop
		return 1
	fi
	[[ $xp_matrix_line =~ ^done\ [^\ ]+\ ok ]]
}

xp_matrix() {
	local sec=$1
	shift
	xp_matrix_send "$@" && xp_matrix_answer "$sec"
}

xp_matrix_close() {
	[ -z "$xp_matrix_in" ] || exec {xp_matrix_in}>&-
	xp_matrix_in=
}

xp_matrix_stop() {
	[ -n "$xp_matrix_pid" ] || return 0
	xp_matrix_close
	# it ends when its stdin does; one that is stuck in a case does not
	if kill -0 "$xp_matrix_pid" 2>/dev/null &&
		! sv_wait_for "! kill -0 $xp_matrix_pid 2>/dev/null" 30; then
		echo "verbs matrix server: still running 30 s after its stdin closed; killed"
		kill -9 "$xp_matrix_pid" 2>/dev/null
	fi
	wait "$xp_matrix_pid" 2>/dev/null || true
	[ -z "$xp_matrix_out" ] || exec {xp_matrix_out}<&-
	xp_matrix_pid= xp_matrix_in= xp_matrix_out=
}
