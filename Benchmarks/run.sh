#!/usr/bin/env bash
# Installs the reference tools, builds release, and runs every comparison in one go.
# Usage: Benchmarks/run.sh [CORPUS_DIR]   (default: the repository's Corpus/sdwebimage)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh libjpeg-turbo-progs libvips-tools python3 time
# Pillow, Debian's: Debian 12's pip refuses to install into the system's Python, and a
# `python3` of its own on the PATH (pyenv) does not see Debian's packages.
PYTHON=python3
if ! "$PYTHON" -c 'import PIL' 2>/dev/null; then
    scripts/install-deps.sh python3-pil
    PYTHON=/usr/bin/python3
fi
swift build -c release --product webimage -Xswiftc -warnings-as-errors
swift build -c release --product webimage-bench -Xswiftc -warnings-as-errors
swift build -c release --product anim-bench -Xswiftc -warnings-as-errors
exec "$PYTHON" Benchmarks/compare.py --bin "$(swift build -c release --show-bin-path)" --corpus "${1:-Corpus/sdwebimage}"
