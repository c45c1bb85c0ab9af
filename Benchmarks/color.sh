#!/usr/bin/env bash
# The colour-conversion benchmark (Benchmarks/color.py): builds webimage-bench in release
# and runs it beside Pillow + ImageCms in a private virtual environment.
# Usage: Benchmarks/color.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh python3-venv
venv=.build/color-bench-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
# pillow-heif: scripts/make-color-fixtures.py, which color.py takes its Display P3 profile from, imports it.
"$venv/bin/pip" install -q --disable-pip-version-check "pillow>=11.3" pillow-heif
swift build -c release --product webimage-bench
exec "$venv/bin/python" Benchmarks/color.py --bin "$(swift build -c release --show-bin-path)" "$@"
