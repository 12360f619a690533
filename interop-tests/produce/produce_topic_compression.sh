#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A topic whose compression.type names a codec stores every batch with that
# codec, whatever the producer sent: here the broker default
# compression.type=gzip applies to an auto-created topic, kcat produces
# uncompressed and lz4 batches, the segment file holds only gzip batches, a
# consumer reads every record back, and the recompression ran on the worker.
source "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
gr_start_broker compression.type=gzip

seq 1 500 | sed 's/^/plain-/' | gr_kcat -P -t squeezed -z none
seq 1 500 | sed 's/^/lz4-/' | gr_kcat -P -t squeezed -z lz4

got=$(gr_kcat -C -t squeezed -o beginning -e -q | sort | tr '\n' ' ')
want=$( (seq 1 500 | sed 's/^/plain-/'; seq 1 500 | sed 's/^/lz4-/') | sort | tr '\n' ' ')
[ "$got" = "$want" ] || gr_fail "records did not come back intact"

codecs=$("$GR_PYTHON" - "$GR_TMP/logs/squeezed-0/00000000000000000000.log" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
pos, codecs = 0, set()
while pos + 61 <= len(data):
    length = struct.unpack(">i", data[pos + 8:pos + 12])[0]
    attributes = struct.unpack(">h", data[pos + 21:pos + 23])[0]
    codecs.add(attributes & 7)
    pos += 12 + length
print(",".join(str(c) for c in sorted(codecs)))
PY
)
[ "$codecs" = "1" ] || gr_fail "segment holds batches with codecs '$codecs', want only gzip (1)"
# Recompression is slow work: it must have run on the worker, off the loop.
gr_stop_broker
jobs=$(gr_broker_run_log | sed -nE 's/.* ([0-9]+) produce\(s\) recompressed on the worker.*/\1/p')
[ "${jobs:-0}" -gt 0 ] || gr_fail "no produce was recompressed on the worker"
gr_pass
