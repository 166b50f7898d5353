# The long kill campaign of scripts/fault-campaign.sh (--kills N): N SIGKILLs at random moments of
# randomly chosen commands, each followed by the checks that the command's contract allows.
# Sourced after lib.sh and campaigns.sh.
#
# Each command is three functions, so that another is added by writing them and naming it in
# KILL_COMMANDS:
#   kill_prepare_NAME STORE        makes the store the command starts from
#   kill_start_NAME STORE LOG      starts the command in the background; sets KILL_PID (and may set
#                                  KILL_HELPER_PID, a process stopped with it)
#   kill_lost_NAME STORE BEFORE    prints how many entries the kill lost: what the command may not
#                                  have removed and is gone (BEFORE lists the URLs stored before it)
KILL_COMMANDS=(preload refresh prune serve import)
KILL_PID=""
KILL_HELPER_PID=""

# MARK: - preload: from an empty store or a half-full one; the next preload completes it

kill_prepare_preload() {
    if [ $(( RANDOM % 2 )) = 0 ]; then cp "$KILL_HALF" "$1"; else rm -f "$1"; fi
}
kill_start_preload() {
    "$WC" preload "$WORK/pages.txt" --store "$1" > "$2.out" 2> "$2.err" &
    KILL_PID=$!
}
kill_lost_preload() {
    local store=$1 before=$2 log=$3 gone
    gone=$(comm -23 "$before" <(stored_urls "$store") | wc -l)
    "$WC" preload "$WORK/pages.txt" --store "$store" > "$log.rerun.out" 2> "$log.rerun.err" ||
        note_problem "kills: the preload after a kill exited $? ($log)"
    echo $(( gone + $(missing_count "$WORK/expected.txt" "$store") + $(incomplete_pages "$store") ))
}

# MARK: - refresh: revalidates a complete store; nothing may go

kill_prepare_refresh() { cp "$KILL_FULL" "$1"; }
kill_start_refresh() {
    "$WC" refresh --store "$1" > "$2.out" 2> "$2.err" &
    KILL_PID=$!
}
kill_lost_refresh() { comm -23 "$2" <(stored_urls "$1") | wc -l; }

# MARK: - prune: down to half the size; what a whole prune keeps must all be there

kill_prepare_prune() { cp "$KILL_FULL" "$1"; }
kill_start_prune() {
    "$WC" prune --max-size "$KILL_PRUNE_SIZE" --store "$1" > "$2.out" 2> "$2.err" &
    KILL_PID=$!
}
kill_lost_prune() {
    local after
    after=$(stored_urls "$1")
    # Kept by a whole prune yet gone, or there now though never stored before: both are losses.
    echo $(( $(comm -23 "$KILL_PRUNE_KEPT" <(printf '%s\n' "$after" | sed '/^$/d') | wc -l)
        + $(comm -13 "$2" <(printf '%s\n' "$after" | sed '/^$/d') | wc -l) ))
}

# MARK: - serve: a gateway over a half-full store, with a client asking for 20 URLs through it

kill_prepare_serve() { cp "$KILL_HALF" "$1"; }
kill_start_serve() {
    local store=$1 log=$2
    "$WC" serve --port 0 --store "$store" --upstream "$BASE_URL" > "$log.out" 2> "$log.err" &
    KILL_PID=$!
    (
        for _ in $(seq 100); do [ -s "$log.out" ] && break; sleep 0.02; done
        local gateway
        gateway=$(head -n 1 "$log.out")
        [ -n "$gateway" ] || exit 0
        head -n 20 "$WORK/expected.txt" | sed "s|^$BASE_URL|$gateway|" | while IFS= read -r url; do
            curl -s -o /dev/null --max-time 10 "$url" || exit 0
        done
    ) &
    KILL_HELPER_PID=$!
}
kill_lost_serve() { comm -23 "$2" <(stored_urls "$1") | wc -l; }

# MARK: - import: the complete store's WARC into an empty or half-full store; imported again, all is there

kill_prepare_import() { kill_prepare_preload "$@"; }
kill_start_import() {
    "$WC" import "$KILL_ARCHIVE" --store "$1" > "$2.out" 2> "$2.err" &
    KILL_PID=$!
}
kill_lost_import() {
    local store=$1 before=$2 log=$3 gone
    gone=$(comm -23 "$before" <(stored_urls "$store") | wc -l)
    "$WC" import "$KILL_ARCHIVE" --store "$store" > "$log.rerun.out" 2> "$log.rerun.err" ||
        note_problem "kills: the import after a kill exited $? ($log)"
    echo $(( gone + $(comm -23 "$KILL_FULL_URLS" <(stored_urls "$store") | wc -l) ))
}

# MARK: - The campaign

# kill_duration NAME: how long one whole run of the command takes here, in ms (at least 50).
kill_duration() {
    local name=$1 store="$WORK/kills/duration-$1.sqlite" start code
    "kill_prepare_$name" "$store"
    start=$(now_ms)
    "kill_start_$name" "$store" "$WORK/kills/duration-$name"
    if [ "$name" = serve ]; then
        wait "$KILL_HELPER_PID" 2>/dev/null
        kill -TERM "$KILL_PID" 2>/dev/null
    fi
    wait "$KILL_PID" 2>/dev/null
    code=$?
    [ "$code" = 0 ] || note_problem "kills: the whole $name run to time exited $code"
    local duration=$(( $(now_ms) - start ))
    [ $duration -lt 50 ] && duration=50
    echo "$duration"
}

