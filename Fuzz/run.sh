#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/Sources, built with the Swift toolchain's libFuzzer and
# AddressSanitizer) and runs each for SECONDS, one fuzzer process at a time.
#
# Usage: Fuzz/run.sh SECONDS [RUN ...]
#   RUN is a name from the table below (default: all of them), e.g. `decode-jpeg cookie`.
#   FUZZ_RUNS="..." does the same from the environment (`make fuzz FUZZ_RUNS=...`).
#   FUZZ_NO_BUILD=1 runs the binaries of the last build as they are.
#   FUZZ_SEED=N fixes libFuzzer's seed (see below).
#   FUZZ_EXECUTIONS=N ends each run after N executions, SECONDS being then only a cap.
#   FUZZ_JOBS=N runs N fuzzer processes of each run at once on the same corpus (each with
#   its own seed and log), for N cores; the summary adds up their executions and rates,
#   and FUZZ_EXECUTIONS is shared out between them (each runs N / jobs, rounded up).
#   FUZZ_TIMEOUT=S is the seconds one input may take before it counts as a hang (10).
#
# Everything it writes is under .build-fuzz/ (git-ignored): the build, the seeds it makes
# from the repository's fixtures (Fuzz/make-seeds.py), the corpora libFuzzer grows (kept
# between runs, so longer fuzzing adds up), crash artefacts, logs, and summary.txt with
# each run's executions, executions per second and coverage. Exits non-zero when any run
# found a crash, a leak, a timeout or an allocation past the limits.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:?usage: Fuzz/run.sh SECONDS [RUN ...]}
shift
scratch=.build-fuzz
work=$scratch/fuzz

