#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Runs interop tests. CTest calls it with one test script and the environment
# set (GR_BROKER, GR_PROGS, GR_KCAT, GR_MOCK_CLUSTER); by hand:
#
#   interop-tests/run.sh [-B builddir] [--mock] [test...]
#
# -B names a build tree (default: build) to find gregor, the progs and the mock
# cluster launcher in; --mock runs the tests against librdkafka's mock cluster
# instead of gregor (tests needing gregor skip). A test is a script's path or
# its name (crash_recovery or crash_recovery.sh, looked up in the subsystem
# folders); with none, every interop-tests/<subsystem>/<api>_<behaviour>.sh
# runs. Prints one line per test and exits non-zero if any failed. Exit
# status for a single test: its own (77 = skip).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${GR_BUILD_DIR:-$here/../build}
tests=()

# Whether a script is a test: the folders that hold none are left out, as in
# CMakeLists.txt.
is_test() {
    case $1 in
    "$here"/lib/* | "$here"/js/* | "$here"/py/* | "$here"/progs/* | "$here"/node_modules/*) return 1 ;;
    *) [ -f "$1" ] ;;
    esac
}

# A test script's path from its path or its name.
find_test() {
    local t
    if [ -f "$1" ]; then
        echo "$1"
        return
    fi
    for t in "$here"/*/"${1%.sh}.sh"; do
        if is_test "$t"; then
            echo "$t"
            return
        fi
    done
    echo "run.sh: no test $1 in $here" >&2
    return 1
}

while [ $# -gt 0 ]; do
    case $1 in
    -B)
        build=$2
        shift 2
        ;;
    --mock)
        export GR_BROKER_KIND=mock
        shift
        ;;
    -h | --help)
        sed -n '4,15p' "$0"
        exit 0
        ;;
    *)
        tests+=("$(find_test "$1")") || exit 2
        shift
        ;;
    esac
done

export GR_BROKER=${GR_BROKER:-$build/gregor}
export GR_PROGS=${GR_PROGS:-$build/interop-tests/progs}
export GR_MOCK_CLUSTER=${GR_MOCK_CLUSTER:-$build/tests/mock_cluster}
export GR_KCAT=${GR_KCAT:-$(command -v kcat || echo kcat)}

if [ ${#tests[@]} -eq 1 ]; then
    exec bash "${tests[0]}"
fi
if [ ${#tests[@]} -eq 0 ]; then
    for t in "$here"/*/*_*.sh; do
        if is_test "$t"; then tests+=("$t"); fi
    done
fi

failed=0
for t in "${tests[@]}"; do
    out=$(mktemp)
    bash "$t" >"$out" 2>&1
    rc=$?
    case $rc in
    0) echo "PASS $(basename "$t")" ;;
    77) echo "SKIP $(basename "$t")" ;;
    *)
        echo "FAIL $(basename "$t") (status $rc)"
        sed 's/^/    /' "$out" | tail -n 40
        failed=$((failed + 1))
        ;;
    esac
    rm -f "$out"
done
[ $failed -eq 0 ]
