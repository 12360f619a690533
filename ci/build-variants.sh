#!/usr/bin/env bash
# Builds the core, the broker, gregor-admin and the unit tests in the
# variants the normal build (gcc RelWithDebInfo) does not cover, each with
# -Werror (CMakeLists.txt) and failing on any other warning in its output
# (linker, CMake):
#   gcc Release           -O3, asserts off: warnings gcc gives only after
#                         inlining (-Wmaybe-uninitialized, -Wformat-truncation)
#   clang RelWithDebInfo  the other compiler's warnings
# gcc Debug (-O0, asserts on) is the sanitizer build (ci/test-asan.sh), which
# builds everything with -Werror and runs the unit tests there too; a plain
# Debug build beside it compiled the same code with the same compiler a
# second time, for 2-3 minutes of make test's 30.
# Only compiles what it checks (not the benches, interop or cluster
# programs), so it stays a few minutes on 2 cores.
# Usage: ci/build-variants.sh [release-dir [clang-dir]]
set -euo pipefail
release=${1:-build-release}
clang=${2:-build-clang}
jobs=${JOBS:-2}
cd "$(dirname "$0")/.."
targets="layer_checks gregor gregor-admin unit_tests"

# variant <dir> <compiler> <build type>: configures and builds, fails on a
# warning. CC only counts when the dir is first configured, so a dir
# configured with another compiler is refused rather than silently reused.
variant() {
    local dir=$1 cc=$2 type=$3 log
    log=$(mktemp)
    echo "ci/build-variants.sh: $dir ($cc, $type)"
    if [ -f "$dir/CMakeCache.txt" ]; then
        local cached
        cached=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$dir/CMakeCache.txt")
        if [ "$(readlink -f "$cached")" != "$(readlink -f "$(command -v "$cc")")" ]; then
            echo "ci/build-variants.sh: $dir was configured with $cached, not $cc; remove it" >&2
            rm -f "$log"
            return 1
        fi
    fi
    if ! CC=$cc cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" >"$log" 2>&1 ||
        ! cmake --build "$dir" -j "$jobs" --target $targets >>"$log" 2>&1; then
        cat "$log"
        rm -f "$log"
        return 1
    fi
    if grep -E "(^|[^A-Za-z])[Ww]arning:|CMake Warning" "$log"; then
        echo "ci/build-variants.sh: $dir: warnings (above)" >&2
        rm -f "$log"
        return 1
    fi
    rm -f "$log"
}

status=0
variant "$release" gcc Release || status=1
variant "$clang" clang RelWithDebInfo || status=1
exit $status
