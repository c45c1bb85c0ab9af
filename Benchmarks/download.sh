#!/usr/bin/env bash
# Downloader benchmark: 1,000 images of ~100 KB served by nginx on 127.0.0.1, fetched by
# our Downloader (6 at once) and by `curl --parallel --parallel-max 6`; then 100 concurrent
# callers of one URL, counting the origin's hits in nginx's access log.
#
# Usage: Benchmarks/download.sh [files (default 1000)]; ROUNDS=N for more rounds than 3.
# WRAP="perf record -g -o /tmp/bench.perf" runs our side under a profiler. Also prints, for
# reference, the same list through AsyncHTTPClient alone (download-bench raw), bodies
# dropped and bodies kept; the last is issue 15's reference (ours >= 0.85x its throughput),
# driven in 6 lanes and, like ours by default, with every request handed over at once.
# The rounds alternate ours, curl, raw, raw --keep in lanes, ours in lanes (6 tasks each loading its
# share in turn, exactly as raw drives AsyncHTTPClient), raw --keep queued and the coalescing floor (the least
# a downloader over the same client can add: download-bench floor), so a load change hits
# all of them.
# Installs nginx and Pillow through scripts/install-deps.sh when missing, builds download-bench in
# release mode, and starts and stops its own nginx on an unused loopback port in a
# temporary directory. Sends no traffic anywhere but 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
files=${1:-1000}

. Benchmarks/loopback-nginx.sh
# Pillow, Debian's: Debian 12's pip refuses to install into the system's Python, and a
# `python3` of its own on the PATH (pyenv) does not see Debian's packages.
PYTHON=python3
if ! "$PYTHON" -c 'import PIL' 2>/dev/null; then
    scripts/install-deps.sh python3-pil
    PYTHON=/usr/bin/python3
fi

swift build -c release --product download-bench >/dev/null 2>&1
BENCH=$(swift build -c release --show-bin-path)/download-bench

work=$(mktemp -d)
cleanup() {
    stop_loopback_nginx "$work"
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/www"

# ~100 KB JPEGs of noise (they do not compress), 20 distinct ones copied to $files names.
"$PYTHON" - "$work/www" "$files" <<'PY'
import os, random, shutil, sys
from PIL import Image
folder, count = sys.argv[1], int(sys.argv[2])
random.seed(7)
for i in range(min(20, count)):
    img = Image.frombytes("RGB", (232, 232), bytes(random.getrandbits(8) for _ in range(232 * 232 * 3)))
    img.save(os.path.join(folder, f"base{i}.jpg"), quality=90, subsampling=0)
for i in range(count):
    shutil.copyfile(os.path.join(folder, f"base{i % 20}.jpg"), os.path.join(folder, f"img{i:04d}.jpg"))
PY

start_loopback_nginx "$work" "$work/www"

base="http://127.0.0.1:$port"
for i in $(seq 0 $((files - 1))); do printf '%s/img%04d.jpg\n' "$base" "$i"; done > "$work/urls.txt"
sed 's/.*/url = "&"\noutput = "\/dev\/null"/' "$work/urls.txt" > "$work/curl.cfg"
total_bytes=$(du -cb "$work"/www/img*.jpg | tail -1 | cut -f1)

# Warm the page cache and nginx once, so neither side pays for the first touch.
curl -s --parallel --parallel-max 6 -K "$work/curl.cfg" >/dev/null 2>&1

best() { sort -n | head -1; }
rounds=${ROUNDS:-3}
ours=(); curls=(); ourcpu=(); curlcpu=(); raws=(); kept=(); keptq=(); laned=(); floors=()
for run in $(seq "$rounds"); do
    line=$(${WRAP:-} "$BENCH" list "$work/urls.txt" --concurrency 6)
    ours+=("$(sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' <<<"$line")")
    ourcpu+=("$(sed -n 's/.* cpu=\([0-9.]*\).*/\1/p' <<<"$line")")
    failures=$(sed -n 's/.* failures=\([0-9]*\).*/\1/p' <<<"$line")
    [ "$failures" = 0 ] || { echo "our downloader had $failures failures: $line"; exit 1; }
    t=$( { /usr/bin/time -f '%e %U %S' curl -s --parallel --parallel-max 6 -K "$work/curl.cfg" >/dev/null; } 2>&1 | tail -1)
    curls+=("$(awk '{print $1}' <<<"$t")")
    curlcpu+=("$(awk '{print $2 + $3}' <<<"$t")")
    raws+=("$("$BENCH" raw "$work/urls.txt" --concurrency 6 | sed -n 's/.* seconds=\([0-9.]*\).*/\1/p')")
    kept+=("$("$BENCH" raw "$work/urls.txt" --concurrency 6 --keep | sed -n 's/.* seconds=\([0-9.]*\).*/\1/p')")
    # Right after the reference it is paired with, so that a load change between the two
    # moves both.
    laned+=("$("$BENCH" list "$work/urls.txt" --concurrency 6 --lanes | sed -n 's/.* seconds=\([0-9.]*\).*/\1/p')")
    keptq+=("$("$BENCH" raw "$work/urls.txt" --concurrency 6 --keep --queued | sed -n 's/.* seconds=\([0-9.]*\).*/\1/p')")
    floors+=("$("$BENCH" floor "$work/urls.txt" --concurrency 6 | sed -n 's/.* seconds=\([0-9.]*\).*/\1/p')")
done
decode_line=$("$BENCH" list "$work/urls.txt" --concurrency 6 --decode)

o=$(printf '%s\n' "${ours[@]}" | best); c=$(printf '%s\n' "${curls[@]}" | best)
oc=$(printf '%s\n' "${ourcpu[@]}" | best); cc=$(printf '%s\n' "${curlcpu[@]}" | best)
awk -v o="$o" -v c="$c" -v oc="$oc" -v cc="$cc" -v b="$total_bytes" -v n="$files" -v r="$rounds" 'BEGIN {
    printf "download %d files (%.1f MB), 6 concurrent, best of %d: ours %.3f s (%.1f MB/s, CPU %.2f s)  curl %.3f s (%.1f MB/s, CPU %.2f s)  throughput ratio ours/curl %.2fx\n",
        n, b / 1048576, r, o, b / 1048576 / o, oc, c, b / 1048576 / c, cc, c / o }'
