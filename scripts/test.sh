#!/usr/bin/env bash
# Installs what is missing, builds everything warning-free, and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
swift build --build-tests -Xswiftc -warnings-as-errors
# The README's library example, a package of its own that depends on this one by path.
swift build --package-path examples/library --scratch-path .build/examples -Xswiftc -warnings-as-errors
# Every test uses Swift Testing; XCTest would only report "Executed 0 tests".
swift test --skip-build --disable-xctest
