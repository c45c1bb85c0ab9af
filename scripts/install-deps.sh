#!/usr/bin/env bash
# Installs the Debian packages the build needs; does nothing when they are all present.
# Usage: scripts/install-deps.sh [extra-package ...]
# librsvg and poppler-glib (with cairo) are opened with dlopen when an SVG or PDF is first
# decoded, so only their run-time packages are needed, no headers.
set -euo pipefail
# libimage-exiftool-perl: exiftool, the independent reader the metadata tests check written files with.
# time: GNU time, whose peak-memory figure the benchmarks print (Benchmarks/stream.sh).
# publicsuffix: the public suffix list the cookie jar refuses Domain attributes by.
# procps: pgrep and pkill, with which scripts/test-pass.sh stops a hung test pass (a minimal
# Debian image has no procps, and the pass would then wait until CI's limit).
packages=(pkg-config curl python3 nginx time procps libjpeg62-turbo-dev libpng-dev libgif-dev libwebp-dev libavif-dev libheif-dev libtiff-dev liblcms2-dev
    libjxl-dev librsvg2-2 libpoppler-glib8 libcairo2 libimage-exiftool-perl publicsuffix "$@")
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0
echo "installing: ${missing[*]}"
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo > /dev/null; then
        echo "install-deps: not root and no sudo: run as root, or install these first: ${missing[*]}" >&2
        exit 1
    fi
    # Through env: sudo's env_reset would drop DEBIAN_FRONTEND set before it.
    SUDO=(sudo)
fi
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# A system nginx installed here would start serving port 80 for good on a systemd host
# (the tests start nginx processes of their own on loopback ports); so would a failure to
# start it, on a host whose port 80 is taken, fail the install. policy-rc.d's 101 tells
# the package scripts not to start any service, as Debian's container images do.
policy=/usr/sbin/policy-rc.d
added_policy=0
if [[ " ${missing[*]} " == *" nginx "* ]] && [ ! -e "$policy" ]; then
    # Removed however the install ends (an interrupted one too): left behind, it would
    # stop every later package on this host from starting its service.
    trap '"${SUDO[@]}" rm -f "$policy"' EXIT
    printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee "$policy" > /dev/null
    "${SUDO[@]}" chmod 755 "$policy"
    added_policy=1
fi
status=0
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null || status=$?
if ((added_policy)); then
    "${SUDO[@]}" rm -f "$policy"
    trap - EXIT
    # Not started, but enabled for the next boot: nothing of ours needs that.
    if command -v systemctl > /dev/null; then "${SUDO[@]}" systemctl disable nginx > /dev/null 2>&1 || true; fi
fi
exit "$status"
