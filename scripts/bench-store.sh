#!/usr/bin/env bash
# Builds webcache-bench in release mode and runs the store benchmark:
# (a) hit lookup vs a raw SQLite SELECT, (b) writes per second, (c) pruning 100,000 entries,
# (d) streaming large bodies; `scripts/bench-store.sh --hits` measures (a) alone.
# Run it on a quiet machine; it is not a test and asserts nothing about speed.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product webcache-bench -Xcc -gdwarf-4 -Xswiftc -warnings-as-errors >&2
bin="$(swift build -c release --show-bin-path)/webcache-bench"
"$bin" store "$@"
