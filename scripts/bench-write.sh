#!/usr/bin/env bash
# The store's write path and hit path beside their peers, in one run, as one markdown table:
#   - fetch and store many 27 KB files from nginx, 16 in flight (`webcache preload --no-requisites`),
#     beside curl --parallel to /dev/null (the transfer floor), curl writing each to a file, and the
#     design floor: scripts/store-floor.c, the least a C program must do to keep the same bodies in
#     a store of the same schema and settings, run once as the store syncs and once without syncs;
#   - one large body fetched from nginx and stored (MiB/s), beside `dd` of the same bytes to a file
#     with an fsync (the disk's floor), each the median of three runs in turns;
#   - a loader hit (`webcache-bench loader`) beside a raw SQLite SELECT of the same row, from the store
#     and, repeated, from the loader's memory, also each right after the same cache stored another URL;
#     and beside the same SELECT checking each chunk against its CRC-32, as the store's reads do.
#   - the store's own hit (`CacheStore.lookup`, `webcache-bench store --hits`) beside a raw SELECT of
#     the same row and chunk.
# The last column holds the CPU time (user + system, every thread) of each side, and for the hit the
# instructions of one load of each side (callgrind, which a busy machine does not change; lib.sh's
# callgrind_count), also without the body's copies: valgrind counts each byte a `rep movsb` copies
# as an instruction, so the 10 KB copy that both sides make counts about 10,000 on each, which
# take a few hundred cycles. Progress goes to stderr; stdout holds the table alone.
#
# Usage: scripts/bench-write.sh [BIN_DIR]
#   BIN_DIR holds webcache and webcache-bench (default: a release build made here).
#   FILES (default 3000) and LARGE_MIB (default 2048) tune the run.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
files=${FILES:-3000}
large_mib=${LARGE_MIB:-2048}

bin=$(release_bin "$root" "${1:-}" webcache webcache-bench)
require_built "$bin" webcache webcache-bench
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || "$root/scripts/install-deps.sh" nginx >&2
[ -x /usr/bin/time ] || "$root/scripts/install-deps.sh" time >&2
command -v valgrind >/dev/null || "$root/scripts/install-deps.sh" valgrind >&2
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# The files: FILES of 27 KB of random bytes, and one of LARGE_MIB MiB.
echo "writing $files files of 27 KB and one of $large_mib MiB" >&2
site=$work/site
mkdir -p "$site/f"
python3 - "$site/f" "$files" <<'PY'
import os, sys
folder, count = sys.argv[1], int(sys.argv[2])
for index in range(count):
    with open(os.path.join(folder, f"{index}.bin"), "wb") as f:
        f.write(os.urandom(27_000))
PY
head -c "$((large_mib * 1048576))" /dev/urandom >"$site/large.bin"
chmod -R a+rX "$site"
sync

port=$(free_port)
mkdir -p "$work/nginx"
{ nginx_prologue "$work"; cat <<NGINX; } >"$work/nginx/nginx.conf"
    sendfile on;
    keepalive_requests 1000000;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$port;
        root $site;
    }
}
NGINX
"$nginx_bin" -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)
origin=http://127.0.0.1:$port
for _ in $(seq 50); do curl -sf -o /dev/null "$origin/f/0.bin" && break; sleep 0.1; done

seq 0 $((files - 1)) | sed "s|.*|$origin/f/&.bin|" >"$work/urls.txt"
sed 's|.*|url = "&"\noutput = /dev/null|' "$work/urls.txt" >"$work/curl-null.cfg"
mkdir -p "$work/out"
awk -v out="$work/out" '{ printf "url = \"%s\"\noutput = \"%s/%d.bin\"\n", $0, out, NR }' "$work/urls.txt" \
    >"$work/curl-files.cfg"
# Every file read once, so that nginx serves them all from memory.
curl -s --parallel --parallel-max 16 -K "$work/curl-null.cfg" 2>/dev/null