campaign_kill_mix() {
    local dir="$WORK/kills" trials=$1 faults=0 midwrite=0 lost=0 integrity=0 crashes=0 unclear=0 trial code n
    mkdir -p "$dir"
    KILL_FULL="$dir/full.sqlite"
    KILL_HALF="$dir/half.sqlite"
    make_url_list "$dir/half.txt" 1 $(( PAGES / 2 ))
    "$WC" preload "$WORK/pages.txt" --store "$KILL_FULL" > /dev/null 2> "$dir/full.err" ||
        { echo "Error: The complete store for the kill campaign could not be made: $(cat "$dir/full.err")" >&2; exit 1; }
    "$WC" preload "$dir/half.txt" --store "$KILL_HALF" > /dev/null 2> "$dir/half.err" ||
        { echo "Error: The half store for the kill campaign could not be made: $(cat "$dir/half.err")" >&2; exit 1; }
    KILL_ARCHIVE="$dir/full.warc.gz"
    "$WC" export --warc "$KILL_ARCHIVE" --store "$KILL_FULL" > /dev/null 2> "$dir/export.err" ||
        { echo "Error: The archive for the kill campaign could not be made: $(cat "$dir/export.err")" >&2; exit 1; }
    KILL_FULL_URLS="$dir/full-urls.txt"
    stored_urls "$KILL_FULL" > "$KILL_FULL_URLS"
    KILL_PRUNE_SIZE=$(( $(sqlite3 -readonly "$KILL_FULL" "SELECT entry_bytes FROM store_totals") / 2 ))
    cp "$KILL_FULL" "$dir/pruned.sqlite"
    "$WC" prune --max-size "$KILL_PRUNE_SIZE" --store "$dir/pruned.sqlite" > /dev/null 2>&1
    KILL_PRUNE_KEPT="$dir/prune-kept.txt"
    stored_urls "$dir/pruned.sqlite" > "$KILL_PRUNE_KEPT"

    declare -A durations counts midwrites
    local name
    for name in "${KILL_COMMANDS[@]}"; do
        durations[$name]=$(kill_duration "$name")
        counts[$name]=0
        midwrites[$name]=0
    done

    for trial in $(seq 1 "$trials"); do
        name=${KILL_COMMANDS[$(( RANDOM % ${#KILL_COMMANDS[@]} ))]}
        counts[$name]=$(( counts[$name] + 1 ))
        local store="$dir/trial.sqlite" log="$dir/trial" delay
        rm -f "$store" "$store-wal" "$store-shm" "$log".*
        "kill_prepare_$name" "$store"
        stored_urls "$store" > "$dir/before.txt"
        delay=$(( (RANDOM * 32768 + RANDOM) % ${durations[$name]} ))
        KILL_HELPER_PID=""
        "kill_start_$name" "$store" "$log"
        sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
        if kill -0 "$KILL_PID" 2>/dev/null && kill -KILL "$KILL_PID" 2>/dev/null; then
            faults=$((faults + 1))
        fi
        wait "$KILL_PID" 2>/dev/null
        code=$?
        if [ -n "$KILL_HELPER_PID" ]; then
            kill "$KILL_HELPER_PID" 2>/dev/null
            wait "$KILL_HELPER_PID" 2>/dev/null
        fi
        if ! is_expected_exit "$code" 0 137; then
            crashes=$((crashes + 1)); note_problem "kill trial $trial ($name): the killed command exited $code"
        fi
        # Before anything opens the store again: did the kill leave a write half done?
        if [ -f "$store" ]; then
            local staged pending
            staged=$(sqlite3 -readonly "$store" "SELECT count(*) FROM staging" 2>/dev/null || echo 0)
            pending=$(python3 scripts/faults/wal-uncommitted.py "$store-wal")
            if [ "${staged:-0}" != 0 ] || [ "$pending" != 0 ]; then
                midwrite=$((midwrite + 1)); midwrites[$name]=$(( midwrites[$name] + 1 ))
            fi
        fi
        unclear=$((unclear + $(count_unclear "$log.err" "$store")))
        [ -f "$store" ] || continue
        if ! verify_store "$store" "$log.verify"; then
            integrity=$((integrity + 1)); note_problem "kill trial $trial ($name): verify failed (delay ${delay} ms)"
            cp "$store" "$dir/failed-$trial.sqlite"
        fi
        n=$("kill_lost_$name" "$store" "$dir/before.txt" "$log")
        if [ "$n" != 0 ]; then
            lost=$((lost + n)); note_problem "kill trial $trial ($name): $n entries lost (delay ${delay} ms)"
        fi
        if [ $(( trial % 50 )) = 0 ]; then
            echo "kills: $trial/$trials trials, $faults killed, $midwrite mid-write, $lost lost, $integrity integrity failures, $crashes crashes, $unclear unclear" >&2
        fi
    done
    local per=""
    for name in "${KILL_COMMANDS[@]}"; do
        per+="$name ${counts[$name]} (${midwrites[$name]} mid-write, < ${durations[$name]} ms); "
    done
    KILL_MIDWRITE=$midwrite
    record "kills" "$trials" "$faults" "$lost" "$integrity" "$crashes" "$unclear" \
        "${midwrite} kills mid-write; ${per%; }"
}
