# The README's two commands (`make demo`, `make test`) and the rest of a user's entry points.
# Every target installs the Debian packages it needs itself (scripts/install-deps.sh,
# idempotent), and everything it generates goes under .build/ (git-ignored).
SWIFT ?= swift
PREFIX ?= /usr/local
DESTDIR ?=
BUILD := scripts/swift-build-checked.sh
DOCS_OUTPUT := .build/docs

.PHONY: deps demo test test-tsan test-asan soak fuzz fuzz-smoke docs examples install uninstall bench

deps:
	@scripts/install-deps.sh

# `webimage demo`: a local origin serving Corpus/sdwebimage, loads cold, from disk, from memory.
demo: deps
	@$(BUILD) -c release --product webimage
	@scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)/webimage" Corpus/sdwebimage

# Suites that time real sockets or wait on the main actor run in a second pass: in one pass
# with the CPU-heavy codec suites, Swift's two-thread cooperative pool (and the main thread)
# is busy for seconds at a time, a body read that is not scheduled in time trips
# AsyncHTTPClient's read timeout, and main-actor completions wait behind the decodes.
ISOLATED_SUITES := Downloader|ImageManager|Prefetch|Fetch|Demo|WebImageBinding|LoadersManager
# The image server's end-to-end suites decode and encode under real sockets: a third pass,
# so their CPU does not delay the second pass's socket timings.
SERVER_SUITES := ImageServer|IdleConnectionHandler
# Two real nodes behind a real nginx, one killed halfway: a pass of its own, so that its
# count of origin fetches per node is not disturbed by the other server suites' load.
NODES_SUITES := ImageServerNodes

# One test pass with a time limit in seconds, several times its usual length: a pass that
# hangs is stopped, its unfinished tests named, and run once more (scripts/test-pass.sh).
# Usual lengths here (2 cores, the clean-clone CI of 7d87fc2): 230, 67, 9 and 9 s; under
# AddressSanitizer 337, 327, 20 and 11 s; under the thread sanitizer five to fifteen times
# the first. The limits are three to four and a half times those (the small passes have a
# floor of 4 minutes for a loaded machine), so one hang and its rerun keep CI inside its
# 90 minutes: it takes about 61 of them (Benchmarks/README.md), and a hang adds the limit
# (the pass then runs whole once more), at most 20 minutes, for the first ASan pass; its
# limit of 30 minutes before would have taken CI past 90.
PASS := SWIFT=$(SWIFT) scripts/test-pass.sh

# Everything a change can break: the four test passes, the documentation (warnings fail it),
# the examples (built and run) and install/uninstall into a scratch prefix.
test: deps
	$(BUILD) --build-tests
	$(PASS) 900 --skip-build --skip '$(ISOLATED_SUITES)|$(SERVER_SUITES)'
	$(PASS) 300 --skip-build --filter '$(ISOLATED_SUITES)'
	$(PASS) 240 --skip-build --filter '$(SERVER_SUITES)' --skip '$(NODES_SUITES)'
	$(PASS) 240 --skip-build --filter '$(NODES_SUITES)'
	$(MAKE) --no-print-directory docs
	$(MAKE) --no-print-directory examples
	scripts/check-install.sh

# The four test passes under the thread sanitizer, in a build folder of their own. First
# scripts/check-tsan-locks.sh proves that the sanitizer sees the package's locks (see
# Sources/WebImage/Internal/LockedValue.swift). Any report fails the pass (the test process
# exits 66). The tests' time limits are scaled (WEBIMAGE_TEST_TIME_SCALE): the sanitizer runs
# the code 5 to 15 times slower.
TSAN := --scratch-path .build-tsan --sanitize=thread
TSAN_ENV := WEBIMAGE_TEST_TIME_SCALE=6 TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1"
test-tsan: deps
	scripts/check-tsan-locks.sh
	$(SWIFT) build --build-tests $(TSAN)
	$(TSAN_ENV) $(PASS) 3600 --skip-build $(TSAN) --skip '$(ISOLATED_SUITES)|$(SERVER_SUITES)'
	$(TSAN_ENV) $(PASS) 1800 --skip-build $(TSAN) --filter '$(ISOLATED_SUITES)'
	$(TSAN_ENV) $(PASS) 1200 --skip-build $(TSAN) --filter '$(SERVER_SUITES)' --skip '$(NODES_SUITES)'
	$(TSAN_ENV) $(PASS) 1200 --skip-build $(TSAN) --filter '$(NODES_SUITES)'

