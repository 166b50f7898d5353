# Helpers the benchmark and check scripts share. Sourced, not run.

# require_built BIN_DIR TOOL...: exits the script with an error naming the first TOOL that is not
# built in BIN_DIR, and how to build it.
require_built() {
    local bin=$1 tool
    shift
    for tool in "$@"; do
        [ -x "$bin/$tool" ] || { echo "error: $bin/$tool is missing; run swift build first" >&2; exit 1; }
    done
}

# first_line FILE: prints the first line a background process writes to FILE (its URL), waiting up
# to 10 s; exits the script with an error when none appears.
first_line() {
    for _ in $(seq 100); do
        if [ -s "$1" ]; then head -n 1 "$1"; return; fi
        sleep 0.1
    done
    echo "error: no URL appeared in $1" >&2
    exit 1
}

# timed REPORT COMMAND...: runs COMMAND under GNU time -v, its report to REPORT, after writing back
# dirty pages (so that no run pays for the writes of the one before it), and adds to the report the
# wall time measured around it to the microsecond, which gnu_time.py prefers: GNU time gives it to
# the hundredth of a second, a tenth of a run of 100 URLs.
timed() {
    local report=$1 start end
    shift
    sync
    start=${EPOCHREALTIME/[.,]/}
    /usr/bin/time -v -o "$report" "$@"
    end=${EPOCHREALTIME/[.,]/}
    printf 'Wall clock time, measured around the command (seconds): %d.%06d\n' \
        $(((end - start) / 1000000)) $(((end - start) % 1000000)) >>"$report"
}

# c_compiler: prints the C compiler to use (cc, else clang); fails when there is none.
c_compiler() {
    command -v cc || command -v clang
}

# callgrind_count WORK COMMAND...: prints the instructions COMMAND executes (callgrind, every thread;
# the command's output dropped, valgrind's in WORK/callgrind.err); prints nothing if valgrind failed.
# With CALLGRIND_APART set to a pattern (awk's), a second figure follows: the instructions of the
# functions whose names match it, their callees not counted.
# valgrind 3.19 stops with an internal error when a Swift program's main thread waits in
# libdispatch's sigsuspend (an async main does), so the command runs with a sigsuspend that waits in
# pause(), built into WORK once. Needs valgrind and a C compiler.
callgrind_count() {
    local work=$1
    shift
    if [ ! -f "$work/pause.so" ]; then
        cat >"$work/pause.c" <<'C'
#include <signal.h>
#include <unistd.h>
int sigsuspend(const sigset_t *mask) { (void)mask; for (;;) pause(); }
C
        "$(c_compiler)" -shared -fPIC -O2 -o "$work/pause.so" "$work/pause.c"
    fi
    rm -f "$work/callgrind.out"
    LD_PRELOAD="$work/pause.so" valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$@" \
        >/dev/null 2>"$work/callgrind.err" || true
    if [ -f "$work/callgrind.out" ]; then
        local total
        total=$(awk '/^summary:/ { print $2 }' "$work/callgrind.out")
        if [ -n "${CALLGRIND_APART:-}" ]; then
            # Lines of callgrind_annotate: "1,234 (5.6%)  file:function [object]".
            echo "$total $(callgrind_annotate --threshold=100 --show=Ir --auto=no "$work/callgrind.out" 2>/dev/null |
                awk -v pattern="$CALLGRIND_APART" '/^ *[0-9,]+ +\( *[0-9.]+%\) / {
                    line = $0; sub(/\([^)]*\)/, "", line); split(line, field, " ")
                    name = field[2]; sub(/^.*:/, "", name)
                    if (field[3] ~ /^\[/ && name ~ pattern) { gsub(/,/, "", field[1]); sum += field[1] }
                } END { print sum + 0 }')"
        else
            echo "$total"
        fi
    fi
    rm -f "$work/callgrind.out"
}

# free_port: prints a TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# release_bin ROOT [BIN_DIR] PRODUCT...: prints BIN_DIR when given, else builds the PRODUCTs in
# release mode in ROOT (progress to stderr) and prints the folder they are in.
# Every release build the scripts make passes -Xcc -gdwarf-4: the C targets' debug information in
# DWARF 4, as Swift's, since valgrind 3.19 (Debian 12) gives up on an executable that mixes Swift's
# with the toolchain clang's DWARF 5 ("Possibly corrupted debuginfo file"). One set of flags for all
# of them, so that one script's build is the next one's.
release_bin() {
    local root=$1 given=$2 product
    shift 2
    if [ -n "$given" ]; then echo "$given"; return; fi
    for product in "$@"; do (cd "$root" && swift build -c release --product "$product" -Xcc -gdwarf-4 >&2); done
    echo "$root/.build/release"
}

# nginx_prologue WORK [WORKERS]: the start of an nginx.conf for a server run in the foreground with
# its pid, error log and temporary files in WORK/nginx, into its http block.
nginx_prologue() {
    cat <<NGINX
worker_processes ${2:-1};
daemon off;
pid $1/nginx/nginx.pid;
error_log $1/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $1/nginx/body;
    proxy_temp_path $1/nginx/proxy;
    fastcgi_temp_path $1/nginx/fastcgi;
    uwsgi_temp_path $1/nginx/uwsgi;
    scgi_temp_path $1/nginx/scgi;
NGINX
}

# chromium_shot CHROMIUM WORK OUTPUT URL [ARG...]: a PNG screenshot of URL in one headless run of
# CHROMIUM with a fresh profile (so its own cache holds nothing) in WORK, a 1024x900 window and a
# fixed time budget; ARGs go to the browser (a proxy). Its log is WORK/chromium.log. Its temporary
# directory is WORK too: the folder it makes there for its singleton socket outlives it.
chromium_shot() {
    local chromium=$1 work=$2 output=$3 url=$4
    shift 4
    TMPDIR="$work" "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$work/profile-$(basename "$output" .png)" --window-size=1024,900 \
        --virtual-time-budget=5000 --screenshot="$output" "$@" "$url" >"$work/chromium.log" 2>&1
}

# start_offline_gateway BIN_DIR STORE WORK: starts `webcache serve --offline` over STORE on a free
# port, its access log in WORK/gateway.out and its errors in WORK/gateway.err; sets gateway_pid and
# gateway (its URL) and adds the process to the script's pids.
start_offline_gateway() {
    "$1/webcache" serve --offline --port 0 --store "$2" >"$3/gateway.out" 2>"$3/gateway.err" &
    gateway_pid=$!
    pids+=("$gateway_pid")
    gateway=$(first_line "$3/gateway.out")
}
