#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The HTTP listener abused while a producer runs (acks=all, idempotent):
# oversized headers (431), garbage, requests cut off and reset, a POST body,
# 200 scrapes, then three times gregor.http.max.connections held open (idle,
# slow, half-written). Meanwhile the broker holds at most that many HTTP
# connections (its own sockets on the port, counted with ss; the rest wait in
# the kernel's backlog), Kafka clients are served, and afterwards /healthz
# answers again, every record was acknowledged and reads back in place
# (seq_verify), and the broker is alive.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v curl >/dev/null || { gr_note "no curl: skipped"; exit 77; }
command -v ss >/dev/null || { gr_note "no ss: skipped"; exit 77; }

LIMIT=4
N=5000
GR_HTTP=1
gr_start_broker gregor.http.max.connections=$LIMIT gregor.http.max.connections.per.ip=$LIMIT \
    gregor.http.connection.timeout.ms=1000
gr_wait_broker_started
gr_prog admin -b "$GR_BOOTSTRAP" create flood 1 1 >/dev/null
flood() { "$GR_PYTHON" "$GR_INTEROP_DIR/py/http_flood.py" 127.0.0.1 "$GR_HTTP_PORT" "$@"; }

# Paced so that it runs through the flood (the pace is not asserted).
gr_prog seq_producer -b "$GR_BOOTSTRAP" -t flood -n $N -r 1000 -o "$GR_TMP/acked" \
    >"$GR_TMP/producer.out" 2>&1 &
producer=$!
gr_track $producer

flood probe || gr_fail "the HTTP listener mishandled a bad request"

# The broker's own sockets on the HTTP port: accepted connections only.
http_conns() { ss -Htnp "( sport = :$GR_HTTP_PORT )" | grep -c "pid=$GR_PID," || true; }
flood hold $((3 * LIMIT)) "$GR_TMP/held" "$GR_TMP/release" &
holder=$!
gr_track $holder
gr_wait_until 30 "the flood's connections to open" test -e "$GR_TMP/held"
for _ in 1 2 3 4 5; do
    held=$(http_conns)
    [ "$held" -le $LIMIT ] || gr_fail "$held HTTP connections open, above the limit of $LIMIT"
    gr_kcat -L >/dev/null || gr_fail "Kafka metadata request failed during the flood"
done
gr_note "HTTP connections held by the broker during the flood: $held (limit $LIMIT)"
touch "$GR_TMP/release"
wait $holder || gr_fail "the flood's holder failed"

healthy() { [ "$(gr_http_get /healthz 2>/dev/null)" = ok ]; }
gr_wait_until 60 "/healthz to answer again after the flood" healthy

rc=0
wait $producer || rc=$?
out=$(cat "$GR_TMP/producer.out")
[ $rc = 0 ] || gr_fail "seq_producer exited $rc: $(tail -n 5 <<<"$out")"
[[ $out == *"topic=flood produced=$N acked=$N failed=0"* ]] ||
    gr_fail "not every record acknowledged: $(tail -n 5 <<<"$out")"
gr_prog seq_verify -b "$GR_BOOTSTRAP" -t flood -i "$GR_TMP/acked" -n $N >&2 ||
    gr_fail "seq_verify found records missing or misplaced"
gr_alive "$GR_PID" || gr_fail "the broker died"
gr_pass
