#!/usr/bin/env bash
# Builds the example packages and smoke-tests each one: ThumbnailBatch on a few corpus images,
# ImageServer on a free loopback port against a local origin. Run from anywhere; exits
# non-zero on the first failure. Only 127.0.0.1 is ever contacted.
set -euo pipefail
cd "$(dirname "$0")/.."

# One scratch folder for both examples, so the library and its dependencies compile once.
CORPUS=Corpus/sdwebimage
tmp=$(mktemp -d)
pids=()
passed=0

cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT

ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() {
    echo "FAIL $*" >&2
    echo "examples: $passed passed, 1 failed"
    exit 1
}

for example in ThumbnailBatch ImageServer; do
    echo "== build $example"
    bin=$(scripts/build-example.sh Examples/"$example" "$example") || fail "build $example"
    ok "build $example, no warnings"
done

# WIDTHxHEIGHT of a PNG, from its header, so the check does not trust the library under test.
png_size() {
    python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(24)
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
print("%dx%d" % struct.unpack(">II", d[16:24]))' "$1"
}
# Whether WxH fits inside a BOXxBOX square and touches it on one side.
fits() { python3 -c 'import sys; w, h = map(int, sys.argv[1].split("x")); b = int(sys.argv[2]); sys.exit(not (max(w, h) == b and min(w, h) >= 1))' "$1" "$2"; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

echo "== ThumbnailBatch"
images=("$CORPUS/TestImage.jpg" "$CORPUS/TestImage.png" "$CORPUS/TestImageAnimated.webp")
batch() { "$bin/ThumbnailBatch" --cache-dir "$tmp/cache" --size 64x64 --jobs 2 "$@"; }

batch --format png --output "$tmp/thumbs" "${images[@]}" | tee "$tmp/batch.log" || fail "first batch run"
[ "$(ls "$tmp/thumbs" | wc -l)" -eq 3 ] || fail "expected 3 thumbnails in $tmp/thumbs"
for file in "$tmp"/thumbs/*.png; do
    size=$(png_size "$file") || fail "$file is not a PNG"
    fits "$size" 64 || fail "$file is $size, not fitted to 64x64"
done
ok "3 PNG thumbnails fitted to 64x64"

batch --format png --output "$tmp/thumbs" "${images[@]}" | tee "$tmp/batch.log" || fail "second batch run"
grep -q ': 3 disk$' "$tmp/batch.log" || fail "second run did not come from the disk cache"
ok "second run from the disk cache"

# The library's own decoders read every thumbnail back: a full decode, not just a header.
batch --format webp --output "$tmp/again" "$tmp"/thumbs/*.png | tee "$tmp/batch.log" || fail "thumbnails do not decode"
[ "$(ls "$tmp"/again/*.webp | wc -l)" -eq 3 ] || fail "expected 3 WebP files in $tmp/again"
ok "thumbnails decode; WebP written"

status=0
batch --output "$tmp/partial" "$CORPUS/TestImage.jpg" "$tmp/missing.jpg" > "$tmp/batch.log" || status=$?
cat "$tmp/batch.log"
[ "$status" -eq 1 ] || fail "a missing file should give exit status 1, got $status"
[ "$(ls "$tmp/partial" | wc -l)" -eq 1 ] || fail "the good image should still be written"
ok "a failed image is reported, the rest written, exit status 1"

echo "== ImageServer"
origin_port=$(free_port)
python3 -m http.server "$origin_port" --bind 127.0.0.1 --directory "$CORPUS" > "$tmp/origin.log" 2>&1 &
pids+=($!)
port=$(free_port)
CACHE_DIR="$tmp/server-cache" "$bin/ImageServer" "$port" > "$tmp/server.log" 2>&1 &
server=$!
pids+=("$server")
base="http://127.0.0.1:$port/thumbnail"
origin="http://127.0.0.1:$origin_port"
for _ in $(seq 1 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && curl -s -o /dev/null "$origin/" && break
    kill -0 "$server" 2>/dev/null || { cat "$tmp/server.log"; fail "ImageServer exited"; }
    sleep 0.2
done

# GET $1 into $tmp/body; prints "STATUS CONTENT-TYPE".
get() { curl -s -o "$tmp/body" -w '%{http_code} %{content_type}' "$@"; }

answer=$(get "$base?url=$origin/TestImage.png&width=80&height=80&format=png")
[ "$answer" = "200 image/png" ] || fail "good request answered '$answer': $(cat "$tmp/body")"
size=$(png_size "$tmp/body") || fail "the answer is not a PNG"
fits "$size" 80 || fail "the answer is $size, not fitted to 80x80"
ok "GET /thumbnail: 200 image/png $size"

answer=$(get -H 'Accept: image/webp,*/*' "$base?url=$origin/TestImage.jpg&width=50&height=50")
[ "$answer" = "200 image/webp" ] || fail "negotiated request answered '$answer'"
ok "Accept: image/webp gives image/webp"

answer=$(get "$base?url=$origin/TestImage.png&width=0&height=80")
[ "${answer%% *}" = "400" ] || fail "width=0 answered '$answer'"
grep -q "width and height" "$tmp/body" || fail "the 400 gives no reason: $(cat "$tmp/body")"
ok "bad query: 400 $(cat "$tmp/body")"

answer=$(get "$base?url=$origin/no-such-image.png&width=80&height=80")
[ "${answer%% *}" = "502" ] || fail "a missing origin image answered '$answer'"
ok "failed load: 502 $(cat "$tmp/body")"

kill -TERM "$server"
# runService stops gracefully on SIGTERM and exits 0: any other status (a crash in the
# stop, a trap) is a failure, not "stopped".
status=0
wait "$server" 2>/dev/null || status=$?
[ "$status" -eq 0 ] || { cat "$tmp/server.log"; fail "ImageServer exited $status on SIGTERM"; }
ok "server stopped (exit 0)"
echo "examples: $passed passed, 0 failed"
