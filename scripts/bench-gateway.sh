#!/usr/bin/env bash
# Requests per second of cache hits through `webcache serve`, beside, in the same run: nginx serving
# the same files from disk (the limit), and two caches in front of the same origin, nginx
# `proxy_cache` and Varnish, each warmed first so that every measured request is a hit. The gateway
# runs as a reverse proxy (--upstream) in front of webcache-origin with everything already stored
# and fresh. Beside requests per second, each server's CPU time per request (user and system, all
# of its processes, from /proc) over the same run: less sensitive to a busy machine than the rate.
# (Instruction counts are not given: callgrind counts no kernel work, where every server here spends
# much of a hit (its sends, sendfile, the sockets), so the counts would compare user-space shares
# alone; and this machine's perf cannot count instructions.)
#
# Prints one markdown table on standard output; progress goes to standard error.
#
# Usage: scripts/bench-gateway.sh [BIN_DIR]
#   BIN_DIR holds webcache and webcache-origin (default: a release build made here).
#   DURATION (seconds per run, default 4), CONNECTIONS (default 16) and THREADS (default 2) tune wrk.
#   ROUNDS (default 2): the servers take turns this many times per file, and each figure is over all
#   of its runs (one round of 6 s per server put the 109 KiB row at 0.74x of a peer in one run and
#   0.99x to 1.25x in the next).
#   BEFORE_BIN_DIR, if set, holds webcache built from an earlier commit: its gateway runs too, over a
#   store of its own, measured as the peer "earlier build" in rows of their own; the two gateways
#   then take turns, PAIRS times per file (default 3), and each figure is over all its turns.
#   MISS_EVERY (default 20; 0 leaves it out): a last row of traffic as a cache meets it, the small
#   stylesheet asked again and again and every MISS_EVERY-th request a URL never asked before (the
#   same file with a new query), which each cache fetches from the origin and stores between its
#   hits; nginx from disk serves every one of them from the file.
#   LARGE_BYTES (default 1048576): the size of the largest file, random bytes.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
duration=${DURATION:-4}
miss_every=${MISS_EVERY:-20}
rounds=${ROUNDS:-2}
connections=${CONNECTIONS:-16}
threads=${THREADS:-2}
large_bytes=${LARGE_BYTES:-1048576}

