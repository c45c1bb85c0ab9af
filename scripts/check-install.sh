#!/usr/bin/env bash
# What `make test` checks of `make install` / `make uninstall`, in a scratch prefix under
# .build/ with the debug build the tests already made (the files are the same as release's,
# only slower): every file lands, the installed binary runs and reports its version, the
# man page and the completions are real, and uninstall leaves no file behind.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$PWD/.build/install-check
rm -rf "$prefix"
export PREFIX=$prefix CONFIG=debug
scripts/install.sh install >/dev/null
fail() { echo "check-install: $*" >&2; exit 1; }
while read -r file; do
    [ -s "$file" ] || fail "missing or empty: $file"
done < <(scripts/install.sh files)
"$prefix/bin/webimage" --version | head -1 | grep -Eq '^webimage [0-9]+\.[0-9]+\.[0-9]+$' || fail "--version"
grep -q '^\.Dt WEBIMAGE 1' "$prefix/share/man/man1/webimage.1" || fail "man page has no .Dt header"
grep -q 'fetch' "$prefix/share/man/man1/webimage.1" || fail "man page lacks the subcommands"
grep -q '_webimage' "$prefix/share/bash-completion/completions/webimage" || fail "bash completion"
grep -q '#compdef webimage' "$prefix/share/zsh/site-functions/_webimage" || fail "zsh completion"
grep -q "complete -c 'webimage'" "$prefix/share/fish/vendor_completions.d/webimage.fish" || fail "fish completion"
scripts/install.sh uninstall >/dev/null
left=$(find "$prefix" -type f)
[ -z "$left" ] || fail "uninstall left: $left"
rm -rf "$prefix"
echo "check-install: install and uninstall of $(scripts/install.sh files | wc -l) files OK"
