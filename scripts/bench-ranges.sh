#!/usr/bin/env bash
# What a range costs when it is served from the store through `webcache serve --offline`: a 1 KiB
# range from the middle of a large stored body (only the chunk that holds it is read) against the
# whole body, and the same range asked of a small body. Prints a table.
#
# Usage: scripts/bench-ranges.sh [BIN_DIR] [SIZE_MB]   (BIN_DIR holds webcache and webcache-origin;
#                                                      default .build/release; SIZE_MB default 60,
#                                                      under the preload limit of 64 MiB a response)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
bin=${1:-$root/.build/release}
size_mb=${2:-60}
for tool in webcache webcache-origin; do
    [ -x "$bin/$tool" ] || { echo "error: $bin/$tool is missing; run swift build -c release first" >&2; exit 1; }
done
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/site"
head -c $((size_mb * 1024 * 1024)) /dev/urandom >"$work/site/large.bin"
head -c $((64 * 1024)) /dev/urandom >"$work/site/small.bin"
"$bin/webcache-origin" --root "$work/site" >"$work/origin.out" 2>&1 &
pids+=($!)
origin=$(first_line "$work/origin.out")
printf '%s\n%s\n' "${origin}large.bin" "${origin}small.bin" >"$work/urls.txt"
"$bin/webcache" preload --store "$work/store.sqlite" "$work/urls.txt" >/dev/null
kill "${pids[0]}"
"$bin/webcache" serve --offline --port 0 --store "$work/store.sqlite" >"$work/gateway.out" 2>/dev/null &
pids+=($!)
gateway=$(first_line "$work/gateway.out")

# measure LABEL COUNT URL [CURL-OPTIONS...]: COUNT sequential requests; prints one table row.
measure() {
    local label=$1 count=$2 url=$3
    shift 3
    local start end bytes
    start=$(date +%s.%N)
    for _ in $(seq "$count"); do
        bytes=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' --proxy "$gateway" "$@" "$url")
    done
    end=$(date +%s.%N)
    awk -v l="$label" -v n="$count" -v s="$start" -v e="$end" -v b="$bytes" \
        'BEGIN { split(b, r, " "); printf "| %-44s | %5d | %6s | %9d | %9.2f |\n", l, n, r[1], r[2], (e - s) * 1000 / n }'
}

middle=$((size_mb * 1024 * 1024 / 2))
echo "| request (offline, from the store)            | count | status |     bytes | ms / req  |"
echo "|----------------------------------------------|------:|-------:|----------:|----------:|"
measure "1 KiB from the middle of ${size_mb} MB" 50 "${origin}large.bin" -r "$middle-$((middle + 1023))"
measure "two 1 KiB parts of ${size_mb} MB (multipart)" 50 "${origin}large.bin" \
    -r "0-1023,$middle-$((middle + 1023))"
measure "the last 1 KiB of ${size_mb} MB (suffix)" 50 "${origin}large.bin" -r "-1024"
measure "1 KiB of a 64 KiB body" 50 "${origin}small.bin" -r "1024-2047"
measure "the whole ${size_mb} MB" 3 "${origin}large.bin"