echo "with decoding: $decode_line"
echo "AsyncHTTPClient alone (no Downloader, bytes not kept), best of $rounds: $(printf '%s\n' "${raws[@]}" | best) s"
k=$(printf '%s\n' "${kept[@]}" | best)
awk -v o="$o" -v k="$k" -v r="$rounds" 'BEGIN {
    printf "AsyncHTTPClient alone keeping each body, best of %d: %.3f s; throughput ratio ours/AsyncHTTPClient %.2fx (target >= 0.85x)\n", r, k, k / o }'
echo "each round, ours / kept-bodies reference (s): $(paste -d/ <(printf '%s\n' "${ours[@]}") <(printf '%s\n' "${kept[@]}") | tr '\n' ' ')"
# The rounds are paired (the reference right after ours), so the median of the per-round
# ratios is less at the mercy of one lucky round than the ratio of the bests.
paste <(printf '%s\n' "${ours[@]}") <(printf '%s\n' "${kept[@]}") | awk '{ print $2 / $1 }' | sort -n |
    awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "median of the per-round ratios ours/AsyncHTTPClient-kept: %.2fx over %d rounds\n", m, NR }'

# Ours driven as the reference is (6 tasks, each loading its share in turn): the Downloader
# alone, without 1,000 callers waiting in its queue.
l=$(printf '%s\n' "${laned[@]}" | best)
awk -v l="$l" -v k="$k" -v r="$rounds" 'BEGIN {
    printf "ours in 6 lanes like the reference, best of %d: %.3f s; throughput ratio ours-in-lanes/AsyncHTTPClient-kept %.2fx\n", r, l, k / l }'
paste <(printf '%s\n' "${laned[@]}") <(printf '%s\n' "${kept[@]}") | awk '{ print $2 / $1 }' | sort -n |
    awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "median of the per-round ratios ours-in-lanes/AsyncHTTPClient-kept: %.2fx over %d rounds\n", m, NR }'
# The reference driven as ours is by default: every request handed to AsyncHTTPClient at
# once, its connection pool (6 connections) holding the waiting ones, as our queue does.
q=$(printf '%s\n' "${keptq[@]}" | best)
awk -v o="$o" -v q="$q" -v r="$rounds" 'BEGIN {
    printf "AsyncHTTPClient alone keeping each body, all requests at once (its pool queues them), best of %d: %.3f s; throughput ratio ours-queued/AsyncHTTPClient-queued %.2fx\n", r, q, q / o }'
paste <(printf '%s\n' "${ours[@]}") <(printf '%s\n' "${keptq[@]}") | awk '{ print $2 / $1 }' | sort -n |
    awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "median of the per-round ratios ours-queued/AsyncHTTPClient-queued: %.2fx over %d rounds\n", m, NR }'
# The least a coalescing layer over the same client can cost (CoalescingFloor.swift): how
# close to the reference any downloader design could come.
f=$(printf '%s\n' "${floors[@]}" | best)
awk -v f="$f" -v k="$k" -v r="$rounds" 'BEGIN {
    printf "coalescing floor in 6 lanes (one waiter map, status and size checks, nothing else), best of %d: %.3f s; ratio floor/AsyncHTTPClient-kept %.2fx\n", r, f, k / f }'

before=$(wc -l < "$work/logs/access.log")
coalesce_line=$("$BENCH" coalesce "$base/img0000.jpg" --callers 100)
sleep 0.2
hits=$(tail -n +"$((before + 1))" "$work/logs/access.log" | grep -c ' /img0000.jpg ' || true)
echo "coalescing: $coalesce_line origin_hits=$hits"
