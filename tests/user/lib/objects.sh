# shellcheck shell=bash
# tests/user/lib/objects.sh: the fixture of the verbs-object tests (20-cq,
# 21-srq, 22-mr, 23-mw, 24-qp), whose verbs run in a python helper through
# pyverbs.  Source it after lib.sh:
#
#   . "$(dirname "$0")/lib.sh"
#   . "$sv_lib/objects.sh"
#
# Under the debug kernel a python3 start with "import pyverbs" costs 5-20 s,
# so a test starts its helper (tests/user/NN-name.py) once: that process
# runs all the test's cases, and before it opens a device it forks the
# spawner of tests/user/svspawn.py, which forks, on request through a FIFO,
# the processes that hold objects for the scenarios below (each as fresh as
# a new helper as far as the kernel is concerned: it opens its own context).
#
# It offers:
#   sv_py                    the python3 the helpers run on (sourcing this
#                            file skips the test when it is missing)
#   sv_objects HELPER NAME TYPE DEV [ARG...]
#                            this test's helper, objects and device; once
#                            the device exists
#   sv_obj_count             how many objects ib_core counts on the device
#   sv_obj_cases CASE...     runs the helper's cases in one process
#   sv_spawn OUT ARG...      one more helper process, from the spawner
#   sv_obj_hold N            a process holding N objects ($SV_OBJ_HOLDER)
#   sv_obj_kill              SIGKILLs it and waits until it is gone
#   sv_obj_check_sigkill N   scenario: SIGKILL of a process holding N objects
#                            brings the count back to where it started
#   sv_obj_check_removal N   scenario: the device is removed while a process
#                            holds N objects
#
# The helper's side of all this (its command line, the "--- CASE" lines,
# exit 77, "ready") is svspawn.py's docstring.

sv_py=/usr/bin/python3
[ -x $sv_py ] || sv_skip "python3 is not installed"

# the helpers sit next to the tests, one level above this file
case ${BASH_SOURCE[0]} in
*/lib/objects.sh) _sv_obj_dir=${BASH_SOURCE[0]%/lib/objects.sh} ;;
*) _sv_obj_dir=. ;;
esac

# sv_objects HELPER NAME TYPE DEV [ARG...]: the test's objects are NAMEs
# (for messages: "CQ"), held by its helper tests/user/HELPER; ib_core counts
# them as TYPE in "rdma resource show" (cq, srq, mr, qp; "-": not counted),
# and DEV ARG... lead every command line of the helper.  Call it once DEV
# exists: with a TYPE it reads the count there ($SV_OBJ_BASE, what the
# scenarios come back to).  The spawner's FIFO goes on fd 4.
sv_objects() {
	SV_OBJ_HELPER=$_sv_obj_dir/$1
	SV_OBJ_NAME=$2
	SV_OBJ_TYPE=$3
	SV_OBJ_DEV=$4
	shift 3
	SV_OBJ_ARGS=("$@")
	SV_OBJ_BASE=
	if [ "$SV_OBJ_TYPE" != - ]; then
		SV_OBJ_BASE=$(sv_obj_count)
		[ -n "$SV_OBJ_BASE" ] ||
			sv_fail "no $SV_OBJ_NAME count for $SV_OBJ_DEV in: $(rdma resource show)"
		echo "${SV_OBJ_NAME}s at start: $SV_OBJ_BASE"
	fi
	SV_OBJ_TMP=$(mktemp -d)
	sv_on_exit "rm -rf '$SV_OBJ_TMP'"
	mkfifo "$SV_OBJ_TMP/spawn"
	exec 4<>"$SV_OBJ_TMP/spawn"
	_sv_obj_holds=0
}

# sv_obj_count: the objects ib_core counts on the device (kernel and user
# ones), from its summary line "N: DEV: pd 1 cq 2 qp 1 cm_id 0 mr 1 ctx 0
# srq 0"; empty when the device has none.  Parsed with builtins: it is
# polled.
sv_obj_count() {
	local out line
	out=$(rdma resource show) || return 1
	while IFS= read -r line; do
		[[ $line =~ ^[0-9]+:\ $SV_OBJ_DEV:\ (.*\ )?$SV_OBJ_TYPE\ ([0-9]+) ]] || continue
		echo "${BASH_REMATCH[2]}"
		return 0
	done <<<"$out"
}

