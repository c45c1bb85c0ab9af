#!/usr/bin/env bash
# Image-service benchmark: `webimage serve` against thumbor and a libvips server, after
# imgproxy's image-servers-benchmark (2 clients, 100 photos of ~2040 px resized to fit
# 512x512: JPEG q80, WebP q75, AVIF q65, PNG), on loopback.
#
# Usage: Benchmarks/serve.sh [--quick]
#
#   default   10 s warm-up + 60 s measured per server and format (~30 min in all)
#   --quick   3 s + 10 s (to try it out; ~8 min)
#
# Environment: SERVERS="ours thumbor vips vips-sol" and FORMATS="jpg webp avif png" pick a subset;
# ROUNDS splits the measured time into that many rotating turns (default 3, --quick 2);
# WEBIMAGE_BIN uses another binary of ours; AVIF_SPEED (default 8, ours' libavif speed) is
# given to thumbor and the libvips server too; KEEP=1 keeps the run folder's outputs.
#
# What it does, all under .build/ (git-ignored):
#   - installs what is missing: nginx, wrk, libvips42, curl (apt-get); thumbor 7.8, pyvips
#     and aiohttp in a virtualenv at .build/bench-serve/venv (pip);
#   - builds ours in release (`swift build -c release --product webimage`) unless
#     .build/release/webimage is newer than Sources/ and Package.swift;
#   - makes 100 distinct 2040-px JPEGs from the corpus's camera photos
#     (Benchmarks/serve/make_photos.py, kept in .build/bench-data/serve-photos);
#   - serves them with its own nginx on a free 127.0.0.1 port;
#   - for each format, a fresh process of each server (ours: `webimage serve --insecure
#     --allow-loopback-source-addresses --workers 2 --result-cache off`, loopback opened
#     as nginx listens there; thumbor: one process, PIL engine, no storage, no result
#     storage, a thread pool of 2; vips: Benchmarks/serve/vips_server.py, pyvips
#     thumbnail_buffer on 2 threads, libvips cache off; vips-sol: the same server decoding at
#     imgproxy's shrink-on-load scale, then resize); every URL fetched once with curl
#     (results checked by Benchmarks/serve/check_outputs.py: format, 512-px long side; mean
#     bytes), a warm-up with wrk -c 2 -t 2 cycling the 100 URLs (Benchmarks/serve/urls.lua),
#     then the measured time split into ROUNDS rounds taken by the servers in turn (so
#     the load of other jobs falls on all alike), with each server's CPU time (utime+stime of
#     it and its children, from /proc) and peak RSS (VmHWM);
#   - ours only: VmRSS after that JPEG run and after two more on the same process; 64
#     connections for 10 s with the default queue (8 per worker) and with --queue-size 8 (status
#     counts: 429s); the result cache on (memory): all 100 URLs warmed, then hits against
#     nginx serving the same result files statically; the JPEG case through nginx with the
#     shipped deploy/nginx/webimage.conf in front of two nodes (1 worker each) against one
#     node alone (2 workers), in alternating rounds: the cost of the extra hop.
# Sends no traffic anywhere but 127.0.0.1. Stops every process it started on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

env_rounds=${ROUNDS:-}
WARMUP=10 MEASURE=60 ROUNDS=3 OVERLOAD=10 CACHE_SECONDS=20
mode=full
for arg in "$@"; do
    case "$arg" in
        --quick) WARMUP=3 MEASURE=10 ROUNDS=2 OVERLOAD=5 CACHE_SECONDS=5 mode=quick ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "usage: Benchmarks/serve.sh [--quick]" >&2; exit 64 ;;
    esac
done
SERVERS=${SERVERS:-ours thumbor vips vips-sol}
ROUNDS=${env_rounds:-$ROUNDS}
ROUND_SECONDS=$((MEASURE / ROUNDS))
FORMATS=${FORMATS:-jpg webp avif png}
AVIF_SPEED=${AVIF_SPEED:-8}
BOX=512

