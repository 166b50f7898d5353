# Helpers for scripts/fault-campaign.sh: the generated site, the origin, mounts, checks of a store,
# classification of standard error, and the result table. Sourced, not run.

RESULTS=()          # one "campaign|trials|faults|lost|integrity|crashes|unclear|note" line per campaign
MOUNTS=()           # mount points to unmount on exit, innermost last
ORIGIN_PID=""
BASE_URL=""

# MARK: - Site and origin

# make_site DIR PAGES: PAGES HTML pages sharing a style sheet and a script, each with two images of
# its own; every fourth page also has a 300 KB image, so that bodies of several chunks are staged.
make_site() {
    local root=$1 pages=$2 i
    mkdir -p "$root/img"
    printf 'body { background: url(img/bg.png); }\n/* %s */\n' "$(head -c 3000 /dev/urandom | base64 -w0)" \
        > "$root/style.css"
    printf 'console.log("app");\n// %s\n' "$(head -c 6000 /dev/urandom | base64 -w0)" > "$root/app.js"
    head -c 2048 /dev/urandom > "$root/img/bg.png"
    for i in $(seq 1 "$pages"); do
        head -c $(( 8000 + (i * 1237) % 24000 )) /dev/urandom > "$root/img/p$i-a.png"
        head -c $(( 3000 + (i * 731) % 9000 )) /dev/urandom > "$root/img/p$i-b.jpg"
        local hero=""
        if [ $(( i % 4 )) = 0 ]; then
            head -c 300000 /dev/urandom > "$root/img/p$i-hero.png"
            hero="<img src=\"img/p$i-hero.png\">"
        fi
        cat > "$root/page-$i.html" <<EOF
<!doctype html>
<html><head><title>Page $i</title><link rel="stylesheet" href="style.css"><script src="app.js"></script></head>
<body><h1>Page $i</h1><img src="img/p$i-a.png"><img src="img/p$i-b.jpg">$hero
<p>marker-page-$i-$(head -c 600 /dev/urandom | base64 -w0)</p></body></html>
EOF
    done
}

# start_origin DIR LATENCY_MS: serves DIR, sets BASE_URL (ends with '/').
start_origin() {
    local root=$1 latency=$2
    "$ORIGIN_BIN" --root "$root" --latency "$latency" > "$WORK/origin.out" 2> "$WORK/origin.err" &
    ORIGIN_PID=$!
    local tries=0
    while [ ! -s "$WORK/origin.out" ] && [ $tries -lt 100 ]; do sleep 0.05; tries=$((tries + 1)); done
    BASE_URL=$(head -n1 "$WORK/origin.out")
    case "$BASE_URL" in
        http://*) ;;
        *) echo "Error: The origin serving '$root' did not start: $(cat "$WORK/origin.err")" >&2; exit 1 ;;
    esac
    case "$BASE_URL" in */) ;; *) BASE_URL="$BASE_URL/" ;; esac
}

stop_origin() {
    if [ -n "$ORIGIN_PID" ]; then
        kill "$ORIGIN_PID" 2>/dev/null
        wait "$ORIGIN_PID" 2>/dev/null
        ORIGIN_PID=""
    fi
}

# make_url_list FILE [FIRST LAST]: the page URLs (all, or pages FIRST..LAST).
make_url_list() {
    local file=$1 first=${2:-1} last=${3:-$PAGES} i
    : > "$file"
    for i in $(seq "$first" "$last"); do echo "${BASE_URL}page-$i.html" >> "$file"; done
}

# make_expected_list FILE: every URL of the site, sorted: what a complete preload stores.
make_expected_list() {
    (cd "$WORK/site" && find . -type f | sed "s|^\./|$BASE_URL|") | sort > "$1"
}

# MARK: - Mounts

# mount_tmpfs DIR SIZE: a tmpfs of SIZE at DIR; returns 1 (with MOUNT_ERROR set) when it cannot.
mount_tmpfs() {
    local dir=$1 size=$2
    mkdir -p "$dir"
    if MOUNT_ERROR=$(mount -t tmpfs -o "size=$size" tmpfs "$dir" 2>&1); then
        MOUNTS+=("$dir")
        return 0
    fi
    return 1
}

# mount_loop_ext4 DIR SIZE_KB: an ext4 image mounted through a loop device, when tmpfs is refused.
mount_loop_ext4() {
    local dir=$1 kb=$2
    mkdir -p "$dir"
    dd if=/dev/zero of="$dir.img" bs=1k count="$kb" status=none &&
        mkfs.ext4 -q -F "$dir.img" >/dev/null 2>&1 &&
        MOUNT_ERROR=$(mount -o loop "$dir.img" "$dir" 2>&1) || return 1
    MOUNTS+=("$dir")
}

