#!/usr/bin/env bash
# Compares what static discovery fetches for a device with what headless Chromium requests for the
# same pages with the same viewport and pixel ratio, both as the origin's request log records them.
#
# Usage: scripts/compare-device.sh [--quick] [BIN_DIR]
#   BIN_DIR holds the built webcache and webcache-origin (default .build/debug).
#   --quick: only the phone and desktop profiles (the test suite's run).
# Prints, per page and profile, the requests Chromium made that discovery did not (missed) and those
# discovery made that Chromium did not (extra), then a table of the two goal figures:
#   recall    = share of Chromium's image/style/script/font requests that discovery fetched
#   precision = share of discovery's fetches that Chromium requested too
# for the default device choice and for --all-candidates. Exit 0 when every run completed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
bin=${1:-$root/.build/debug}
pages_dir=${DEVICE_PAGES:-$root/examples/device-pages}
pages=(news.html blog.html shop.html intl.html)
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
    "$root/scripts/install-deps.sh" chromium
    chromium=$(command -v chromium)
fi
require_built "$bin" webcache webcache-origin

work=$(mktemp -d)
origin_pid=
cleanup() {
    [ -n "$origin_pid" ] && kill "$origin_pid" 2>/dev/null || true
    [ -n "${KEEP_WORK:-}" ] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT

"$bin/webcache-origin" --root "$pages_dir" --log "$work/origin.log" >"$work/origin.out" 2>&1 &
origin_pid=$!
origin=$(first_line "$work/origin.out")

# name width height ratio
profiles=("desktop 1280 800 1" "phone 390 844 3")
[ "$quick" = 1 ] || profiles+=("laptop 1440 900 2" "tablet 820 1180 2")

# log_since LINE: the request paths logged after line LINE, the page itself and /favicon.ico left
# out (headless Chromium asks for /favicon.ico when a page names no icon, and does not fetch the
# icons a page names: a favicon is the browser window's, not the page's).
log_since() {
    tail -n +"$(($1 + 1))" "$work/origin.log" | awk '$1 == "GET" { print $2 }' | sed 's/?.*//' |
        grep -v -e '\.html$' -e '^/favicon\.ico$' -e '^/icons/' -e '\.webmanifest$' | sort -u
}

# chromium NAME WIDTH HEIGHT RATIO ARGS...: one headless run with a fresh profile, its temporary
# directory the work folder (the folder it makes there for its singleton socket outlives it).
chromium() {
    local name=$1 width=$2 height=$3 ratio=$4
    shift 4
    TMPDIR="$work" "$chromium" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$work/profile-$name-$RANDOM" --window-size="$width,$height" \
        --force-device-scale-factor="$ratio" --virtual-time-budget=5000 "$@" 2>"$work/chromium.log"
}

printf '%s\n' "# page profile mode chromium discovery common missed extra" >"$work/rows"
for profile in "${profiles[@]}"; do
    read -r name width height ratio <<<"$profile"
    # Headless Chromium's window is at least 500 pixels wide, and its viewport is smaller than its
    # window: discovery is given the viewport Chromium really had, read from a probe page.
    probe='data:text/html,<body><script>document.body.textContent="viewport="+innerWidth+"x"+innerHeight</script>'
    viewport=$(chromium probe "$width" "$height" "$ratio" --dump-dom "$probe" | grep -o 'viewport=[0-9]*x[0-9]*' |
        cut -d= -f2)
    [ -n "$viewport" ] || { echo "error: could not read Chromium's viewport for $name" >&2; exit 1; }
    echo "$name: window ${width}x${height} at ${ratio}x gives Chromium a ${viewport} viewport"
    for page in "${pages[@]}"; do
        lines=$(wc -l <"$work/origin.log")
        # --dump-dom, not --screenshot: a screenshot lays the page out again in another window size.
        chromium "$name" "$width" "$height" "$ratio" --dump-dom "$origin$page" >/dev/null
        log_since "$lines" >"$work/chromium-$page-$name"
        for mode in device all; do
            lines=$(wc -l <"$work/origin.log")
            echo "$origin$page" >"$work/urls.txt"
            extra_args=(--viewport "$viewport" --dpr "$ratio")
            [ "$mode" = all ] && extra_args+=(--all-candidates)
            "$bin/webcache" preload --store "$work/store-$page-$name-$mode.sqlite" "${extra_args[@]}" \
                --json "$work/urls.txt" >"$work/preload-$page-$name-$mode.json" || true
            log_since "$lines" >"$work/discovery-$page-$name-$mode"
            c="$work/chromium-$page-$name"
            d="$work/discovery-$page-$name-$mode"
            common=$(comm -12 "$c" "$d" | wc -l)
            missed=$(comm -23 "$c" "$d")
            extra=$(comm -13 "$c" "$d")
            printf '%s %s %s %d %d %d %d %d\n' "$page" "$name" "$mode" "$(wc -l <"$c")" "$(wc -l <"$d")" \
                "$common" "$(printf '%s' "$missed" | grep -c . || true)" \
                "$(printf '%s' "$extra" | grep -c . || true)" >>"$work/rows"
            if [ "$mode" = device ]; then
                [ -n "$missed" ] && printf 'missed on %s (%s): %s\n' "$page" "$name" "$(echo $missed)"
                [ -n "$extra" ] && printf 'extra on %s (%s): %s\n' "$page" "$name" "$(echo $extra)"
            fi
        done
    done
done

echo
awk '
    /^#/ { next }
    { key = $2 " " $3; chromium[key] += $4; discovery[key] += $5; common[key] += $6
      printf "%-10s %-8s %-14s chromium %3d  discovery %3d  recall %5.1f%%  precision %5.1f%%\n", $1, $2,
          ($3 == "all" ? "all-candidates" : "device"), $4, $5, ($4 ? 100 * $6 / $4 : 100), ($5 ? 100 * $6 / $5 : 100) }
    END {
        print ""
        print "| profile | choice | Chromium requests | discovery fetches | recall | precision |"
        print "|---|---|---:|---:|---:|---:|"
        n = split("desktop phone laptop tablet", order, " ")
        for (i = 1; i <= n; i++) for (m = 1; m <= 2; m++) {
            mode = (m == 1 ? "device" : "all"); key = order[i] " " mode
            if (!(key in chromium)) continue
            printf "| %s | %s | %d | %d | %.1f%% | %.1f%% |\n", order[i], (mode == "all" ? "--all-candidates" : "device"),
                chromium[key], discovery[key], 100 * common[key] / chromium[key], 100 * common[key] / discovery[key]
        }
    }' "$work/rows"
