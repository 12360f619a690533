#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (clang, ASan + UBSan) and runs each for a share
# of the time budget on a corpus seeded from the oracle fixtures.
#
#   ci/fuzz.sh BUILD_DIR SECONDS
#
# The corpus lives in BUILD_DIR/fuzz-corpus/<target> and grows across runs;
# crash reproducers land in BUILD_DIR/fuzz-artifacts/. Exits non-zero when a
# target crashes (or fails to build). Prints each target's execution count.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 BUILD_DIR SECONDS" >&2
    exit 2
fi
build=$1
seconds=$2
root=$(cd "$(dirname "$0")/.." && pwd)
targets=(fuzz_request fuzz_records)
jobs=${JOBS:-2}

if ! command -v clang >/dev/null; then
    echo "fuzz: clang is required" >&2
    exit 1
fi

CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGR_FUZZ=ON -DGR_SANITIZE=ON >/dev/null
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

corpus=$build/fuzz-corpus
artifacts=$build/fuzz-artifacts
seeds=$build/fuzz-seeds
mkdir -p "$corpus" "$artifacts" "$seeds"
python3 "$root/tests/fuzz/make_seeds.py" "$root" "$seeds"

# Time split: two thirds for the codec (many APIs and versions), the rest for
# record batches; at least 1 s each.
request_seconds=$((seconds * 2 / 3))
[ "$request_seconds" -ge 1 ] || request_seconds=1
records_seconds=$((seconds - request_seconds))
[ "$records_seconds" -ge 1 ] || records_seconds=1

status=0
summary=""
for target in "${targets[@]}"; do
    case $target in
    fuzz_request) t=$request_seconds seed=$seeds/request ;;
    fuzz_records) t=$records_seconds seed=$seeds/records ;;
    esac
    mkdir -p "$corpus/$target"
    log=$build/$target.log
    echo "fuzz: $target for ${t}s (log: $log)"
    set +e
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$build/tests/fuzz/$target" -max_total_time="$t" -print_final_stats=1 -max_len=65536 \
        -rss_limit_mb=2048 -artifact_prefix="$artifacts/$target-" \
        "$corpus/$target" "$seed" >"$log" 2>&1
    rc=$?
    set -e
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if [ -z "$execs" ]; then
        # A crash skips the final stats; take the last progress line's count.
        execs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -1)
    fi
    line="$target: ${execs:-0} executions in ${t}s, exit $rc"
    echo "fuzz: $line"
    summary+="$line"$'\n'
    if [ $rc -ne 0 ]; then
        echo "fuzz: $target FAILED; last lines of $log:" >&2
        tail -40 "$log" >&2
        ls -1 "$artifacts" >&2 || true
        status=1
    fi
done

printf '%s' "$summary"
exit $status
