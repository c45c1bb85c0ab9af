#!/usr/bin/env bash
# `swift build` that fails on any compiler warning in this repository's own code: its
# sources, tests and benchmarks, and the packages built from inside it (Examples/, README's
# quick start under .build/). Dependencies' checkouts are not ours and are not checked.
#
# Why not `-Xswiftc -warnings-as-errors`: flags given to the compiler change the build's
# parameters, so every other build of the package without them (the DocC plugin's symbol
# graphs, the manual generator, `swift test`) would recompile everything from scratch.
# Reading the build's own log keeps one warm build folder for all of them.
# Usage: scripts/swift-build-checked.sh [swift build options...]
set -euo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift build "$@" 2>&1 | tee "$log" || status=$?
((status == 0)) || exit "$status"
# The physical path, as the compiler prints it (a clone reached through a symbolic link
# matched no line), compared as a plain prefix (a path with `+` or `.` in it is not a
# pattern): otherwise the check passed with warnings present.
root=$(cd "$(dirname "$0")/.." && pwd -P)
# A warning inside a macro's expansion (`#expect(try ...)` with nothing that throws) is
# printed as "macro expansion #expect:1:22: warning: ..." with the source line on the next
# line ("`- PATH:LINE:COL: note: expanded code originates here"): it is reported at that
# source line, or it would pass unseen.
warnings=$(awk -v root="$root/" '
    index($0, root) == 1 && /^[^:]+:[0-9]+:[0-9]+: warning:/ { print; next }
    pending != "" && index($0, "`- " root) == 1 && /note: expanded code originates here/ {
        location = substr($0, 4); sub(/: note: expanded code originates here.*/, "", location)
        print location ": warning: (in a macro expansion) " pending
    }
    { pending = "" }
    /^macro expansion [^:]*:[0-9]+:[0-9]+: warning: / { pending = $0; sub(/^.*: warning: /, "", pending) }
' "$log" | grep -v "/checkouts/" | sort -u || true)
if [ -n "$warnings" ]; then
    echo "error: the build has warnings (the project builds with none):" >&2
    echo "$warnings" >&2
    exit 1
fi