base=$repo/.build/bench-serve
venv=$base/venv
photos=$repo/.build/bench-data/serve-photos
work=$base/run
log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# ---------------------------------------------------------------- dependencies
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v curl >/dev/null 2>&1 || missing+=(curl)
{ command -v nginx || [ -x /usr/sbin/nginx ]; } >/dev/null 2>&1 || missing+=(nginx)
# Asked of dpkg: ldconfig is in /sbin, not on a user's PATH, so libvips always looked
# missing there and apt-get ran every time.
dpkg-query -W -f='${Status}' libvips42 2>/dev/null | grep -q "install ok installed" || missing+=(libvips42)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
if ((${#missing[@]})); then
    log "installing ${missing[*]} (apt-get)"
    scripts/install-deps.sh "${missing[@]}"
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

if ! "$venv/bin/python" -c 'import thumbor, pyvips, aiohttp, PIL' >/dev/null 2>&1; then
    log "creating $venv (thumbor 7.8, pyvips, aiohttp)"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --upgrade pip >/dev/null
    "$venv/bin/pip" install -q 'thumbor==7.8.*' pyvips aiohttp
fi
PY=$venv/bin/python

# ---------------------------------------------------------------- ours, release
if [ -n "${WEBIMAGE_BIN:-}" ]; then
    bin=$WEBIMAGE_BIN
else
    bin=$repo/.build/release/webimage
    if [ ! -x "$bin" ] || [ -n "$(find Sources Package.swift Package.resolved -newer "$bin" -print -quit)" ]; then
        log "building webimage in release mode (the first build takes ~20 min)"
        swift build -c release --product webimage >"$base/release-build.log" 2>&1 \
            || { tail -30 "$base/release-build.log" >&2; exit 1; }
    fi
fi
"$bin" serve --help >/dev/null 2>&1 || { echo "$bin has no serve command: rebuild it" >&2; exit 1; }

# ---------------------------------------------------------------- photos
"$PY" Benchmarks/serve/make_photos.py Corpus/sdwebimage "$photos" 100
[ -f "$photos/.complete" ] || { echo "photos were not made" >&2; exit 1; }

# ---------------------------------------------------------------- processes
rm -rf "$work"
mkdir -p "$work/logs" "$work/out" "$work/www/results"
chmod 755 "$base" "$work" "$work/www" "$work/www/results"
started=()      # every process this script started (PIDs), stopped on exit
nginx_pid=

cleanup() {
    local status=$? pid
    # Servers first (ours lets requests in flight finish for up to 20 s), then the origin.
    for pid in "${started[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${started[@]}"; do
        for _ in $(seq 250); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    if [ -n "$nginx_pid" ]; then
        kill -TERM "$nginx_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$nginx_pid" 2>/dev/null || break; sleep 0.1; done
    fi
    [ "${KEEP:-0}" = 1 ] || rm -rf "$work/out" "$work/www/results"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# nginx: the photos at /, the result files of the cache comparison at /results/.
nginx_port=$(free_port)
# nginx_config DIR: the start of an nginx.conf whose pid, log and temporary files live in
# DIR, up to the opening of its http block.
nginx_config() {
    mkdir -p "$1/logs"
    # Run as root, nginx's workers would be `nobody`, who cannot read a clone under a
    # private home (/root is 0700): every request was a 403. They run as root then.
    local user_line=
    [ "$(id -u)" -ne 0 ] || user_line="user root;"
    cat <<CONF
$user_line
worker_processes auto;
pid $1/nginx.pid;
error_log $1/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $1/tmp_body;
    proxy_temp_path $1/tmp_proxy;
    fastcgi_temp_path $1/tmp_fastcgi;
    uwsgi_temp_path $1/tmp_uwsgi;
    scgi_temp_path $1/tmp_scgi;
CONF
}
mkdir -p "$work/nginx"
{ nginx_config "$work/nginx"; cat <<CONF
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    open_file_cache max=1000 inactive=300s;
    types { image/jpeg jpg; image/webp webp; image/avif avif; image/png png; }
    server {
        listen 127.0.0.1:$nginx_port;
        root $photos;
        location /results/ { root $work/www; }
    }
}
CONF
} > "$work/nginx/nginx.conf"
"$NGINX" -p "$work/nginx" -c "$work/nginx/nginx.conf"
for _ in $(seq 50); do [ -s "$work/nginx/nginx.pid" ] && break; sleep 0.1; done
nginx_pid=$(cat "$work/nginx/nginx.pid")
curl -sf -o /dev/null "http://127.0.0.1:$nginx_port/photo-001.jpg" || { echo "nginx does not serve the photos" >&2; exit 1; }
origin=127.0.0.1:$nginx_port

cat > "$work/thumbor.conf" <<CONF
# One process, PIL engine, nothing stored: every request downloads and processes.
LOADER = 'thumbor.loaders.http_loader'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
ENGINE = 'thumbor.engines.pil'
ALLOW_UNSAFE_URL = True
# Pillow releases the GIL while it decodes, resamples and encodes: two threads, two cores
# (as imgproxy's benchmark ran it).
ENGINE_THREADPOOL_SIZE = 2
QUALITY = 80
# Baseline JPEG with optimised Huffman tables, as ours and libvips write.
PROGRESSIVE_JPEG = False
PILLOW_RESAMPLING_FILTER = 'LANCZOS'
AVIF_SPEED = $AVIF_SPEED
PNG_COMPRESSION_LEVEL = 6
RESPECT_ORIENTATION = False
ENABLE_ETAGS = False
CONF

# start_server NAME [extra args of ours...]: sets server_pid and server_port.
start_server() {
    local name=$1; shift
    server_port=$(free_port)
    local logfile=$work/logs/$name-$run_label.log
    case "$name" in
        ours)
            "$bin" serve --insecure --allow-loopback-source-addresses --bind "127.0.0.1:$server_port" --workers 2 "$@" >"$logfile" 2>&1 &
            server_pid=$!; health=/health ;;
        thumbor)
            "$venv/bin/thumbor" -i 127.0.0.1 -p "$server_port" -c "$work/thumbor.conf" -l error >"$logfile" 2>&1 &
            server_pid=$!; health=/healthcheck ;;
        vips|vips-sol)
            local pipeline=thumbnail; [ "$name" = vips ] || pipeline=shrink-on-load
            AVIF_EFFORT=$((9 - AVIF_SPEED)) "$PY" Benchmarks/serve/vips_server.py --bind "127.0.0.1:$server_port" \
                --workers 2 --pipeline "$pipeline" >"$logfile" 2>&1 &
            server_pid=$!; health=/health ;;
    esac
    started+=("$server_pid")
    for _ in $(seq 300); do
        curl -sf -o /dev/null "http://127.0.0.1:$server_port$health" && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "$name did not start; its log:" >&2; cat "$logfile" >&2; exit 1
}

