#!/usr/bin/env bash
# Installs the reference tools, builds release, and runs every comparison in one go.
# Usage: Benchmarks/run.sh [CORPUS_DIR]   (default: the repository's Corpus/sdwebimage)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh libjpeg-turbo-progs libvips-tools python3 time
python3 -c "import PIL" 2>/dev/null || python3 -m pip install --quiet Pillow
swift build -c release --product webimage -Xswiftc -warnings-as-errors
swift build -c release --product webimage-bench -Xswiftc -warnings-as-errors
swift build -c release --product anim-bench -Xswiftc -warnings-as-errors
exec python3 Benchmarks/compare.py --bin "$(swift build -c release --show-bin-path)" --corpus "${1:-Corpus/sdwebimage}"
