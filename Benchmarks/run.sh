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
# Checked for warnings from the build's log, not with -warnings-as-errors: compiler flags
# change the build's parameters, so `make demo` and this would rebuild everything in turn.
for product in webimage webimage-bench anim-bench; do
    scripts/swift-build-checked.sh -c release --product "$product"
done
exec "$PYTHON" Benchmarks/compare.py --bin "$(swift build -c release --show-bin-path)" --corpus "${1:-Corpus/sdwebimage}"