# sv_obj_cases CASE...: run the helper's CASEs in one process (it prints
# "--- CASE" before each, and runs the spawner for the holders); skip when
# it says pyverbs is missing (77), fail naming the case that failed
sv_obj_cases() {
	local rc=0 out
	"$sv_py" "$SV_OBJ_HELPER" --spawn "$SV_OBJ_TMP/spawn" "${SV_OBJ_ARGS[@]}" "$@" 4>&- |
		tee "$SV_OBJ_TMP/cases" || rc=$?
	[ $rc != 77 ] || sv_skip "python3-pyverbs is not installed"
	[ $rc = 0 ] && return 0
	out=$'\n'$(<"$SV_OBJ_TMP/cases")
	if [[ $out == *$'\n--- '* ]]; then
		out=${out##*$'\n'--- }
		out=${out%%$'\n'*}
	else
		out="(before the first case)"
	fi
	sv_fail "${SV_OBJ_HELPER##*/} $out"
}

# sv_spawn OUT ARG...: ask the spawner (on fd 4) for a process running the
# helper with ARG...; its output goes to OUT (first line "pid N", last
# "exit RC")
sv_spawn() {
	local out=$1
	shift
	echo "$out $*" >&4
}

# sv_obj_hold N: a process holding N objects (the helper's "hold N"), once
# it has them; its pid in $SV_OBJ_HOLDER, killed at exit at the latest
sv_obj_hold() {
	local out=$SV_OBJ_TMP/hold$((++_sv_obj_holds))
	sv_spawn "$out" "${SV_OBJ_ARGS[@]}" hold "$1"
	# (a holder that fails says "exit RC" at once: the timeout is for hangs)
	sv_wait_for "sv_file_has_line '$out' '*ready*' || sv_file_has_line '$out' 'exit *'" 120 ||
		true
	sv_file_has_line "$out" '*ready*' || sv_fail "holder did not start: $(cat "$out")"
	read -r _ SV_OBJ_HOLDER <"$out"
	sv_on_exit "kill -9 $SV_OBJ_HOLDER 2>/dev/null"
}

# sv_obj_kill: SIGKILL the holder; it must be gone (the spawner reaps it)
sv_obj_kill() {
	kill -9 "$SV_OBJ_HOLDER"
	sv_wait_for "! kill -0 $SV_OBJ_HOLDER" 10 || sv_fail "holder $SV_OBJ_HOLDER outlived SIGKILL"
}

# sv_obj_check_sigkill N: a process holding N objects adds N to the count;
# killed with SIGKILL, it leaves the count where it started (the kernel
# frees what a dying process held, all of it)
sv_obj_check_sigkill() {
	echo "--- SIGKILL while holding ${SV_OBJ_NAME}s"
	sv_obj_hold "$1"
	sv_assert_eq $((SV_OBJ_BASE + $1)) "$(sv_obj_count)" "$SV_OBJ_NAME count with $1 held"
	sv_obj_kill
	sv_wait_for "[ \"\$(sv_obj_count)\" = $SV_OBJ_BASE ]" 10 ||
		sv_fail "$SV_OBJ_NAME count $(sv_obj_count) after SIGKILL, expected $SV_OBJ_BASE"
	echo "ok: $SV_OBJ_NAME count back to $SV_OBJ_BASE after SIGKILL"
}

# sv_obj_check_removal N: "rdma link delete" of the device while a process
# holds N objects (mapped rings, keys) completes; the process can be killed
# after.  What the device's teardown left behind shows at the module unload
# and in the kernel log (sv_unload_clean).
sv_obj_check_removal() {
	echo "--- device removed while a process holds ${SV_OBJ_NAME}s"
	sv_obj_hold "$1"
	rdma link delete "$SV_OBJ_DEV"
	sv_wait_for "! rdma dev show $SV_OBJ_DEV" 20 || sv_fail "$SV_OBJ_DEV still there after link delete"
	sv_obj_kill
	echo "ok: device removal with ${SV_OBJ_NAME}s held"
}
