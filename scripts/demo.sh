#!/usr/bin/env bash
# The main job, end to end: serves the bundled example site from a local origin on 127.0.0.1,
# preloads its pages and every sub-resource into the default store, and shows what was stored.
# Run it twice: the second run revalidates with conditional requests instead of downloading again.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
for product in webcache webcache-origin; do
    swift build -c release --product "$product" -Xcc -gdwarf-4 >&2
done
bin="$(swift build -c release --show-bin-path)"

port="${WEBCACHE_DEMO_PORT:-8741}"
"$bin/webcache-origin" --root examples/site --port "$port" >/dev/null &
origin=$!
trap 'kill "$origin" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$origin" 2>/dev/null || { echo "error: the example origin could not start on port $port (set WEBCACHE_DEMO_PORT)" >&2; exit 1; }
    sleep 0.1
done

status=0
"$bin/webcache" preload examples/urls.txt --instance "http://127.0.0.1:$port/" || status=$?
echo
"$bin/webcache" inspect --pages
echo
"$bin/webcache" inspect
exit "$status"
