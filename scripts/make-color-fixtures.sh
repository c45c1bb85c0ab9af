#!/usr/bin/env bash
# Rebuilds Tests/WebImageTests/Fixtures/color/ (see make-color-fixtures.py): installs the
# Debian profile packages and, in a private virtual environment, Pillow with ImageCms and
# pillow-heif (pypng is for Fixtures/png/make_png_fixtures.py, which needs exact 16-bit reads,
# and for the 16-bit PNG that libavif-bin's avifenc turns into the HDR AVIF).
# The fixtures are committed; `make test` never runs this.
# Usage: scripts/make-color-fixtures.sh [output-directory]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh" python3-venv colord-data icc-profiles-free libavif-bin
venv="$root/.build/color-fixtures-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "pillow>=11.3" pillow-heif pypng numpy
cd "$root"
"$venv/bin/python" scripts/make-color-fixtures.py "$@"