stop_server() {
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    local keep=() pid
    for pid in "${started[@]}"; do [ "$pid" = "$server_pid" ] || keep+=("$pid"); done
    started=("${keep[@]+"${keep[@]}"}")
}

# The process and its descendants.
tree() {
    local pid=$1 child
    echo "$pid"
    for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do tree "$child"; done
}
clk=$(getconf CLK_TCK)
# CPU seconds (user + system, threads and waited-for children included) of a process tree.
cpu_seconds() {
    local total=0 pid fields
    for pid in $(tree "$1"); do
        fields=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) || continue
        total=$((total + $(awk '{print $12 + $13 + $14 + $15}' <<<"$fields")))
    done
    awk -v t="$total" -v c="$clk" 'BEGIN { printf "%.2f", t / c }'
}
# kB of a /proc/PID/status field (VmHWM: peak RSS, VmRSS: now), summed over the tree.
status_kb() {
    local total=0 pid kb
    for pid in $(tree "$1"); do
        kb=$(awk -v f="$2:" '$1 == f { print $2 }' "/proc/$pid/status" 2>/dev/null) || continue
        total=$((total + ${kb:-0}))
    done
    echo "$total"
}

# paths_for SERVER FORMAT: the 100 request paths, one a line.
paths_for() {
    local server=$1 fmt=$2 q i photo
    case "$fmt" in jpg) q=80 ;; webp) q=75 ;; avif) q=65 ;; png) q=0 ;; esac
    for i in $(seq 1 100); do
        photo=$(printf 'photo-%03d.jpg' "$i")
        case "$server" in
            ours)
                if [ "$fmt" = png ]; then echo "/insecure/rs:fit:$BOX:$BOX/plain/http://$origin/$photo@png"
                else echo "/insecure/rs:fit:$BOX:$BOX/q:$q/plain/http://$origin/$photo@$fmt"; fi ;;
            thumbor)
                local f=$fmt; [ "$fmt" = jpg ] && f=jpeg
                if [ "$fmt" = png ]; then echo "/unsafe/fit-in/${BOX}x$BOX/filters:format(png)/$origin/$photo"
                else echo "/unsafe/fit-in/${BOX}x$BOX/filters:quality($q):format($f)/$origin/$photo"; fi ;;
            vips|vips-sol) echo "/fit/$BOX/$BOX/$q/$fmt/$origin/$photo" ;;
        esac
    done
}

