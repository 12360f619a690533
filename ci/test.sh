#!/usr/bin/env bash
# Runs every test: the normal build's full CTest suite, then the sanitizer
# build's unit tests and interop smoke set. Fails if either fails.
set -euo pipefail
build=${1:-build}
asan_build=${2:-build-asan}
cd "$(dirname "$0")/.."
status=0
# Folders of src/ must depend on each other one way (see README, Source layout).
python3 ci/include-cycles.py || status=1
(cd "$build" && ctest -j2 --output-on-failure) || status=1
bash ci/test-asan.sh "$asan_build" || status=1
exit $status
