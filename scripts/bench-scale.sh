#!/usr/bin/env bash
# Per-URL cost and memory of `webcache preload` as the work grows, beside its peers in the same run.
#
# Two kinds of work, each cold (an empty store) and warm (the same store again, every entry fresh):
#   - lists of N distinct tiny URLs (`--no-requisites`), served by nginx with `Cache-Control:
#     max-age=86400`; the peer is `curl --parallel` fetching the same list to /dev/null (cold), and
#     the goal of 100,000 URLs/s for the warm run (a store lookup each, no request);
#   - generated sites of P pages with 20 images each besides the 23 site-wide requisites, files of
#     1 KB to 8 KB (scripts/generate-site.py --small), served by nginx with the same header; the
#     peer is `wget2 --page-requisites` (cold: an empty folder; warm: the same folder, --timestamping),
#     and for the cold runs also wget2 followed by a sync of the file system it wrote to, at the
#     durability webcache's store has when it exits.
# For each: wall time, peak memory (GNU time's maximum resident set size) and the requests sent
# (webcache's JSON summary; curl's and wget2's own counts). The last row compares the peak memory of
# the largest site with that of the smallest: flat is 1.0, the goal at most 1.2.
# Instructions (valgrind --tool=callgrind, the same figure however busy the machine is) are counted
# for the 10,000-URL runs and the cold and warm run of the smallest site with INSTRUCTIONS=1 when
# valgrind and a C compiler are installed (off by default: it takes minutes), through lib.sh's
# callgrind_count. They move by about 1 % from run to run (group commits form differently), where a
# change to the per-URL path shows in several.
#
# Usage: scripts/bench-scale.sh [BIN_DIR]
#   BIN_DIR holds webcache (default: a release build made here).
#   URLS (default "100 10000 200000") and PAGES (default "100 10000") set the sizes (an empty one,
#   such as PAGES="", leaves that kind of work out);
#   CONCURRENCY (default 16) is the transfers in flight for every tool;
#   ROUNDS (default 3) is how many times the peer's and webcache's cold runs take turns on each list
#   of tiny URLs and on each site: their rows give the run of median wall time of each, and the ratio
#   of the two medians with the lowest and highest of the rounds' own ratios (one run swung from
#   1.47x to 1.97x on a busy machine, and wget2's time on a site follows its file system by a factor
#   of two to four). The warm runs follow the last cold ones: ROUNDS runs over each list of tiny URLs
#   (their median, with the fastest and slowest), once over each site; the peak memory of a site is
#   the highest of its cold rounds.
# Prints one markdown table on standard output; progress goes to standard error.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
url_counts=(${URLS-100 10000 200000})
page_counts=(${PAGES-100 10000})
concurrency=${CONCURRENCY:-16}
rounds=${ROUNDS:-3}
instructions=${INSTRUCTIONS:-0}

