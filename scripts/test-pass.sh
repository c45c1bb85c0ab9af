#!/bin/bash
# Runs one test pass (`swift test ARGS...`) with a time limit: scripts/test-pass.sh LIMIT ARGS...
#
# Why: one clean-clone run in about ten hung in the server pass. Four tests sat in the
# server's stop with every thread idle, and the pass would have waited until CI's 90-minute
# limit killed everything, with nothing said about where. Now a pass that outlives LIMIT
# seconds (several times its usual length) is stopped: the script names the tests that
# started and never ended, writes every thread's stack if gdb is installed, and runs the
# pass once more. A second hang, or any failed test, fails the pass. The rerun is said
# loudly, so a hang is never silent, and the cause is still looked for.
set -u
limit=$1
shift
# Without them a pass at its limit could not be stopped, and the script would wait on it.
for tool in pgrep pkill; do
    command -v "$tool" > /dev/null || { echo "test-pass: $tool is missing (Debian package procps; make deps installs it)" >&2; exit 2; }
done
# A pass that hung and then passed on its rerun leaves its line here too, for .ci/run to
# repeat at the end of its output (a green run would otherwise say it only mid-log).
hangs=${TEST_PASS_HANGS:-.build/test-pass-hangs.log}
log=$(mktemp)
events=$log.events
pid=
# The pass runs in a session of its own (setsid): `swift test` starts the test binary in a
# process group of its own, so only the session holds both. Stopping the script (Ctrl-C,
# a cancelled CI job) stops the whole session too.
stop_pass() {
    [ -n "$pid" ] || return 0
    pkill -TERM -s "$pid" 2>/dev/null
    for _ in 1 2 3 4 5; do pgrep -s "$pid" > /dev/null || return 0; sleep 1; done
    pkill -KILL -s "$pid" 2>/dev/null
}
trap 'stop_pass; rm -f "$log" "$events"; exit 130' INT
trap 'stop_pass; rm -f "$log" "$events"; exit 143' TERM
trap 'stop_pass; rm -f "$log" "$events"; exit 129' HUP
trap 'rm -f "$log" "$events"' EXIT

# Runs the pass, its output both shown and kept in $log; returns its status, or 124 when
# it was stopped at the limit.
run_pass() {
    : > "$log"
    : > "$events"
    # A background child of a script is not a group leader, so setsid does not fork:
    # $pid is the session's leader, `swift test` itself. Swift Testing also writes its
    # events, one JSON line each as they happen, to $events: the console output reaches
    # $log in 4 KB blocks, so at a hang its last tens of lines were missing and a test
    # that had passed was listed as unfinished.
    setsid "${SWIFT:-swift}" test "$@" --event-stream-output-path "$events" --event-stream-version 0 > >(tee "$log") 2>&1 &
    pid=$!
    local waited=0
    while kill -0 "$pid" 2>/dev/null; do
        if (( waited >= limit )); then
            report_hang "$@"
            stop_pass
            wait "$pid" 2>/dev/null
            pid=
            return 124
        fi
        sleep 1
        waited=$((waited + 1))
    done
    wait "$pid"
    local status=$?
    # A test binary that outlived `swift test` would hold its ports into the next pass.
    pkill -KILL -s "$pid" 2>/dev/null
    pid=
    return "$status"
}

report_hang() {
    echo "test-pass: still running after ${limit} s: swift test $*" >&2
    # From the event stream: each test's full ID (suite and name), written as it starts
    # and ends, so the list is exact.
    echo "test-pass: the tests that started and did not end:" >&2
    grep '"kind":"testStarted"' "$events" | grep -o '"testID":"[^"]*"' | sort -u > "$log.started"
    grep '"kind":"testEnded"' "$events" | grep -o '"testID":"[^"]*"' | sort -u > "$log.ended"
    comm -23 "$log.started" "$log.ended" | sed -e 's/^"testID":"/  /' -e 's/"$//' -e 's|\\/|/|g' >&2
    rm -f "$log.started" "$log.ended"
    if command -v gdb > /dev/null; then
        for process in $(pgrep -s "$pid" -f 'PackageTests.xctest'); do
            echo "test-pass: the threads of process $process:" >&2
            timeout --foreground -k 10 60 gdb -p "$process" -batch -ex 'thread apply all bt 12' 2>&1 | grep -E '^(Thread|#)' | cut -c1-200 >&2
        done
    fi
}

run_pass "$@"
status=$?
if (( status == 124 )); then
    # A sanitizer report that does not stop the process (the thread sanitizer's, with
    # halt_on_error=0) counts only in the exit status, which a stopped run never gives:
    # the hung run's output is searched for one instead, and one fails the pass whatever
    # the rerun does.
    reported=$(grep -E -m 3 'WARNING: ThreadSanitizer|ERROR: (Address|Leak)Sanitizer|: runtime error: ' "$log")
    echo "test-pass: HUNG; running the pass once more (a second hang fails it)" >&2
    run_pass "$@"
    status=$?
    (( status == 0 )) && echo "test-pass: the rerun passed; the first run HUNG (see above)" >&2
    if [ -n "$reported" ]; then
        echo "test-pass: FAILED: the run that hung had sanitizer reports (see above), first lines:" >&2
        echo "$reported" >&2
        status=1
    fi
    mkdir -p "$(dirname "$hangs")" && echo "$(date -u +%FT%TZ) HUNG past ${limit} s, rerun status $status: swift test $*" >> "$hangs"
fi
exit "$status"
