#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Topic configs changed at run time (AlterConfigs through librdkafka's Admin
# API) take effect on the live partitions, without a restart:
#  - segment.bytes: a topic created with the 1 GiB default rolls small
#    segments once it is set to 4096;
#  - max.message.bytes: set to 2000, a 5000-byte record is refused with
#    MESSAGE_TOO_LARGE (librdkafka: MSG_SIZE_TOO_LARGE) where it was accepted
#    before;
#  - retention.ms: set to 1000, the closed segments are deleted and the log
#    start offset moves, while a topic without the override keeps all;
#  - message.timestamp.type: set to LogAppendTime, records carry the broker's
#    time instead of the producer's (an hour old);
#  - message.timestamp.difference.max.ms: set to 60000, a record an hour old
#    is refused (INVALID_TIMESTAMP);
#  - retention.bytes: set to 8192 (with small segments), the oldest segments
#    go until the partition fits;
#  - segment.ms: set to 1, every later produce starts a new segment;
#  - segment.index.bytes: set to 64 (8 index entries), a full offset index
#    rolls the segment even though segment.bytes is far off;
#  - index.interval.bytes: set to 128, the offset index gets an entry every
#    few batches (more than with the default 4096, counted after a stop);
#  - min.insync.replicas: set to 2 on a one-broker cluster, acks=all
#    produces fail with NOT_ENOUGH_REPLICAS while acks=1 still works;
#  - compression.type: set to gzip, batches sent uncompressed are stored
#    gzip-compressed.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

gr_start_broker log.retention.check.interval.ms=200
adm() { gr_prog admin_configs -b "$GR_BOOTSTRAP" "$@"; }
alter()
{
    local out
    out=$(adm alter topic "$@") || gr_fail "alter $*: no answer"
    [ "$out" = "$1 NO_ERROR" ] || gr_fail "alter $*: $out"
}
segments() { ls "$GR_TMP/logs/$1-0/"*.log | wc -l; }

gr_prog admin -b "$GR_BOOTSTRAP" create live 1 1 >/dev/null || gr_fail "create live"
gr_prog admin -b "$GR_BOOTSTRAP" create kept 1 1 >/dev/null || gr_fail "create kept"
produce() { seq 1 "$2" | sed 's/^/record-with-some-padding-/' | gr_kcat -P -t "$1" -X batch.size=2048; }

produce live 500
[ "$(segments live)" = 1 ] || gr_fail "live rolled before segment.bytes changed"
alter live segment.bytes=4096
produce live 2000
n=$(segments live)
[ "$n" -gt 5 ] || gr_fail "segment.bytes=4096 gave $n segments"
produce kept 2000
[ "$(segments kept)" = 1 ] || gr_fail "kept rolled without segment.bytes"

out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t kept -n 1 -s 5000 -m produce -w 60) ||
    gr_fail "a 5000-byte record before max.message.bytes changed: $out"
alter kept max.message.bytes=2000
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t kept -n 2 -s 5000 -m produce -w 60 \
    -x MSG_SIZE_TOO_LARGE) || gr_fail "max.message.bytes=2000 did not refuse 5000 bytes: $out"

alter live segment.bytes=4096 retention.ms=1000
gr_wait_until 60 "retention.ms=1000 to delete live's closed segments" bash -c \
    "[ \$(ls '$GR_TMP/logs/live-0/'*.log | wc -l) -le 1 ]"
earliest=$(gr_kcat -Q -t live:0:-2 | sed -E 's/.*offset ([0-9-]+).*/\1/')
[ "$earliest" -gt 0 ] || gr_fail "live's log start offset did not move"
earliest=$(gr_kcat -Q -t kept:0:-2 | sed -E 's/.*offset ([0-9-]+).*/\1/')
[ "$earliest" = 0 ] || gr_fail "kept lost records ($earliest) without a retention override"

old_ms=$(($(date +%s) * 1000 - 3600 * 1000))
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t kept -n 1 -T "$old_ms" -m produce -w 60) ||
    gr_fail "an hour-old record before the timestamp limit: $out"
alter kept max.message.bytes=2000 message.timestamp.difference.max.ms=60000
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t kept -n 1 -T "$old_ms" -m produce -w 60 \
    -x INVALID_TIMESTAMP) || gr_fail "message.timestamp.difference.max.ms did not refuse: $out"

gr_prog admin -b "$GR_BOOTSTRAP" create stamped 1 1 >/dev/null || gr_fail "create stamped"
alter stamped message.timestamp.type=LogAppendTime
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t stamped -n 1 -T "$old_ms" -m produce -w 60) ||
    gr_fail "an hour-old record into stamped: $out"
