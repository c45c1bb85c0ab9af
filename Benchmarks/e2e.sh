#!/usr/bin/env bash
# End-to-end benchmark (issues 6 and 15): 500 JPEG photos served by nginx on 127.0.0.1, each
# made into a thumbnail of at most 256x256 px stored on disk, by our command-line tool run
# exactly as a user types it, defaults only:
#     webimage fetch $(cat urls.txt) --thumbnail 256x256
#     webimage prefetch --from urls.txt --thumbnail 256x256
# (the cache goes where it always does, under $XDG_CACHE_HOME, which the script points at a
# fresh folder per run), and by a Python script with a thread pool and Pillow
# (Benchmarks/e2e_pillow.py, at our default thumbnail quality, 80, so both write the same).
# Cold = empty cache folder (download, decode, shrink, encode, write); warm = the same
# command again on that folder (read and decode every thumbnail, no download).
# Whole processes, timed from outside with GNU time (wall, user+sys CPU, peak RSS). Prints
# each of our commands' wall time as a ratio to the Python script's (targets: cold <= 0.7,
# warm <= 0.5) and the libjpeg decode floor both share.
#
# Usage: Benchmarks/e2e.sh [photos (default 500)]
# Environment: ROUNDS (default 3), CANDIDATES (the Python script's worker counts tried in the
# warm-up, default "4 8 16"; it then runs with its best: our side has no such tuning),
# E2E_PHOTOS (where the generated photos are kept between runs), WRAP (e.g.
# "perf record -g -o /tmp/e2e.perf") runs our side under a profiler.
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
quality=80  # our default thumbnail quality, so both sides write the same
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
        echo "$name failed:"; tail -n 5 "$work/$name.out" "$work/$name.err"; exit 1
    fi
    read -r wall user sys rss < <(tail -1 "$work/time")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    rss=$(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }')
}

# check SIDE PHASE FOLDER: every URL done from the right place (the command's own lines and
# summary); exactly COUNT files in FOLDER, each a JPEG thumbnail whose largest side is 256 px
# (headers read), and a sample of them decoded by Pillow.
check() {
    local side=$1 phase=$2 folder=$3 out err
    out=$(cat "$work/$side.out"); err=$(cat "$work/$side.err")
    local from; from=$([ "$phase" = cold ] && echo network || echo disk)
    case $side in
    fetch)
        grep -q "^fetched $count URLs: loaded $count, failed 0," <<<"$err" || { echo "fetch $phase: $(tail -2 <<<"$err")"; exit 1; }
        [ "$(grep -c "^$from " <<<"$out")" = "$count" ] || { echo "fetch $phase: not every image from $from"; exit 1; } ;;
    prefetch)
        grep -q "finished $count, loaded $count, skipped 0" <<<"$err" || { echo "prefetch $phase: $(tail -2 <<<"$err")"; exit 1; }
        [ "$(grep -c " from $from\$" <<<"$out")" = "$count" ] || { echo "prefetch $phase: not every image from $from"; exit 1; } ;;
    python)
        local expect; expect=$([ "$phase" = cold ] && echo "$count from network, 0 from disk" || echo "0 from network, $count from disk")
        grep -q "$expect, 0 failed" <<<"$out" || { echo "python $phase: $out"; exit 1; } ;;
    esac
    "$PYTHON" - "$folder" "$count" "$size" <<'PY' || exit 1
import os, sys
from PIL import Image
folder, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
names = sorted(f for f in os.listdir(folder) if not f.startswith("."))
if len(names) != count:
    sys.exit(f"{folder}: {len(names)} files, expected {count}")
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

# Our two commands exactly as typed; only the cache's home is chosen, through the environment.
fetch_run() {  # fetch_run CACHE_HOME
    # shellcheck disable=SC2046  # one argument per URL, as `$(cat urls.txt)` gives a user
    timed fetch env XDG_CACHE_HOME="$1" ${WRAP:-} "$OURS" fetch $(cat "$work/urls.txt") --thumbnail ${size}x${size}
}
prefetch_run() {  # prefetch_run CACHE_HOME
    timed prefetch env XDG_CACHE_HOME="$1" ${WRAP:-} "$OURS" prefetch --from "$work/urls.txt" --thumbnail ${size}x${size}
}
python_run() {  # python_run CACHE WORKERS [extra flags]
    timed python "$PYTHON" Benchmarks/e2e_pillow.py --from "$work/urls.txt" --cache-dir "$1" --workers "$2" \
        --size $size --quality $quality "${@:3}"
}