unmount_all() {
    local i
    for (( i=${#MOUNTS[@]}-1; i>=0; i-- )); do umount "${MOUNTS[$i]}" 2>/dev/null; done
    MOUNTS=()
}

# MARK: - Checks of a store

# stored_urls STORE: the URLs of the store's entries, sorted (read with the sqlite3 shell, read-only).
stored_urls() {
    sqlite3 -readonly "$1" "SELECT url FROM entry ORDER BY url" 2>/dev/null | sort
}

# missing_count EXPECTED STORE: how many URLs of the file EXPECTED the store lacks.
missing_count() {
    comm -23 "$1" <(stored_urls "$2") | wc -l
}

# incomplete_pages STORE: preloaded pages that lack a resource or recorded a failure (as page status does).
incomplete_pages() {
    sqlite3 -readonly "$1" "
        SELECT count(DISTINCT p.page_url) FROM page_edge p
        WHERE p.failure IS NOT NULL
           OR NOT EXISTS (SELECT 1 FROM entry e WHERE e.partition = p.partition AND e.url = p.resource_url)
           OR NOT EXISTS (SELECT 1 FROM entry e WHERE e.partition = p.partition AND e.url = p.page_url)" 2>/dev/null ||
        echo 1
}

# verify_store STORE LOG: runs 'webcache verify'; returns its exit code and appends its output to LOG.
verify_store() {
    local store=$1 log=$2 code
    "$WC" verify --store "$store" >> "$log" 2> "$log.verify-err"
    code=$?
    cat "$log.verify-err" >> "$log"
    return $code
}

# MARK: - Standard error

# unclear_lines FILE NAME...: prints the lines of FILE that are not clear messages. A clear message is
# 'Error: …' or 'webcache: failed|skipped|retrying URL: …' naming one of NAME... (the store, a URL, a
# file), or the line 'get' writes on how it served a response; a lock error (SQLITE_BUSY, "database is locked") is never clear: it must not reach a user.
unclear_lines() {
    local file=$1; shift
    local line name named
    [ -f "$file" ] || return 0
    while IFS= read -r line || [ -n "$line" ]; do
        [ -z "$line" ] && continue
        # How 'get' served a response: "webcache: hit 200 URL (…)".
        [[ $line =~ ^webcache:\ (hit|revalidated|network|stale)\ [1-5][0-9][0-9]\ https?:// ]] && continue
        case "$line" in
            *SQLITE_BUSY*|*"database is locked"*|*"SQLite error 5:"*|*"SQLite error 517:"*) echo "$line"; continue ;;
            # Errors, per-URL outcomes, and the library's own warnings and errors: clear when they name the input.
            "Error: "*|"webcache: failed "*|"webcache: skipped "*|"webcache: retrying "*) ;;
            "webcache: warning: "*|"webcache: error: "*) ;;
            *) echo "$line"; continue ;;
        esac
        named=0
        for name in "$@" "$BASE_URL"; do
            case "$line" in *"$name"*) named=1; break ;; esac
        done
        [ $named = 1 ] || echo "$line"
    done < "$file"
}

# count_unclear FILE NAME...: the number of unclear lines; they are also kept in $WORK/unclear.log.
count_unclear() {
    local lines
    lines=$(unclear_lines "$@")
    if [ -n "$lines" ]; then
        printf '%s: %s\n' "$1" "$lines" >> "$WORK/unclear.log"
        printf '%s\n' "$lines" | wc -l
    else
        echo 0
    fi
}

# MARK: - Results

# record CAMPAIGN TRIALS FAULTS LOST INTEGRITY CRASHES UNCLEAR NOTE
record() {
    RESULTS+=("$1|$2|$3|$4|$5|$6|$7|$8")
}

# note_problem TEXT: a line for the problem log printed under the table.
note_problem() {
    echo "$*" >> "$WORK/problems.log"
}

print_table() {
    local failed=0 row campaign trials faults lost integrity crashes unclear note
    printf '\n%-14s %6s %7s %6s %10s %8s %8s  %s\n' campaign trials faults lost integrity crashes unclear note
    for row in "${RESULTS[@]}"; do
        IFS='|' read -r campaign trials faults lost integrity crashes unclear note <<< "$row"
        printf '%-14s %6s %7s %6s %10s %8s %8s  %s\n' \
            "$campaign" "$trials" "$faults" "$lost" "$integrity" "$crashes" "$unclear" "$note"
        if [ "$lost" != 0 ] || [ "$integrity" != 0 ] || [ "$crashes" != 0 ] || [ "$unclear" != 0 ]; then
            failed=1
        fi
    done
    if [ -s "$WORK/problems.log" ]; then
        printf '\nproblems:\n'
        sed 's/^/  /' "$WORK/problems.log"
    fi
    if [ -s "$WORK/unclear.log" ]; then
        printf '\nunclear standard error lines:\n'
        sed 's/^/  /' "$WORK/unclear.log"
    fi
    if [ $failed = 1 ]; then
        printf '\nRESULT: FAIL (entries lost, integrity failures, crashes and unclear errors must all be 0)\n'
        return 1
    fi
    printf '\nRESULT: PASS\n'
}
