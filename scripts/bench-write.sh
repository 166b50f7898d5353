#!/usr/bin/env bash
# The store's write path and hit path beside their peers, in one run, as one markdown table:
#   - fetch and store many 27 KB files from nginx, 16 in flight (`webcache preload --no-requisites`),
#     beside curl --parallel to /dev/null (the transfer floor) and curl writing each to a file;
#   - one large body fetched from nginx and stored (MiB/s), beside `dd` of the same bytes to a file
#     with an fsync (the disk's floor);
#   - a loader hit (`webcache-bench loader`) beside a raw SQLite SELECT of the same row.
# Instructions (callgrind, all threads) are counted for the fetch-and-store runs and per hit; set
# INSTRUCTIONS=0 to skip them. Progress goes to stderr; stdout holds the table alone.
#
# Usage: scripts/bench-write.sh [BIN_DIR]
#   BIN_DIR holds webcache and webcache-bench (default: a release build made here).
#   FILES (default 3000), LARGE_MIB (default 2048) and INSTRUCTIONS (default 1) tune the run.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
files=${FILES:-3000}
large_mib=${LARGE_MIB:-2048}
instructions=${INSTRUCTIONS:-1}

if [ $# -ge 1 ]; then
    bin=$1
else
    (cd "$root" && swift build -c release --product webcache >&2 && swift build -c release --product webcache-bench >&2)
    bin=$root/.build/release
fi
require_built "$bin" webcache webcache-bench
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || "$root/scripts/install-deps.sh" nginx >&2
if [ "$instructions" = 1 ] && ! command -v valgrind >/dev/null; then "$root/scripts/install-deps.sh" valgrind >&2; fi
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

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    keepalive_requests 1000000;
    default_type application/octet-stream;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
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

# seconds COMMAND...: runs COMMAND (its output dropped) after writing dirty pages back, and prints
# its wall time in seconds.
seconds() {
    sync
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    python3 -c "print(f'{$end - $start:.3f}')"
}

# instructions_of COMMAND...: the instructions COMMAND executes on every thread (callgrind).
instructions_of() {
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$@" >/dev/null 2>"$work/callgrind.err" || true
    awk '/^summary:/ { print $2 }' "$work/callgrind.out"
    rm -f "$work/callgrind.out"
}

preload() {
    rm -f "$work/store.sqlite"*
    "$bin/webcache" preload --no-requisites -j 16 --per-host 16 --store "$work/store.sqlite" "$work/urls.txt"
}
curl_files() {
    rm -rf "$work/out" && mkdir -p "$work/out"
    curl -s --parallel --parallel-max 16 -K "$work/curl-files.cfg" && sync -f "$work/out"
}
curl_null() { curl -s --parallel --parallel-max 16 -K "$work/curl-null.cfg"; }

echo "fetch and store: webcache, curl to /dev/null, curl to files (3 runs each, median)" >&2
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
store_times=() null_times=() file_times=()
for _ in 1 2 3; do
    store_times+=("$(seconds preload)")
    null_times+=("$(seconds curl_null)")
    file_times+=("$(seconds curl_files)")
done
stored=$(printf '%s\n' "${store_times[@]}" | median)
null=$(printf '%s\n' "${null_times[@]}" | median)
filed=$(printf '%s\n' "${file_times[@]}" | median)
ir_store=- ir_null=- ir_files=-
if [ "$instructions" = 1 ]; then
    echo "fetch and store under callgrind" >&2
    rm -f "$work/store.sqlite"*
    ir_store=$(instructions_of "$bin/webcache" preload --no-requisites -j 16 --per-host 16 --store "$work/store.sqlite" \
        "$work/urls.txt")
    ir_null=$(instructions_of curl -s --parallel --parallel-max 16 -K "$work/curl-null.cfg")
    rm -rf "$work/out" && mkdir -p "$work/out"
    ir_files=$(instructions_of curl -s --parallel --parallel-max 16 -K "$work/curl-files.cfg")
fi
rm -rf "$work/out" "$work/store.sqlite"*

echo "one body of $large_mib MiB: webcache, then dd with fsync" >&2
large_store() {
    rm -f "$work/large.sqlite"*
    echo "$origin/large.bin" >"$work/large.txt"
    "$bin/webcache" preload --no-requisites --max-resource-size "$((large_mib + 1))MiB" \
        --store "$work/large.sqlite" "$work/large.txt"
}
large_dd() { dd if="$site/large.bin" of="$work/large.copy" bs=1M conv=fsync; }
large_time=$(seconds large_store)
stored_bytes=$(python3 -c "
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute('SELECT coalesce(sum(body_size), 0) FROM entry').fetchone()[0])" "$work/large.sqlite")
[ "$stored_bytes" = "$((large_mib * 1048576))" ] || { echo "error: the large body was not stored ($stored_bytes bytes)" >&2; exit 1; }
rm -f "$work/large.sqlite"*
dd_time=$(seconds large_dd)
rm -f "$work/large.copy"

echo "loader hit: webcache-bench loader" >&2
"$bin/webcache-bench" loader --directory "$work" >"$work/loader.txt"
hit=$(awk -F'|' '/loader hit/ { gsub(/[^0-9.]/, "", $3); print $3 }' "$work/loader.txt")
select=$(awk -F'|' '/raw SELECT/ { gsub(/[^0-9.]/, "", $3); print $3 }' "$work/loader.txt")
ir_hit=- ir_select=-
if [ "$instructions" = 1 ]; then
    # Three runs that differ only in how many hits or SELECTs they time: the differences are the
    # instructions of 2,000 of each.
    echo "loader hit under callgrind" >&2
    loader_ir() {
        instructions_of "$bin/webcache-bench" loader --directory "$work" --hits "$1" --selects "$2"
    }
    base=$(loader_ir 1000 1000)
    more_hits=$(loader_ir 3000 1000)
    more_selects=$(loader_ir 1000 3000)
    ir_hit=$(((more_hits - base) / 2000))
    ir_select=$(((more_selects - base) / 2000))
fi

python3 - "$files" "$stored" "$null" "$filed" "$ir_store" "$ir_null" "$ir_files" "$large_mib" "$large_time" \
    "$dd_time" "$hit" "$select" "$ir_hit" "$ir_select" <<'PY'
import sys
(files, stored, null, filed, ir_store, ir_null, ir_files, large_mib, large_time, dd_time, hit, select,
 ir_hit, ir_select) = sys.argv[1:]
files, stored, null, filed = int(files), float(stored), float(null), float(filed)
large_mib, large_time, dd_time = int(large_mib), float(large_time), float(dd_time)
hit, select = float(hit), float(select)

def count(value):
    return "-" if value in ("-", "") else f"{int(value):,}"

print("| what | webcache | peer / limit in the same run | ratio | instructions |")
print("|---|---|---|---|---|")
print(f"| fetch and store {files:,} × 27 KB from nginx, 16 in flight | {stored:.2f} s | curl --parallel to "
      f"/dev/null {null:.2f} s | {null / stored:.2f}x the floor's rate | {count(ir_store)} (curl {count(ir_null)}) |")
print(f"| same | {stored:.2f} s | curl --parallel writing each to a file {filed:.2f} s | {filed / stored:.2f}x "
      f"curl's rate | {count(ir_store)} (curl {count(ir_files)}) |")
print(f"| one {large_mib:,} MiB body fetched and stored | {large_mib / large_time:.0f} MiB/s ({large_time:.1f} s) | "
      f"dd of the same bytes to a file + fsync {large_mib / dd_time:.0f} MiB/s | {dd_time / large_time:.2f}x "
      f"the disk's rate | - |")
print(f"| loader hit, 10 KB body (webcache-bench loader) | {hit:.2f} µs | raw SQLite SELECT of the same row "
      f"{select:.2f} µs | {hit / select:.2f}x the SELECT's time | {count(ir_hit)} per hit "
      f"({count(ir_select)} per SELECT) |")
PY