bin=$(release_bin "$root" "${1:-}" webcache)
require_built "$bin" webcache
missing=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v wget2 >/dev/null || missing+=(wget2)
[ -x /usr/bin/time ] || missing+=(time)
command -v curl >/dev/null || missing+=(curl)
if ((${#missing[@]})); then "$root/scripts/install-deps.sh" "${missing[@]}" >&2; fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
[[ "$instructions" != 0 ]] && command -v valgrind >/dev/null && c_compiler >/dev/null || instructions=0

work=$(mktemp -d)
chmod 755 "$work"
nginx_pid=""
cleanup() {
    if [[ -n "$nginx_pid" ]]; then kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# The sites, generated once each (the largest first, since it takes longest).
for pages in "${page_counts[@]}"; do
    echo "Generating a site of $pages pages ..." >&2
    python3 "$root/scripts/generate-site.py" "$work/site-$pages" --pages "$pages" --requisites 20 --small >/dev/null
done
chmod -R a+rX "$work"

# nginx: on one port /tiny/… answers every path with 3 bytes; on one port per site, the generated
# site at its root (its pages reference their requisites by absolute paths). Every response may be
# kept for a day, so a second run finds every entry fresh.
port=$(free_port)
site_servers=""
declare -A site_port
for pages in "${page_counts[@]}"; do
    site_port[$pages]=$(free_port)
    site_servers+="    server { listen 127.0.0.1:${site_port[$pages]}; root $work/site-$pages/site; add_header Cache-Control \"max-age=86400\"; }
"
done
mkdir -p "$work/nginx"
{ nginx_prologue "$work"; cat <<NGINX; } >"$work/nginx/nginx.conf"
    keepalive_requests 10000000;
    types { text/html html; text/css css; image/png png; image/jpeg jpg; image/webp webp; image/svg+xml svg;
            font/woff2 woff2; font/woff woff; image/x-icon ico; text/javascript mjs; application/javascript js; application/manifest+json webmanifest; }
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$port;
        root $work;
        add_header Cache-Control "max-age=86400";
        location /tiny/ { default_type text/plain; add_header Cache-Control "max-age=86400"; return 200 "ok\n"; }
    }
$site_servers}
NGINX
"$nginx_bin" -c "$work/nginx/nginx.conf" -p "$work/nginx" 2>"$work/nginx/stderr" &
nginx_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 50); do curl -sf -o /dev/null "$base/tiny/0" && break; sleep 0.1; done

# measure NAME COMMAND...: runs COMMAND timed (lib.sh's timed); its figures go to $work/time-NAME.txt.
measure() {
    local name=$1
    shift
    timed "$work/time-$name.txt" "$@"
}

# count NAME COMMAND...: the instructions COMMAND executes, into $work/instructions-NAME.txt.
count() {
    local name=$1
    shift
    callgrind_count "$work" "$@" >"$work/instructions-$name.txt"
}

preload() {  # NAME STORE URL-FILE [OPTION...]
    local name=$1 store=$2 list=$3
    shift 3
    measure "$name" "$bin/webcache" preload "$list" --store "$store" --concurrency "$concurrency" \
        --per-host "$concurrency" "$@" >"$work/out-$name.txt" 2>"$work/err-$name.txt" || true
}

for n in "${url_counts[@]}"; do
    echo "Lists of $n tiny URLs ..." >&2
    seq 1 "$n" | sed "s|^|$base/tiny/|" >"$work/tiny-$n.txt"
    sed 's|.*|url = "&"\noutput = "/dev/null"|' "$work/tiny-$n.txt" >"$work/tiny-$n.curlrc"
    for round in $(seq "$rounds"); do
        measure "curl-tiny-$n-$round" curl --silent --parallel --parallel-max "$concurrency" \
            --config "$work/tiny-$n.curlrc" --write-out '%{http_code}\n' >"$work/out-curl-tiny-$n-$round.txt" \
            2>/dev/null || true
        rm -f "$work/store-tiny-$n.sqlite"*
        preload "webcache-tiny-$n-cold-$round" "$work/store-tiny-$n.sqlite" "$work/tiny-$n.txt" --no-requisites
    done
    # Warm: the same store again, ROUNDS times (a single run moved by a fifth from one full run to the next).
    for round in $(seq "$rounds"); do
        preload "webcache-tiny-$n-warm-$round" "$work/store-tiny-$n.sqlite" "$work/tiny-$n.txt" --no-requisites
    done
    if [[ "$instructions" != 0 && "$n" == 10000 ]]; then
        echo "Counting instructions for $n URLs ..." >&2
        rm -f "$work/store-count.sqlite"*
        count "webcache-tiny-$n-cold" "$bin/webcache" preload "$work/tiny-$n.txt" --store "$work/store-count.sqlite" \
            --concurrency "$concurrency" --per-host "$concurrency" --no-requisites
        count "webcache-tiny-$n-warm" "$bin/webcache" preload "$work/tiny-$n.txt" --store "$work/store-count.sqlite" \
            --concurrency "$concurrency" --per-host "$concurrency" --no-requisites
    fi
    rm -f "$work/store-tiny-$n.sqlite"* "$work/store-count.sqlite"* "$work/tiny-$n.curlrc"
done

# wget2_arguments NAME FOLDER: sets wget2_args to wget2's arguments over the site of $pages pages
# into FOLDER, its statistics going to the run NAME's file.
wget2_arguments() {
    wget2_args=(--page-requisites --input-file="$work/pages-$pages.txt" --directory-prefix="$2"
        --no-host-directories --timestamping --no-robots --max-threads="$concurrency" --no-verbose
        --stats-site="csv:$work/out-$1.csv")
}

# wget2_site NAME: wget2 over the site of $pages pages into its mirror folder, as the run NAME.
wget2_site() {
    wget2_arguments "$1" "$work/mirror-$pages"
    measure "$1" wget2 "${wget2_args[@]}" >"$work/err-$1.txt" 2>&1 || true
}

# wget2_site_synced NAME: wget2 into a folder of its own, then a sync of the file system it wrote
# to, timed as one run: webcache's store is on disk when it exits (SQLite syncs it at its last
# checkpoint), wget2's files only once the kernel writes them back (as in bench-preload.sh).
wget2_site_synced() {
    local folder="$work/mirror-synced-$pages"
    rm -rf "$folder"
    wget2_arguments "$1" "$folder"
    measure "$1" bash -c 'wget2 "$@" && sync --file-system "$0"' "$folder" "${wget2_args[@]}" \
        >"$work/err-$1.txt" 2>&1 || true
    rm -rf "$folder"
}

for pages in "${page_counts[@]}"; do
    echo "Sites of $pages pages ..." >&2
    sed "s|^|http://127.0.0.1:${site_port[$pages]}/|" "$work/site-$pages/urls.txt" >"$work/pages-$pages.txt"
    for round in $(seq "$rounds"); do
        rm -rf "$work/store-site-$pages.sqlite"* "$work/mirror-$pages"
        preload "webcache-site-$pages-cold-$round" "$work/store-site-$pages.sqlite" "$work/pages-$pages.txt"
        wget2_site "wget2-site-$pages-cold-$round"
        wget2_site_synced "wget2-synced-site-$pages-cold-$round"
    done
    preload "webcache-site-$pages-warm" "$work/store-site-$pages.sqlite" "$work/pages-$pages.txt"
    wget2_site "wget2-site-$pages-warm"
    rm -rf "$work/store-site-$pages.sqlite"* "$work/mirror-$pages"
    if [[ "$instructions" != 0 && "$pages" == "${page_counts[0]}" ]]; then
        echo "Counting instructions for the site of $pages pages ..." >&2
        rm -f "$work/store-count.sqlite"*
        count "webcache-site-$pages-cold" "$bin/webcache" preload "$work/pages-$pages.txt" \
            --store "$work/store-count.sqlite" --concurrency "$concurrency" --per-host "$concurrency"
        count "webcache-site-$pages-warm" "$bin/webcache" preload "$work/pages-$pages.txt" \
            --store "$work/store-count.sqlite" --concurrency "$concurrency" --per-host "$concurrency"
        rm -f "$work/store-count.sqlite"*
    fi
done

PYTHONPATH="$root/scripts" python3 - "$work" "${url_counts[*]}" "${page_counts[*]}" "$instructions" "$rounds" <<'PYTHON'
import csv, json, os, re, sys
import gnu_time

work, url_counts, page_counts, instructions = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4] != "0"
rounds = int(sys.argv[5])

