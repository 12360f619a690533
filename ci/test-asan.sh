#!/usr/bin/env bash
# Builds with AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer
# included) and runs the tests against that build: every unit and interop
# test, and the cluster tests labelled "sanitize" (the normal build runs all
# cluster tests; see interop-tests/CMakeLists.txt for the choice). Any sanitizer report fails the test
# that produced it (halt_on_error, and the interop harness scans the broker's
# log for reports).
# With --build-only it compiles and stops (ci/test.sh compiles it while the
# normal build's tests run).
set -euo pipefail
build_only=false
if [ "${1:-}" = --build-only ]; then
    build_only=true
    shift
fi
build=${1:-build-asan}
cd "$(dirname "$0")/.."
. ci/ctestlib.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DGR_SANITIZE=ON >/dev/null
cmake --build "$build" -j 2
if $build_only; then
    exit 0
fi
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
gr_ctest "$build" -LE cluster --output-on-failure || status=1
gr_ctest "$build" -L sanitize --output-on-failure || status=1
exit $status
