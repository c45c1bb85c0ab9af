#!/usr/bin/env bash
# Installs the Debian packages the build needs; does nothing when they are all present.
# Usage: scripts/install-deps.sh [extra-package ...]
# librsvg and poppler-glib (with cairo) are opened with dlopen when an SVG or PDF is first
# decoded, so only their run-time packages are needed, no headers.
set -euo pipefail
# libimage-exiftool-perl: exiftool, the independent reader the metadata tests check written files with.
# time: GNU time, whose peak-memory figure the benchmarks print (Benchmarks/stream.sh).
# publicsuffix: the public suffix list the cookie jar refuses Domain attributes by.
packages=(pkg-config curl python3 nginx time libjpeg62-turbo-dev libpng-dev libgif-dev libwebp-dev libavif-dev libheif-dev libtiff-dev liblcms2-dev
    libjxl-dev librsvg2-2 libpoppler-glib8 libcairo2 libimage-exiftool-perl publicsuffix "$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0
echo "installing: ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
