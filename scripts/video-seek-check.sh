#!/usr/bin/env bash
# Plays a small WebM video in headless Chromium through `webcache serve --offline` and seeks to its
# middle: every request the browser makes for the video must be answered from the store with 206
# Partial Content (or 304, when the browser asks again for bytes it holds, conditionally), and the
# seek must complete (the page reports `seeked` at the middle).
#
# The video is made here with ffmpeg (a few seconds of a test pattern with noise, so that it does
# not compress to nothing and the browser has to ask for ranges), preloaded from a local origin
# with its page, and the origin is stopped before the browser starts.
#
# Usage: scripts/video-seek-check.sh [BIN_DIR]   (BIN_DIR holds the built webcache and webcache-origin;
#                                                default .build/debug). Exit 0 when every check passes.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
bin=${1:-$root/.build/debug}
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ] || ! command -v ffmpeg >/dev/null; then
    "$root/scripts/install-deps.sh"
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

# 1. The site: a page with a <video> whose script seeks to the middle once the metadata is known,
#    and reports `seeked` (or an error) by loading an image whose URL says so: the gateway logs it.
mkdir -p "$work/site"
ffmpeg -hide_banner -loglevel error -f lavfi -i "testsrc2=duration=6:size=320x240:rate=25" \
    -vf "noise=alls=60:allf=t" -c:v libvpx -b:v 6M -minrate 6M -maxrate 6M -g 25 -deadline realtime \
    -cpu-used 8 -an "$work/site/clip.webm"
cat >"$work/site/index.html" <<'HTML'
<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>loading</title></head>
<body>
<video id="clip" src="clip.webm" preload="metadata" muted></video>
<script>
  const video = document.getElementById("clip");
  const signal = (what) => { document.title = what; new Image().src = "signal?" + what; };
  video.addEventListener("loadedmetadata", () => { video.currentTime = video.duration / 2; });
  video.addEventListener("seeked", () => signal("seeked-" + video.currentTime.toFixed(1)));
  video.addEventListener("error", () => signal("error-" + (video.error ? video.error.code : "unknown")));
</script>
</body></html>
HTML
size=$(stat -c %s "$work/site/clip.webm")
echo "Made a 6 s WebM of $size bytes."

# 2. The origin, and the store preloaded with the page and the video.
"$bin/webcache-origin" --root "$work/site" >"$work/origin.out" 2>&1 &
pids+=($!)
origin=$(first_line "$work/origin.out")
printf '%s\n%s\n' "${origin}index.html" "${origin}clip.webm" >"$work/urls.txt"
"$bin/webcache" preload --store "$work/store.sqlite" "$work/urls.txt" >/dev/null
kill "${pids[0]}"
wait "${pids[0]}" 2>/dev/null || true

# 3. The gateway, offline, and the browser through it, until the page signals.
start_offline_gateway "$bin" "$work/store.sqlite" "$work"
# Its temporary directory in the work folder: the folder it makes there for its singleton socket
# outlives it.
TMPDIR="$work" "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --autoplay-policy=no-user-gesture-required \
    --user-data-dir="$work/profile" --proxy-server="${gateway%/}" --proxy-bypass-list='<-loopback>' \
    --remote-debugging-port=0 "${origin}index.html" >"$work/chromium.log" 2>&1 &
browser_pid=$!
pids+=("$browser_pid")
# A safety net of 60 s, not a measure: the check is the signal itself.
for _ in $(seq 600); do
    grep -q "${origin}signal?" "$work/gateway.out" && break
    sleep 0.1
done
kill "$browser_pid" 2>/dev/null || true
wait "$browser_pid" 2>/dev/null || true
kill -TERM "$gateway_pid"
wait "$gateway_pid" || true

# 4. What the browser asked, and how it was answered.
tail -n +2 "$work/gateway.out" | awk -v origin="$origin" 'index($2, origin) == 1' >"$work/access.log"
echo "Requests for the site that the browser sent through the gateway:"
sed 's/^/  /' "$work/access.log"
signal=$(awk -v prefix="${origin}signal?" 'index($2, prefix) == 1 { print substr($2, length(prefix) + 1); exit }' \
    "$work/access.log")
[ -n "$signal" ] || { echo "FAIL: the page never reported a seek" >&2; exit 1; }
[[ "$signal" == seeked-3.0 ]] || { echo "FAIL: the page reported '$signal', not a seek to the middle (3.0 s)" >&2; exit 1; }
echo "PASS: the video was sought to its middle ($signal)"
video=$(awk -v url="${origin}clip.webm" '$2 == url' "$work/access.log")
requests=$(printf '%s\n' "$video" | grep -c . || true)
partial=$(printf '%s\n' "$video" | awk '$3 == 206 && ($4 == "hit" || $4 == "stale")' | grep -c . || true)
# Chromium's media cache may ask again for bytes it holds, conditionally: a 304 from the store answers
# that (RFC 9110 §13.2.2: If-None-Match comes before Range), without sending the bytes again.
confirmed=$(printf '%s\n' "$video" | awk '$3 == 304 && ($4 == "hit" || $4 == "stale")' | grep -c . || true)
[ "$partial" -ge 2 ] || { echo "FAIL: only $partial ranges of the video were asked; seeking asked for none" >&2; exit 1; }
[ "$requests" -eq $((partial + confirmed)) ] || {
    echo "FAIL: $((requests - partial - confirmed)) of $requests requests for the video were not answered 206" \
        "(or 304 to a conditional request) from the store" >&2
    exit 1
}
echo "PASS: all $requests requests for the video were answered from the store: $partial ranges (206)," \
    "$confirmed confirmed (304)"
# The page is HTML, stored with no-cache: offline it is served stale.
page=$(awk -v url="${origin}index.html" '$2 == url && $3 == 200 && ($4 == "hit" || $4 == "stale")' \
    "$work/access.log" | grep -c . || true)
[ "$page" -ge 1 ] || { echo "FAIL: the page was not served from the store" >&2; exit 1; }
echo "PASS: the page came from the store"
