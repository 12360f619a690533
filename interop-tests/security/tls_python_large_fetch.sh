#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kafka-python over SSL with a large fetch: 12 MB in 48 records of 256 KiB are
# produced over TLS and consumed back in fetches of several MB, so the file
# ranges of the fetch responses go through the TLS sender (kernel TLS
# sendfile when the kernel has it, else bounded reads); every record's bytes
# are checked. Run twice: with kernel TLS allowed and with it forced off.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
gr_require_gregor
"$GR_PYTHON" -c 'import kafka' 2>/dev/null || { gr_note "kafka-python missing: skipped"; exit 77; }
gr_tls_make_certs

GR_PORT=$(gr_free_port)
mapfile -t tls_overrides < <(gr_tls_ssl_overrides)

roundtrip()
{
    "$GR_PYTHON" - "$GR_BOOTSTRAP" "$GR_TLS/ca.pem" "$1" <<'PY'
import hashlib, sys
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
bootstrap, ca, topic = sys.argv[1:4]
ssl = dict(security_protocol="SSL", ssl_cafile=ca, ssl_check_hostname=False)
count, size = 48, 256 * 1024

def value(i):
    seed = hashlib.sha256(b"%d" % i).digest()
    return (seed * (size // len(seed) + 1))[:size]

p = KafkaProducer(bootstrap_servers=bootstrap, max_request_size=2 * size, acks=1, **ssl)
for i in range(count):
    p.send(topic, value=value(i), partition=0)
p.flush()
p.close()
c = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                  fetch_max_bytes=8 * 1024 * 1024, max_partition_fetch_bytes=8 * 1024 * 1024,
                  consumer_timeout_ms=20000, **ssl)
tp = TopicPartition(topic, 0)
c.assign([tp])
got = 0
for m in c:
    if m.value != value(m.offset):
        sys.exit("record %d differs (%d bytes)" % (m.offset, len(m.value)))
    got += 1
    if got == count:
        break
c.close()
if got != count:
    sys.exit("consumed %d of %d records" % (got, count))
PY
}

gr_start_broker "listeners=SSL://127.0.0.1:$GR_PORT" security.inter.broker.protocol=SSL \
    "${tls_overrides[@]}"
roundtrip big_ktls_allowed || gr_fail "large fetch over SSL failed (kernel TLS allowed)"
gr_stop_broker
gr_start_broker gregor.ssl.ktls.enable=false
roundtrip big_ktls_off || gr_fail "large fetch over SSL failed (kernel TLS off)"
gr_pass
