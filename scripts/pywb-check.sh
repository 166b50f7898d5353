#!/usr/bin/env bash
# Replays a webcache WARC export in pywb, the web archives' replay tool, and checks that headless
# Chromium shows the same pixels there as through webcache's own offline gateway: examples/site is
# preloaded from a local origin, the origin goes away, the page is shot through `webcache serve
# --offline`, then the store is exported with `webcache export --warc`, added to a pywb collection
# and shot as pywb replays it (its rewriting replay, frameless, which pywb serves without a banner:
# `/COLLECTION/URL`). It also checks that pywb found every resource the page asked it for in the export.
#
# Usage: scripts/pywb-check.sh [BIN_DIR]   (BIN_DIR holds the built webcache and webcache-origin;
#                                           default .build/debug). pywb comes from the virtual
# environment scripts/install-deps.sh makes in .build/venv. Exit 0 when every check passes.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
bin=${1:-$root/.build/debug}
venv="$root/.build/venv"
[ -x "$venv/bin/wayback" ] || "$root/scripts/install-deps.sh"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "error: Chromium is missing; run scripts/install-deps.sh" >&2; exit 1; }
require_built "$bin" webcache webcache-origin

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    [ -n "${KEEP_WORK:-}" ] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT

# 1. The store, preloaded with the page and everything it needs (icons too: headless Chromium asks
#    for one when it takes a screenshot), then the origin goes away.
"$bin/webcache-origin" --root "$root/examples/site" >"$work/origin.out" 2>&1 &
origin_pid=$!
pids+=("$origin_pid")
origin=$(first_line "$work/origin.out")
page="${origin}index.html"
echo "$page" >"$work/urls.txt"
"$bin/webcache" preload --icons all --store "$work/store.sqlite" "$work/urls.txt" >/dev/null
kill "$origin_pid"
wait "$origin_pid" 2>/dev/null || true

# 2. webcache's offline page: through the gateway, from the store alone.
start_offline_gateway "$bin" "$work/store.sqlite" "$work"
chromium_shot "$chromium" "$work" "$work/webcache.png" "$page" --proxy-server="${gateway%/}" \
    --proxy-bypass-list='<-loopback>'
kill -TERM "$gateway_pid"
wait "$gateway_pid" 2>/dev/null || true

# 3. The export, in a pywb collection, replayed by pywb's own server.
"$bin/webcache" export --warc "$work/site.warc.gz" --store "$work/store.sqlite" >"$work/export.out"
mkdir "$work/pywb"
echo "framed_replay: false" >"$work/pywb/config.yaml"
(cd "$work/pywb" && "$venv/bin/wb-manager" init site >/dev/null 2>&1 &&
    "$venv/bin/wb-manager" add site "$work/site.warc.gz" >"$work/wb-manager.log" 2>&1) ||
    { echo "FAIL: pywb could not add the export to a collection:" >&2; cat "$work/wb-manager.log" >&2; exit 1; }
port=$(free_port)
"$venv/bin/wayback" --bind 127.0.0.1 --port "$port" --directory "$work/pywb" >"$work/pywb.log" 2>&1 &
pids+=($!)
replay="http://127.0.0.1:$port/site"
for _ in $(seq 300); do
    curl -s -o /dev/null "$replay/" && break
    sleep 0.1
done
curl -s -o /dev/null "$replay/" || { echo "FAIL: pywb did not start:" >&2; cat "$work/pywb.log" >&2; exit 1; }
chromium_shot "$chromium" "$work" "$work/pywb.png" "$replay/$page"

# 4. pywb answered every replayed resource from the export: its log lists each request with its
#    status, and none of the page's got a 404 (not in the archive).
grep -E "\"GET /site/([a-z]+_/)?https?://" "$work/pywb.log" >"$work/replayed.log" || true
replayed=$(wc -l <"$work/replayed.log")
missing=$(grep -cE '" 404 ' "$work/replayed.log" || true)
echo "Requests the browser sent to pywb for the site: $replayed"
[ "$replayed" -ge 5 ] || { echo "FAIL: only $replayed requests reached pywb" >&2; cat "$work/pywb.log" >&2; exit 1; }
[ "$missing" -eq 0 ] || { echo "FAIL: pywb found $missing of them not in the export:" >&2; grep '" 404 ' "$work/replayed.log" >&2; exit 1; }
echo "PASS: pywb found all $replayed in the export"

# 5. The same pixels.
python3 "$root/scripts/same_pixels.py" "$work/webcache.png" "$work/pywb.png" \
    "the page replayed by pywb" "webcache's offline page"
