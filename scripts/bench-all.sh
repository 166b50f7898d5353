#!/usr/bin/env bash
# Runs the speed benchmarks, each beside its peer in the same run, and prints their rows as one
# markdown table: HTML and CSS scanning (bench-scan.sh), the write and hit paths (bench-write.sh),
# preload at scale (bench-scale.sh), gateway hits and traffic with misses (bench-gateway.sh), the
# transport beside curl (bench-transport.sh) and the cold preload beside wget2 (bench-preload.sh).
# Each script's own header says what its last column holds (instructions per byte, or CPU time where
# valgrind cannot count the Swift binaries' instructions). Progress goes to stderr; stdout holds the
# table alone.
#
# Usage: [INSTRUCTIONS=0] scripts/bench-all.sh [BIN_DIR]
#   BIN_DIR holds release builds of webcache, webcache-origin, webcache-bench and
#   webcache-transport-bench (default: made here).
#   INSTRUCTIONS is handed to bench-scale.sh (default 1: the cold and warm runs of 10,000 tiny URLs
#   and of the 100-page site are counted with callgrind, some four minutes more; 0 leaves them out).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if [ $# -ge 1 ]; then
    bin=$1
else
    for product in webcache webcache-origin webcache-bench webcache-transport-bench; do
        (cd "$root" && swift build -c release --product "$product" -Xcc -gdwarf-4 -Xswiftc -warnings-as-errors >&2)
    done
    bin=$(cd "$root" && swift build -c release --show-bin-path)
fi

echo "| what | webcache | peer / limit in the same run | ratio | cost: instructions or CPU time, webcache (peer) |"
echo "|---|---|---|---|---|"
for script in bench-scan bench-write bench-scale bench-gateway; do
    echo "bench-all: $script" >&2
    # The rows of the script's table, without its own header and separator.
    if ! output=$(INSTRUCTIONS=${INSTRUCTIONS:-1} "$root/scripts/$script.sh" "$bin"); then
        echo "| $script.sh failed: see its output above | | | | |"
        continue
    fi
    printf '%s\n' "$output" | grep '^|' | tail -n +3
done

# The transport alone beside curl --parallel: 5,000 GETs of one 27 KB file, 16 in flight, the best of
# three rounds of each in turns (bench-transport.sh).
echo "bench-all: bench-transport" >&2
if output=$(BIN_DIR=$bin "$root/scripts/bench-transport.sh" 5000 16); then
    printf '%s\n' "$output" | awk '
        /^CurlTransport/ { ours = $NF }
        /^curl --parallel/ { theirs = $NF }
        END {
            printf "| the transport alone: 5,000 GETs of 27 KB from webcache-origin, 16 in flight (best of 3) | " \
                "%d req/s | curl --parallel: %d req/s | %.2fx | |\n", ours, theirs, ours / theirs
        }'
else
    echo "| bench-transport.sh failed: see its output above | | | | |"
fi

# The cold preload beside wget2 --page-requisites: 200 generated pages whose references wget2 follows
# too, 16 transfers at once, without and with 20 ms of latency; medians of 3 runs (bench-preload.sh).
# Each latency has a second row beside wget2 followed by a sync of its files: the same durability.
echo "bench-all: bench-preload" >&2
if output=$(BIN_DIR=$bin "$root/scripts/bench-preload.sh" 200 20 20 3 16 common); then
    # Its columns: latency, tool, run, wall, spread, CPU, requests, bytes, warm/cold, RSS, found, failed.
    printf '%s\n' "$output" | awk -F'|' '
        # A row of webcache beside TOOL at LATENCY, named WHAT, the peer described as PEER, its ratio as OF.
        function row(what, latency, tool, peer, of) {
            printf "| %s | %s s | %s %s s | %.2fx %s | CPU %s s (%s s), peak memory %s MB (%s MB) |\n", what,
                wall[latency, "webcache"], peer, wall[latency, tool], wall[latency, "webcache"] / wall[latency, tool],
                of, cpu[latency, "webcache"], cpu[latency, tool], rss[latency, "webcache"], rss[latency, tool]
        }
        { for (i = 2; i <= NF; i++) gsub(/^ +| +$/, "", $i) }
        $4 == "cold" && ($3 == "webcache" || $3 == "wget2" || $3 == "wget2 + sync") {
            wall[$2, $3] = $5; cpu[$2, $3] = $7; rss[$2, $3] = $11; seen[$2] = 1
        }
        END {
            for (latency in seen) {
                what = latency == "0 ms" ? "cold preload, 200 pages, no added latency" : "cold preload, 200 pages, " latency " of latency"
                row(what, latency, "wget2", "wget2 -p", "wget2'"'"'s time")
                # The store is synced when webcache exits; wget2'"'"'s files are once a sync has written them.
                row(what ", at equal durability", latency, "wget2 + sync", "wget2 -p, then a sync of its files",
                    "its time")
            }
        }' | sort
else
    echo "| bench-preload.sh failed: see its output above | | | | |"
fi
