#!/usr/bin/env bash
# End-to-end benchmark (issue 6): 500 JPEG photos served by nginx on 127.0.0.1, each made
# into a thumbnail of at most 256x256 px stored on disk, by our command-line tool
# (`webimage prefetch --thumbnail 256x256 --quality 85 --no-originals --cache-dir DIR`)
# and by a Python script with a thread pool and Pillow (Benchmarks/e2e_pillow.py).
# Cold = empty cache folder (download, decode, shrink, encode, write); warm = the same
# command again on that folder (read and decode every thumbnail, no download).
# Whole processes, timed from outside with GNU time (wall, user+sys CPU, peak RSS).
#
# Usage: Benchmarks/e2e.sh [photos (default 500)]
# Environment: ROUNDS (default 3), CANDIDATES (concurrency / worker counts tried in the
# warm-up, default "4 8 16"; each side then runs with its best), E2E_PHOTOS (where the
# generated photos are kept between runs), WRAP (e.g. "perf record -g -o /tmp/e2e.perf")
# runs our side under a profiler.
#
# Installs nginx and GNU time through scripts/install-deps.sh when missing, builds the
# webimage tool in release mode, and starts and stops its own nginx on an unused loopback
# port. Sends no traffic anywhere but 127.0.0.1. The photos are made from the JPEGs in
# $WEBIMAGE_CORPUS (default: the repository's Corpus/sdwebimage) by Benchmarks/e2e_photos.py,
# into .build/bench-data/ (generated once, kept between runs, never committed).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-500}
rounds=${ROUNDS:-3}
candidates=${CANDIDATES:-"4 8 16"}
size=256
quality=85
PYTHON=${PYTHON:-python3}

. Benchmarks/loopback-nginx.sh
[ -x /usr/bin/time ] || scripts/install-deps.sh time
if ! "$PYTHON" -c 'import PIL' 2>/dev/null; then
    scripts/install-deps.sh python3-pil python3-requests
    PYTHON=/usr/bin/python3
fi

swift build -c release --product webimage >/dev/null 2>&1 || swift build -c release --product webimage
OURS=$(swift build -c release --show-bin-path)/webimage

photos=${E2E_PHOTOS:-$PWD/.build/bench-data/e2e-photos-v1-$count}
corpus=${WEBIMAGE_CORPUS:-Corpus/sdwebimage}
"$PYTHON" Benchmarks/e2e_photos.py "$corpus" "$photos" "$count"
chmod 755 "$photos"

work=$(mktemp -d)
cleanup() {
    stop_loopback_nginx "$work"
    rm -rf "$work"
}
trap cleanup EXIT
start_loopback_nginx "$work" "$photos"

for i in $(seq 0 $((count - 1))); do printf 'http://127.0.0.1:%s/photo%04d.jpg\n' "$port" "$i"; done > "$work/urls.txt"
# Warm the page cache and nginx once, so neither side pays for the first touch.
sed 's/.*/url = "&"\noutput = "\/dev\/null"/' "$work/urls.txt" | curl -s --parallel --parallel-max 6 -K - >/dev/null 2>&1 || true

origin_hits() { wc -l < "$work/logs/access.log"; }

# timed NAME COMMAND...: runs a whole process under GNU time; sets wall, cpu, rss (MiB).
timed() {
    local name=$1; shift
    if ! /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > "$work/$name.out" 2> "$work/$name.err"; then
        echo "$name failed:"; tail -5 "$work/$name.out" "$work/$name.err"; exit 1
    fi
    read -r wall user sys rss < <(tail -1 "$work/time")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    rss=$(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }')
}

