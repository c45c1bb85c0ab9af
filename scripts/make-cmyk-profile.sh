#!/usr/bin/env bash
# Rebuilds Sources/CColorProfiles/fogra39.icc, the CMYK profile that CMYK images without a
# profile of their own are converted through (ImageCoderOptions.defaultCMYKProfile).
#
# Its source is Fogra's FOGRA39L characterisation data (1,617 CMYK patches measured on
# coated paper, ISO 12647-2: the print condition of "ISO Coated v2" and Photoshop's "Coated
# FOGRA39"), as Debian's icc-profiles-free ships it under the zlib licence. ArgyllCMS's
# colprof fits a lookup-table profile to it (medium quality: a mean error of 0.5 ΔE76 over
# the measured patches, 1.6 at most; a low B2A table, since decoding reads only A2B).
# The profile is committed, so a build never runs this; each run differs from the last only
# in the creation date of the header.
# Usage: scripts/make-cmyk-profile.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" argyll icc-profiles-free
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp /usr/share/color/icc/FOGRA39L.ti3 "$work/fogra39.ti3"
colprof -qm -b l -nc \
    -D "Coated FOGRA39 (swift-web-image)" \
    -C "From FOGRA39L.ti3 (Fogra; Kai-Uwe Behrmann, zlib licence) by ArgyllCMS colprof" \
    "$work/fogra39" >/dev/null
cp "$work/fogra39.icc" "$root/Sources/CColorProfiles/fogra39.icc"
echo "wrote Sources/CColorProfiles/fogra39.icc ($(stat -c %s "$root/Sources/CColorProfiles/fogra39.icc") bytes)"
