#!/usr/bin/env bash
# Reference renders for SVGCoderTests and PDFCoderTests, made by the libraries' own
# command-line tools: rsvg-convert (librsvg, the library SVGCoder opens) and pdftocairo
# (poppler's cairo backend, the one PDFCoder draws with; pdftoppm's Splash backend
# antialiases differently). Both write straight-alpha PNGs without colour chunks.
# Needs librsvg2-bin and poppler-utils: scripts/install-deps.sh librsvg2-bin poppler-utils
# Run from anywhere; writes next to this script.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../../../../Corpus/sdwebimage"
cd "$here"
rsvg-convert "$corpus/TestImage.svg" -o svg-TestImage-131x76.png
rsvg-convert -w 524 -h 304 "$corpus/TestImage.svg" -o svg-TestImage-524x304.png
rsvg-convert -w 200 -h 50 "$corpus/TestImage.svg" -o svg-TestImage-200x50.png
rsvg-convert units.svg -o svg-units-96x48.png
pdftocairo -r 72 -png -singlefile "$corpus/TestImage.pdf" pdf-TestImage-36x36
pdftocairo -scale-to 144 -png -singlefile "$corpus/TestImage.pdf" pdf-TestImage-144x144