# fetch_all PORT PATHS DIR EXT: every path once (2 at a time), bodies saved as DIR/NNN.EXT;
# fails unless every answer is a 200.
fetch_all() {
    local port=$1 paths=$2 dir=$3 ext=$4 i=0 line codes
    mkdir -p "$dir"
    : > "$dir.curl"
    while IFS= read -r line; do
        i=$((i + 1))
        printf 'url = "http://127.0.0.1:%s%s"\noutput = "%s/%03d.%s"\n' "$port" "$line" "$dir" "$i" "$ext" >> "$dir.curl"
    done < "$paths"
    codes=$(curl -s --parallel --parallel-max 2 --max-time 60 -K "$dir.curl" -w '%{http_code}\n' 2>>"$work/logs/curl.log" \
        | sort | uniq -c | tr -s ' ')
    rm -f "$dir.curl"
    if [ "$codes" != " 100 200" ]; then
        echo "not every request answered 200 ($codes) in $dir" >&2
        return 1
    fi
}

# run_wrk SECONDS CONNECTIONS PORT PATHS [statuses]: prints wrk's RESULT line.
run_wrk() {
    local out
    out=$(wrk -c "$2" -t 2 -d "${1}s" --timeout 30s -s Benchmarks/serve/urls.lua \
        "http://127.0.0.1:$3" -- "$4" 2 ${5:-})
    grep '^RESULT' <<<"$out" || { echo "wrk printed no result: $out" >&2; return 1; }
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }
load1() { cut -d' ' -f1 /proc/loadavg; }

rounds=$work/rounds.tsv
printf 'server\tformat\tround\trequests\tseconds\tp50\tp95\tp99\tnon2xx\tsocket_errors\tcpu\tload\n' > "$rounds"
outputs=$work/outputs.tsv
printf 'server\tformat\tmean_bytes\n' > "$outputs"
peaks=$work/peaks.tsv
printf 'server\tformat\tvmhwm_kb\n' > "$peaks"
extras=$work/extras.txt
: > "$extras"

log "$mode run: warm-up ${WARMUP}s, measured ${MEASURE}s in $ROUNDS rounds of ${ROUND_SECONDS}s, servers: $SERVERS, formats: $FORMATS; load $(cut -d' ' -f1-3 /proc/loadavg)"
log "nginx $("$NGINX" -v 2>&1 | sed 's/.*nginx\///'), wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), thumbor $("$PY" -c 'import thumbor; print(thumbor.__version__)'), Pillow $("$PY" -c 'import PIL; print(PIL.__version__)'), pyvips $("$PY" -c 'import pyvips, importlib.metadata as m; print(m.version("pyvips"), "libvips %d.%d.%d" % tuple(pyvips.version(i) for i in range(3)))')"
first_load=$(cut -d' ' -f1-3 /proc/loadavg)
ours_version="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
git diff --quiet HEAD -- Sources Package.swift 2>/dev/null || ours_version+=" + uncommitted changes to Sources"
log "ours: $bin, commit $ours_version"

