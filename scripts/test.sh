#!/usr/bin/env bash
# Installs what is missing, builds everything warning-free, and runs the whole test suite.
#
# Usage: scripts/test.sh [--run-only]
#   --run-only  run the tests of the last build, without installing or building
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" != "--run-only" ]; then
    scripts/install-deps.sh
    swift build --build-tests -Xswiftc -warnings-as-errors
    # The README's library example, a package of its own that depends on this one by path. Its build
    # description keeps the list of this package's source files; after a file is deleted here it
    # fails with "missing inputs" until it is made again, so a failed build is retried once afresh.
    example=(swift build --package-path examples/library --scratch-path .build/examples -Xswiftc -warnings-as-errors)
    "${example[@]}" || { rm -rf .build/examples; "${example[@]}"; }
fi
# Swift Testing starts every test at once unless told otherwise, and a test's time limit runs from its
# start: on a small busy machine, hundreds of tests then share the few threads of the pool, and one
# waits its turn long enough to run out of time without having done anything wrong. Four tests per
# core at a time keep the machine busy (most tests wait on sockets and child processes) while each
# test's limit measures its own work.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-$(( $(nproc) * 4 ))}"
# Every test uses Swift Testing; XCTest would only report "Executed 0 tests".
# The failures are printed again at the end, where a log cut to its last lines still shows them.
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build --disable-xctest 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
    echo
    echo "Failures, again:"
    awk '/^✘ Test .* recorded an issue/ { keep = 1; print; next }
         keep && /^(↳|  )/ { print; next }
         { keep = 0 }' "$log" | head -n 200
fi
exit "$status"
