#!/usr/bin/env bash
# Proves what LockedValue's doc comment claims, with the thread sanitizer itself:
#  1. a bare Synchronization.Mutex guarding a counter reaches the exact count (the lock
#     works) yet the sanitizer reports a race: it cannot see the lock (a false report);
#  2. LockedValue, the package's lock, reaches the exact count with no report;
#  3. LockedValue still lets the sanitizer report a real race (one thread without the lock).
# Usage: scripts/check-tsan-locks.sh [scratch folder]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/.build-tsan/locks}
mkdir -p "$out"
swiftc -swift-version 6 -O -sanitize=thread -package-name swift_web_image \
    "$root/scripts/tsan-locks/main.swift" "$root/Sources/WebImage/Internal/LockedValue.swift" \
    -o "$out/tsan-locks"

# Runs one program a few times (contention, and so the false report, is not certain in
# any one run); prints its count and the number of sanitizer reports over all runs.
run() {
    local reports=0 count="" log
    for _ in 1 2 3 4 5; do
        log=$(TSAN_OPTIONS="halt_on_error=0 exitcode=0" "$out/tsan-locks" "$1" 2>&1)
        reports=$((reports + $(grep -c "WARNING: ThreadSanitizer" <<<"$log" || true)))
        count=$(grep -E '^[0-9]+$' <<<"$log" | tail -1)
    done
    echo "$count $reports"
}

failed=0
read -r count reports < <(run bare-mutex)
echo "bare Mutex: count $count, sanitizer reports $reports (expected 400000 and at least 1: the lock is invisible)"
[[ $count == 400000 && $reports -ge 1 ]] || failed=1
read -r count reports < <(run locked-value)
echo "LockedValue: count $count, sanitizer reports $reports (expected 400000 and 0)"
[[ $count == 400000 && $reports -eq 0 ]] || failed=1
read -r count reports < <(run locked-value-one-thread-unlocked)
echo "LockedValue, one thread unlocked: sanitizer reports $reports (expected at least 1: a real race)"
[[ $reports -ge 1 ]] || failed=1
((failed == 0)) && echo "check-tsan-locks: the sanitizer sees LockedValue and not a bare Mutex, as documented"
exit "$failed"
