#!/usr/bin/env bash
# Loads examples/site in headless Chromium through `webcache serve --offline` and checks that
# every sub-resource the browser asked for came from the store, and that the offline page looks
# exactly like the page loaded online (decoded PNG pixels compared).
#
# Usage: scripts/browser-check.sh [BIN_DIR]   (BIN_DIR holds the built webcache and webcache-origin;
#                                              default .build/debug). Exit 0 when every check passes.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
bin=${1:-$root/.build/debug}
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    "$root/scripts/install-deps.sh" chromium
    chromium=$(command -v chromium)
fi
require_built "$bin" webcache webcache-origin

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -n "${KEEP_WORK:-}" ] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT

# 1. The origin, and the store preloaded with the page and everything it needs.
"$bin/webcache-origin" --root "$root/examples/site" >"$work/origin.out" 2>&1 &
pids+=($!)
origin=$(first_line "$work/origin.out")
page="${origin}index.html"
echo "$page" >"$work/urls.txt"
# Icons too: headless Chromium asks for one of the page's touch or manifest icons (img/icon-192.png)
# when it takes a screenshot through a proxy, which the default icon choice leaves out.
"$bin/webcache" preload --icons all --store "$work/store.sqlite" "$work/urls.txt" >/dev/null

# 2. The page online, straight from the origin.
chromium_shot "$chromium" "$work" "$work/online.png" "$page"

# 3. The origin goes away; the page through the gateway, offline.
kill "${pids[0]}"
wait "${pids[0]}" 2>/dev/null || true
start_offline_gateway "$bin" "$work/store.sqlite" "$work"
chromium_shot "$chromium" "$work" "$work/offline.png" "$page" --proxy-server="${gateway%/}" --proxy-bypass-list='<-loopback>'
kill -TERM "$gateway_pid"
status=0
wait "$gateway_pid" || status=$?
[ "$status" -eq 0 ] || { echo "FAIL: the gateway exited with $status on SIGTERM" >&2; exit 1; }

# 4. Every request the browser made for the site was answered from the store. Chromium's own
#    background traffic (time, component updates, accounts) also goes to the proxy; it is listed
#    but not part of the page.
tail -n +2 "$work/gateway.out" >"$work/all-requests.log"
awk -v origin="$origin" 'index($2, origin) == 1' "$work/all-requests.log" >"$work/access.log"
echo "Requests for the site that the browser sent through the gateway:"
sed 's/^/  /' "$work/access.log"
if ! cmp -s "$work/all-requests.log" "$work/access.log"; then
    echo "Browser background requests (not part of the page, not checked):"
    awk -v origin="$origin" 'index($2, origin) != 1' "$work/all-requests.log" | cut -c1-120 | sed 's/^/  /'
fi
requests=$(wc -l <"$work/access.log")
from_store=$(awk '($3 == 200 || $3 == 304) && ($4 == "hit" || $4 == "stale" || $4 == "revalidated")' "$work/access.log" | wc -l)
[ "$requests" -ge 5 ] || { echo "FAIL: only $requests requests reached the gateway" >&2; exit 1; }
[ "$requests" -eq "$from_store" ] || { echo "FAIL: $((requests - from_store)) of $requests requests were not served from the store" >&2; exit 1; }
echo "PASS: all $requests requests were served from the store"

# 5. The offline screenshot shows the same pixels as the online one.
python3 "$root/scripts/same_pixels.py" "$work/online.png" "$work/offline.png" "the offline page" "the online one"
