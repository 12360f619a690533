# shellcheck shell=bash
# How ci/test.sh and ci/test-asan.sh run CTest, sourced by both.
#
# gr_ctest BUILD ARGS...  runs ctest in BUILD with ARGS, two tests at a time,
#   two of them cluster tests at most (ci/ctest-resources.json). A build
#   that has never run its tests (a clean clone) first gets the durations
#   in ci/ctest-costs.txt, so CTest starts the longest tests first instead
#   of leaving them for the end: the suite then ends when its tests do, not
#   a long cluster test later. A stale or missing entry only changes order.
GR_CI_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

gr_ctest()
{
    local build=$1
    shift
    local costs=$build/Testing/Temporary/CTestCostData.txt
    if [ ! -s "$costs" ]; then
        mkdir -p "$(dirname "$costs")"
        cp "$GR_CI_DIR/ctest-costs.txt" "$costs"
    fi
    (cd "$build" && ctest -j2 --resource-spec-file "$GR_CI_DIR/ctest-resources.json" "$@")
}
