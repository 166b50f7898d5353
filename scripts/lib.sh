# Helpers the benchmark and check scripts share. Sourced, not run.

# require_built BIN_DIR TOOL...: exits the script with an error naming the first TOOL that is not
# built in BIN_DIR, and how to build it.
require_built() {
    local bin=$1 tool
    shift
    for tool in "$@"; do
        [ -x "$bin/$tool" ] || { echo "error: $bin/$tool is missing; run swift build first" >&2; exit 1; }
    done
}

# first_line FILE: prints the first line a background process writes to FILE (its URL), waiting up
# to 10 s; exits the script with an error when none appears.
first_line() {
    for _ in $(seq 100); do
        if [ -s "$1" ]; then head -n 1 "$1"; return; fi
        sleep 0.1
    done
    echo "error: no URL appeared in $1" >&2
    exit 1
}
