#!/usr/bin/env bash
# Peak memory of `webimage prefetch` of 100 × 20 MB images served by nginx on 127.0.0.1,
# both ways through the same binary and the same code base:
#   decoded   `--decode`: each body is collected whole in memory and decoded (what
#             prefetch did before issue 15, and still does with --thumbnail);
#   streamed  the default without --thumbnail: each body streams into its cache entry's
#             temporary file as it arrives (256 KiB buffer per download), never decoded.
# Prints the peak RSS of each (GNU time's "Maximum resident set size"), the wall time, and
# the ratio. Each run starts from an empty cache directory; both use --concurrency 8.
#
# Usage: Benchmarks/stream.sh [files (default 100)] [megabytes (default 20)]
# BIN=path/to/webimage picks the binary (default: the debug build, `swift build`).
# Installs nginx and GNU time through scripts/install-deps.sh when missing; starts and stops
# its own nginx on an unused loopback port in a temporary directory. Sends no traffic
# anywhere but 127.0.0.1. Needs files × megabytes of free disk twice (origin links share one
# file; the cache holds a copy).
set -euo pipefail
cd "$(dirname "$0")/.."
files=${1:-100}
megabytes=${2:-20}

[ -x /usr/bin/time ] || scripts/install-deps.sh time
# Pillow, Debian's: Debian 12's pip refuses to install into the system's Python, and a
# `python3` of its own on the PATH (pyenv) does not see Debian's packages.
PYTHON=python3
if ! "$PYTHON" -c 'import PIL' 2>/dev/null; then
    scripts/install-deps.sh python3-pil
    PYTHON=/usr/bin/python3
fi
. Benchmarks/loopback-nginx.sh

if [ -z "${BIN:-}" ]; then
    swift build --product webimage >/dev/null 2>&1
    BIN=$(swift build --show-bin-path)/webimage
fi

work=$(mktemp -d)
cleanup() {
    stop_loopback_nginx "$work"
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/www"

# One JPEG of noise of about $megabytes MB (noise does not compress), hard-linked under
# $files names: distinct URLs, one file's worth of disk.
"$PYTHON" - "$work/www/base.jpg" "$megabytes" <<'PY'
import os, random, sys
from PIL import Image
path, megabytes = sys.argv[1], float(sys.argv[2])
side = int((megabytes * 1024 * 1024 / 2.42) ** 0.5)   # ~2.42 bytes per noise pixel at q95, 4:4:4
random.seed(15)
Image.frombytes("RGB", (side, side), random.randbytes(side * side * 3)).save(path, quality=95, subsampling=0)
PY
for i in $(seq 0 $((files - 1))); do ln "$work/www/base.jpg" "$(printf '%s/www/img%03d.jpg' "$work" "$i")"; done
start_loopback_nginx "$work" "$work/www"
for i in $(seq 0 $((files - 1))); do printf 'http://127.0.0.1:%s/img%03d.jpg\n' "$port" "$i"; done > "$work/urls.txt"
size=$(stat -c %s "$work/www/base.jpg")
dims=$("$PYTHON" -c "from PIL import Image; print('%dx%d' % Image.open('$work/www/base.jpg').size)")

# Runs one prefetch into a fresh cache; prints "peak_kb seconds".
measure() {
    rm -rf "$work/cache"
    /usr/bin/time -v -o "$work/time.txt" "$BIN" prefetch --from "$work/urls.txt" --cache-dir "$work/cache" --concurrency 8 "$@" \
        >"$work/out.txt" 2>"$work/err.txt" || { echo "prefetch $* failed:"; tail -3 "$work/err.txt"; exit 1; }
    local stored
    stored=$(find "$work/cache" -type f -name '*.jpg' | wc -l)
    [ "$stored" = "$files" ] || { echo "prefetch $* stored $stored of $files files"; exit 1; }
    cmp -s "$(find "$work/cache" -type f -name '*.jpg' | head -1)" "$work/www/base.jpg" || { echo "prefetch $* stored different bytes"; exit 1; }
    awk -F': ' '/Maximum resident set size/ { kb = $2 } /Elapsed \(wall clock\)/ { split($2, t, ":"); s = t[1] * 60 + t[2]; if (length(t) == 3) s = t[1] * 3600 + t[2] * 60 + t[3] } END { print kb, s }' "$work/time.txt"
}

# Warm the page cache once.
curl -s "http://127.0.0.1:$port/img000.jpg" -o /dev/null
read -r decoded_kb decoded_s < <(measure --decode)
read -r streamed_kb streamed_s < <(measure)
awk -v n="$files" -v b="$size" -v d="$dims" -v dk="$decoded_kb" -v ds="$decoded_s" -v sk="$streamed_kb" -v ss="$streamed_s" 'BEGIN {
    printf "prefetch %d files of %.1f MB (%s JPEG), 8 at once: peak RSS decoded (--decode) %.0f MB in %.1f s, streamed %.0f MB in %.1f s, ratio decoded/streamed %.1fx\n",
        n, b / 1048576, d, dk / 1024, ds, sk / 1024, ss, dk / sk }'
