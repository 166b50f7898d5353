#!/usr/bin/env bash
# Installs the Debian packages webcache needs to build and test, skipping those already present.
# Usage: scripts/install-deps.sh [extra-package ...]
set -euo pipefail

# libmimalloc-dev: the memory allocator the webcache executable links (the CMimalloc target in Package.swift).
# libdeflate-dev: the CRC-32 of the store's body chunks (the same as zlib's, several times faster).
# sqlite3: the shell that scripts/fault-campaign.sh (and the FaultTests target) reads stores with.
# openssl: the TLS server the transport's certificate tests start.
# nginx: the HTTP/2 server the preload engine's stream-limit tests start in front of a local origin.
# chromium: the browser that preload --render and view drive, that the Rendering tests start, and
# that the browser checks (scripts/browser-check.sh, scripts/video-seek-check.sh) and the
# device-profile check (scripts/compare-device.sh) use.
# ffmpeg: makes the small WebM video the video check plays through the gateway.
# wget: writes the WARC files the archive tests import; python3-venv: the environment warcio is installed in.
# xvfb, xdotool: the X server the windowed view test opens Chromium on, and the clicks and keys it sends.
# iproute2: the network namespace of the DNS-rebinding tests.
packages=(libsqlite3-dev libcurl4-openssl-dev libpsl-dev libmicrohttpd-dev libssl-dev zlib1g-dev libdeflate-dev
          libmimalloc-dev pkg-config sqlite3 openssl nginx chromium ffmpeg wget python3 python3-venv xvfb xdotool
          iproute2 "$@")
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "Installing: ${missing[*]}" >&2
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "error: the Swift toolchain (6.2 or later) is not on PATH" >&2; exit 1; }

# warcio and pywb, from PyPI, in a virtual environment under .build: the archive tests check every
# exported WARC file with `warcio check` and `warcio index`, and scripts/pywb-check.sh replays one in
# pywb. Made once; skipped when present.
venv="$(dirname "$0")/../.build/venv"
if [ ! -x "$venv/bin/warcio" ] || [ ! -x "$venv/bin/wayback" ]; then
    echo "Installing warcio and pywb into $venv" >&2
    [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet warcio pywb
fi