# run  target  dictionary  max_len: each decode run gets its format's seeds and
# dictionary; the runs that take a parameter header get every format's.
table="
decode-jpeg  decode      jpeg         262144
decode-png   decode      png          262144
decode-gif   decode      gif          262144
decode-webp  decode      webp         262144
decode-avif  decode      heif         262144
decode-heif  decode      heif         262144
decode-tiff  decode      tiff         262144
decode-bmp   decode      bmp          262144
decode-jxl   decode      jxl          262144
decode-svg   decode      svg          65536
decode-pdf   decode      pdf          262144
thumbnail    thumbnail   images       65600
scaledown    scaledown   images       65600
progressive  progressive images       65600
animated     animated    images       65600
metadata     metadata    images       262200
cookie       cookie      cookie       4096
transform    transform   transform    1024
dataurl      dataurl     dataurl      8192
server-path  server-path server-path  4096
server-process server-process server-process 65600
"
read -r -a runs <<< "${*:-${FUZZ_RUNS:-}}"
if ((${#runs[@]} == 0)); then
    runs=($(awk 'NF { print $1 }' <<< "$table"))
fi

# Limits: the targets decode with a pixel limit of one megapixel (Fuzz.pixelLimit), 4 MiB
# of RGBA for all frames together. One allocation over 64 MiB (sixteen times that budget,
# room for a decoder's own tables and the largest input, 256 KiB) means a size the limits
# should have refused. Resident memory is bounded at 2 GiB: an idle target already holds
# about 470 MB (AddressSanitizer's shadow and the binary), and ASan keeps freed memory in
# a 256 MiB quarantine. A single input taking 10 s is a hang. libFuzzer times an input on
# the wall clock, so a campaign at `nice 19` beside builds, which leave it a sliver of a
# core for minutes, reports slow inputs as hangs: FUZZ_TIMEOUT raises the bound for it.
limits=(-rss_limit_mb=2048 -malloc_limit_mb=64 -timeout="${FUZZ_TIMEOUT:-10}")
# FUZZ_SEED fixes libFuzzer's random seed (`make fuzz-smoke` sets it for CI): with the
# seeds and an empty corpus the same inputs are tried on every run, so a smoke that passed
# passes again; a finding it would make belongs to `make fuzz`, not to a random CI failure.
# Swift seeds its hashing afresh in every process, so a dictionary's or set's order, and
# with it which branches an input covers, would differ between two runs of the same seed;
# a fixed seed fixes that too. FUZZ_EXECUTIONS then makes the run a fixed list of inputs
# rather than as many as the machine manages in SECONDS: a slower machine (CI) tries a
# prefix of what a faster one tried, never an input nobody has seen pass.
if [ -n "${FUZZ_SEED:-}" ]; then
    limits+=(-seed="$FUZZ_SEED")
    export SWIFT_DETERMINISTIC_HASHING=1
fi
# Given to each run's processes below: all of it to one, a share to each of FUZZ_JOBS. Read
# only: each run's own count goes in `executed` (reusing this name capped every run after
# the first at the count the one before it made).
readonly requested=${FUZZ_EXECUTIONS:-}
# A broken invariant traps (fatalError): let libFuzzer's handler report it and save the
# input. Swift's own backtracer would catch the signal first and, reading memory of the
# process under ASan, end in an unrelated ASan report.
export SWIFT_BACKTRACE=enable=no
# Leaks in C libraries that are not ours, each proven in the file's comments.
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

scripts/install-deps.sh
mkdir -p "$work"
# SwiftPM's --sanitize flags instrument the C targets and link libFuzzer's runtime, but it
# hands swiftc one `-sanitize=` flag per sanitizer, in an order that changes from one run
# to the next, and swiftc keeps only the last one: a Swift module got either coverage or
# AddressSanitizer, never both (and every build recompiled everything, its command lines
# having changed). One combined flag after them gives the Swift code both, the same way
# every time.
sanitizers=(--sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer,address)
# SwiftPM keeps the sanitizers in a Set, so their flags come out in the order of that run's
# randomly seeded hashing: about one warm build in two saw every command line change and
# recompiled all of it (about 850 steps, 15 minutes on two cores; Fuzz/README.md, "Open").
# Deterministic hashing in SwiftPM's own process gives the same order every run.
build_env=(SWIFT_DETERMINISTIC_HASHING=1 WEBIMAGE_FUZZ=1)
if [ "${FUZZ_NO_BUILD:-}" != 1 ]; then
echo "== build (release, -sanitize=fuzzer,address): $work/build.log"
if ! env "${build_env[@]}" scripts/swift-build-checked.sh -c release --scratch-path "$scratch" "${sanitizers[@]}" \
    > "$work/build.log" 2>&1; then
    grep -vE '^\[[0-9]+/[0-9]+\] ' "$work/build.log" | tail -40 >&2
    exit 1
fi
# The tree the binaries were built from, for the ledger (FUZZ_NO_BUILD runs them later,
# perhaps from a newer checkout).
git describe --always --dirty 2>/dev/null > "$work/built-tree" || echo - > "$work/built-tree"
fi
bin=$(env "${build_env[@]}" swift build -c release --scratch-path "$scratch" "${sanitizers[@]}" --show-bin-path)

rm -rf "$work/seeds"
python3 Fuzz/make-seeds.py "$work/seeds"
mkdir -p "$work/dict" "$work/logs"
cat Fuzz/dict/{jpeg,png,gif,webp,heif,tiff,bmp,jxl,svg,pdf}.dict > "$work/dict/images.dict"
# Processing options, then the image they apply to.
cat Fuzz/dict/server-path.dict "$work/dict/images.dict" > "$work/dict/server-process.dict"
for dict in Fuzz/dict/*.dict; do cp "$dict" "$work/dict/"; done

summary=$work/summary.txt
printf '%-13s %12s %9s %7s %7s %8s  %s\n' run executions exec/s cov ft corpus result > "$summary"
failed=0
started=$SECONDS
for run in "${runs[@]}"; do
    read -r _ target dict max_len <<< "$(awk -v r="$run" '$1 == r' <<< "$table")"
    if [ -z "${target:-}" ]; then echo "unknown run: $run" >&2; exit 2; fi
    corpus=$work/corpus/$run
    # A seeded run starts from the seeds alone, as on a clean clone, so that here and in CI
    # it tries the same inputs; what it finds stays out of the corpora `make fuzz` grows.
    if [ -n "${FUZZ_SEED:-}" ]; then corpus=$work/seeded-corpus/$run; rm -rf "$corpus"; fi
    artifacts=$work/artifacts/$run
    log=$work/logs/$run.log
    mkdir -p "$corpus" "$artifacts"
    seeds=()
    [ -d "$work/seeds/$run" ] && seeds=("$work/seeds/$run")
    jobs=${FUZZ_JOBS:-1}
    echo "== $run: fuzz-$target for ${seconds}s$( ((jobs > 1)) && echo ", $jobs processes")"
    status=0
    if ((jobs > 1)); then
        # Each process gets its own seed (a fixed seed would repeat the same inputs).
        pids=()
        rm -f "$log".[0-9]*
        share=()
        [ -n "$requested" ] && share=(-runs="$(( (requested + jobs - 1) / jobs ))")
        for job in $(seq "$jobs"); do
            "$bin/fuzz-$target" "${limits[@]}" "${share[@]}" -max_total_time="$seconds" -max_len="$max_len" \
                -dict="$work/dict/$dict.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
                -seed="$(( ${FUZZ_SEED:-$RANDOM} + job ))" "$corpus" "${seeds[@]}" > "$log.$job" 2>&1 &
            pids+=($!)
        done
        # A process that failed outranks one that was interrupted: stopping a campaign
        # with SIGINT after one process crashed must not report the crash as "interrupted".
        for pid in "${pids[@]}"; do
            code=0
            wait "$pid" || code=$?
            if ((code != 0)) && { ((status == 0)) || ((status == 72)); }; then status=$code; fi
        done
        cat "$log".[0-9]* > "$log"
    else
        "$bin/fuzz-$target" "${limits[@]}" ${requested:+-runs="$requested"} -max_total_time="$seconds" \
            -max_len="$max_len" -dict="$work/dict/$dict.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
            "$corpus" "${seeds[@]}" > "$log" 2>&1 || status=$?
    fi
    # Added up over the processes (one line each).
    executed=$(awk '/^stat::number_of_executed_units:/ { sum += $2 } END { if (NR) print sum }' "$log")
    rate=$(awk '/^stat::average_exec_per_sec:/ { sum += $2 } END { if (NR) print sum }' "$log")
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<< "$last")
    ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<< "$last")
    corpus_size=$(sed -nE 's/.* corp: ([0-9]+\/[0-9A-Za-z]+).*/\1/p' <<< "$last")
    result=ok
    if ((status == 72)) && grep -q 'libFuzzer: run interrupted' "$log"; then
        # libFuzzer's own exit code when its process is sent SIGINT or SIGTERM (how a long
        # campaign is ended early: `pkill -INT -f fuzz-`): the executions count, nothing was found.
        result=interrupted
    elif ((status != 0)); then
        failed=1
        result="FAILED (exit $status): $(ls "$artifacts" | tr '\n' ' ')see $log"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|Fatal error|.*fuzz invariant broken)' "$log" | head -5 >&2 || true
    fi
    printf '%-13s %12s %9s %7s %7s %8s  %s\n' "$run" "${executed:--}" "${rate:--}" "${cov:--}" "${ft:--}" \
        "${corpus_size:--}" "$result" | tee -a "$summary"
    # Every run's executions, kept across builds and campaigns, since issue 16's target
    # counts executions in total: one line per run, its date, the tree its binaries were
    # built from, whether it was the seeded smoke (whose inputs repeat from one smoke to the
    # next), and its result.
    printf '%s %s %s %s %s %s\n' "$(date -u +%FT%TZ)" "$(cat "$work/built-tree" 2>/dev/null || echo -)" \
        "$run" "${executed:-0}" "$([ -n "${FUZZ_SEED:-}" ] && echo smoke || echo campaign)" \
        "$(case $result in ok | interrupted) echo "$result" ;; *) echo finding ;; esac)" >> "$work/ledger.txt"
done
echo "== ${#runs[@]} run(s) in $((SECONDS - started))s; summary in $summary"
cat "$summary"
# Executions per run over every campaign in this build folder (smokes left out).
echo "== executions in total, campaigns in $work/ledger.txt"
awk '$5 == "campaign" { total[$3] += $4 } END { for (run in total) printf "%-13s %12d\n", run, total[run] }' \
    "$work/ledger.txt" | sort
exit "$failed"