# ---------------------------------------------------------------- the comparison
# Per format, every server runs at once (idle but for its turn), so the measured time can be
# split into ROUNDS turns taken in rotating order: load from other jobs on a shared machine
# then falls on every server alike instead of on whichever ran during a busy minute.
declare -A spid sport
for fmt in $FORMATS; do
    run_label=$fmt
    for server in $SERVERS; do
        paths_for "$server" "$fmt" > "$work/paths-$server-$fmt.txt"
        if [ "$server" = ours ]; then start_server ours --result-cache off; else start_server "$server"; fi
        spid[$server]=$server_pid; sport[$server]=$server_port
    done
    for server in $SERVERS; do
        paths=$work/paths-$server-$fmt.txt
        fetch_all "${sport[$server]}" "$paths" "$work/out/$server-$fmt" "$fmt"
        check=$("$PY" Benchmarks/serve/check_outputs.py "$work/out/$server-$fmt" "$fmt" "$BOX")
        printf '%s\t%s\t%s\n' "$server" "$fmt" "$(field mean_bytes "$check")" >> "$outputs"
        run_wrk "$WARMUP" 2 "${sport[$server]}" "$paths" >/dev/null
        log "$server $fmt: warmed up; results $check"
    done
    order=($SERVERS)
    for round in $(seq 1 "$ROUNDS"); do
        for server in "${order[@]}"; do
            paths=$work/paths-$server-$fmt.txt
            cpu0=$(cpu_seconds "${spid[$server]}")
            line=$(run_wrk "$ROUND_SECONDS" 2 "${sport[$server]}" "$paths")
            cpu1=$(cpu_seconds "${spid[$server]}")
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$server" "$fmt" "$round" \
                "$(field requests "$line")" "$(field seconds "$line")" "$(field p50_ms "$line")" "$(field p95_ms "$line")" \
                "$(field p99_ms "$line")" "$(field non2xx "$line")" "$(field socket_errors "$line")" \
                "$(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN { printf "%.2f", b - a }')" "$(load1)" >> "$rounds"
            log "$fmt round $round/$ROUNDS $server: $(field rps "$line") req/s, p99 $(field p99_ms "$line") ms, $(field non2xx "$line") non-2xx, load $(load1)"
        done
        order=("${order[@]:1}" "${order[0]}")
    done
    for server in $SERVERS; do
        printf '%s\t%s\t%s\n' "$server" "$fmt" "$(status_kb "${spid[$server]}" VmHWM)" >> "$peaks"
    done

    if [ -n "${spid[ours]:-}" ] && [ "$fmt" = jpg ]; then
        # RSS drift: the same process through two more JPEG runs of the full measured length.
        rss1=$(status_kb "${spid[ours]}" VmRSS)
        more=()
        for _ in 2 3; do more+=("$(field rps "$(run_wrk "$MEASURE" 2 "${sport[ours]}" "$work/paths-ours-jpg.txt")")"); done
        rss3=$(status_kb "${spid[ours]}" VmRSS)
        awk -v a="$rss1" -v b="$rss3" -v r2="${more[0]}" -v r3="${more[1]}" 'BEGIN {
            printf "rss_drift\tVmRSS after 1 JPEG run %.1f MiB, after 3 runs %.1f MiB, ratio %.3f (runs 2 and 3: %s and %s req/s)\n",
                a / 1024, b / 1024, b / a, r2, r3 }' >> "$extras"
        log "$(tail -1 "$extras" | cut -f2)"
    fi
    for server in $SERVERS; do
        problems=$(grep -iE 'error|warning|fatal|traceback' "$work/logs/$server-$fmt.log" | grep -vc 'without a signing key' || true)
        [ "$problems" = 0 ] || log "$server $fmt log: $problems error/warning lines ($work/logs/$server-$fmt.log)"
        server_pid=${spid[$server]}; stop_server
    done
    spid=(); sport=()
done

