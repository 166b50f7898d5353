#!/usr/bin/env bash
# Requests per second and latency of cache hits through `webcache serve`, beside nginx serving the
# same files from disk, on this machine in the same run. The gateway runs as a reverse proxy
# (--upstream) in front of webcache-origin, with everything already stored and fresh, so every
# measured request is a hit; nginx reads the files directly.
#
# Usage: scripts/bench-gateway.sh [BIN_DIR]
#   BIN_DIR holds webcache and webcache-origin (default: a release build made here).
#   DURATION (seconds per run, default 10), CONNECTIONS (default 16) and THREADS (default 2)
#   tune the load generator: wrk, else ab, else curl --parallel.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
duration=${DURATION:-10}
connections=${CONNECTIONS:-16}
threads=${THREADS:-2}

if [ $# -ge 1 ]; then
    bin=$1
else
    (cd "$root" && swift build -c release --product webcache >&2 && swift build -c release --product webcache-origin >&2)
    bin=$root/.build/release
fi
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || "$root/scripts/install-deps.sh" nginx
command -v wrk >/dev/null || command -v ab >/dev/null || "$root/scripts/install-deps.sh" wrk || true
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

# The files: a small stylesheet, a 112 KB image from examples/site, and 1 MiB of random bytes
# (named .png so that the origin marks it cacheable for a year, like the others).
site=$work/site
mkdir -p "$site/css" "$site/img"
cp "$root/examples/site/css/main.css" "$site/css/main.css"
cp "$root/examples/site/img/harbour-960.png" "$site/img/harbour-960.png"
head -c 1048576 /dev/urandom >"$site/img/large.png"
chmod -R a+rX "$site"
files=(css/main.css img/harbour-960.png img/large.png)

# The origin, and the store holding every file.
"$bin/webcache-origin" --root "$site" >"$work/origin.out" 2>&1 &
pids+=($!)
origin=$(first_line "$work/origin.out")
for file in "${files[@]}"; do echo "$origin$file"; done >"$work/urls.txt"
"$bin/webcache" preload --no-requisites --store "$work/store.sqlite" "$work/urls.txt" >/dev/null

# The gateway as a reverse proxy; its access log goes nowhere (nginx logs nothing either).
"$bin/webcache" serve --port 0 --upstream "$origin" --store "$work/store.sqlite" >"$work/gateway.out" 2>"$work/gateway.err" &
pids+=($!)
gateway=$(first_line "$work/gateway.out")
gateway=${gateway%/}
for file in "${files[@]}"; do
    served=$(curl -s -o /dev/null -D - "$gateway/$file" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-webcache" {print $2}')
    [ "$served" = "hit" ] || { echo "error: $file is served as '$served', not as a hit" >&2; exit 1; }
done
: >"$work/gateway.out"   # truncating keeps the log from growing during the runs

# nginx on the same files.
nginx_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<NGINX
worker_processes auto;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    keepalive_requests 1000000;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    server {
        listen 127.0.0.1:$nginx_port;
        root $site;
    }
}
NGINX
"$nginx_bin" -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$nginx_port/css/main.css" && break; sleep 0.1; done

# One run: prints "requests/s avg-latency p50 p99" (latencies in ms).
measure() {
    local url=$1
    if command -v wrk >/dev/null; then
        wrk -t"$threads" -c"$connections" -d"${duration}s" --latency "$url" | awk '
            function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
            /^ +Latency +[0-9]/ { avg = ms($2) }
            /^ +50%/ { p50 = ms($2) }
            /^ +99%/ { p99 = ms($2) }
            /^Requests\/sec/ { rps = $2 }
            END { printf "%.0f %.2f %.2f %.2f\n", rps, avg, p50, p99 }'
    elif command -v ab >/dev/null; then
        ab -q -k -c "$connections" -t "$duration" -n 10000000 "$url" | awk '
            /^Requests per second/ { rps = $4 }
            /^Time per request:.*\(mean\)$/ { avg = $4 }
            /^  50%/ { p50 = $2 }
            /^  99%/ { p99 = $2 }
            END { printf "%.0f %.2f %.2f %.2f\n", rps, avg, p50, p99 }'
    else
        local count=$((connections * 200)) start end
        start=$(date +%s.%N)
        seq "$count" | sed "s|.*|url = \"$url\"\noutput = /dev/null|" >"$work/curl.cfg"
        curl -s --parallel --parallel-max "$connections" -K "$work/curl.cfg"
        end=$(date +%s.%N)
        python3 -c "t = $end - $start; print(f'{$count / t:.0f} {t * 1000 * $connections / $count:.2f} - -')"
    fi
}

generator=$(command -v wrk >/dev/null && echo "wrk -t$threads -c$connections -d${duration}s" \
    || (command -v ab >/dev/null && echo "ab -k -c$connections -t$duration") || echo "curl --parallel")
echo "Cache hits through webcache serve vs nginx from disk; $(nproc) cores; load: $generator"
printf '%-30s %-8s %12s %10s %10s %10s\n' "file" "server" "requests/s" "avg ms" "p50 ms" "p99 ms"
for file in "${files[@]}"; do
    size=$(stat -c %s "$site/$file")
    label="$file ($((size / 1024)) KiB)"
    [ "$size" -lt 1024 ] && label="$file ($size B)"
    read -r rps avg p50 p99 < <(measure "$gateway/$file")
    printf '%-30s %-8s %12s %10s %10s %10s\n' "$label" "gateway" "$rps" "$avg" "$p50" "$p99"
    read -r rps avg p50 p99 < <(measure "http://127.0.0.1:$nginx_port/$file")
    printf '%-30s %-8s %12s %10s %10s %10s\n' "" "nginx" "$rps" "$avg" "$p50" "$p99"
done
