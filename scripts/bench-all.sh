#!/usr/bin/env bash
# Runs the speed benchmarks, each beside its peer in the same run, and prints their rows as one
# markdown table: HTML and CSS scanning (bench-scan.sh), the write and hit paths (bench-write.sh),
# preload at scale (bench-scale.sh) and gateway hits (bench-gateway.sh). Each script's own header
# says what its last column holds (instructions per byte, or CPU time where valgrind cannot count
# the Swift binaries' instructions). Progress goes to stderr; stdout holds the table alone.
#
# Usage: scripts/bench-all.sh [BIN_DIR]
#   BIN_DIR holds release builds of webcache, webcache-origin and webcache-bench (default: made here).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if [ $# -ge 1 ]; then
    bin=$1
else
    for product in webcache webcache-origin webcache-bench; do
        (cd "$root" && swift build -c release --product "$product" -Xswiftc -warnings-as-errors >&2)
    done
    bin=$(cd "$root" && swift build -c release --show-bin-path)
fi

echo "| what | webcache | peer / limit in the same run | ratio | cost: instructions or CPU time, webcache (peer) |"
echo "|---|---|---|---|---|"
for script in bench-scan bench-write bench-scale bench-gateway; do
    echo "bench-all: $script" >&2
    # The rows of the script's table, without its own header and separator.
    if ! output=$("$root/scripts/$script.sh" "$bin"); then
        echo "| $script.sh failed: see its output above | | | | |"
        continue
    fi
    printf '%s\n' "$output" | grep '^|' | tail -n +3
done
