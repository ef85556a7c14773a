#!/bin/bash
# run.sh: build the fuzz targets, generate their seeds, run each for a
# bounded time, one after the other; TAP lines and a verdict.
#
#   tests/fuzz/run.sh [-t SECONDS] [-k] [-m|-M] [TARGET...]
#
#   -t SECONDS  per target (default 30)
#   -k          keep the corpus: build/fuzz/corpus/TARGET grows from run
#               to run (default: a fresh one in build/fuzz/check/)
#   -m          then run the mutants (mutants.sh): kmod copies with a
#               planted bug each, which the targets must catch; -M only
#               the mutants
#   TARGET      hdr, wqe (default both)
#
# A target fails on any crash: a CHECK of the harness, an AddressSanitizer
# or UndefinedBehaviorSanitizer report, a kernel WARN/BUG (the shim aborts),
# a leak, a timeout.  The input is saved as build/fuzz/artifacts/TARGET-*
# and printed in hex; make -C tests/fuzz repro TARGET=.. INPUT=.. replays
# it.  Exit 0 unless something failed; without a clang that links
# libFuzzer, one skipped test (scripts/lint.sh's way: "ok ... # SKIP").
# The last line but the plan is "# summary: ..." (coverage, speed).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
b=$root/build/fuzz
secs=30 keep=0 mutants=0 fuzz=1
while getopts t:kmM o; do
	case $o in
	t) secs=$OPTARG ;;
	k) keep=1 ;;
	m) mutants=1 ;;
	M) mutants=1 fuzz=0 ;;
	*) echo "usage: $0 [-t SECONDS] [-k] [-m|-M] [TARGET...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(hdr wqe)
[ "$secs" -gt 0 ] 2>/dev/null || { echo "run.sh: -t wants seconds > 0" >&2; exit 2; }

# the longest input worth trying: a v1 frame of the longest packet, with
# link padding; a send slot of 32 SGEs behind the 4 configuration bytes
declare -A max_len=([hdr]=4200 [wqe]=1100)

clang=$(command -v clang-14 || command -v clang || true)
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
skip() {
	echo "ok 1 - fuzz # SKIP $*"
	echo "1..1"
	exit 0
}
[ -n "$clang" ] || skip "no clang (scripts/deps.sh installs clang-14)"
printf 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }\n' >"$probe/p.c"
"$clang" -fsanitize=fuzzer,address,undefined -o "$probe/p" "$probe/p.c" 2>"$probe/err" ||
	skip "$clang cannot link libFuzzer with ASan and UBSan (Debian: libclang-rt-14-dev): $(head -n 1 "$probe/err")"

n=0 failed=0 summary=()
tap() {	# ok|not ok, description
	n=$((n + 1))
	echo "$1 $n - $2"
	[ "$1" = ok ] || failed=$((failed + 1))
}

if ! make -s -C "$here" CLANG="$clang" all >"$probe/build.log" 2>&1; then
	sed 's/^/# /' "$probe/build.log" | tail -n 40
	tap "not ok" "fuzz: build"
	echo "1..$n"
	exit 1
fi
rm -rf "$b/seeds"
"$b/gen_seeds" "$b/seeds" "$here/regress" | sed 's/^/# /'
mkdir -p "$b/artifacts"

for t in "${targets[@]}"; do
	[ -n "${max_len[$t]:-}" ] || { echo "run.sh: unknown target $t" >&2; exit 2; }
	[ $fuzz = 1 ] || continue
	if [ $keep = 1 ]; then
		corpus=$b/corpus/$t
	else
		corpus=$b/check/$t
		rm -rf "$corpus"
	fi
	mkdir -p "$corpus"
	log=$b/fuzz_$t.log
	# -use_value_profile: comparisons guide it too (opcode numbers,
	# lengths); one process, bounded by time; a unit over 10 s is a hang
	"$b/fuzz_$t" -max_total_time="$secs" -max_len="${max_len[$t]}" \
		-use_value_profile=1 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$b/artifacts/$t-" \
		"$corpus" "$b/seeds/$t" >"$log" 2>&1
	rc=$?
	seed=$(sed -n 's/^INFO: Seed: //p' "$log" | head -n 1)
	done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE ' "$log" | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' <<<"$done_line")
	ft=$(sed -n 's/.* ft: \([0-9]*\) .*/\1/p' <<<"$done_line")
	corp=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <<<"$done_line")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	if [ $rc -eq 0 ] && [ -n "$done_line" ]; then
		tap ok "fuzz: $t, ${execs:-?} inputs in ${secs} s (${rate:-?}/s), cov ${cov:-?} ft ${ft:-?} corpus ${corp:-?}, seed ${seed:-?}"
		summary+=("$t cov ${cov:-?} ft ${ft:-?} ${rate:-?}/s")
	else
		# the report: the check or sanitizer message and the input
		grep -E -A 30 'FUZZ CHECK FAILED|ERROR: (Address|Undefined|Leak)Sanitizer|runtime error:|WARN_ON|BUG_ON|ERROR: libFuzzer|^SUMMARY' "$log" |
			head -n 60 | sed 's/^/# /'
		grep -E '^artifact_prefix|Test unit written to' "$log" | sed 's/^/# /'
		tap "not ok" "fuzz: $t (exit $rc, seed ${seed:-?}), log: ${log#"$root"/}"
	fi
done

if [ $mutants = 1 ]; then
	# shellcheck source=tests/fuzz/mutants.sh
	. "$here/mutants.sh"
	summary+=("mutants caught $m_caught/$m_tried")
fi
if [ ${#summary[@]} -gt 0 ]; then
	line=$(printf '%s; ' "${summary[@]}")
	echo "# summary: ${line%; }"
fi
echo "1..$n"
[ $failed -eq 0 ]
