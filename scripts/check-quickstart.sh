#!/usr/bin/env bash
# Builds and runs README's quick start exactly as printed, so copy and paste keeps working.
# The two code blocks after the `<!-- quickstart:FILE -->` markers become a package in
# .build/quickstart; its URL dependency is pointed at this clone. The clone is reached
# through a link named swift-web-image because SwiftPM names a path dependency after its
# folder and the README's `package: "swift-web-image"` must match whatever the clone is called.
# Shares .build/examples with Examples/check.sh, so the dependencies compile once.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/.build/quickstart
rm -rf "$work/Thumbnails"
mkdir -p "$work/Thumbnails/Sources/Thumbnails"
ln -sfn "$root" "$work/swift-web-image"

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
sed -i 's|\.package(url: "https://github.com/swift-web-image/swift-web-image", from: "[^"]*")|.package(path: "../swift-web-image")|' \
    "$work/Thumbnails/Package.swift"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# As in Examples/check.sh: the scratch folder's last build plan belongs to another root
# package, and the quick start's own objects go so that its warnings are in this log.
rm -f "$root/.build/examples/debug.yaml" "$root/.build/examples/debug/description.json"
rm -rf "$root/.build/examples/debug/Thumbnails.build"
swift build --package-path "$work/Thumbnails" --scratch-path "$root/.build/examples" --product Thumbnails 2>&1 | tee "$log" | tail -1
if grep -E "Thumbnails/[^:]+:[0-9]+:[0-9]+: warning:" "$log"; then
    echo "check-quickstart: the quick start compiles with warnings" >&2
    exit 1
fi
bin=$(swift build --package-path "$work/Thumbnails" --scratch-path "$root/.build/examples" --show-bin-path)
run=$(mktemp -d)
(cd "$run" && XDG_CACHE_HOME="$run/cache" "$bin/Thumbnails" "$root/Corpus/sdwebimage/TestImage.jpg") | tee "$log"
head -c 12 "$run/thumbnail.webp" | grep -q WEBP || { echo "check-quickstart: no thumbnail.webp written" >&2; exit 1; }
rm -rf "$run"
echo "check-quickstart: README's quick start builds and runs"
