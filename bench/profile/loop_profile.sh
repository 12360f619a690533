#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# loop_profile.sh: where a Gregor broker's loop spends its time under one
# load command (docs/sharding.md, section 1, was made with it).
#
# Usage:
#   bench/profile/loop_profile.sh NAME [broker key=value...] -- LOAD COMMAND...
#
# Starts build/gregor on a free port (and on $SSLPORT with an SSL listener
# when SSLPORT is set; pass ssl.keystore.location=... as a broker key),
# creates topic "ceiling" with 8 partitions, runs $PREFILL if set (a shell
# command; $PORT is the plaintext port), then samples the broker with perf
# (call graphs by frame pointer unless CG=dwarf; build with
# -DCMAKE_C_FLAGS=-fno-omit-frame-pointer) and counts its syscalls while
# LOAD COMMAND runs. @PORT@ and @SSLPORT@ in the command are replaced.
# Writes $OUT/NAME.data (perf), NAME.stat (syscall counts), NAME.out (the
# load's last line); prints the broker's user and system CPU over the run,
# the load average, the broker's stop line and the syscall counts. Then:
#   bench/profile/perf_buckets.py $OUT/NAME.data loop
# Needs perf and root (or perf_event_paranoid <= 1 and tracefs access).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OUT=${OUT:-/tmp/gr-loop-profile}
mkdir -p "$OUT"
NAME=$1
shift
OVERRIDES=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    OVERRIDES+=(--override "$1")
    shift
done
shift
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
DIR=$(mktemp -d "$OUT/broker.XXXX")
PORT=$(free_port)
export PORT
LISTENERS="listeners=PLAINTEXT://127.0.0.1:$PORT"
[ -n "${SSLPORT:-}" ] && LISTENERS="$LISTENERS,SSL://127.0.0.1:$SSLPORT"
"$BUILD/gregor" --override "$LISTENERS" --override "log.dirs=$DIR/logs" \
    --override num.partitions=8 "${OVERRIDES[@]}" >"$DIR/broker.log" 2>&1 &
BROKER=$!
for _ in $(seq 100); do
    "$BUILD/bench/bench_codec_load" create -b "127.0.0.1:$PORT" -t ceiling -p 8 >/dev/null 2>&1 && break
    sleep 0.1
done
[ -n "${PREFILL:-}" ] && eval "$PREFILL" >/dev/null
cpu() { awk '{print $14, $15}' "/proc/$BROKER/stat"; }
CPU0=$(cpu)
perf record -F 499 --call-graph "${CG:-fp}" -p "$BROKER" -o "$OUT/$NAME.data" 2>/dev/null &
RECORD=$!
perf stat -o "$OUT/$NAME.stat" -p "$BROKER" -e syscalls:sys_enter_read,syscalls:sys_enter_pwrite64,\
syscalls:sys_enter_sendmsg,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_writev,\
syscalls:sys_enter_sendfile64,syscalls:sys_enter_pread64,syscalls:sys_enter_write 2>/dev/null &
STAT=$!
sleep 0.5 # perf attached
T0=$(date +%s.%N)
CMD=("$@")
CMD=("${CMD[@]//@PORT@/$PORT}")
CMD=("${CMD[@]//@SSLPORT@/${SSLPORT:-}}")
"${CMD[@]}" | tail -1 >"$OUT/$NAME.out"
T1=$(date +%s.%N)
kill -INT "$RECORD" "$STAT"
wait "$RECORD" "$STAT"
CPU1=$(cpu)
kill -TERM "$BROKER"
wait "$BROKER"
echo "$NAME: $(cat "$OUT/$NAME.out")"
python3 - "$CPU0" "$CPU1" "$T0" "$T1" <<'PY'
import os, sys
u0, s0 = map(int, sys.argv[1].split())
u1, s1 = map(int, sys.argv[2].split())
wall = float(sys.argv[4]) - float(sys.argv[3])
hz = os.sysconf("SC_CLK_TCK")
u, s = (u1 - u0) / hz, (s1 - s0) / hz
print(f"wall {wall:.2f}s broker user {u:.2f}s sys {s:.2f}s cpu/wall {(u + s) / wall:.2f}")
PY
echo "$(uptime | sed 's/.*load/load/')"
grep "sent .* bytes with sendfile" "$DIR/broker.log" | tail -1
grep syscalls "$OUT/$NAME.stat" | awk '{printf "%s %s; ", $2, $1} END {print ""}'
rm -rf "$DIR"
