#!/usr/bin/env bash
# Installs or removes the `webimage` command like a Unix tool: the binary, its man page
# (made by swift-argument-parser's manual generator) and bash, zsh and fish completions.
# Both directions read one list of files, so uninstall removes exactly what install wrote.
#
# Usage: scripts/install.sh install|uninstall|files
# Environment: PREFIX (default /usr/local), DESTDIR (staging root for packagers, default
# empty), CONFIG (release or debug, default release).
set -euo pipefail
cd "$(dirname "$0")/.."
action=${1:?usage: scripts/install.sh install|uninstall|files}
prefix=${PREFIX:-/usr/local}
root=${DESTDIR:-}${prefix}
config=${CONFIG:-release}

# The installed files, relative to the prefix.
files=(
    bin/webimage
    share/man/man1/webimage.1
    share/bash-completion/completions/webimage
    share/zsh/site-functions/_webimage
    share/fish/vendor_completions.d/webimage.fish
)

case "$action" in
files)
    printf '%s\n' "${files[@]/#/$root/}"
    ;;
uninstall)
    for file in "${files[@]}"; do
        if [ -e "$root/$file" ]; then rm -f "$root/$file" && echo "removed $root/$file"; fi
    done
    ;;
install)
    scripts/swift-build-checked.sh -c "$config" --product webimage >/dev/null
    bin=$(swift build -c "$config" --show-bin-path)
    staging=$bin/install-staging
    rm -rf "$staging" && mkdir -p "$staging"
    # The manual generator is a tool of swift-argument-parser's package: it runs the built
    # command with --experimental-dump-help and writes mdoc, one page for all subcommands
    # (its default; --multi-page would write one per subcommand).
    swift build -c "$config" --product generate-manual >/dev/null
    "$bin/generate-manual" "$bin/webimage" --section 1 \
        --authors "the swift-web-image authors" --output-directory "$staging" >/dev/null
    "$bin/webimage" --generate-completion-script bash > "$staging/webimage.bash"
    "$bin/webimage" --generate-completion-script zsh > "$staging/_webimage"
    "$bin/webimage" --generate-completion-script fish > "$staging/webimage.fish"
    install -D -m 755 "$bin/webimage" "$root/bin/webimage"
    install -D -m 644 "$staging/webimage.1" "$root/share/man/man1/webimage.1"
    install -D -m 644 "$staging/webimage.bash" "$root/share/bash-completion/completions/webimage"
    install -D -m 644 "$staging/_webimage" "$root/share/zsh/site-functions/_webimage"
    install -D -m 644 "$staging/webimage.fish" "$root/share/fish/vendor_completions.d/webimage.fish"
    rm -rf "$staging"
    printf 'installed %s\n' "${files[@]/#/$root/}"
    ;;
*)
    echo "usage: scripts/install.sh install|uninstall|files" >&2
    exit 2
    ;;
esac
