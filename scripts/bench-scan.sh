#!/usr/bin/env bash
# HTML and CSS scanning throughput (`webcache-bench scan`: 40 pages of ~100 KB and 20 stylesheets
# of ~60 KB, fed in 16 KiB chunks) beside byte-level reference points over the same bytes, compiled
# here from C: the memory-speed floor (memchr for every `<`, or every `(` in CSS, nothing else)
# and libgumbo (Debian's C HTML5 parser: a full WHATWG tokenizer and tree builder). Instructions per
# byte come from callgrind: the difference between two passes and one, divided by the bytes.
#
# Usage: scripts/bench-scan.sh [BIN_DIR]
#   BIN_DIR holds webcache-bench (default: a release build made here).
#   BEFORE_BIN_DIR, if set, holds a webcache-bench built from an earlier commit, measured as "before".
# Prints one markdown table on stdout; progress goes to stderr.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"

if [ $# -ge 1 ]; then
    bin=$1
else
    (cd "$root" && swift build -c release --product webcache-bench -Xcc -gdwarf-4 >&2)
    bin=$root/.build/release
fi
require_built "$bin" webcache-bench
before=${BEFORE_BIN_DIR:-}
[ -z "$before" ] || require_built "$before" webcache-bench
missing=()
command -v valgrind >/dev/null || missing+=(valgrind)
command -v cc >/dev/null || missing+=(gcc)
[ -f /usr/include/gumbo.h ] || missing+=(libgumbo-dev)
((${#missing[@]} == 0)) || "$root/scripts/install-deps.sh" "${missing[@]}" >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "Writing the corpus and compiling the reference points" >&2
"$bin/webcache-bench" scan --corpus "$work/corpus"

# The floor: reads every file, then finds every `$BYTE` with memchr, best of five passes.
cat >"$work/floor.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
    int byte = argv[1][0], passes = atoi(argv[2]), files = argc - 3;
    char **data = malloc(files * sizeof *data); size_t *size = malloc(files * sizeof *size), total = 0;
    for (int i = 0; i < files; i++) {
        FILE *f = fopen(argv[i + 3], "rb"); fseek(f, 0, SEEK_END); size[i] = ftell(f); rewind(f);
        data[i] = malloc(size[i]); if (fread(data[i], 1, size[i], f) != size[i]) return 1; fclose(f); total += size[i];
    }
    double best = 1e9; long found = 0;
    for (int pass = 0; pass < passes; pass++) {
        double start = now();
        for (int i = 0; i < files; i++) {
            const char *p = data[i], *end = data[i] + size[i];
            while ((p = memchr(p, byte, end - p)) != NULL) { found++; p++; }
        }
        double took = now() - start; if (took < best) best = took;
    }
    printf("%.1f %ld\n", total / 1e6 / best, found);
    return 0;
}
C
# libgumbo: parses every page to a tree and frees it, best of five passes.
cat >"$work/gumbo.c" <<'C'
#include <gumbo.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char **argv) {
    int passes = atoi(argv[1]), files = argc - 2;
    char **data = malloc(files * sizeof *data); size_t *size = malloc(files * sizeof *size), total = 0;
    for (int i = 0; i < files; i++) {
        FILE *f = fopen(argv[i + 2], "rb"); fseek(f, 0, SEEK_END); size[i] = ftell(f); rewind(f);
        data[i] = malloc(size[i]); if (fread(data[i], 1, size[i], f) != size[i]) return 1; fclose(f); total += size[i];
    }
    double best = 1e9;
    for (int pass = 0; pass < passes; pass++) {
        double start = now();
        for (int i = 0; i < files; i++) {
            GumboOutput *output = gumbo_parse_with_options(&kGumboDefaultOptions, data[i], size[i]);
            gumbo_destroy_output(&kGumboDefaultOptions, output);
        }
        double took = now() - start; if (took < best) best = took;
    }
    printf("%.1f\n", total / 1e6 / best);
    return 0;
}
C
cc -O2 -o "$work/floor" "$work/floor.c"
cc -O2 -o "$work/gumbo" "$work/gumbo.c" -lgumbo
pages=("$work"/corpus/page-*.html)
sheets=("$work"/corpus/sheet-*.css)
html_bytes=$(cat "${pages[@]}" | wc -c)
css_bytes=$(cat "${sheets[@]}" | wc -c)

# per_byte BYTES COMMAND_WITH_ONE_PASS COMMAND_WITH_TWO_PASSES: instructions per byte of one pass
# (lib.sh's callgrind_count).
per_byte() {
    local bytes=$1 one two
    one=$(eval "callgrind_count \"\$work\" $2")
    two=$(eval "callgrind_count \"\$work\" $3")
    awk -v a="$one" -v b="$two" -v n="$bytes" 'BEGIN { printf "%.1f", (b - a) / n }'
}

echo "Timing (best of 5 passes each)" >&2
"$bin/webcache-bench" scan --measure >"$work/measure.txt"
read -r _ html_rate _ < <(grep '^html' "$work/measure.txt")
read -r _ css_rate _ < <(grep '^css' "$work/measure.txt")
read -r floor_html _ < <("$work/floor" '<' 5 "${pages[@]}")
read -r floor_css _ < <("$work/floor" '(' 5 "${sheets[@]}")
read -r gumbo_rate < <("$work/gumbo" 5 "${pages[@]}")

echo "Counting instructions with callgrind" >&2
html_ipb=$(per_byte "$html_bytes" "$bin/webcache-bench scan --passes 1 --html" "$bin/webcache-bench scan --passes 2 --html")
css_ipb=$(per_byte "$css_bytes" "$bin/webcache-bench scan --passes 1 --css" "$bin/webcache-bench scan --passes 2 --css")
floor_html_ipb=$(per_byte "$html_bytes" "$work/floor '<' 1 ${pages[*]}" "$work/floor '<' 2 ${pages[*]}")
floor_css_ipb=$(per_byte "$css_bytes" "$work/floor '(' 1 ${sheets[*]}" "$work/floor '(' 2 ${sheets[*]}")
gumbo_ipb=$(per_byte "$html_bytes" "$work/gumbo 1 ${pages[*]}" "$work/gumbo 2 ${pages[*]}")

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3gx", a / b }'; }
mb() { awk -v n="$1" 'BEGIN { printf "%.1f MB", n / 1e6 }'; }
gumbo_version=$(dpkg-query -W -f='${Version}' libgumbo1 2>/dev/null || echo "?")

echo "| what | webcache | peer / limit in the same run | ratio | instructions per byte |"
echo "|---|---|---|---|---|"
echo "| HTML scanning, 40 pages, $(mb "$html_bytes"), 16 KiB chunks | ${html_rate} MB/s | memchr for every \`<\`: ${floor_html} MB/s | $(ratio "$html_rate" "$floor_html") | ${html_ipb} (memchr: ${floor_html_ipb}) |"
echo "| HTML, beside a real HTML5 parser | ${html_rate} MB/s | libgumbo ${gumbo_version} \`gumbo_parse\` (tokenizer and tree): ${gumbo_rate} MB/s | $(ratio "$html_rate" "$gumbo_rate") | ${html_ipb} (gumbo: ${gumbo_ipb}) |"
echo "| CSS scanning, 20 stylesheets, $(mb "$css_bytes"), 16 KiB chunks | ${css_rate} MB/s | memchr for every \`(\`: ${floor_css} MB/s | $(ratio "$css_rate" "$floor_css") | ${css_ipb} (memchr: ${floor_css_ipb}) |"
if [ -n "$before" ]; then
    echo "Measuring the earlier build in $before" >&2
    "$before/webcache-bench" scan --measure >"$work/measure-before.txt"
    read -r _ before_html _ < <(grep '^html' "$work/measure-before.txt")
    read -r _ before_css _ < <(grep '^css' "$work/measure-before.txt")
    before_html_ipb=$(per_byte "$html_bytes" "$before/webcache-bench scan --passes 1 --html" "$before/webcache-bench scan --passes 2 --html")
    before_css_ipb=$(per_byte "$css_bytes" "$before/webcache-bench scan --passes 1 --css" "$before/webcache-bench scan --passes 2 --css")
    echo "| HTML scanning, this build beside the earlier one | ${html_rate} MB/s | before: ${before_html} MB/s | $(ratio "$html_rate" "$before_html") | ${html_ipb} (before: ${before_html_ipb}) |"
    echo "| CSS scanning, this build beside the earlier one | ${css_rate} MB/s | before: ${before_css} MB/s | $(ratio "$css_rate" "$before_css") | ${css_ipb} (before: ${before_css_ipb}) |"
fi