# The four test passes under AddressSanitizer, in a build folder of their own. Swift 6.3
# refuses `--sanitize=undefined` for Swift code on Linux ("unsupported option
# '-sanitize=undefined'"), so UndefinedBehaviorSanitizer covers the C code only:
# `-Xcc -fsanitize=undefined` instruments every C target (our libjpeg and libpng shims and
# the dependencies' C), and its runtime comes with ASan's. Any report fails the pass: ASan
# exits non-zero by itself, UBSan because halt_on_error is set. The CLI tests' `webimage`
# children are built and checked the same way.
# LeakSanitizer is off here: at the exit of a Swift process it reports every `Data` held by
# a global or static as leaked (Swift keeps the enum case of `Data`'s storage in the spare
# bits of the pointer, which LeakSanitizer's scan does not recognise; a ten-line program
# shows it, Benchmarks/README.md), so the suite's fixtures drown any real report. Leaks
# are checked per input by the fuzz targets (libFuzzer runs LeakSanitizer after each
# input, which found Fuzz/README.md's findings 2 and 4) and over time by `make soak`.
# A 64 MiB quarantine (256 by default) keeps the resident-memory bounds of the server's
# limit tests meaningful: freed buffers would otherwise stay resident.
ASAN := --scratch-path .build-asan --sanitize=address -Xcc -fsanitize=undefined
ASAN_ENV := WEBIMAGE_TEST_TIME_SCALE=3 ASAN_OPTIONS="detect_leaks=0 quarantine_size_mb=64" \
	UBSAN_OPTIONS="halt_on_error=1 print_stacktrace=1" SWIFT_BACKTRACE=enable=no
test-asan: deps
	$(SWIFT) build --build-tests $(ASAN)
	$(ASAN_ENV) $(PASS) 1200 --skip-build $(ASAN) --skip '$(ISOLATED_SUITES)|$(SERVER_SUITES)'
	$(ASAN_ENV) $(PASS) 1080 --skip-build $(ASAN) --filter '$(ISOLATED_SUITES)'
	$(ASAN_ENV) $(PASS) 240 --skip-build $(ASAN) --filter '$(SERVER_SUITES)' --skip '$(NODES_SUITES)'
	$(ASAN_ENV) $(PASS) 240 --skip-build $(ASAN) --filter '$(NODES_SUITES)'

# Memory over time (Benchmarks/README.md, "Soak"): the demo's origin and SOAK_LOADS loads
# cycling over SOAK_URLS distinct URLs through one ImageManager with a small memory limit,
# thumbnails and a transform on; fails unless resident memory at the end is within 10 % of
# what it was after the first pass and no file descriptor leaked. Release build.
SOAK_LOADS ?= 20000
SOAK_URLS ?= 2000
soak: deps
	@$(BUILD) -c release --product webimage
	"$$($(SWIFT) build -c release --show-bin-path)/webimage" demo --corpus Corpus/sdwebimage \
		--soak $(SOAK_LOADS) --soak-urls $(SOAK_URLS)

# libFuzzer with AddressSanitizer on every target in Fuzz/ (Fuzz/README.md), FUZZ_SECONDS
# each, one process at a time; FUZZ_RUNS picks some (`make fuzz FUZZ_RUNS="decode-jpeg
# cookie"`). The corpora grow in .build-fuzz/fuzz/corpus between runs. Then the image
# server's URL parser and signature check against a million paths of the tests' seeded
# generator (`make test` runs a smaller count of it).
FUZZ_SECONDS ?= 600
fuzz: deps
	FUZZ_RUNS="$(FUZZ_RUNS)" Fuzz/run.sh $(FUZZ_SECONDS)
	$(BUILD) --build-tests
	WEBIMAGE_FUZZ_PATHS=1000000 $(SWIFT) test --skip-build --filter ProcessingPathFuzzTests

# Every libFuzzer target with a fixed seed for a fixed number of executions, for CI
# (.ci/run): the same inputs on every machine and every run (Fuzz/run.sh says how), each
# run capped at 60 s so a slow machine tries a prefix of them instead of running long.
FUZZ_SMOKE_EXECUTIONS ?= 2000
fuzz-smoke: deps
	FUZZ_SEED=1 FUZZ_EXECUTIONS=$(FUZZ_SMOKE_EXECUTIONS) Fuzz/run.sh 60

# DocC: a static site in .build/docs (open index.html through any static file server).
# Any warning, a broken symbol link included, fails the build.
docs: deps
	$(SWIFT) package --allow-writing-to-directory $(DOCS_OUTPUT) \
		generate-documentation --target WebImage --warnings-as-errors \
		--transform-for-static-hosting --hosting-base-path swift-web-image \
		--output-path $(DOCS_OUTPUT)
	@echo "documentation: $(DOCS_OUTPUT)/index.html"

# The packages in Examples/ and README's quick start depend on this one by path; built and
# smoke-run so they cannot rot.
examples: deps
	Examples/check.sh
	scripts/check-quickstart.sh

install: deps
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install.sh install

uninstall:
	@PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" scripts/install.sh uninstall

bench: deps
	@Benchmarks/run.sh Corpus/sdwebimage
