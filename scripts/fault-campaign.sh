#!/usr/bin/env bash
# Process-level fault campaign for webcache: kills, a full disk, a read-only store, damaged store
# files and concurrent processes, each checked for lost entries, integrity failures, crashes and
# unclear errors. Prints one table row per campaign and exits 1 when a must-be-zero column is not 0.
#
# Usage: scripts/fault-campaign.sh [--short | --long | --kills N] [--seed N] [--keep]
#   --short   5 kill trials, a small site (about a minute at most); the default
#   --long    30 kill trials, a larger site, more concurrent rounds
#   --kills N only the long kill campaign: N SIGKILLs at random moments of preload, refresh, prune,
#             serve and import (scripts/faults/kill-mix.sh), each checked for integrity and lost entries
#   --seed N  seed for the random kill delays (default: from the clock; printed)
#   --keep    keep the work folder (printed) for inspection
#
# The binaries come from $WEBCACHE_BIN when set (a folder holding webcache and webcache-origin);
# otherwise the script builds them. The full-disk and read-only campaigns mount small tmpfs
# file systems and need root; without root they are skipped, and the reason is printed.
set -u
cd "$(dirname "$0")/.."
source scripts/faults/lib.sh

mode=short
seed=$(( $(date +%s) % 100000 ))
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --short) mode=short ;;
        --long) mode=long ;;
        --kills)
            mode=kills; kill_trials="${2:-}"; shift
            case "$kill_trials" in ''|*[!0-9]*) echo "Error: The value '$kill_trials' is invalid for '--kills <n>'" >&2; exit 64 ;; esac
            ;;
        --seed) seed="$2"; shift ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "Error: Unknown option '$1'" >&2; exit 64 ;;
    esac
    shift
done
RANDOM=$seed

if [ "$mode" = long ]; then
    KILL_TRIALS=30; PAGES=60; CONCURRENT_ROUNDS=3; READ_LOOPS=20; FULL_DISK_ROUNDS=5
elif [ "$mode" = kills ]; then
    KILL_TRIALS=0; PAGES=12; CONCURRENT_ROUNDS=0; READ_LOOPS=0; FULL_DISK_ROUNDS=0
else
    KILL_TRIALS=5; PAGES=16; CONCURRENT_ROUNDS=1; READ_LOOPS=3; FULL_DISK_ROUNDS=3
fi

if [ -z "${WEBCACHE_BIN:-}" ]; then
    swift build -Xswiftc -warnings-as-errors --product webcache >&2 || exit 1
    swift build -Xswiftc -warnings-as-errors --product webcache-origin >&2 || exit 1
    WEBCACHE_BIN=$(swift build -Xswiftc -warnings-as-errors --show-bin-path)
fi
WC="$WEBCACHE_BIN/webcache"
ORIGIN_BIN="$WEBCACHE_BIN/webcache-origin"
command -v sqlite3 > /dev/null || { echo "Error: The sqlite3 shell is missing; install the Debian package sqlite3." >&2; exit 1; }
for binary in "$WC" "$ORIGIN_BIN"; do
    [ -x "$binary" ] || { echo "Error: The executable '$binary' is missing; build it first." >&2; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/webcache-faults.XXXXXX")
cleanup() {
    stop_origin
    unmount_all
    if [ "$keep" = 1 ]; then echo "work folder kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
echo "fault campaign: mode $mode, seed $seed" >&2

make_site "$WORK/site" "$PAGES"
start_origin "$WORK/site" 5
make_url_list "$WORK/pages.txt"
make_expected_list "$WORK/expected.txt"

source scripts/faults/campaigns.sh
if [ "$mode" = kills ]; then
    command -v curl > /dev/null || { echo "Error: curl is missing; install the Debian package curl." >&2; exit 1; }
    command -v python3 > /dev/null || { echo "Error: python3 is missing; install the Debian package python3." >&2; exit 1; }
    source scripts/faults/kill-mix.sh
    campaign_kill_mix "$kill_trials"
else
    campaign_kill
    campaign_full_disk
    campaign_read_only
    campaign_corruption
    campaign_concurrency
fi

print_table
