#!/usr/bin/env bash
# Runs the fuzz tests with a larger budget than the test suite uses.
#
#   scripts/fuzz.sh            # 50 times the suite's budget, the suite's fixed seed
#   scripts/fuzz.sh 200 12345  # 200 times the budget, seed 12345
#
# A failure prints the case number, the seed and the input (base64), so it can be replayed.
set -euo pipefail
cd "$(dirname "$0")/.."

scale="${1:-50}"
seed="${2:-}"
case "$scale" in
    ''|*[!0-9]*|0) echo "fuzz.sh: the scale must be a positive whole number, not '$scale'" >&2; exit 2 ;;
esac
if [ -n "$seed" ]; then
    case "$seed" in
        *[!0-9]*) echo "fuzz.sh: the seed must be a whole number, not '$seed'" >&2; exit 2 ;;
    esac
    export WEBCACHE_FUZZ_SEED="$seed"
fi
export WEBCACHE_FUZZ_SCALE="$scale"

swift build --build-tests -Xswiftc -warnings-as-errors
echo "fuzz.sh: scale $scale, seed ${WEBCACHE_FUZZ_SEED:-default}"
swift test --skip-build --filter 'HostileTests.FuzzTests'
