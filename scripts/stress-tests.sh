#!/usr/bin/env bash
# Runs the whole test suite N times in a row beside CPU hogs on every core, and prints one table row
# per run: whether it passed, how long it took, how many tests failed, and the first failures.
# Exits 1 when any run failed.
#
# Usage: scripts/stress-tests.sh [N] [--no-hogs] [--keep]
#   N          how many runs (default: 5)
#   --no-hogs  run without the CPU hogs (for comparison)
#   --keep     keep the folder with each run's full output (printed)
#
# The suite is built once first (scripts/test.sh's build commands); each run is scripts/test.sh's test
# command. The hogs are busy shell loops, one per core, at normal priority: the machine is then
# oversubscribed as a busy CI runner is, and a test that depends on timing it does not control fails.
set -u
cd "$(dirname "$0")/.."

runs=5
hogs=1
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --no-hogs) hogs=0 ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        ''|*[!0-9]*) echo "Error: The value '$1' is invalid for '<N>': it is not a number of runs" >&2; exit 64 ;;
        *) runs=$1 ;;
    esac
    shift
done
[ "$runs" -ge 1 ] || { echo "Error: The value '$runs' is invalid for '<N>': give at least 1" >&2; exit 64; }

# What scripts/test.sh builds before its test command (the example package included: a test runs it).
swift build --build-tests -Xswiftc -warnings-as-errors >&2 || exit 1
swift build --package-path examples/library --scratch-path .build/examples -Xswiftc -warnings-as-errors >&2 || exit 1

logs=$(mktemp -d "${TMPDIR:-/tmp}/webcache-stress.XXXXXX")
hog_pids=()
stop_hogs() {
    local pid
    for pid in "${hog_pids[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${hog_pids[@]}"; do wait "$pid" 2>/dev/null; done
    hog_pids=()
}
cleanup() {
    stop_hogs
    if [ "$keep" = 1 ]; then echo "outputs kept in $logs" >&2; else rm -rf "$logs"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cores=$(nproc)
if [ "$hogs" = 1 ]; then
    for _ in $(seq "$cores"); do
        ( while :; do :; done ) &
        hog_pids+=($!)
    done
fi
echo "stress: $runs run(s) of the whole suite, $([ "$hogs" = 1 ] && echo "$cores CPU hog(s)" || echo "no hogs") on $cores core(s)" >&2

failed_runs=0
rows=()
for run in $(seq "$runs"); do
    log="$logs/run-$run.txt"
    start=$(date +%s)
    # The test command of scripts/test.sh.
    scripts/test.sh --run-only > "$log" 2>&1
    code=$?
    seconds=$(( $(date +%s) - start ))
    tests=$(grep -Eo 'Test run with [0-9]+ tests?' "$log" | grep -Eo '[0-9]+' | tail -1)
    failures=$(grep -E '^✘ Test [^ ]+ failed' "$log" | sed -E 's/^✘ Test ([^ ]+).*/\1/' | sort -u)
    count=$(printf '%s' "$failures" | grep -c . )
    if [ "$code" = 0 ]; then
        result=pass
    else
        result=FAIL
        failed_runs=$((failed_runs + 1))
        # A crash or a hang shows no failed test: say how it ended.
        [ "$count" = 0 ] && failures="(exit $code; see the log)"
    fi
    rows+=("$(printf '%4s  %-6s %8s %7s %9s  %s' "$run" "$result" "${seconds}s" "${tests:-?}" "$count" \
        "$(printf '%s' "$failures" | head -3 | paste -sd ' ' -)")")
    echo "run $run: $result in ${seconds}s" >&2
done
stop_hogs

printf '\n%4s  %-6s %8s %7s %9s  %s\n' run result time tests failures "first failures"
printf '%s\n' "${rows[@]}"
if [ "$failed_runs" != 0 ]; then
    printf '\nRESULT: FAIL (%d of %d runs failed)\n' "$failed_runs" "$runs"
    exit 1
fi
printf '\nRESULT: PASS (%d of %d runs passed)\n' "$runs" "$runs"
