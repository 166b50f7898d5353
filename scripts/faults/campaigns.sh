# The campaigns of scripts/fault-campaign.sh. Sourced after lib.sh; each function records one row.

# now_ms: milliseconds since the epoch.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# is_expected_exit CODE ALLOWED...: whether CODE is one of ALLOWED.
is_expected_exit() {
    local code=$1; shift
    local allowed
    for allowed in "$@"; do [ "$code" = "$allowed" ] && return 0; done
    return 1
}

# MARK: - 1. SIGKILL during preload

campaign_kill() {
    local dir="$WORK/kill" faults=0 lost=0 integrity=0 crashes=0 unclear=0 trial code n
    mkdir -p "$dir"
    local base="$dir/baseline.sqlite" start
    start=$(now_ms)
    "$WC" preload "$WORK/pages.txt" --store "$base" > "$dir/baseline.out" 2> "$dir/baseline.err"
    code=$?
    local duration=$(( $(now_ms) - start ))
    if [ $code != 0 ]; then
        crashes=$((crashes + 1)); note_problem "kill: the baseline preload exited $code"
    fi
    unclear=$((unclear + $(count_unclear "$dir/baseline.err" "$base")))
    [ $duration -lt 100 ] && duration=100
    # A run over a complete store (revalidation) is shorter: its kills are drawn from its own duration.
    cp "$base" "$dir/revalidated.sqlite"
    start=$(now_ms)
    "$WC" preload "$WORK/pages.txt" --store "$dir/revalidated.sqlite" > "$dir/revalidated.out" 2> "$dir/revalidated.err"
    code=$?
    local revalidation=$(( $(now_ms) - start ))
    if [ $code != 0 ]; then
        crashes=$((crashes + 1)); note_problem "kill: the revalidating baseline preload exited $code"
    fi
    unclear=$((unclear + $(count_unclear "$dir/revalidated.err" "$dir/revalidated.sqlite")))
    [ $revalidation -lt 50 ] && revalidation=50

    for trial in $(seq 1 "$KILL_TRIALS"); do
        local store="$dir/trial-$trial.sqlite" delay bound killed=0 attempts=0
        # Odd trials start from nothing (kills hit creation, first saves and staging); even trials start
        # from a complete store (kills hit revalidation and metadata updates).
        if [ $(( trial % 2 )) = 0 ]; then bound=$revalidation; else bound=$duration; fi
        # A run can end before its kill when it is faster than the baseline (which paid for a cold
        # start, or met a busier machine): then it starts over and the kill is drawn again below the
        # delay it missed, down to a kill at once, so that every trial kills a running preload.
        while [ $killed = 0 ] && [ $attempts -lt 30 ]; do
            attempts=$((attempts + 1))
            rm -f "$store" "$store-wal" "$store-shm"
            [ $(( trial % 2 )) = 0 ] && cp "$base" "$store"
            delay=$(( bound > 1 ? RANDOM % bound : 0 ))
            "$WC" preload "$WORK/pages.txt" --store "$store" > "$dir/trial-$trial.out" 2> "$dir/trial-$trial.err" &
            local pid=$!
            sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
            if kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null; then
                killed=1
                faults=$((faults + 1))
            fi
            wait "$pid" 2>/dev/null
            code=$?
            if ! is_expected_exit "$code" 0 137; then
                crashes=$((crashes + 1)); note_problem "kill trial $trial: the killed preload exited $code"
            fi
            unclear=$((unclear + $(count_unclear "$dir/trial-$trial.err" "$store")))
            [ $killed = 1 ] || [ "$code" = 0 ] || break
            bound=$delay
        done
        [ -f "$store" ] || continue

        # After the kill: the store opens and verifies, and nothing half-written shows.
        if ! verify_store "$store" "$dir/trial-$trial.verify"; then
            integrity=$((integrity + 1)); note_problem "kill trial $trial: verify failed after the kill (delay ${delay} ms)"
        fi
        unclear=$((unclear + $(count_unclear "$dir/trial-$trial.verify.verify-err" "$store")))
        stored_urls "$store" > "$dir/trial-$trial.before"

        # The next run completes the work, and keeps what was there.
        "$WC" preload "$WORK/pages.txt" --store "$store" > "$dir/trial-$trial.rerun.out" 2> "$dir/trial-$trial.rerun.err"
        code=$?
        if [ $code != 0 ]; then
            crashes=$((crashes + 1)); note_problem "kill trial $trial: the next preload exited $code"
        fi
        unclear=$((unclear + $(count_unclear "$dir/trial-$trial.rerun.err" "$store")))
        if ! verify_store "$store" "$dir/trial-$trial.verify2"; then
            integrity=$((integrity + 1)); note_problem "kill trial $trial: verify failed after the next preload"
        fi
        n=$(( $(comm -23 "$dir/trial-$trial.before" <(stored_urls "$store") | wc -l) + $(missing_count "$WORK/expected.txt" "$store") ))
        if [ "$n" != 0 ]; then
            lost=$((lost + n)); note_problem "kill trial $trial: $n URL(s) missing after the next preload"
        fi
        n=$(incomplete_pages "$store")
        if [ "$n" != 0 ]; then
            lost=$((lost + n)); note_problem "kill trial $trial: $n page(s) incomplete after the next preload"
        fi
    done
    record "sigkill" "$KILL_TRIALS" "$faults" "$lost" "$integrity" "$crashes" "$unclear" \
        "delay < ${duration} ms (fresh) or < ${revalidation} ms (revalidating), lower after a miss; ${PAGES} pages, $(wc -l < "$WORK/expected.txt") URLs"
}