def time_stats(name):
    wall, rss, cpu = gnu_time.stats(os.path.join(work, "time-%s.txt" % name))
    return wall or 0.0, (rss or 0) / 1024.0, cpu

def webcache_summary(name):
    """The requests and failures of webcache's summary (its text, as a user sees it)."""
    text = open(os.path.join(work, "out-%s.txt" % name)).read()
    summary = {}
    requests = re.search(r"in (\d+) request\(s\)", text)
    if requests:
        summary["requests"] = int(requests.group(1))
        failed = re.search(r"^(\d+) failed:", text, re.M)
        summary["failed"] = int(failed.group(1)) if failed else 0
    return summary

def instruction_count(name):
    path = os.path.join(work, "instructions-%s.txt" % name)
    if not instructions or not os.path.exists(path):
        return ""
    text = open(path).read().strip()
    return "{:,}".format(int(text)) if text else ""

def webcache_cell(name):
    wall, rss, cpu = time_stats(name)
    summary = webcache_summary(name)
    failed = summary.get("failed", "?")
    extra = ", %s failed" % failed if failed not in (0, "?") else ("" if summary else ", no summary")
    return wall, "%.3f s (CPU %.2f s), %.0f MB, %s requests%s" % (wall, cpu, rss, summary.get("requests", "?"), extra)

