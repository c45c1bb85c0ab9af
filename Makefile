# The two commands of the README, plus the benchmark.
SWIFT ?= swift
CORPUS ?= $(firstword $(wildcard ../shared/corpus/sdwebimage ../../shared/corpus/sdwebimage))

.PHONY: deps demo test bench
deps:
	@scripts/install-deps.sh

# `webimage demo`: a local origin serving the corpus, loads cold, from disk, from memory.
demo: deps
	@$(SWIFT) build -c release --product webimage -Xswiftc -warnings-as-errors
	@scripts/demo.sh "$$($(SWIFT) build -c release --show-bin-path)/webimage" "$(abspath $(CORPUS))"

# Suites that time real sockets or wait on the main actor run in a second pass: in one pass
# with the CPU-heavy codec suites, Swift's two-thread cooperative pool (and the main thread)
# is busy for seconds at a time, a body read that is not scheduled in time trips
# AsyncHTTPClient's read timeout, and main-actor completions wait behind the decodes.
ISOLATED_SUITES := Downloader|ImageManager|Prefetch|Fetch|Demo|WebImageBinding

test: deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	WEBIMAGE_CORPUS="$(abspath $(CORPUS))" $(SWIFT) test --skip-build --skip '$(ISOLATED_SUITES)'
	WEBIMAGE_CORPUS="$(abspath $(CORPUS))" $(SWIFT) test --skip-build --filter '$(ISOLATED_SUITES)'

bench: deps
	@Benchmarks/run.sh "$(abspath $(CORPUS))"