# MARK: - 2. Full disk

campaign_full_disk() {
    local faults=0 lost=0 integrity=0 crashes=0 unclear=0 code note round
    if [ "$(id -u)" != 0 ]; then
        record "full-disk" 0 0 0 0 0 0 "skipped: mounting a small file system needs root"
        return
    fi
    # Each round fills a new small file system: where the disk fills (a log frame, a checkpoint's
    # page, a body chunk) differs from round to round.
    for round in $(seq 1 "$FULL_DISK_ROUNDS"); do
        local dir="$WORK/full-$round" at="$WORK/full-$round"
        if mount_tmpfs "$dir" 1m; then
            note="tmpfs 1 MiB"
        elif mount_loop_ext4 "$dir" 1024; then
            note="loop ext4 1 MiB"
        else
            record "full-disk" 0 0 0 0 0 0 "skipped: neither tmpfs nor a loop device could be mounted: $MOUNT_ERROR"
            return
        fi
        local store="$dir/store.sqlite"
        make_url_list "$at-first.txt" 1 2
        "$WC" preload "$at-first.txt" --store "$store" > "$at-first.out" 2> "$at-first.err"
        code=$?
        if [ $code != 0 ]; then
            crashes=$((crashes + 1)); note_problem "full-disk round $round: the first preload (2 pages) exited $code"
        fi
        stored_urls "$store" > "$at-earlier"

        # More than fits: a clear error naming the store and saying the disk is full, a failure exit code.
        "$WC" preload "$WORK/pages.txt" --store "$store" > "$at.out" 2> "$at.err"
        code=$?
        faults=$((faults + 1))
        if [ $code = 0 ]; then
            crashes=$((crashes + 1)); note_problem "full-disk round $round: the preload that could not fit exited 0"
        elif ! is_expected_exit "$code" 1; then
            crashes=$((crashes + 1)); note_problem "full-disk round $round: the preload that could not fit exited $code"
        fi
        if ! grep -q "$store.* is full" "$at.err"; then
            unclear=$((unclear + 1))
            note_problem "full-disk round $round: no error line names the store and says the disk is full"
        fi
        unclear=$((unclear + $(count_unclear "$at.err" "$store")))

        # Reading still works on the full disk.
        local first_url
        first_url=$(head -n1 "$at-first.txt")
        if ! "$WC" get "$first_url" --policy cache-only --store "$store" > "$at-get.out" 2> "$at-get.err" ||
            ! cmp -s "$at-get.out" "$WORK/site/page-1.html"; then
            crashes=$((crashes + 1)); note_problem "full-disk round $round: reading a stored page from the full store failed"
        fi
        unclear=$((unclear + $(count_unclear "$at-get.err" "$store")))

        # Free space: the store is intact and the earlier entries are still there; the work can then finish.
        mount -o remount,size=64m "$dir"
        if ! verify_store "$store" "$at.verify"; then
            integrity=$((integrity + 1)); note_problem "full-disk round $round: verify failed after space was freed"
        fi
        local gone
        gone=$(comm -23 "$at-earlier" <(stored_urls "$store") | wc -l)
        [ "$gone" = 0 ] || { lost=$((lost + gone)); note_problem "full-disk round $round: $gone earlier entries are gone"; }
        "$WC" preload "$WORK/pages.txt" --store "$store" > "$at-rerun.out" 2> "$at-rerun.err"
        code=$?
        if [ $code != 0 ]; then
            crashes=$((crashes + 1)); note_problem "full-disk round $round: the preload after freeing space exited $code"
        fi
        unclear=$((unclear + $(count_unclear "$at-rerun.err" "$store")))
        local missing
        missing=$(missing_count "$WORK/expected.txt" "$store")
        [ "$missing" = 0 ] || { lost=$((lost + missing)); note_problem "full-disk round $round: $missing URL(s) missing at the end"; }
        if ! verify_store "$store" "$at.verify2"; then
            integrity=$((integrity + 1)); note_problem "full-disk round $round: verify failed at the end"
        fi
        umount "$dir" && MOUNTS=("${MOUNTS[@]/$dir}")
    done
    record "full-disk" "$FULL_DISK_ROUNDS" "$faults" "$lost" "$integrity" "$crashes" "$unclear" \
        "$note, $FULL_DISK_ROUNDS rounds; exit $code after freeing space"
}

