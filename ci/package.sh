#!/usr/bin/env bash
# Builds the Debian package from debian/ and checks it with lintian.
#
# usage: ci/package.sh OUT_DIR
#   Copies the tree as git sees it (uncommitted edits included, build
#   directories left out: dpkg-buildpackage writes beside the source) to a
#   scratch directory, runs dpkg-buildpackage -b -us -uc there, then lintian
#   (any error or warning fails), and copies the .deb files to OUT_DIR.
#   GR_PREBUILT=<build dir> packages the programs already built there instead
#   of compiling them (debian/rules; the package test uses it).
set -euo pipefail
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir "$work/src"
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$root" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
        tar --null -T - -cf -) | tar -C "$work/src" -xf -
else
    tar -C "$root" --exclude='./build*' --exclude=./interop-tests/node_modules -cf - . |
        tar -C "$work/src" -xf -
fi

echo "ci/package.sh: dpkg-buildpackage${GR_PREBUILT:+ (the programs from $GR_PREBUILT)}"
if ! (cd "$work/src" && dpkg-buildpackage -b -us -uc >"$work/build.log" 2>&1); then
    tail -40 "$work/build.log"
    echo "ci/package.sh: dpkg-buildpackage failed" >&2
    exit 1
fi
changes=$(ls "$work"/gregor_*.changes)
echo "ci/package.sh: lintian"
# --fail-on warning: errors and warnings fail; info and pedantic tags are printed.
lintian --fail-on error,warning --info "$changes" || {
    echo "ci/package.sh: lintian found problems" >&2
    exit 1
}
cp "$work"/*.deb "$out"/
ls "$out"/*.deb
