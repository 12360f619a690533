#!/usr/bin/env bash
# Runs every test: the normal build's full CTest suite, the build variants
# (gcc Release and clang, warning-free; ci/build-variants.sh) compiled
# beside it, then the sanitizer build's tests (ci/test-asan.sh). Fails if
# any fails.
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
# The build variants and the sanitizer build compile at the lowest priority
# while the normal build's tests run: those mostly wait on sockets and
# timers, so the compilers take the CPU the tests leave idle instead of
# adding their 7 or 8 minutes after them. Their output is shown once the
# tests are done.
builds_log=$(mktemp)
(
    builds_status=0
    nice -n 19 bash ci/build-variants.sh "$release_build" "$clang_build" || builds_status=1
    nice -n 19 bash ci/test-asan.sh --build-only "$asan_build" || builds_status=1
    exit $builds_status
) >"$builds_log" 2>&1 &
builds_pid=$!
trap 'kill -- "$builds_pid" 2>/dev/null || true; rm -f "$builds_log"' EXIT
gr_ctest "$build" --output-on-failure || status=1
phase "the normal build's tests (the other builds compiling beside them)"
wait "$builds_pid" || status=1
cat "$builds_log"
phase "the build variants and the sanitizer build, after the tests"
bash ci/test-asan.sh "$asan_build" || status=1
phase "the sanitizer build's tests"
exit $status