ts=$(gr_kcat -C -t stamped -o beginning -e -q -f '%T\n' | head -n 1)
now_ms=$(($(date +%s) * 1000))
[ "$((now_ms - ts))" -lt 600000 ] && [ "$((now_ms - ts))" -gt -600000 ] ||
    gr_fail "LogAppendTime record has timestamp $ts, not the broker's clock ($now_ms)"

# retention.bytes
gr_prog admin -b "$GR_BOOTSTRAP" create sized 1 1 >/dev/null || gr_fail "create sized"
alter sized segment.bytes=4096
produce sized 2000
n=$(segments sized)
[ "$n" -gt 8 ] || gr_fail "sized has only $n segments"
alter sized segment.bytes=4096 retention.bytes=8192
gr_wait_until 60 "retention.bytes=8192 to delete sized's oldest segments" bash -c \
    "[ \$(du -cb '$GR_TMP/logs/sized-0/'*.log | tail -n 1 | cut -f1) -le $((8192 + 4096)) ]"
earliest=$(gr_kcat -Q -t sized:0:-2 | sed -E 's/.*offset ([0-9-]+).*/\1/')
[ "$earliest" -gt 0 ] || gr_fail "sized's log start offset did not move"

# segment.ms
gr_prog admin -b "$GR_BOOTSTRAP" create timed 1 1 >/dev/null || gr_fail "create timed"
produce timed 10
produce timed 10
[ "$(segments timed)" = 1 ] || gr_fail "timed rolled before segment.ms changed"
alter timed segment.ms=1
for i in 1 2 3; do produce timed 1; done
n=$(segments timed)
[ "$n" -ge 3 ] || gr_fail "segment.ms=1 gave $n segments after 3 produces"

# segment.index.bytes
gr_prog admin -b "$GR_BOOTSTRAP" create indexed 1 1 >/dev/null || gr_fail "create indexed"
alter indexed segment.index.bytes=64 index.interval.bytes=1
produce indexed 3000
n=$(segments indexed)
[ "$n" -gt 2 ] || gr_fail "segment.index.bytes=64 gave $n segments"

# index.interval.bytes (compared after a clean stop, which trims the index files)
gr_prog admin -b "$GR_BOOTSTRAP" create dense 1 1 >/dev/null || gr_fail "create dense"
gr_prog admin -b "$GR_BOOTSTRAP" create sparse 1 1 >/dev/null || gr_fail "create sparse"
alter dense index.interval.bytes=128
produce dense 3000
produce sparse 3000

# min.insync.replicas
gr_prog admin -b "$GR_BOOTSTRAP" create guarded 1 1 >/dev/null || gr_fail "create guarded"
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t guarded -n 1 -a all -m produce -w 60) ||
    gr_fail "acks=all before min.insync.replicas changed: $out"
alter guarded min.insync.replicas=2
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t guarded -n 1 -a all -m produce -w 60 \
    -X retries=0 -x NOT_ENOUGH_REPLICAS) ||
    gr_fail "min.insync.replicas=2 did not refuse acks=all: $out"
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t guarded -n 1 -a 1 -m produce -w 60) ||
    gr_fail "acks=1 with min.insync.replicas=2: $out"

# compression.type
gr_prog admin -b "$GR_BOOTSTRAP" create squeezed 1 1 >/dev/null || gr_fail "create squeezed"
alter squeezed compression.type=gzip
seq 1 200 | gr_kcat -P -t squeezed -z none
got=$(gr_kcat -C -t squeezed -o beginning -e -q | wc -l)
[ "$got" = 200 ] || gr_fail "squeezed gave back $got records"
codecs=$("$GR_PYTHON" - "$GR_TMP/logs/squeezed-0/00000000000000000000.log" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
pos, codecs = 0, set()
while pos + 61 <= len(data):
    length = struct.unpack(">i", data[pos + 8:pos + 12])[0]
    codecs.add(struct.unpack(">h", data[pos + 21:pos + 23])[0] & 7)
    pos += 12 + length
print(",".join(str(c) for c in sorted(codecs)))
PY
)
[ "$codecs" = 1 ] || gr_fail "squeezed holds codecs '$codecs', want only gzip (1)"

gr_stop_broker
dense=$(stat -c %s "$GR_TMP/logs/dense-0/00000000000000000000.index")
sparse=$(stat -c %s "$GR_TMP/logs/sparse-0/00000000000000000000.index")
[ "$dense" -gt $((sparse * 2)) ] ||
    gr_fail "index.interval.bytes=128 index is $dense bytes, the default's $sparse"
gr_pass
