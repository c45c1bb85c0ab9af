#!/usr/bin/env bash
# The main job: `webimage demo` serves the bundled corpus from a local origin on
# 127.0.0.1, loads every image cold (network), again with a new manager over the same
# disk cache (disk) and again with the same manager (memory), and prints a table of
# sources and timings. Its temporary cache is removed afterwards.
# Usage: scripts/demo.sh PATH_TO_webimage CORPUS_DIR [extra demo options]
set -euo pipefail
webimage=$1
corpus=$2
shift 2
exec "$webimage" demo --corpus "$corpus" "$@"