# ---------------------------------------------------------------- ours: overload
if [[ " $SERVERS " == *" ours "* ]]; then
    paths=$work/paths-ours-jpg.txt
    [ -f "$paths" ] || paths_for ours jpg > "$paths"
    metrics() { curl -s --max-time 5 "http://127.0.0.1:$metrics_port/metrics" || true; }
    for queue in default 8; do
        run_label=overload-$queue
        metrics_port=$(free_port)
        queue_args=(); [ "$queue" = default ] || queue_args=(--queue-size "$queue")
        start_server ours --result-cache off --prometheus-bind "127.0.0.1:$metrics_port" "${queue_args[@]+"${queue_args[@]}"}"
        cpu0=$(cpu_seconds "$server_pid")
        line=$(run_wrk "$OVERLOAD" 64 "$server_port" "$paths" statuses)
        ended=$(date +%s.%N)
        cpu1=$(cpu_seconds "$server_pid")
        statuses=$(grep -o 'status_[0-9]*=[0-9]*' <<<"$line" | tr '\n' ' ' || true)
        ok=$(field status_200 "$line"); ok=${ok:-0}
        # wrk has closed its connections: how long does the server stay busy, and with what?
        drain=timeout
        for _ in $(seq 300); do
            if metrics | grep -q '^webimage_requests_in_flight 0'; then
                drain=$(awk -v a="$ended" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }'); break
            fi
            sleep 0.1
        done
        served=$(metrics | awk '/^webimage_requests_total/ { n += $2 } END { print n + 0 }')
        awk -v q="$queue" -v r="$(field rps "$line")" -v n="$(field requests "$line")" -v ok="$ok" \
            -v s="$(field seconds "$line")" -v p50="$(field p50_ms "$line")" -v p99="$(field p99_ms "$line")" \
            -v mx="$(field max_ms "$line")" -v st="$statuses" -v se="$(field socket_errors "$line")" \
            -v served="$served" -v drain="$drain" -v cpu="$(awk -v a="$cpu0" -v b="$cpu1" 'BEGIN { print b - a }')" 'BEGIN {
            printf "overload\t64 connections, %s queue, %s s: %.1f responses/s (%.1f/s of them 200), p50 %s ms, p99 %s ms, max %s ms; %s(socket errors %s); server CPU %.1f s (%.2f cores); after wrk closed its connections the server finished %d more requests (%d answered in all by its metrics, %d seen by wrk), idle after %s\n",
                (q == "default" ? "default (8 per worker)" : "--queue-size " q), s, r, ok / s, p50, p99, mx, st, se, cpu, cpu / s, served - n, served, n, drain }' >> "$extras"
        log "$(tail -1 "$extras" | cut -f2)"
        kill -0 "$server_pid" 2>/dev/null \
            || echo "overload	ours died during the overload run (queue $queue); log: $work/logs/ours-overload-$queue.log" >> "$extras"
        # Still answers normally afterwards?
        after=$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 "http://127.0.0.1:$server_port$(head -1 "$paths")" || true)
        [ "$after" = 200 ] || echo "overload	after the overload run (queue $queue) a plain request got $after" >> "$extras"
        stop_server
    done

    # ------------------------------------------------------------ ours: result cache hits
    run_label=cache
    metrics_port=$(free_port)
    start_server ours --result-cache memory --prometheus-bind "127.0.0.1:$metrics_port"
    fetch_all "$server_port" "$paths" "$work/out/cache-warm" jpg
    rm -rf "$work/www/results"; mkdir -p "$work/www/results"; chmod 755 "$work/www/results"
    for i in $(seq 1 100); do cp "$work/out/cache-warm/$(printf '%03d' "$i").jpg" "$work/www/results/$(printf 'photo-%03d.jpg' "$i")"; done
    chmod 644 "$work/www/results/"*.jpg
    for i in $(seq 1 100); do printf '/results/photo-%03d.jpg\n' "$i"; done > "$work/paths-static.txt"
    curl -sf -o /dev/null "http://127.0.0.1:$nginx_port/results/photo-001.jpg" || { echo "nginx does not serve the results" >&2; exit 1; }
    run_wrk 3 2 "$server_port" "$paths" >/dev/null
    cpu0=$(cpu_seconds "$server_pid")
    hits=$(run_wrk "$CACHE_SECONDS" 2 "$server_port" "$paths")
    cpu1=$(cpu_seconds "$server_pid")
    run_wrk 3 2 "$nginx_port" "$work/paths-static.txt" >/dev/null
    ncpu0=$(cpu_seconds "$nginx_pid")
    static=$(run_wrk "$CACHE_SECONDS" 2 "$nginx_port" "$work/paths-static.txt")
    ncpu1=$(cpu_seconds "$nginx_pid")
    cache_counts=$(metrics | awk '/^webimage_result_cache_hits_total/ { h += $2 } /^webimage_result_cache_misses_total/ { m += $2 } END { printf "%d hits, %d misses", h, m }')
    awk -v hr="$(field rps "$hits")" -v hp="$(field p99_ms "$hits")" -v hn="$(field non2xx "$hits")" \
        -v hc="$(awk -v a="$cpu0" -v b="$cpu1" -v n="$(field requests "$hits")" 'BEGIN { print (b - a) / n * 1e6 }')" \
        -v sr="$(field rps "$static")" -v sp="$(field p99_ms "$static")" \
        -v sc="$(awk -v a="$ncpu0" -v b="$ncpu1" -v n="$(field requests "$static")" 'BEGIN { print (b - a) / n * 1e6 }')" \
        -v counts="$cache_counts" 'BEGIN {
        printf "cache\tresult-cache hits (memory), 2 connections: ours %.0f req/s (p99 %s ms, %.0f us CPU/req, %s non-2xx); nginx static files %.0f req/s (p99 %s ms, %.0f us CPU/req); ours/nginx %.2f (server metrics: %s)\n",
            hr, hp, hc, hn, sr, sp, sc, hr / sr, counts }' >> "$extras"
    log "$(tail -1 "$extras" | cut -f2)"
    stop_server
fi

