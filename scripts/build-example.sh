#!/usr/bin/env bash
# Builds a package that depends on this one by path (an Examples/ package, README's quick
# start) in this package's own scratch folder, .build, so the library and its dependencies,
# compiled there by `make test` already, are not compiled again: about 7 minutes saved on
# two cores against a folder of the examples' own. Fails on warnings in the package's own
# files and prints the folder holding its binaries.
#
# Two things about sharing a scratch folder between root packages: SwiftPM keeps the last
# build plan without noticing that the root package is another one (it would build the
# previous package), so the plan goes, before the build and again after it, when this
# package's next build must plan its own; and the compiler skips files whose content did
# not change, warnings and all, so the package's own objects go too and its files compile
# again, their warnings in this build's log. Compiled dependencies are kept.
#
# Usage: scripts/build-example.sh PACKAGE_DIR PRODUCT   (prints the bin folder on stdout;
# the build's own output goes to stderr)
set -euo pipefail
package=$1
product=$2
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$root/.build
forget_plan() { rm -f "$scratch/debug.yaml" "$scratch/debug/description.json"; }
forget_plan
rm -rf "$scratch/debug/$product.build"
marker=$(mktemp)
trap 'rm -f "$marker"; forget_plan' EXIT
"$root/scripts/swift-build-checked.sh" --package-path "$package" --scratch-path "$scratch" --product "$product" >&2
[ "$scratch/debug/$product" -nt "$marker" ] || { echo "$product was not relinked: a stale build plan?" >&2; exit 1; }
swift build --package-path "$package" --scratch-path "$scratch" --show-bin-path
