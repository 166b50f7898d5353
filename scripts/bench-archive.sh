#!/usr/bin/env bash
# Measures webcache's archive commands on a generated site served by a local webcache-origin:
#
#   1. preload in one process with a quarter of CONNECTIONS in flight (the baseline a shard is
#      measured against) and with all of them, and preload as four shards (`--shard K/4`), four
#      processes at once with a quarter of the connections each, then `merge` of their stores: wall
#      time of each way, pieces and merge included, and whether the merged store holds the same
#      entries and bodies as the single run. The origin adds LATENCY ms (default 20) to every
#      response, as a server across a network does;
#   2. export of the single run's store to .warc.gz, .warc and .har, and import of each into an
#      empty store: wall time, MB/s of body bytes, and peak resident memory (/usr/bin/time -v).
#
# The site's pages are spread over four names of the loopback address (127.0.1, 0x7f.1, localhost,
# 0x7f000001), whose keys hash to shards 0, 1, 2 and 3 of 4, so that each shard has work.
#
# Usage: [LATENCY=MS] [BIN_DIR=DIR] scripts/bench-archive.sh [PAGES] [K] [CONNECTIONS]
#   BIN_DIR holds release builds of webcache and webcache-origin (default: made here).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

pages=${1:-200}
requisites=${2:-20}
connections=${3:-8}
latency=${LATENCY:-20}

[[ -x /usr/bin/time ]] || { apt-get update >/dev/null; apt-get install -y time >/dev/null; }
bin=$(release_bin "$PWD" "${BIN_DIR:-}" webcache webcache-origin)

work=$(mktemp -d)
origin_pid=""
cleanup() {
    [[ -n "$origin_pid" ]] && kill "$origin_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

python3 scripts/generate-site.py "$work/gen" --pages "$pages" --requisites "$requisites" >/dev/null
"$bin/webcache-origin" --root "$work/gen/site" --port 0 --latency "$latency" >"$work/origin.out" 2>&1 &
origin_pid=$!
port=$(first_line "$work/origin.out" | sed -E 's|.*:([0-9]+)/.*|\1|')
hosts=(127.0.1 0x7f.1 localhost 0x7f000001)
awk -v port="$port" -v h="${hosts[*]}" 'BEGIN { split(h, names, " ") }
    { printf "http://%s:%s/%s\n", names[(NR - 1) % 4 + 1], port, $0 }' "$work/gen/urls.txt" >"$work/urls.txt"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# peak KB of the last /usr/bin/time -v output in FILE
peak() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }

# 1. One process against four shards and a merge.
quarter=$(( connections / 4 > 0 ? connections / 4 : 1 ))
start=$(now)
"$bin/webcache" preload "$work/urls.txt" --store "$work/single-quarter.sqlite" -j "$quarter" >/dev/null 2>&1
quarter_time=$(elapsed "$start" "$(now)")
start=$(now)
"$bin/webcache" preload "$work/urls.txt" --store "$work/single.sqlite" -j "$connections" >/dev/null 2>&1
single_time=$(elapsed "$start" "$(now)")
start=$(now)
shard_pids=()
for k in 0 1 2 3; do
    "$bin/webcache" preload "$work/urls.txt" --shard "$k/4" --store "$work/shard-$k.sqlite" -j "$quarter" \
        >/dev/null 2>"$work/shard-$k.err" &
    shard_pids+=($!)
done
wait "${shard_pids[@]}"  # not the origin, which runs until the end
pieces_time=$(elapsed "$start" "$(now)")
"$bin/webcache" merge "$work"/shard-{0,1,2,3}.sqlite --into "$work/merged.sqlite" >/dev/null
shards_time=$(elapsed "$start" "$(now)")
same=$(
    for store in single merged; do
        sqlite3 "$work/$store.sqlite" "SELECT url, hex(b.hash) FROM entry e JOIN body b ON b.id = e.body_id ORDER BY url" \
            | sha256sum
    done | uniq | wc -l
)
body_bytes=$(sqlite3 "$work/single.sqlite" "SELECT entry_bytes FROM store_totals")
entries=$(sqlite3 "$work/single.sqlite" "SELECT entry_count FROM store_totals")

echo "Site: $pages pages, $entries entries, $(awk -v b="$body_bytes" 'BEGIN { printf "%.1f", b / 1048576 }') MiB of bodies"
echo
printf "%-40s %10s\n" "preload, $latency ms per response" "wall s"
printf "%-40s %10s\n" "one process, -j $quarter" "$quarter_time"
printf "%-40s %10s\n" "one process, -j $connections" "$single_time"
printf "%-40s %10s\n" "4 shards at once, -j $quarter each" "$pieces_time"
printf "%-40s %10s\n" "4 shards + merge" "$shards_time"
printf "%-40s %10s\n" "speed-up (one at -j $quarter / shards + merge)" "$(awk -v a="$quarter_time" -v b="$shards_time" 'BEGIN { printf "%.2fx", a / b }')"
printf "%-40s %10s\n" "speed-up (one at -j $connections / shards + merge)" "$(awk -v a="$single_time" -v b="$shards_time" 'BEGIN { printf "%.2fx", a / b }')"
printf "%-36s %10s\n" "merged store = single run" "$([[ $same == 1 ]] && echo yes || echo NO)"
echo

measure() { # NAME COMMAND...: wall seconds, MB/s of body bytes, peak RSS
    local name=$1
    shift
    local start
    start=$(now)
    /usr/bin/time -v "$@" >/dev/null 2>"$work/time.out"
    local seconds
    seconds=$(elapsed "$start" "$(now)")
    printf "%-28s %8s %10s %12s\n" "$name" "$seconds" \
        "$(awk -v b="$body_bytes" -v s="$seconds" 'BEGIN { printf "%.0f", b / 1048576 / s }')" \
        "$(awk -v k="$(peak "$work/time.out")" 'BEGIN { printf "%.1f", k / 1024 }')"
}
printf "%-28s %8s %10s %12s\n" "archive" "wall s" "MiB/s" "peak RSS MiB"
for format in warc.gz warc har; do
    option=--warc
    [[ $format == har ]] && option=--har
    measure "export $format" "$bin/webcache" export --store "$work/single.sqlite" "$option" "$work/site.$format"
    measure "import $format" "$bin/webcache" import --store "$work/imported-$format.sqlite" "$work/site.$format"
done
echo
ls -l "$work"/site.* | awk '{ printf "%-12s %8.1f MiB\n", $9, $5 / 1048576 }' | sed "s|$work/||"