# ---------------------------------------------------------------- ours: two nodes behind nginx
# The JPEG case through the shipped deploy/nginx/webimage.conf (only its node list and
# listen address replaced) in front of two nodes of one worker each, against one node of
# two workers alone: the cost of the extra hop. Rounds alternate; CPU is the nodes' and the
# proxy's together.
if [[ " $SERVERS " == *" ours "* ]] && [[ " $FORMATS " == *" jpg "* ]]; then
    run_label=nodes
    paths=$work/paths-ours-jpg.txt
    [ -f "$paths" ] || paths_for ours jpg > "$paths"
    start_server ours --result-cache off
    alone_pid=$server_pid; alone_port=$server_port
    node_pids=(); node_ports=()
    for _ in 1 2; do
        start_server ours --result-cache off --workers 1
        node_pids+=("$server_pid"); node_ports+=("$server_port")
    done
    proxy_port=$(free_port)
    mkdir -p "$work/proxy"
    awk -v nodes="${node_ports[*]}" -v port="$proxy_port" '
        /^[ \t]*server [^{]*;/ { if (!done) { count = split(nodes, n, " "); p = $0; sub(/^[ \t]*server [^ ;]+/, "", p);
                                  for (i = 1; i <= count; i++) print "    server 127.0.0.1:" n[i] p; done = 1 } next }
        /^[ \t]*listen / { print "    listen 127.0.0.1:" port ";"; next }
        { print }' deploy/nginx/webimage.conf > "$work/proxy/webimage.conf"
    grep -q "127.0.0.1:${node_ports[1]}" "$work/proxy/webimage.conf" || { echo "could not point deploy/nginx/webimage.conf at the nodes" >&2; exit 1; }
    { nginx_config "$work/proxy"; printf '    include %s;\n}\n' "$work/proxy/webimage.conf"; } > "$work/proxy/nginx.conf"
    "$NGINX" -p "$work/proxy" -c "$work/proxy/nginx.conf"
    for _ in $(seq 50); do [ -s "$work/proxy/nginx.pid" ] && break; sleep 0.1; done
    proxy_pid=$(cat "$work/proxy/nginx.pid")
    started+=("$proxy_pid")
    fetch_all "$alone_port" "$paths" "$work/out/nodes-alone" jpg
    fetch_all "$proxy_port" "$paths" "$work/out/nodes-proxied" jpg
    run_wrk "$WARMUP" 2 "$alone_port" "$paths" >/dev/null
    run_wrk "$WARMUP" 2 "$proxy_port" "$paths" >/dev/null
    declare -A nodes_requests=() nodes_seconds=() nodes_cpu=() nodes_p99=()
    for round in $(seq 1 "$ROUNDS"); do
        for setup in alone proxied; do
            if [ "$setup" = alone ]; then pids=("$alone_pid"); port=$alone_port; else pids=("${node_pids[@]}" "$proxy_pid"); port=$proxy_port; fi
            c0=0; for pid in "${pids[@]}"; do c0=$(awk -v a="$c0" -v b="$(cpu_seconds "$pid")" 'BEGIN { print a + b }'); done
            line=$(run_wrk "$ROUND_SECONDS" 2 "$port" "$paths")
            c1=0; for pid in "${pids[@]}"; do c1=$(awk -v a="$c1" -v b="$(cpu_seconds "$pid")" 'BEGIN { print a + b }'); done
            nodes_requests[$setup]=$(( ${nodes_requests[$setup]:-0} + $(field requests "$line") ))
            nodes_seconds[$setup]=$(awk -v a="${nodes_seconds[$setup]:-0}" -v b="$(field seconds "$line")" 'BEGIN { print a + b }')
            nodes_cpu[$setup]=$(awk -v a="${nodes_cpu[$setup]:-0}" -v b="$c0" -v c="$c1" 'BEGIN { print a + c - b }')
            nodes_p99[$setup]="${nodes_p99[$setup]:-}$(field p99_ms "$line") "
            [ "$(field non2xx "$line")" = 0 ] || echo "nodes	$setup: $(field non2xx "$line") non-2xx answers" >> "$extras"
        done
    done
    awk -v ar="${nodes_requests[alone]}" -v as="${nodes_seconds[alone]}" -v ac="${nodes_cpu[alone]}" -v ap="${nodes_p99[alone]}" \
        -v pr="${nodes_requests[proxied]}" -v ps="${nodes_seconds[proxied]}" -v pc="${nodes_cpu[proxied]}" -v pp="${nodes_p99[proxied]}" 'BEGIN {
        printf "nodes\tJPEG q80 misses, 2 connections: through nginx (deploy/nginx/webimage.conf) to two nodes of 1 worker %.1f req/s (%.1f ms CPU/req with nginx; p99 per round %sms); one node of 2 workers alone %.1f req/s (%.1f ms CPU/req; p99 %sms); proxied/alone %.2f\n",
            pr / ps, pc / pr * 1000, pp, ar / as, ac / ar * 1000, ap, (pr / ps) / (ar / as) }' >> "$extras"
    log "$(tail -1 "$extras" | cut -f2)"
    kill -TERM "$proxy_pid" 2>/dev/null || true
    for pid in "$alone_pid" "${node_pids[@]}"; do server_pid=$pid; stop_server; done
