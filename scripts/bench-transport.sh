#!/usr/bin/env bash
# Compares CurlTransport with curl's own --parallel mode: N GETs of one 27 KB file from a local
# webcache-origin, 16 in flight, in the same run. Prints requests/s for each (best of ROUNDS
# interleaved runs, default 3) and the ratio.
# Usage: [ROUNDS=3] [BIN_DIR=DIR] scripts/bench-transport.sh [N] [PARALLEL]
#   BIN_DIR holds release builds of webcache-transport-bench and webcache-origin (default: made here).
set -euo pipefail
cd "$(dirname "$0")/.."

count=${1:-5000}
parallel=${2:-16}

if [[ -n "${BIN_DIR:-}" ]]; then
    bin=$BIN_DIR
else
    swift build -c release --product webcache-origin -Xcc -gdwarf-4 >/dev/null
    swift build -c release --product webcache-transport-bench -Xcc -gdwarf-4 >/dev/null
    bin=$(swift build -c release --show-bin-path)
fi

work=$(mktemp -d)
origin_pid=""
cleanup() {
    if [[ -n "$origin_pid" ]]; then kill "$origin_pid" 2>/dev/null || true; wait "$origin_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/site"
head -c 27648 /dev/urandom > "$work/site/file.bin"
"$bin/webcache-origin" --root "$work/site" > "$work/origin.out" &
origin_pid=$!
for _ in $(seq 1 100); do [[ -s "$work/origin.out" ]] && break; sleep 0.05; done
base=$(head -n 1 "$work/origin.out")
url="${base}file.bin"

for _ in $(seq 1 "$count"); do echo "$url"; done > "$work/urls.txt"
awk '{ printf "url = \"%s\"\noutput = \"/dev/null\"\n", $0 }' "$work/urls.txt" > "$work/curl.config"

now() { date +%s.%N; }

# Warm up both clients once (page cache, origin threads).
head -n 200 "$work/urls.txt" > "$work/warm-urls.txt"
head -n 400 "$work/curl.config" > "$work/warm-curl.config"
"$bin/webcache-transport-bench" --urls "$work/warm-urls.txt" --parallel "$parallel" >/dev/null
curl --silent --no-progress-meter --parallel --parallel-max "$parallel" --config "$work/warm-curl.config"

# Interleave the two clients and keep each one's best of $rounds runs: the machine may be shared.
rounds=${ROUNDS:-3}
swift_rps=0
curl_rps=0
swift_errors=0
for _ in $(seq 1 "$rounds"); do
    swift_line=$("$bin/webcache-transport-bench" --urls "$work/urls.txt" --parallel "$parallel")
    rps=$(sed -E 's/.*rps=([0-9]+).*/\1/' <<<"$swift_line")
    errors=$(sed -E 's/.*errors=([0-9]+).*/\1/' <<<"$swift_line")
    swift_errors=$((swift_errors + errors))
    (( rps > swift_rps )) && swift_rps=$rps

    start=$(now)
    curl --silent --no-progress-meter --parallel --parallel-max "$parallel" --config "$work/curl.config"
    end=$(now)
    rps=$(awk -v n="$count" -v s="$start" -v e="$end" 'BEGIN { printf "%d", n / (e - s) }')
    (( rps > curl_rps )) && curl_rps=$rps
done

printf '%-34s %12s\n' "client ($count GETs, $parallel in flight)" "req/s (best of $rounds)"
printf '%-34s %12s\n' "CurlTransport (Swift, libcurl multi)" "$swift_rps"
printf '%-34s %12s\n' "curl --parallel" "$curl_rps"
awk -v a="$swift_rps" -v b="$curl_rps" 'BEGIN { printf "%-34s %11.2fx\n", "ratio CurlTransport / curl", a / b }'
if [[ "$swift_errors" != "0" ]]; then echo "CurlTransport had $swift_errors failed requests" >&2; exit 1; fi