# One cold and one warm run of SIDE (fetch, prefetch, or python with N workers); appends
# "wall cpu rss" lines to $work/SIDE.PHASE. The cache folders stay until the end: on ext4
# without a journal (this machine's) creating files right after deleting many makes the inode
# allocator skip the recently freed ones, which costs whichever side runs next.
measure() {  # measure SIDE [N]
    local side=$1 n=${2:-} folder
    local home="$work/cache-$side-$RANDOM$RANDOM" tag=$side$n
    if [ "$side" = python ]; then folder=$home; else folder=$home/swift-web-image/default; fi
    local hits_before; hits_before=$(origin_hits)
    case $side in fetch) fetch_run "$home" ;; prefetch) prefetch_run "$home" ;; python) python_run "$home" "$n" ;; esac
    check "$side" cold "$folder"
    echo "$wall $cpu $rss" >> "$work/$tag.cold"
    local hits_mid; hits_mid=$(origin_hits)
    [ $((hits_mid - hits_before)) = "$count" ] || { echo "$side cold: $((hits_mid - hits_before)) requests, expected $count"; exit 1; }
    case $side in fetch) fetch_run "$home" ;; prefetch) prefetch_run "$home" ;; python) python_run "$home" "$n" ;; esac
    check "$side" warm "$folder"
    [ "$(origin_hits)" = "$hits_mid" ] || { echo "$side warm: downloaded again"; exit 1; }
    echo "$wall $cpu $rss" >> "$work/$tag.warm"
    if [ "$side" = python ]; then
        python_run "$home" "$n" --lazy-import
        check python warm "$folder"
        echo "$wall $cpu $rss" >> "$work/python$n.lazywarm"
    fi
}

best_wall() { sort -n "$1" | head -1 | cut -d' ' -f1; }
median_wall() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
median_field() { awk -v f="$2" '{ print $f }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
last() { tail -1 "$1" | cut -d' ' -f"$2"; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "warm-up: one cold + warm run of each of our commands, and of the Python script per worker count: $candidates"
measure fetch
measure prefetch
printf '  ours: fetch cold %s s warm %s s, prefetch cold %s s warm %s s\n' "$(best_wall "$work/fetch.cold")" \
    "$(best_wall "$work/fetch.warm")" "$(best_wall "$work/prefetch.cold")" "$(best_wall "$work/prefetch.warm")"
for n in $candidates; do
    measure python "$n"
    printf '  python --workers %-3s cold %s s warm %s s\n' "$n" "$(best_wall "$work/python$n.cold")" "$(best_wall "$work/python$n.warm")"
done
pn=$(for n in $candidates; do  # the worker count whose cold + warm walls sum lowest
    awk -v n="$n" -v c="$(best_wall "$work/python$n.cold")" -v w="$(best_wall "$work/python$n.warm")" 'BEGIN { print c + w, n }'
done | sort -n | head -1 | cut -d' ' -f2)
rm -f "$work"/*.cold "$work"/*.warm "$work"/*.lazywarm
echo "measured: python --workers $pn; $rounds alternating rounds (ours first in odd rounds, Python first in even ones)"

for round in $(seq "$rounds"); do
    if ((round % 2)); then measure fetch; measure prefetch; measure python "$pn"
    else measure python "$pn"; measure prefetch; measure fetch; fi
    printf '  round %s: fetch cold %s s (CPU %s s) warm %s s | prefetch cold %s s (CPU %s s) warm %s s | python cold %s s (CPU %s s) warm %s s, lazy import %s s | load %s\n' \
        "$round" "$(last "$work/fetch.cold" 1)" "$(last "$work/fetch.cold" 2)" "$(last "$work/fetch.warm" 1)" \
        "$(last "$work/prefetch.cold" 1)" "$(last "$work/prefetch.cold" 2)" "$(last "$work/prefetch.warm" 1)" \
        "$(last "$work/python$pn.cold" 1)" "$(last "$work/python$pn.cold" 2)" "$(last "$work/python$pn.warm" 1)" \
        "$(last "$work/python$pn.lazywarm" 1)" "$(cut -d' ' -f1-3 /proc/loadavg)"
done

summary() {  # summary COMMAND PHASE TARGET [PYTHON_FILE]
    local o="$work/$1.$2" p=${4:-$work/python$pn.$2}
    awk -v name="$1 $2" -v target="$3" -v ob="$(best_wall "$o")" -v om="$(median_wall "$o")" -v pb="$(best_wall "$p")" -v pm="$(median_wall "$p")" \
        -v oc="$(median_field "$o" 2)" -v pc="$(median_field "$p" 2)" -v orss="$(median_field "$o" 3)" -v prss="$(median_field "$p" 3)" 'BEGIN {
        printf "%-15s ours best %.2f s median %.2f s (CPU %.2f s, %s MiB) | python best %.2f s median %.2f s (CPU %.2f s, %s MiB) | ours / python %.2f (best) %.2f (median), target <= %s: %s\n",
            name ":", ob, om, oc, orss, pb, pm, pc, prss, ob / pb, om / pm, target, (om / pm <= target ? "met" : "missed") }'
}
echo "$count photos, ${size}px thumbnails; ours with defaults only, python --workers $pn --quality $quality"
summary fetch cold 0.7
summary prefetch cold 0.7
summary fetch warm 0.5
summary prefetch warm 0.5
echo "against the Python script importing requests only when it downloads (its most favourable warm reading):"
summary fetch warm 0.5 "$work/python$pn.lazywarm"
summary prefetch warm 0.5 "$work/python$pn.lazywarm"
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