fi

# ---------------------------------------------------------------- report
echo
echo "Image service benchmark ($mode: ${WARMUP}s warm-up, then ${MEASURE}s per server in $ROUNDS rotating rounds; wrk -c 2 -t 2; 100 photos of 2040 px -> fit ${BOX}x$BOX)"
echo "ours: commit $ours_version"
echo "machine: $(nproc) cores, $(awk '/model name/ { $1 = $2 = $3 = ""; print; exit }' /proc/cpuinfo | sed 's/^ *//'); load average at start $first_load, at end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$rounds" "$outputs" "$peaks" <<'PY'
import csv, statistics, sys
def table(path):
    return list(csv.DictReader(open(path), delimiter="\t"))
rounds, outputs, peaks = (table(p) for p in sys.argv[1:4])
names = {"jpg": "JPEG q80", "webp": "WebP q75", "avif": "AVIF q65", "png": "PNG"}
bytes_ = {(r["server"], r["format"]): float(r["mean_bytes"]) for r in outputs}
peak = {(r["server"], r["format"]): int(r["vmhwm_kb"]) / 1024 for r in peaks}
keys = []
for r in rounds:
    if (r["server"], r["format"]) not in keys:
        keys.append((r["server"], r["format"]))
summary = {}
for key in keys:
    rs = [r for r in rounds if (r["server"], r["format"]) == key]
    requests = sum(int(r["requests"]) for r in rs)
    seconds = sum(float(r["seconds"]) for r in rs)
    rates = [int(r["requests"]) / float(r["seconds"]) for r in rs]
    med = lambda f: statistics.median(float(r[f]) for r in rs)
    loads = [float(r["load"]) for r in rs]
    summary[key] = dict(
        rps=requests / seconds, lo=min(rates), hi=max(rates), p50=med("p50"), p95=med("p95"), p99=med("p99"),
        cpu=sum(float(r["cpu"]) for r in rs) / max(1, requests),
        errors=sum(int(r["non2xx"]) + int(r["socket_errors"]) for r in rs),
        load=f"{min(loads):.1f}-{max(loads):.1f}")
print()
print("| format | server | req/s | rounds' req/s | p50 ms | p95 ms | p99 ms | CPU ms/req | cores busy | peak RSS MiB | mean bytes | errors | load |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for key in keys:
    m = summary[key]
    print(f"| {names[key[1]]} | {key[0]} | {m['rps']:.1f} | {m['lo']:.1f}-{m['hi']:.1f} | {m['p50']:.1f} | {m['p95']:.1f} | "
          f"{m['p99']:.1f} | {m['cpu'] * 1000:.1f} | {m['rps'] * m['cpu']:.2f} | {peak.get(key, 0):.0f} | "
          f"{bytes_.get(key, 0):.0f} | {m['errors']} | {m['load']} |")
print()
for fmt in names:
    ours = summary.get(("ours", fmt))
    if not ours:
        continue
    parts = []
    for other in ("thumbor", "vips", "vips-sol"):
        o = summary.get((other, fmt))
        if o:
            parts.append(f"ours/{other} {ours['rps'] / o['rps']:.2f}x req/s, "
                         f"{ours['cpu'] / o['cpu']:.2f}x CPU/req, "
                         f"{bytes_[('ours', fmt)] / bytes_[(other, fmt)]:.2f}x bytes")
    print(f"{names[fmt]}: " + "; ".join(parts))
PY
echo
cut -f2 "$extras"
echo
echo "server logs: $work/logs/"
