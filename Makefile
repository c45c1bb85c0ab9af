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

test: deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	WEBIMAGE_CORPUS="$(abspath $(CORPUS))" $(SWIFT) test --skip-build

bench: deps
	@Benchmarks/run.sh "$(abspath $(CORPUS))"