bin=$(release_bin "$root" "${1:-}" webcache webcache-origin)
require_built "$bin" webcache webcache-origin
before_bin=${BEFORE_BIN_DIR:-}
[ -z "$before_bin" ] || require_built "$before_bin" webcache
pairs=1
[ -z "$before_bin" ] || pairs=${PAIRS:-3}
missing=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v varnishd >/dev/null || [ -x /usr/sbin/varnishd ] || missing+=(varnish)
command -v wrk >/dev/null || missing+=(wrk)
((${#missing[@]} == 0)) || "$root/scripts/install-deps.sh" "${missing[@]}" >&2
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
varnishd_bin=$(command -v varnishd || echo /usr/sbin/varnishd)

work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# wait_for URL: waits up to 10 s until URL answers.
wait_for() {
    for _ in $(seq 100); do curl -sf -o /dev/null "$1" && return; sleep 0.1; done
    echo "error: nothing answers at $1" >&2
    exit 1
}

# The files: a small stylesheet, a 112 KB image from examples/site, and 1 MiB of random bytes
# (named .png so that the origin marks it cacheable for a year, like the others).
site=$work/site
mkdir -p "$site/css" "$site/img"
cp "$root/examples/site/css/main.css" "$site/css/main.css"
cp "$root/examples/site/img/harbour-960.png" "$site/img/harbour-960.png"
head -c "$large_bytes" /dev/urandom >"$site/img/large.png"
chmod -R a+rX "$site"
files=(css/main.css img/harbour-960.png img/large.png)

# The origin, and the store holding every file.
"$bin/webcache-origin" --root "$site" >"$work/origin.out" 2>&1 &
pids+=($!)
origin=$(first_line "$work/origin.out")
origin=${origin%/}
for file in "${files[@]}"; do echo "$origin/$file"; done >"$work/urls.txt"
"$bin/webcache" preload --no-requisites --store "$work/store.sqlite" "$work/urls.txt" >/dev/null
[ -z "$before_bin" ] \
    || "$before_bin/webcache" preload --no-requisites --store "$work/before.sqlite" "$work/urls.txt" >/dev/null

# start_gateway BIN_DIR NAME: starts BIN_DIR's gateway as a reverse proxy over the store NAME.sqlite
# and sets $gateway to its URL and $gateway_pid. Its access log goes to a file.
start_gateway() {
    "$1/webcache" serve --port 0 --upstream "$origin/" --store "$work/$2.sqlite" \
        >"$work/$2.out" 2>"$work/$2.err" &
    gateway_pid=$!
    pids+=("$gateway_pid")
    gateway=$(first_line "$work/$2.out")
    gateway=${gateway%/}
}

# check_served URL HEADER VALUE-PATTERN: exits with an error unless each file is served with HEADER
# matching the pattern (a hit, for every server here).
check_served() {
    local base=$1 header=$2 pattern=$3 file value
    for file in "${files[@]}"; do
        value=$(curl -s -o /dev/null -D - "$base/$file" | tr -d '\r' \
            | awk -F': ' -v name="$header" 'tolower($1) == name {print $2}')
        [[ $value =~ $pattern ]] || { echo "error: $base/$file is served with $header '$value', not as a hit" >&2; exit 1; }
    done
}

echo "starting webcache serve, nginx, nginx proxy_cache and Varnish" >&2
if [ -n "$before_bin" ]; then
    start_gateway "$before_bin" before
    before_gateway=$gateway
    before_pid=$gateway_pid
    check_served "$before_gateway" x-webcache '^hit$'
fi
start_gateway "$bin" store
check_served "$gateway" x-webcache '^hit$'

# nginx on the same files, and nginx as a cache in front of the origin (a second server block).
nginx_port=$(free_port)
proxy_port=$(free_port)
mkdir -p "$work/nginx/cache"
{ nginx_prologue "$work" auto; cat <<NGINX; } >"$work/nginx/nginx.conf"
    sendfile on;
    keepalive_requests 1000000;
    proxy_cache_path $work/nginx/cache levels=1:2 keys_zone=bench:10m max_size=1g inactive=1h use_temp_path=off;
    server {
        listen 127.0.0.1:$nginx_port;
        root $site;
    }
    server {
        listen 127.0.0.1:$proxy_port;
        location / {
            proxy_pass $origin;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_cache bench;
            add_header X-Cache-Status \$upstream_cache_status;
        }
    }
}
NGINX
"$nginx_bin" -c "$work/nginx/nginx.conf" -p "$work/nginx" &
nginx_pid=$!
pids+=("$nginx_pid")
wait_for "http://127.0.0.1:$nginx_port/css/main.css"
for file in "${files[@]}"; do curl -sf -o /dev/null "http://127.0.0.1:$proxy_port/$file"; done
check_served "http://127.0.0.1:$proxy_port" x-cache-status '^HIT$'

# Varnish with its default VCL (-b), objects in memory, as root in its own working directory.
varnish_port=$(free_port)
"$varnishd_bin" -F -j none -n "$work/varnish" -a "127.0.0.1:$varnish_port" -b "${origin#http://}" -s malloc,256m \
    -p default_ttl=3600 >"$work/varnish.out" 2>&1 &
varnish_pid=$!
pids+=("$varnish_pid")
wait_for "http://127.0.0.1:$varnish_port/css/main.css"
for file in "${files[@]}"; do curl -sf -o /dev/null "http://127.0.0.1:$varnish_port/$file"; done
# A hit carries two ids in X-Varnish (this request's and the one that stored it).
check_served "http://127.0.0.1:$varnish_port" x-varnish '^[0-9]+ [0-9]+$'

# cpu_ticks PID: the CPU time (user and system, in clock ticks) used so far by PID and its children.
cpu_ticks() {
    local total=0 pid
    for pid in "$1" $(pgrep -P "$1" || true); do
        [ -r "/proc/$pid/stat" ] || continue
        total=$((total + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat")))
    done
    echo "$total"
}

# measure NAME PID URL [WRK-ARGUMENT...]: one wrk run against URL; records requests/s (the mean over
# the runs of NAME so far) and CPU µs per request of PID's processes (over all those runs).
declare -A rps cpu runs rate_sum requests ticks
measure() {
    local name=$1 pid=$2 url=$3 before after output
    shift 3
    before=$(cpu_ticks "$pid")
    output=$(wrk -t"$threads" -c"$connections" -d"${duration}s" "$url" "$@")
    after=$(cpu_ticks "$pid")
    runs[$name]=$(( ${runs[$name]:-0} + 1 ))
    requests[$name]=$(( ${requests[$name]:-0} + $(awk '/requests in/ { print $1 }' <<<"$output") ))
    ticks[$name]=$(( ${ticks[$name]:-0} + after - before ))
    rate_sum[$name]=$(( ${rate_sum[$name]:-0} + $(awk '/^Requests\/sec/ { printf "%.0f\n", $2 }' <<<"$output") ))
    rps[$name]=$(( rate_sum[$name] / runs[$name] ))
    cpu[$name]=$(( ticks[$name] * 1000000 / $(getconf CLK_TCK) / requests[$name] ))
}

for file in "${files[@]}"; do
    echo "measuring $file" >&2
    for _ in $(seq "$rounds"); do
        for _ in $(seq "$pairs"); do
            measure "gateway,$file" "$gateway_pid" "$gateway/$file"
            [ -z "$before_bin" ] || measure "before,$file" "$before_pid" "$before_gateway/$file"
        done
        measure "nginx,$file" "$nginx_pid" "http://127.0.0.1:$nginx_port/$file"
        measure "proxy,$file" "$nginx_pid" "http://127.0.0.1:$proxy_port/$file"
        measure "varnish,$file" "$varnish_pid" "http://127.0.0.1:$varnish_port/$file"
    done
done
# The traffic of a cache: wrk's script asks for the stylesheet, and every MISS_EVERY-th request (on
# each connection's thread) for it with a query no run asked before (the run's number and the
# thread's), so that every cache here fetches and stores it.
if ((miss_every > 0)); then
    cat >"$work/mixed.lua" <<'LUA'
-- Each thread runs in a Lua state of its own; setup() gives each its number as the global thread_id.
local every, run, count = 20, "0", 0
local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("thread_id", threads)
end
function init(args)
    every = tonumber(args[1])
    run = args[2]
end
function request()
    count = count + 1
    if count % every == 0 then
        return wrk.format("GET", "/css/main.css?miss=" .. run .. "-" .. thread_id .. "-" .. count)
    end
    return wrk.format("GET", "/css/main.css")
end
LUA
    # mixed NAME PID BASE: one wrk run of that traffic against the server at BASE, its misses new.
    mixed_runs=0
    mixed() {
        mixed_runs=$((mixed_runs + 1))
        measure "$1,mixed" "$2" "$3" -s "$work/mixed.lua" -- "$miss_every" "$1-$mixed_runs"
    }
    echo "measuring the stylesheet with 1 request in $miss_every a miss" >&2
    for _ in $(seq "$rounds"); do
        for _ in $(seq "$pairs"); do
            mixed gateway "$gateway_pid" "$gateway"
            [ -z "$before_bin" ] || mixed before "$before_pid" "$before_gateway"
        done
        mixed nginx "$nginx_pid" "http://127.0.0.1:$nginx_port"
        mixed proxy "$nginx_pid" "http://127.0.0.1:$proxy_port"
        mixed varnish "$varnish_pid" "http://127.0.0.1:$varnish_port"
    done
    # The misses reached the origin through the gateway and were stored.
    stored=$("$bin/webcache" inspect --json --store "$work/store.sqlite" \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["entries"])')
    ((stored > ${#files[@]})) || { echo "error: the gateway stored none of its misses" >&2; exit 1; }
fi
check_served "$gateway" x-webcache '^hit$'
[ -z "$before_bin" ] || check_served "$before_gateway" x-webcache '^hit$'

ratio() { python3 -c "print(f'{$1 / $2:.2f}x')"; }
echo "| what | webcache | peer in the same run | ratio | CPU µs per request, webcache / peer |"
echo "|---|---|---|---|---|"
# rows WHAT KEY NGINX-NAME: a row for each peer of the runs measured under KEY.
rows() {
    local what=$1 key=$2 nginx_name=$3 peer name peers=(nginx proxy varnish)
    [ -z "$before_bin" ] || peers=(before "${peers[@]}")
    for peer in "${peers[@]}"; do
        case $peer in
            before) name="earlier build" ;;
            nginx) name=$nginx_name ;;
            proxy) name="nginx proxy_cache" ;;
            varnish) name="Varnish" ;;
        esac
        echo "| $what | ${rps[gateway,$key]} req/s | $name: ${rps[$peer,$key]} req/s" \
            "| $(ratio "${rps[gateway,$key]}" "${rps[$peer,$key]}") | ${cpu[gateway,$key]} / ${cpu[$peer,$key]} |"
    done
}
for file in "${files[@]}"; do
    size=$(stat -c %s "$site/$file")
    label="$((size / 1024)) KiB"
    [ "$size" -lt 1024 ] && label="$size B"
    rows "gateway hit, $label, wrk -c$connections" "$file" "nginx from disk"
done
if ((miss_every > 0)); then
    rows "gateway, 399 B, 1 request in $miss_every a miss stored, wrk -c$connections" mixed "nginx from disk (no miss)"
fi