def median_round(names):
    """The name among `names` whose run took the median wall time (the lower middle one of an even count)."""
    return sorted(names, key=lambda name: time_stats(name)[0])[(len(names) - 1) // 2]

def in_rounds(cell, ratio, ours, theirs, peer):
    """`cell` and `ratio` of runs that took turns with `peer`'s: how many rounds, and their own ratios."""
    if rounds > 1:
        cell += ", median of %d rounds in turns with %s" % (rounds, peer)
        each = [time_stats(a)[0] / time_stats(b)[0] for a, b in zip(ours, theirs) if time_stats(b)[0]]
        if ratio and each:
            ratio += " (rounds %.2fx to %.2fx)" % (min(each), max(each))
    return cell, ratio

rows = []
for n in url_counts:
    count = int(n)
    ours = ["webcache-tiny-%s-cold-%d" % (n, number) for number in range(1, rounds + 1)]
    theirs = ["curl-tiny-%s-%d" % (n, number) for number in range(1, rounds + 1)]
    wall, cell = webcache_cell(median_round(ours))
    curl_run = median_round(theirs)
    cwall, crss, ccpu = time_stats(curl_run)
    statuses = open(os.path.join(work, "out-%s.txt" % curl_run)).read().split()
    peer = "curl --parallel: %.3f s (CPU %.2f s), %.0f MB, %d requests" % (cwall, ccpu, crss, len(statuses))
    cell, ratio = in_rounds(cell, "%.2fx" % (wall / cwall) if cwall else "", ours, theirs, "curl")
    rows.append(("%s tiny URLs, cold" % format(count, ","), cell, peer, ratio,
                 instruction_count("webcache-tiny-%s-cold" % n)))
    warm = ["webcache-tiny-%s-warm-%d" % (n, number) for number in range(1, rounds + 1)]
    wall, cell = webcache_cell(median_round(warm))
    if rounds > 1:
        walls = sorted(time_stats(name)[0] for name in warm)
        cell += ", median of %d runs (%.3f s to %.3f s)" % (rounds, walls[0], walls[-1])
    limit = count / 100000.0
    rows.append(("%s tiny URLs, warm (all fresh)" % format(count, ","), cell + ", %s URLs/s" % format(int(count / wall) if wall else 0, ","),
                 "goal: 100,000 URLs/s = %.3f s" % limit, "%.2fx" % (wall / limit),
                 instruction_count("webcache-tiny-%s-warm" % n)))

peaks = {}
for pages in page_counts:
    truth = json.load(open(os.path.join(work, "site-%s" % pages, "truth.json")))
    urls = len(truth["pages"]) + len(truth["requisites"])
    ours = ["webcache-site-%s-cold-%d" % (pages, number) for number in range(1, rounds + 1)]
    theirs = ["wget2-site-%s-cold-%d" % (pages, number) for number in range(1, rounds + 1)]
    peaks[pages] = max(time_stats(name)[1] for name in ours)
    for phase in ["cold", "warm"]:
        name = median_round(ours) if phase == "cold" else "webcache-site-%s-warm" % pages
        wall, cell = webcache_cell(name)
        wname = median_round(theirs) if phase == "cold" else "wget2-site-%s-warm" % pages
        wwall, wrss, wcpu = time_stats(wname)
        with open(os.path.join(work, "out-%s.csv" % wname)) as handle:
            wrequests = sum(1 for _ in csv.DictReader(handle))
        peer = "wget2 -p: %.3f s (CPU %.2f s), %.0f MB, %d requests" % (wwall, wcpu, wrss, wrequests)
        ratio = "%.2fx" % (wall / wwall) if wwall else ""
        if phase == "cold":
            cell, ratio = in_rounds(cell, ratio, ours, theirs, "wget2")
        what = "%s pages × 20 images (%s URLs, 1–8 KB), %s" % (format(int(pages), ","), format(urls, ","), phase)
        rows.append((what, cell, peer, ratio, instruction_count("webcache-site-%s-%s" % (pages, phase))))
        if phase == "cold":
            # The same webcache runs beside wget2 followed by a sync: both on disk at the end.
            synced = ["wget2-synced-site-%s-cold-%d" % (pages, number) for number in range(1, rounds + 1)]
            swall, srss, scpu = time_stats(median_round(synced))
            speer = "wget2 -p, then a sync of its file system: %.3f s (CPU %.2f s), %.0f MB" % (swall, scpu, srss)
            scell, sratio = in_rounds(cell.split(", median of")[0], "%.2fx" % (wall / swall) if swall else "",
                                      ours, synced, "wget2 and its sync")
            rows.append((what + ", at equal durability", scell, speer, sratio, ""))
if len(page_counts) > 1:
    small, large = page_counts[0], page_counts[-1]
    rows.append(("peak memory, cold site (the highest of its rounds): %s pages against %s"
                 % (format(int(large), ","), format(int(small), ",")),
                 "%.0f MB against %.0f MB" % (peaks[large], peaks[small]), "goal: at most 1.2x",
                 "%.2fx" % (peaks[large] / peaks[small]), ""))

print("| what | webcache | peer / limit in the same run | ratio | instructions |")
print("|---|---|---|---:|---:|")
for row in rows:
    print("| %s |" % " | ".join(row))
PYTHON
