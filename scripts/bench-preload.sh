#!/usr/bin/env bash
# Compares `webcache preload` with `wget2 --page-requisites` on a generated site served by a local
# webcache-origin, in the same run: P pages, each with the 23 site-wide requisites and K images
# (half shared), 1 KB to 2 MB each. Both tools get the same URL file and the same parallelism, with
# no added latency and with LATENCY_MS added before every response.
#
# Beside them, as the floor: curl fetching every page and requisite of the ground truth (the URLs
# webcache fetches) with the same parallelism, discarding the bodies: no discovery and nothing stored.
#
# And wget2 followed by a sync of the file system it wrote to: webcache's store is on disk when it
# exits (SQLite syncs it at its last checkpoint), wget2's files are not until the kernel writes them
# back, so this row compares the two at equal durability.
#
# For each tool and latency: wall time cold (empty store or folder) and warm (the same store or folder
# again: webcache revalidates, wget2 uses --timestamping), requests and body bytes (the tools' own
# counts: webcache's JSON summary, wget2's --stats-site), peak memory (/usr/bin/time -v), and the
# requisites found against the generator's ground truth. Wall and CPU times are medians of REPEAT
# runs, with the fastest and slowest wall times beside them; CPU time (user + system) is the steadier
# figure on a machine shared with other work.
#
# SITE "common" generates the site with only the references wget2 follows too (generate-site.py
# --common), so that both tools fetch the same URLs and the wall times compare the same work. SITE
# "small" makes every file 1 KB to 8 KB (generate-site.py --small): many small responses.
#
# Usage: scripts/bench-preload.sh [PAGES] [K] [LATENCY_MS] [REPEAT] [PARALLEL] [SITE: full | common | small]
#   BIN_DIR (environment): a folder with release builds of webcache and webcache-origin (default: made here).
set -euo pipefail
cd "$(dirname "$0")/.."

pages=${1:-50}
requisites=${2:-20}
latency=${3:-20}
repeat=${4:-3}
parallel=${5:-6}
site_kind=${6:-full}
case "$site_kind" in
    full) site_option=() ;;
    common) site_option=(--common) ;;
    small) site_option=(--small) ;;
    *) echo "bench-preload.sh: SITE must be 'full', 'common' or 'small', not '$site_kind'." >&2; exit 64 ;;
esac

