#!/usr/bin/env bash
# The main job, for now: inspect every image of the bundled corpus and decode a 256-px
# thumbnail of each into out/demo/, printing what was found and how long it took.
# Usage: scripts/demo.sh PATH_TO_webimage CORPUS_DIR
set -uo pipefail
webimage=$1
corpus=$2
out=out/demo
mkdir -p "$out"
printf '%-32s %-8s %-11s %6s %5s %5s %3s  %s\n' file format size frames loop alpha ori "thumbnail (time)"
for file in "$corpus"/*; do
    name=$(basename "$file")
    case "$name" in *.md) continue ;; esac
    if ! info=$("$webimage" info "$file" --json 2>&1); then
        printf '%-32s %s\n' "$name" "${info#webimage: error: }"
        continue
    fi
    read -r format size frames loop alpha orientation < <(python3 -c '
import json, sys
i = json.loads(sys.argv[1])
size = "%dx%d" % (i["width"], i["height"])
print(i["format"], size, i["frameCount"], i["loopCount"], "yes" if i["hasAlpha"] else "no", i["orientation"])' "$info")
    start=$(date +%s%N)
    if "$webimage" decode "$file" --thumbnail 256x256 -o "$out/$name.png" 2>/dev/null; then
        thumb="$out/$name.png ($(( ($(date +%s%N) - start) / 1000000 )) ms)"
    else
        thumb="failed"
    fi
    printf '%-32s %-8s %-11s %6s %5s %5s %3s  %s\n' "$name" "$format" "$size" "$frames" "$loop" "$alpha" "$orientation" "$thumb"
done
