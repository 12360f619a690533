#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Runs interop tests. CTest calls it with one test script and the environment
# set (GR_BROKER, GR_PROGS, GR_KCAT, GR_MOCK_CLUSTER); by hand:
#
#   interop-tests/run.sh [-B builddir] [--mock] [test.sh...]
#
# -B names a build tree (default: build) to find gregor, the progs and the mock
# cluster launcher in; --mock runs the tests against librdkafka's mock cluster
# instead of gregor (tests needing gregor skip). With no test names, every
# interop-tests/<api>_<behaviour>.sh runs. Prints one line per test and exits
# non-zero if any failed. Exit status for a single test: its own (77 = skip).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${GR_BUILD_DIR:-$here/../build}
tests=()
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
        sed -n '4,13p' "$0"
        exit 0
        ;;
    *)
        tests+=("$1")
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
    for t in "$here"/*_*.sh; do tests+=("$t"); done
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
