#!/usr/bin/env bash
# Builds and runs README's quick start exactly as printed, so copy and paste keeps working.
# The two code blocks after the `<!-- quickstart:FILE -->` markers become a package in
# .build/quickstart; its URL dependency is pointed at this clone, by its own path and named
# swift-web-image (`.package(name:path:)`): SwiftPM names a path dependency after its
# folder otherwise, and the README's `package: "swift-web-image"` must match whatever the
# clone is called. Not through a link of that name: the library's files would then have
# other paths than in this package's own build, and compile again in the folder both share.
# Built by scripts/build-example.sh in .build beside the examples.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/.build/quickstart
rm -rf "$work/Thumbnails"
mkdir -p "$work/Thumbnails/Sources/Thumbnails"

# extract FILE: the first ```swift block after README's marker for FILE.
extract() {
    awk -v marker="<!-- quickstart:$1 -->" '
        $0 == marker { found = 1; next }
        found && /^```swift/ { inside = 1; next }
        inside && /^```/ { exit }
        inside { print }
    ' README.md
}
extract Package.swift > "$work/Thumbnails/Package.swift"
extract main.swift > "$work/Thumbnails/Sources/Thumbnails/main.swift"
[ -s "$work/Thumbnails/Package.swift" ] && [ -s "$work/Thumbnails/Sources/Thumbnails/main.swift" ] ||
    { echo "check-quickstart: README has no quick start blocks" >&2; exit 1; }
grep -q '\.package(url: "https://github.com/swift-web-image/swift-web-image"' "$work/Thumbnails/Package.swift" ||
    { echo "check-quickstart: the quick start's dependency line changed; update this script" >&2; exit 1; }
sed -i 's|\.package(url: "https://github.com/swift-web-image/swift-web-image", from: "[^"]*")|.package(name: "swift-web-image", path: "'"$root"'")|' \
    "$work/Thumbnails/Package.swift"

bin=$(scripts/build-example.sh "$work/Thumbnails" Thumbnails) ||
    { echo "check-quickstart: the quick start does not build cleanly (scripts/build-example.sh $work/Thumbnails Thumbnails)" >&2; exit 1; }
run=$(mktemp -d)
(cd "$run" && XDG_CACHE_HOME="$run/cache" "$bin/Thumbnails" "$root/Corpus/sdwebimage/TestImage.jpg")
head -c 12 "$run/thumbnail.webp" | grep -q WEBP || { echo "check-quickstart: no thumbnail.webp written" >&2; exit 1; }
rm -rf "$run"
echo "check-quickstart: README's quick start builds and runs"
