#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Re-creates the golden wire captures in this directory's format (see
# README.md): starts librdkafka's mock cluster (one broker, topics t1..t3),
# puts tests/tools/capture_proxy.py in front of it once per client label, and
# drives kcat, a librdkafka idempotent producer, kafka-python and kafkajs
# through it. Not part of the test suite: the captures are committed.
#
# Usage: tests/golden/captures/capture.sh OUTDIR [KAFKAJS_NODE_MODULES]
#   OUTDIR must not exist. Without KAFKAJS_NODE_MODULES, kafkajs is installed
#   with npm into a temporary directory.
set -euo pipefail

out=$1
kafkajs_modules=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
pids=()

cleanup() {
    for pid in "${pids[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

# Waits (up to 20 s) for the first line of a file and prints it.
first_line() {
    local file=$1 i
    for i in $(seq 200); do
        if [ -s "$file" ]; then
            head -n 1 "$file"
            return 0
        fi
        sleep 0.1
    done
    echo "capture.sh: no address in $file" >&2
    return 1
}

# Starts a capture proxy for one client label (extra arguments go to the
# proxy) and sets $p to its address (not run in a subshell, so that its PID
# stays in pids for cleanup).
start_proxy() {
    local label=$1
    shift
    python3 "$repo/tests/tools/capture_proxy.py" --upstream "$broker" --out "$out" \
        --client "$label" --log "$out/$label.log" "$@" >"$work/$label.addr" 2>"$work/$label.err" &
    pids+=($!)
    p=$(first_line "$work/$label.addr")
}

mkdir "$out"
out=$(cd "$out" && pwd)
cc="gcc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE"
$cc "$repo/tests/tools/mock_cluster.c" -lrdkafka -lpthread -o "$work/mock_cluster"
$cc "$repo/tests/tools/idempotent_producer.c" -lrdkafka -lpthread -o "$work/idempotent_producer"
if [ -z "$kafkajs_modules" ]; then
    (cd "$work" && npm install --silent --no-audit --no-fund kafkajs@2.2.4 >/dev/null)
    kafkajs_modules=$work/node_modules
fi

"$work/mock_cluster" -t t1:3 -t t2:1 -t t3:2 -t t4:1 >"$work/mock.addr" 2>"$work/mock.err" &
pids+=($!)
broker=$(first_line "$work/mock.addr")

# kcat (librdkafka inside): metadata, produce, consume, offsets query, group.
start_proxy kcat
timeout 30 kcat -b "$p" -L
printf 'k1\tv1\nk2\tv2\nk3\tv3\n' | timeout 30 kcat -b "$p" -P -t t1 -K '\t' -p 0
timeout 30 kcat -b "$p" -C -t t1 -p 0 -o beginning -e -f '%k=%s@%o\n'
timeout 30 kcat -b "$p" -Q -t t1:0:0 -t t1:1:-1
timeout -s INT 30 kcat -b "$p" -G grp1 -X auto.offset.reset=earliest -e -f '%t[%p] %k=%s@%o\n' t1 t2

# kcat with each compression codec: Produce and Fetch only (record batches
# with compressed records, as produced by librdkafka and stored by the mock).
# librdkafka sends a batch uncompressed when compressing does not make it
# smaller, hence the long repetitive values; linger.ms puts both in one batch.
filler=$(printf '%0.s compressible' $(seq 40))
for codec in gzip snappy lz4 zstd; do
    start_proxy "kcat-$codec" --only Produce,Fetch
    printf 'c1\t%s one%s\nc2\t%s two%s\n' "$codec" "$filler" "$codec" "$filler" |
        timeout 30 kcat -b "$p" -P -t t4 -p 0 -K '\t' -z "$codec" -X linger.ms=200
    timeout 30 kcat -b "$p" -C -t t4 -p 0 -o -2 -e -q
done

# librdkafka with enable.idempotence=true: InitProducerId (flexible).
start_proxy librdkafka
timeout 30 "$work/idempotent_producer" -b "$p" -t t3 -n 5

# kafka-python (Debian's python3-kafka).
start_proxy kafka-python
timeout 60 /usr/bin/python3 "$here/capture_kafka_python.py" "$p"

# kafkajs.
start_proxy kafkajs
KAFKAJS_NO_PARTITIONER_WARNING=1 NODE_PATH=$kafkajs_modules timeout 60 node "$here/capture_kafkajs.js" "$p"

echo "capture.sh: $(wc -l <"$out/manifest.txt") captures in $out"