# measure COMMAND...: runs COMMAND (its output dropped) after writing dirty pages back, and prints
# its wall time and its CPU time (user + system), in seconds.
measure() {
    sync
    /usr/bin/time -f "%e %U %S" -o "$work/time.txt" "$@" >/dev/null 2>&1
    awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$work/time.txt"
}

preload=("$bin/webcache" preload --no-requisites -j 16 --per-host 16 --store "$work/store.sqlite" "$work/urls.txt")
curl_null=(curl -s --parallel --parallel-max 16 -K "$work/curl-null.cfg")
curl_files=(sh -c "curl -s --parallel --parallel-max 16 -K '$work/curl-files.cfg' && sync -f '$work/out'")
# The design floor writes into a copy of an empty store webcache made, so that the schema is the store's own.
"$(c_compiler)" -O2 -o "$work/store-floor" "$root/scripts/store-floor.c" \
    -lcurl -lsqlite3 -lcrypto -ldeflate -lpthread
: >"$work/empty.txt"
"$bin/webcache" preload --store "$work/empty.sqlite" "$work/empty.txt" >/dev/null
# entries_value STORE AGGREGATE: AGGREGATE (such as count(*)) over the entries of STORE.
entries_value() {
    python3 -c "import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute('SELECT %s FROM entry' % sys.argv[2]).fetchone()[0])" "$1" "$2"
}
floor_store() {  # SYNC: the design floor into a fresh copy of the empty store, checked afterwards
    rm -f "$work/floor.sqlite"*
    cp "$work/empty.sqlite" "$work/floor.sqlite"
    measure "$work/store-floor" "$work/floor.sqlite" "$work/urls.txt" 16 "$1"
    local count
    count=$(entries_value "$work/floor.sqlite" "count(*)")
    [ "$count" = "$files" ] || {
        echo "error: the design floor stored $count entries of $files" >&2
        exit 1
    }
}

echo "fetch and store: webcache, curl to /dev/null, curl to files, the design floor with and without syncs" \
    "(3 runs each, the median wall time)" >&2