# MARK: - 3. Read-only store

campaign_read_only() {
    local dir="$WORK/ro" faults=0 lost=0 integrity=0 crashes=0 unclear=0 code notes=()
    if [ "$(id -u)" != 0 ]; then
        record "read-only" 0 0 0 0 0 0 "skipped: a read-only mount needs root (root ignores file modes)"
        return
    fi
    if ! mount_tmpfs "$dir" 64m; then
        record "read-only" 0 0 0 0 0 0 "skipped: tmpfs could not be mounted: $MOUNT_ERROR"
        return
    fi
    local store="$dir/store.sqlite"
    make_url_list "$WORK/ro-first.txt" 1 4
    "$WC" preload "$WORK/ro-first.txt" --store "$store" > /dev/null 2> "$WORK/ro-first.err" ||
        { crashes=$((crashes + 1)); note_problem "read-only: the first preload failed"; }
    (cd "$dir" && sha256sum ./* 2>/dev/null) > "$WORK/ro.before"
    if ! MOUNT_ERROR=$(mount -o remount,ro "$dir" 2>&1); then
        umount "$dir"
        record "read-only" 0 0 0 0 0 0 "skipped: the tmpfs could not be made read-only: $MOUNT_ERROR"
        return
    fi
    faults=1

    # Reading works, or fails with a clear error.
    "$WC" get "${BASE_URL}page-2.html" --policy cache-only --store "$store" > "$WORK/ro-get.out" 2> "$WORK/ro-get.err"
    code=$?
    if [ $code = 0 ] && cmp -s "$WORK/ro-get.out" "$WORK/site/page-2.html"; then
        notes+=("get works")
    elif [ $code = 1 ]; then
        notes+=("get: clear error")
    else
        crashes=$((crashes + 1)); note_problem "read-only: get exited $code or served the wrong body"
    fi
    unclear=$((unclear + $(count_unclear "$WORK/ro-get.err" "$store")))
    if "$WC" help inspect > /dev/null 2>&1; then
        "$WC" inspect --pages --store "$store" > "$WORK/ro-inspect.out" 2> "$WORK/ro-inspect.err"
        code=$?
        if [ $code = 0 ]; then notes+=("inspect works"); elif [ $code = 1 ]; then notes+=("inspect: clear error")
        else crashes=$((crashes + 1)); note_problem "read-only: inspect exited $code"; fi
        unclear=$((unclear + $(count_unclear "$WORK/ro-inspect.err" "$store")))
    fi

    # Writing fails with a clear error naming the store.
    "$WC" preload "$WORK/pages.txt" --store "$store" > "$WORK/ro-preload.out" 2> "$WORK/ro-preload.err"
    code=$?
    if [ $code = 0 ]; then
        crashes=$((crashes + 1)); note_problem "read-only: a preload into the read-only store exited 0"
    elif ! is_expected_exit "$code" 1; then
        crashes=$((crashes + 1)); note_problem "read-only: a preload into the read-only store exited $code"
    fi
    if ! grep -q "^Error: .*$store" "$WORK/ro-preload.err"; then
        unclear=$((unclear + 1)); note_problem "read-only: no 'Error: …' line names the store"
    fi
    unclear=$((unclear + $(count_unclear "$WORK/ro-preload.err" "$store")))

    # The store is unchanged, and sound once writable again.
    (cd "$dir" && sha256sum ./* 2>/dev/null) > "$WORK/ro.after"
    if ! cmp -s "$WORK/ro.before" "$WORK/ro.after"; then
        integrity=$((integrity + 1)); note_problem "read-only: the store files changed"
    fi
    mount -o remount,rw "$dir"
    if ! verify_store "$store" "$WORK/ro.verify"; then
        integrity=$((integrity + 1)); note_problem "read-only: verify failed once writable again"
    fi
    lost=$(comm -23 <(sort "$WORK/ro-first.txt") <(stored_urls "$store") | wc -l)
    umount "$dir" && MOUNTS=("${MOUNTS[@]/$dir}")
    local IFS=','
    record "read-only" 1 "$faults" "$lost" "$integrity" "$crashes" "$unclear" "${notes[*]}"
}

# MARK: - 4. Damaged store files

# damage KIND FILE: flips bytes inside one page's body, overwrites the in-use page nearest the middle
# of the file (a free page holds nothing, so damage there is harmless and undetectable), truncates,
# replaces with text, or empties the file.
damage() {
    local kind=$1 file=$2 size offset page
    size=$(stat -c %s "$file")
    case "$kind" in
        flipped-body)
            offset=$(grep -obUa "marker-page-3-" "$file" | head -n1 | cut -d: -f1)
            head -c 16 /dev/urandom | dd of="$file" bs=1 seek=$((offset + 20)) conv=notrunc status=none ;;
        flipped-page)
            local page_size
            page_size=$(sqlite3 -readonly "$file" "PRAGMA page_size")
            page=$(sqlite3 -readonly "$file" "SELECT pageno FROM dbstat WHERE pageno > 1
                ORDER BY abs(pageno - $(( size / 2 / page_size + 1 ))) LIMIT 1")
            head -c "$page_size" /dev/urandom | dd of="$file" bs="$page_size" seek=$(( page - 1 )) conv=notrunc status=none ;;
        truncated) truncate -s $(( size / 2 )) "$file" ;;
        not-sqlite) printf 'This is a text file, not a store.\n' > "$file" ;;
        zero-length) : > "$file" ;;
    esac
}

campaign_corruption() {
    local dir="$WORK/corrupt" faults=0 lost=0 integrity=0 crashes=0 unclear=0 code notes=() kind
    mkdir -p "$dir"
    local good="$dir/good.sqlite"
    make_url_list "$WORK/corrupt-pages.txt" 1 8
    "$WC" preload "$WORK/corrupt-pages.txt" --store "$good" > /dev/null 2> "$dir/good.err" ||
        { crashes=$((crashes + 1)); note_problem "corruption: the preload of the intact store failed"; }
    local total
    total=$(sqlite3 -readonly "$good" "SELECT count(*) FROM entry")
    for kind in flipped-body flipped-page truncated not-sqlite zero-length; do
        local file="$dir/$kind.sqlite" salvaged="$dir/$kind-salvaged.sqlite"
        cp "$good" "$file"
        damage "$kind" "$file"
        faults=$((faults + 1))

        # Detected on open or by verify, with an error naming the file.
        "$WC" verify --store "$file" > "$dir/$kind.verify.out" 2> "$dir/$kind.verify.err"
        code=$?
        if [ $code = 0 ]; then
            integrity=$((integrity + 1)); note_problem "corruption ($kind): verify did not detect the damage"
        elif ! is_expected_exit "$code" 1; then
            crashes=$((crashes + 1)); note_problem "corruption ($kind): verify exited $code"
        fi
        if ! grep -q "^Error: .*$file" "$dir/$kind.verify.err"; then
            unclear=$((unclear + 1)); note_problem "corruption ($kind): verify's error does not name the file"
        fi
        unclear=$((unclear + $(count_unclear "$dir/$kind.verify.err" "$file")))

        # Salvage what is readable into a new store.
        "$WC" salvage "$file" "$salvaged" > "$dir/$kind.salvage.out" 2> "$dir/$kind.salvage.err"
        code=$?
        unclear=$((unclear + $(count_unclear "$dir/$kind.salvage.err" "$file" "$salvaged")))
        case "$kind" in
            not-sqlite|zero-length)
                # Nothing is readable: a clear error, and no new store.
                if [ $code != 1 ] || ! grep -q "^Error: .*$file" "$dir/$kind.salvage.err"; then
                    crashes=$((crashes + 1)); note_problem "corruption ($kind): salvage exited $code without a clear error"
                fi
                notes+=("$kind: refused")
                continue ;;
        esac
        # 0 when everything was saved, 1 when something was lost; the new store holds what was saved.
        if ! is_expected_exit "$code" 0 1 || [ ! -f "$salvaged" ]; then
            crashes=$((crashes + 1)); note_problem "corruption ($kind): salvage exited $code"
            continue
        fi
        if ! verify_store "$salvaged" "$dir/$kind.salvaged.verify"; then
            integrity=$((integrity + 1)); note_problem "corruption ($kind): the salvaged store does not verify"
        fi
        local saved
        saved=$(sqlite3 -readonly "$salvaged" "SELECT count(*) FROM entry")
        notes+=("$kind: $saved/$total saved")
        if [ "$saved" -lt "$total" ] && [ $code = 0 ]; then
            unclear=$((unclear + 1)); note_problem "corruption ($kind): salvage lost entries but exited 0"
        fi
        # Where the damage is known to hit one body, exactly the one entry using it may be lost.
        if [ "$kind" = flipped-body ] && [ $(( total - 1 - saved )) -gt 0 ]; then
            lost=$((lost + total - 1 - saved))
            note_problem "corruption ($kind): $(( total - 1 - saved )) intact entries were not salvaged"
        fi
        # Every salvaged entry is one of the original ones with the original body (verify re-hashed it).
        local foreign
        foreign=$(comm -13 <(stored_urls "$good") <(stored_urls "$salvaged") | wc -l)
        [ "$foreign" = 0 ] || { integrity=$((integrity + 1)); note_problem "corruption ($kind): salvage made up entries"; }
    done
    local IFS=','
    record "corruption" 5 "$faults" "$lost" "$integrity" "$crashes" "$unclear" "${notes[*]}"
}

# MARK: - 5. Concurrent writers and readers

# read_loop STORE URLS_FILE LOOPS OUT: 'webcache get --policy cache-only' on each URL, LOOPS times;
# writes the number of failed reads to OUT and keeps each failure's standard error.
read_loop() {
    local store=$1 urls=$2 loops=$3 out=$4 failures=0 i url
    : > "$out.err"
    for i in $(seq 1 "$loops"); do
        while IFS= read -r url; do
            local file="$WORK/site/${url#"$BASE_URL"}"
            if ! "$WC" get "$url" --policy cache-only --store "$store" > "$out.body" 2> "$out.one-err" ||
                ! cmp -s "$out.body" "$file"; then
                failures=$((failures + 1))
            fi
            cat "$out.one-err" >> "$out.err"
        done < "$urls"
    done
    echo "$failures" > "$out"
}

campaign_concurrency() {
    local dir="$WORK/concurrent" faults=0 lost=0 integrity=0 crashes=0 unclear=0 round code i
    mkdir -p "$dir"
    local third=$(( PAGES / 3 ))
    make_url_list "$dir/a.txt" 1 $(( 2 * third ))
    make_url_list "$dir/b.txt" "$third" "$PAGES"
    make_url_list "$dir/c.txt" 1 "$PAGES"
    make_url_list "$dir/seed.txt" 1 2
    for round in $(seq 1 "$CONCURRENT_ROUNDS"); do
        local store="$dir/round-$round.sqlite"
        "$WC" preload "$dir/seed.txt" --store "$store" > /dev/null 2> "$dir/seed-$round.err" ||
            { crashes=$((crashes + 1)); note_problem "concurrency round $round: the seeding preload failed"; }
        stored_urls "$store" > "$dir/readable-$round.txt"
        local pids=() names=()
        for i in a b c; do
            "$WC" preload "$dir/$i.txt" --store "$store" -j 4 > "$dir/$i-$round.out" 2> "$dir/$i-$round.err" &
            pids+=($!); names+=("preload $i")
        done
        for i in 1 2; do
            read_loop "$store" "$dir/readable-$round.txt" "$READ_LOOPS" "$dir/reader-$i-$round" &
            pids+=($!); names+=("reader $i")
        done
        faults=$((faults + 5))
        for i in "${!pids[@]}"; do
            wait "${pids[$i]}"
            code=$?
            if [ $code != 0 ]; then
                crashes=$((crashes + 1)); note_problem "concurrency round $round: ${names[$i]} exited $code"
            fi
        done
        for i in a b c; do
            unclear=$((unclear + $(count_unclear "$dir/$i-$round.err" "$store")))
        done
        for i in 1 2; do
            local failed
            failed=$(cat "$dir/reader-$i-$round")
            if [ "$failed" != 0 ]; then
                crashes=$((crashes + failed)); note_problem "concurrency round $round: reader $i failed $failed reads"
            fi
            unclear=$((unclear + $(count_unclear "$dir/reader-$i-$round.err" "$store")))
        done
        local missing
        missing=$(missing_count "$WORK/expected.txt" "$store")
        [ "$missing" = 0 ] || { lost=$((lost + missing)); note_problem "concurrency round $round: $missing URL(s) missing"; }
        if ! verify_store "$store" "$dir/round-$round.verify"; then
            integrity=$((integrity + 1)); note_problem "concurrency round $round: verify failed"
        fi
    done
    record "concurrency" "$CONCURRENT_ROUNDS" "$faults" "$lost" "$integrity" "$crashes" "$unclear" \
        "3 preloads + 2 readers ($((READ_LOOPS * $(wc -l < "$dir/readable-1.txt"))) gets each) per round"
}
