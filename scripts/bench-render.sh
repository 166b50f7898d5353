#!/usr/bin/env bash
# Measures `webcache preload --render` against Chromium loading the same pages online, in one run:
#
#   - on the example app (examples/app, signed in) and on a generated site (scripts/generate-site.py):
#     the share of the GET requests Chromium makes online that the preload also made, and the share
#     of the preload's GET requests that Chromium also made (both from the origin's request log);
#   - the static preload beside it on the same pages: its coverage, and its wall time;
#   - rendered pages per second beside the static preload's, on the generated site.
#
# Usage: scripts/bench-render.sh [PAGES] [JOBS]   (default 20 pages, 4 tabs at once)
set -euo pipefail
cd "$(dirname "$0")/.."

pages=${1:-20}
jobs=${2:-4}
command -v chromium >/dev/null || scripts/install-deps.sh chromium

swift build -c release --product webcache -Xcc -gdwarf-4 -Xswiftc -warnings-as-errors >/dev/null
swift build -c release --product webcache-render-bench -Xcc -gdwarf-4 -Xswiftc -warnings-as-errors >/dev/null
bin=$(swift build -c release --show-bin-path)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 scripts/generate-site.py "$work" --pages "$pages" --requisites 10 >"$work/generate.out"
echo "Generated site: $(cat "$work/generate.out"); $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)." >&2

"$bin/webcache-render-bench" --webcache "$bin/webcache" --app examples/app --site "$work/site" \
    --urls "$work/urls.txt" --jobs "$jobs"