median() { sort -n | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'; }
store_runs=() null_runs=() file_runs=() floor_runs=() unsynced_runs=()
for _ in 1 2 3; do
    rm -f "$work/store.sqlite"*
    store_runs+=("$(measure "${preload[@]}")")
    null_runs+=("$(measure "${curl_null[@]}")")
    rm -rf "$work/out" && mkdir -p "$work/out"
    file_runs+=("$(measure "${curl_files[@]}")")
    floor_runs+=("$(floor_store NORMAL)")
    unsynced_runs+=("$(floor_store OFF)")
done
read -r stored stored_cpu < <(printf '%s\n' "${store_runs[@]}" | median)
read -r null null_cpu < <(printf '%s\n' "${null_runs[@]}" | median)
read -r filed filed_cpu < <(printf '%s\n' "${file_runs[@]}" | median)
read -r floor floor_cpu < <(printf '%s\n' "${floor_runs[@]}" | median)
read -r unsynced unsynced_cpu < <(printf '%s\n' "${unsynced_runs[@]}" | median)
rm -rf "$work/out" "$work/store.sqlite"* "$work/floor.sqlite"*

echo "one body of $large_mib MiB: webcache, then dd with fsync (3 runs each, the median wall time)" >&2
echo "$origin/large.bin" >"$work/large.txt"
large_runs=() dd_runs=()
for _ in 1 2 3; do
    large_runs+=("$(measure "$bin/webcache" preload --no-requisites \
        --max-resource-size "$((large_mib + 1))MiB" --store "$work/large.sqlite" "$work/large.txt")")
    stored_bytes=$(entries_value "$work/large.sqlite" "coalesce(sum(body_size), 0)")
    [ "$stored_bytes" = "$((large_mib * 1048576))" ] || {
        echo "error: the large body was not stored ($stored_bytes bytes)" >&2
        exit 1
    }
    rm -f "$work/large.sqlite"*
    dd_runs+=("$(measure dd if="$site/large.bin" of="$work/large.copy" bs=1M conv=fsync)")
    rm -f "$work/large.copy"
done
read -r large_time large_cpu < <(printf '%s\n' "${large_runs[@]}" | median)
read -r dd_time dd_cpu < <(printf '%s\n' "${dd_runs[@]}" | median)
# Each run is "wall cpu", unquoted so that printf takes its two figures apart.
echo "large body runs: $(printf '%s s (CPU %s s) ' ${large_runs[@]})dd: $(printf '%s s (CPU %s s) ' ${dd_runs[@]})" >&2

echo "loader hit: webcache-bench loader" >&2
"$bin/webcache-bench" loader --directory "$work" >"$work/loader.txt"
hit=$(awk -F'|' '/loader hit/ { gsub(/[^0-9.]/, "", $3); print $3 }' "$work/loader.txt")
select=$(awk -F'|' '/raw SELECT/ { gsub(/[^0-9.]/, "", $3); print $3 }' "$work/loader.txt")
checked=$(awk -F'|' '/each chunk checked against its CRC-32/ { gsub(/[^0-9.]/, "", $3); print $3 }' "$work/loader.txt")
memory=$(awk -F'|' '/from the loader.s memory/ { gsub(/[^0-9.]/, "", $3); print $3 }' "$work/loader.txt")
after_save=$(awk -F'|' '/each after the same cache stored/ { gsub(/[^0-9.]/, "", $3); print $3 }' "$work/loader.txt")
echo "store lookup: webcache-bench store --hits" >&2
"$bin/webcache-bench" store --hits --directory "$work" >"$work/store.txt"
lookup=$(awk -F'|' '/lookup\(\)/ && /µs/ { gsub(/[^0-9.]/, "", $3); print $3 }' "$work/store.txt")
lookup_select=$(awk -F'|' '/raw SELECT/ { gsub(/[^0-9.]/, "", $3); print $3 }' "$work/store.txt")
# Instructions a hit and a SELECT: each side counted after the same setup and warm-up with no loads
# and with $counted_loads, the difference divided by $counted_loads; then the same without the
# instructions of memcpy and memmove. Work of other threads that a run meets by chance (a worker
# thread's exit frees its heap: about a million instructions) is spread over that many loads.
echo "loader hit: instructions of each side (callgrind, six runs)" >&2
counted_loads=10000
per_load=()
for side in hit select memory; do
    totals=()
    copies=()
    for loads in 0 "$counted_loads"; do
        read -r total copy < <(CALLGRIND_APART='^(__)?mem(cpy|move)' callgrind_count "$work" \
            "$bin/webcache-bench" loader --directory "$work" --count "$side" --loads "$loads") || true
        [ -n "${copy:-}" ] || {
            echo "error: callgrind counted nothing for $side × $loads (see $work/callgrind.err)" >&2
            exit 1
        }
        totals+=("$total")
        copies+=("$copy")
    done
    per_load+=($(((totals[1] - totals[0]) / counted_loads))
        $(((totals[1] - copies[1] - totals[0] + copies[0]) / counted_loads)))
done
python3 - "$files" "$stored" "$stored_cpu" "$null" "$null_cpu" "$filed" "$filed_cpu" "$large_mib" "$large_time" \
    "$large_cpu" "$dd_time" "$dd_cpu" "$hit" "$select" "$memory" "$after_save" "$floor" "$floor_cpu" "$unsynced" \
    "$unsynced_cpu" "$lookup" "$lookup_select" "$checked" "${per_load[@]}" <<'PY'
import sys
(files, stored, stored_cpu, null, null_cpu, filed, filed_cpu, large_mib, large_time, large_cpu, dd_time, dd_cpu,
 hit, select, memory, after_save, floor, floor_cpu, unsynced, unsynced_cpu, lookup, lookup_select, checked,
 hit_instructions, hit_uncopied, select_instructions, select_uncopied, memory_instructions,
 memory_uncopied) = sys.argv[1:]
files, large_mib = int(files), int(large_mib)
(stored, null, filed, large_time, dd_time, hit, select, memory, after_save, floor, unsynced, lookup, lookup_select,
 checked) = map(float, (stored, null, filed, large_time, dd_time, hit, select, memory, after_save, floor, unsynced,
                        lookup, lookup_select, checked))

print("| what | webcache | peer / limit in the same run | ratio | "
      "CPU time (user + sys) or instructions, webcache / peer |")
print("|---|---|---|---|---|")
print(f"| fetch and store {files:,} × 27 KB from nginx, 16 in flight | {stored:.2f} s | curl --parallel to "
      f"/dev/null {null:.2f} s | {null / stored:.2f}x the floor's rate | {stored_cpu} s / {null_cpu} s |")
print(f"| same | {stored:.2f} s | curl --parallel writing each to a file, then sync {filed:.2f} s | "
      f"{filed / stored:.2f}x curl's rate | {stored_cpu} s / {filed_cpu} s |")
print(f"| same | {stored:.2f} s | the design floor (scripts/store-floor.c: C, the store's schema and syncs) "
      f"{floor:.2f} s, {null / floor:.2f}x the floor's rate | {floor / stored:.2f}x its rate | "
      f"{stored_cpu} s / {floor_cpu} s |")
print(f"| same | {stored:.2f} s | the design floor without syncs {unsynced:.2f} s, {null / unsynced:.2f}x the "
      f"floor's rate | {unsynced / stored:.2f}x its rate | {stored_cpu} s / {unsynced_cpu} s |")
print(f"| one {large_mib:,} MiB body fetched and stored (median of 3) | {large_mib / large_time:.0f} MiB/s ({large_time:.1f} s) | "
      f"dd of the same bytes to a file + fsync {large_mib / dd_time:.0f} MiB/s | {dd_time / large_time:.2f}x "
      f"the disk's rate | {large_cpu} s / {dd_cpu} s |")
hit_instructions, hit_uncopied, select_instructions, select_uncopied, memory_instructions, memory_uncopied = map(
    int, (hit_instructions, hit_uncopied, select_instructions, select_uncopied, memory_instructions, memory_uncopied))
print(f"| loader hit, 10 KB body (webcache-bench loader) | {hit:.2f} µs | raw SQLite SELECT of the same row "
      f"{select:.2f} µs | {hit / select:.2f}x the SELECT's time | instructions a load: {hit_instructions:,} / "
      f"{select_instructions:,} ({hit_instructions / select_instructions:.2f}x); without memcpy, which "
      f"valgrind counts a byte at a time: {hit_uncopied:,} / {select_uncopied:,} "
      f"({hit_uncopied / select_uncopied:.2f}x) |")
print(f"| same | {hit:.2f} µs | the same SELECT, each chunk checked against its CRC-32 as the store's reads check it "
      f"{checked:.2f} µs | {hit / checked:.2f}x the checked SELECT's time | |")
print(f"| repeated loader hit, from the loader's memory (same run) | {memory:.2f} µs | raw SQLite SELECT of the same "
      f"row {select:.2f} µs | {memory / select:.2f}x the SELECT's time | instructions a load: "
      f"{memory_instructions:,} / {select_instructions:,} ({memory_instructions / select_instructions:.2f}x); "
      f"without memcpy: {memory_uncopied:,} / {select_uncopied:,} ({memory_uncopied / select_uncopied:.2f}x) |")
print(f"| repeated loader hit, each right after the same cache stored another URL (same run) | {after_save:.2f} µs | "
      f"raw SQLite SELECT of the same row {select:.2f} µs | {after_save / select:.2f}x the SELECT's time | |")
print(f"| store lookup, entry and 10 KB body, hit recorded (webcache-bench store --hits) | {lookup:.2f} µs | "
      f"raw SQLite SELECT of the same row and chunk {lookup_select:.2f} µs (goal: at most 2x) | "
      f"{lookup / lookup_select:.2f}x the SELECT's time | |")
PY