# check SIDE PHASE FOLDER FILES: every URL done from the right place; FILES files in FOLDER,
# COUNT of them JPEG thumbnails whose largest side is 256 px (headers read), and a sample
# of those decoded by Pillow.
check() {
    local side=$1 phase=$2 folder=$3 files=$4 out
    out=$(cat "$work/$side.out")
    if [ "$side" = ours ]; then
        local from; from=$([ "$phase" = cold ] && echo network || echo disk)
        grep -q "finished $count, loaded $count, skipped 0" <<<"$out" || { echo "ours $phase: $(tail -1 <<<"$out")"; exit 1; }
        [ "$(grep -c " from $from\$" <<<"$out")" = "$count" ] || { echo "ours $phase: not every image from $from"; exit 1; }
    else
        local expect; expect=$([ "$phase" = cold ] && echo "$count from network, 0 from disk" || echo "0 from network, $count from disk")
        grep -q "$expect, 0 failed" <<<"$out" || { echo "python $phase: $out"; exit 1; }
    fi
    "$PYTHON" - "$folder" "$files" "$count" "$size" <<'PY' || exit 1
import os, sys
from PIL import Image
folder, files, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
names = sorted(f for f in os.listdir(folder) if not f.startswith("."))
if len(names) != files:
    sys.exit(f"{folder}: {len(names)} files, expected {files}")
thumbs = []
for name in names:
    with Image.open(os.path.join(folder, name)) as img:
        if img.format == "JPEG" and max(img.size) == size:
            thumbs.append(name)
if len(thumbs) != count:
    sys.exit(f"{folder}: {len(thumbs)} JPEG thumbnails fitting {size}x{size}, expected {count}")
for name in thumbs[:: max(1, count // 50)]:
    with Image.open(os.path.join(folder, name)) as img:
        img.load()
PY
}

ours_run() {  # ours_run PHASE CACHE CONCURRENCY [flags; default --no-originals]
    local phase=$1 cache=$2 n=$3; shift 3
    local flags=("$@"); ((${#flags[@]})) || flags=(--no-originals)
    timed ours ${WRAP:-} "$OURS" prefetch --from "$work/urls.txt" --cache-dir "$cache" --thumbnail ${size}x${size} \
        --quality $quality --concurrency "$n" "${flags[@]}"
}
python_run() {  # python_run PHASE CACHE WORKERS [extra flags]
    timed python "$PYTHON" Benchmarks/e2e_pillow.py --from "$work/urls.txt" --cache-dir "$2" --workers "$3" \
        --size $size --quality $quality "${@:4}"
}

# One cold and one warm run of SIDE with N; appends "wall cpu rss" lines to $work/SIDE-N.PHASE.
# The cache folders stay until the end: on ext4 without a journal (this machine's) creating
# files right after deleting many makes the inode allocator skip the recently freed ones,
# which costs whichever side runs next.
measure() {  # measure SIDE N [extra flags for ours]
    local side=$1 n=$2; shift 2
    local cache="$work/cache-$side-$RANDOM$RANDOM" folder
    if [ "$side" = python ]; then folder=$cache; else folder=$cache/default; fi
    local hits_before; hits_before=$(origin_hits)
    if [ "$side" = python ]; then python_run cold "$cache" "$n"; else ours_run cold "$cache" "$n" "$@"; fi
    check "$side" cold "$folder" $(( $# > 0 ? 2 * count : count ))
    echo "$wall $cpu $rss" >> "$work/$side-$n$*.cold"
    local hits_mid; hits_mid=$(origin_hits)
    [ $((hits_mid - hits_before)) = "$count" ] || { echo "$side cold: $((hits_mid - hits_before)) requests, expected $count"; exit 1; }
    if [ -z "$*" ]; then
        if [ "$side" = python ]; then python_run warm "$cache" "$n"; else ours_run warm "$cache" "$n"; fi
        check "$side" warm "$folder" "$count"
        [ "$(origin_hits)" = "$hits_mid" ] || { echo "$side warm: downloaded again"; exit 1; }
        echo "$wall $cpu $rss" >> "$work/$side-$n.warm"
        if [ "$side" = python ]; then
            python_run warm "$cache" "$n" --lazy-import
            check python warm "$folder" "$count"
            echo "$wall $cpu $rss" >> "$work/python-$n.lazywarm"
        fi
    fi
}

best_wall() { sort -n "$1" | head -1 | cut -d' ' -f1; }
median_wall() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
median_field() { awk -v f="$2" '{ print $f }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "warm-up: one cold + warm run per concurrency (ours) / worker count (python): $candidates"
for n in $candidates; do
    measure ours "$n"
    measure python "$n"
    printf '  n=%-3s ours cold %s s warm %s s   python cold %s s warm %s s\n' "$n" \
        "$(best_wall "$work/ours-$n.cold")" "$(best_wall "$work/ours-$n.warm")" \
        "$(best_wall "$work/python-$n.cold")" "$(best_wall "$work/python-$n.warm")"
done
pick() {  # the N whose cold + warm walls sum lowest
    for n in $candidates; do
        awk -v n="$n" -v c="$(best_wall "$work/$1-$n.cold")" -v w="$(best_wall "$work/$1-$n.warm")" 'BEGIN { print c + w, n }'
    done | sort -n | head -1 | cut -d' ' -f2
}
on=$(pick ours); pn=$(pick python)
rm -f "$work"/*.cold "$work"/*.warm "$work"/*.lazywarm
echo "measured: ours --concurrency $on, python --workers $pn; $rounds alternating rounds"

for round in $(seq "$rounds"); do
    if ((round % 2)); then measure ours "$on"; measure python "$pn"; else measure python "$pn"; measure ours "$on"; fi
    measure ours "$on" --originals
    printf '  round %s: ours cold %s s (CPU %s s) warm %s s (CPU %s s) | python cold %s s (CPU %s s) warm %s s (CPU %s s), lazy import %s s | ours keeping originals cold %s s | load %s\n' \
        "$round" \
        "$(tail -1 "$work/ours-$on.cold" | cut -d' ' -f1)" "$(tail -1 "$work/ours-$on.cold" | cut -d' ' -f2)" \
        "$(tail -1 "$work/ours-$on.warm" | cut -d' ' -f1)" "$(tail -1 "$work/ours-$on.warm" | cut -d' ' -f2)" \
        "$(tail -1 "$work/python-$pn.cold" | cut -d' ' -f1)" "$(tail -1 "$work/python-$pn.cold" | cut -d' ' -f2)" \
        "$(tail -1 "$work/python-$pn.warm" | cut -d' ' -f1)" "$(tail -1 "$work/python-$pn.warm" | cut -d' ' -f2)" \
        "$(tail -1 "$work/python-$pn.lazywarm" | cut -d' ' -f1)" \
        "$(tail -1 "$work/ours-$on--originals.cold" | cut -d' ' -f1)" "$(cut -d' ' -f1-3 /proc/loadavg)"
done

summary() {  # summary PHASE
    local o="$work/ours-$on.$1" p="$work/python-$pn.$1"
    awk -v phase="$1" -v ob="$(best_wall "$o")" -v om="$(median_wall "$o")" -v pb="$(best_wall "$p")" -v pm="$(median_wall "$p")" \
        -v oc="$(median_field "$o" 2)" -v pc="$(median_field "$p" 2)" -v orss="$(median_field "$o" 3)" -v prss="$(median_field "$p" 3)" 'BEGIN {
        printf "%s: ours best %.2f s median %.2f s (CPU %.2f s, %s MiB) | python best %.2f s median %.2f s (CPU %.2f s, %s MiB) | ours faster by %.2fx (best) %.2fx (median), CPU %.2fx\n",
            phase, ob, om, oc, orss, pb, pm, pc, prss, pb / ob, pm / om, pc / oc }'
}
echo "$count photos, ${size}px thumbnails at quality $quality; whole processes, ours --concurrency $on, python --workers $pn"
summary cold
summary warm
echo "ours keeping the originals too (SDWebImage's default), cold: best $(best_wall "$work/ours-$on--originals.cold") s median $(median_wall "$work/ours-$on--originals.cold") s"
lazy="$work/python-$pn.lazywarm"
awk -v b="$(best_wall "$lazy")" -v m="$(median_wall "$lazy")" -v ob="$(best_wall "$work/ours-$on.warm")" -v om="$(median_wall "$work/ours-$on.warm")" 'BEGIN {
    printf "python warm importing requests only when it downloads: best %.2f s median %.2f s | ours faster by %.2fx (best) %.2fx (median)\n", b, m, b / ob, m / om }'
# The floor under both sides: libjpeg-turbo's entropy decoding, which no DCT scale skips.
"$PYTHON" - "$photos" "$count" <<'PY'
import io, os, sys, time
from PIL import Image
folder, count = sys.argv[1], int(sys.argv[2])
datas = [open(os.path.join(folder, f"photo{i:04d}.jpg"), "rb").read() for i in range(count)]
def run(box):
    start = time.process_time()
    for data in datas:
        img = Image.open(io.BytesIO(data))
        img.draft("RGB", box)
        img.load()
    return time.process_time() - start
eighth = min(run((1, 1)) for _ in range(2))
thumb = min(run((256, 256)) for _ in range(2))
print(f"decode floor, one thread, in-process (Pillow): {count} photos at 1/8 scale {eighth:.2f} s CPU, at the 256-px draft scale {thumb:.2f} s CPU")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