# Tools: wget2, GNU time and curl come from Debian.
missing=()
command -v wget2 >/dev/null || missing+=(wget2)
[[ -x /usr/bin/time ]] || missing+=(time)
command -v curl >/dev/null || missing+=(curl)
if ((${#missing[@]})); then
    apt-get update >/dev/null
    apt-get install -y "${missing[@]}" >/dev/null
fi

source scripts/lib.sh
bin=$(release_bin "$PWD" "${BIN_DIR:-}" webcache webcache-origin)

work=$(mktemp -d)
origin_pid=""
stop_origin() {
    if [[ -n "$origin_pid" ]]; then
        kill "$origin_pid" 2>/dev/null || true
        wait "$origin_pid" 2>/dev/null || true
        origin_pid=""
    fi
}
cleanup() {
    stop_origin
    rm -rf "$work"
}
trap cleanup EXIT

python3 scripts/generate-site.py "$work" --pages "$pages" --requisites "$requisites" "${site_option[@]}" \
    >"$work/generate.out"
echo "Site: $(cat "$work/generate.out"); $parallel transfers at once for each tool; median of $repeat runs." >&2

start_origin() {
    "$bin/webcache-origin" --root "$work/site" --latency "$1" >"$work/origin.out" &
    origin_pid=$!
    for _ in $(seq 1 100); do [[ -s "$work/origin.out" ]] && break; sleep 0.05; done
    base=$(head -n 1 "$work/origin.out")
    sed "s|^|$base|" "$work/urls.txt" >"$work/absolute-urls.txt"
    # curl's configuration for the floor: every page and requisite, each body to /dev/null.
    python3 - "$work/truth.json" "${base%/}" >"$work/floor.curlrc" <<'PYTHON'
import json, sys
truth = json.load(open(sys.argv[1]))
for path in truth["pages"] + truth["requisites"]:
    print('url = "%s%s"\noutput = "/dev/null"' % (sys.argv[2], path))
PYTHON
}

# measure NAME COMMAND...: runs COMMAND timed (lib.sh's timed); its figures go to $work/time-NAME.txt.
measure() {
    local name=$1
    shift
    timed "$work/time-$name.txt" "$@"
}

run_webcache() {  # name store
    measure "$1" "$bin/webcache" preload "$work/absolute-urls.txt" --store "$2" --json \
        --concurrency "$parallel" --per-host "$parallel" >"$work/out-$1.jsonl" 2>"$work/err-$1.txt" || true
}

run_floor() {  # name
    measure "$1" curl --silent --parallel --parallel-max "$parallel" --config "$work/floor.curlrc" \
        --write-out '%{http_code} %{size_download}\n' >"$work/out-$1.txt" 2>"$work/err-$1.txt" || true
}

run_wget2() {  # name folder
    measure "$1" wget2 --page-requisites --input-file="$work/absolute-urls.txt" --directory-prefix="$2" \
        --no-host-directories --timestamping --no-robots --max-threads="$parallel" --no-verbose \
        --stats-site="csv:$work/out-$1.csv" >"$work/err-$1.txt" 2>&1 || true
}

run_wget2_synced() {  # name folder
    measure "$1" bash -c '"$@" && sync --file-system "$0"' "$2" \
        wget2 --page-requisites --input-file="$work/absolute-urls.txt" --directory-prefix="$2" \
        --no-host-directories --timestamping --no-robots --max-threads="$parallel" --no-verbose \
        --stats-site="csv:$work/out-$1.csv" >"$work/err-$1.txt" 2>&1 || true
}

results="$work/results.tsv"
: >"$results"
for delay in 0 "$latency"; do
    start_origin "$delay"
    for round in $(seq 1 "$repeat"); do
        rm -rf "$work/store-$delay.sqlite"* "$work/mirror-$delay"
        run_webcache "webcache-$delay-cold-$round" "$work/store-$delay.sqlite"
        run_wget2 "wget2-$delay-cold-$round" "$work/mirror-$delay"
        run_webcache "webcache-$delay-warm-$round" "$work/store-$delay.sqlite"
        run_wget2 "wget2-$delay-warm-$round" "$work/mirror-$delay"
        run_floor "floor-$delay-cold-$round"
        rm -rf "$work/mirror-synced-$delay"
        run_wget2_synced "wget2-synced-$delay-cold-$round" "$work/mirror-synced-$delay"
    done
    stop_origin
done

PYTHONPATH=scripts python3 - "$work" "$latency" "$repeat" <<'PYTHON'
import csv, json, os, statistics, sys
import gnu_time

work, latency, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
truth = json.load(open(os.path.join(work, "truth.json")))
requisites = set(truth["requisites"])

def time_stats(name):
    return gnu_time.stats(os.path.join(work, "time-%s.txt" % name))

def path_of(url):
    rest = url.split("://", 1)[-1]
    return "/" + rest.split("/", 1)[1].split("?", 1)[0] if "/" in rest else "/"

def webcache_counts(name):
    requests, body, found, failed = 0, 0, set(), 0
    for line in open(os.path.join(work, "out-%s.jsonl" % name)):
        event = json.loads(line)
        if event["event"] == "fetched":
            found.add(path_of(event["url"]))
        elif event["event"] == "summary":
            requests, body, failed = event["requests"], event["networkBytes"], event["failed"]
    return requests, body, len(found & requisites), failed

def wget2_counts(name, folder):
    requests, body = 0, 0
    with open(os.path.join(work, "out-%s.csv" % name)) as handle:
        for row in csv.DictReader(handle):
            requests += 1
            if row.get("Status") == "200":
                body += int(row.get("Size") or 0)
    found = {path for path in requisites if os.path.isfile(os.path.join(folder, path.lstrip("/")))}
    return requests, body, len(found), 0

def floor_counts(name):
    requests, body, failed = 0, 0, 0
    for line in open(os.path.join(work, "out-%s.txt" % name)):
        status, size = line.split()
        requests += 1
        body += int(size)
        failed += status != "200"
    return requests, body, failed

rows = []
for delay in ["0", latency]:
    for tool in ["webcache", "wget2", "wget2 + sync", "curl (floor)"]:
        for phase in (["cold", "warm"] if tool in ["webcache", "wget2"] else ["cold"]):
            if tool == "curl (floor)":
                names = ["floor-%s-cold-%d" % (delay, round) for round in range(1, repeat + 1)]
                stats = [time_stats(name) for name in names]
                requests, body, failed = floor_counts(names[0])
                walls = [stat[0] for stat in stats]
                rows.append((delay, tool, phase, statistics.median(walls), (min(walls), max(walls)),
                             statistics.median(stat[2] for stat in stats), requests, body,
                             max(stat[1] for stat in stats), None, failed))
                continue
            prefix = {"wget2 + sync": "wget2-synced"}.get(tool, tool)
            names = ["%s-%s-%s-%d" % (prefix, delay, phase, round) for round in range(1, repeat + 1)]
            stats = [time_stats(name) for name in names]
            walls = [stat[0] for stat in stats]
            wall = statistics.median(walls)
            cpu = statistics.median(stat[2] for stat in stats)
            rss = max(stat[1] for stat in stats)
            if tool == "webcache":
                requests, body, found, failed = webcache_counts(names[0])
            else:
                folder = "mirror-synced-%s" % delay if tool == "wget2 + sync" else "mirror-%s" % delay
                requests, body, found, failed = wget2_counts(names[0], os.path.join(work, folder))
            rows.append((delay, tool, phase, wall, (min(walls), max(walls)), cpu, requests, body, rss, found, failed))

cold_bytes = {(row[0], row[1]): row[7] for row in rows if row[2] == "cold"}
print("| latency | tool | run | wall s | wall s, fastest–slowest | CPU s (user+sys) | requests | body bytes "
      "| warm/cold bytes | peak RSS MB | requisites found | failed |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for delay, tool, phase, wall, spread, cpu, requests, body, rss, found, failed in rows:
    cold = cold_bytes[(delay, tool)]
    ratio = "%.2f%%" % (100.0 * body / cold) if phase == "warm" and cold else ""
    found_text = "%d / %d" % (found, len(requisites)) if found is not None else "(given)"
    print("| %s ms | %s | %s | %.2f | %.2f–%.2f | %.2f | %d | %d | %s | %.1f | %s | %d |" % (
        delay, tool, phase, wall, spread[0], spread[1], cpu, requests, body, ratio, rss / 1024.0, found_text,
        failed))
PYTHON
