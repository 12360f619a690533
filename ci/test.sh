#!/usr/bin/env bash
# Runs every test: the normal build's full CTest suite, the build variants
# (gcc Release and clang, warning-free; ci/build-variants.sh),
# then the sanitizer build's tests (ci/test-asan.sh). Fails if any
# fails.
set -euo pipefail
build=${1:-build}
asan_build=${2:-build-asan}
release_build=${3:-build-release}
clang_build=${4:-build-clang}
cd "$(dirname "$0")/.."
. ci/ctestlib.sh
status=0
started=$SECONDS
# Each phase's wall time, so a run that grows shows where (make test's budget is 30 min).
phase() {
    echo "ci/test.sh: $1 took $((SECONDS - phase_start)) s ($((SECONDS - started)) s in all)"
    phase_start=$SECONDS
}
phase_start=$SECONDS
# Folders of src/ must depend on each other one way, in the order of GR_LAYERS.
python3 ci/include-cycles.py || status=1
gr_ctest "$build" --output-on-failure || status=1
phase "the normal build's tests"
bash ci/build-variants.sh "$release_build" "$clang_build" || status=1
phase "the build variants"
bash ci/test-asan.sh "$asan_build" || status=1
phase "the sanitizer build and its tests"
exit $status
