#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# No duplicates and no reordering under retries and restarts: librdkafka
# (enable.idempotence=true, through progs/roundtrip) and kafkajs's idempotent
# producer each write 200000 records to a 3-partition topic through
# py/drop_proxy.py, which loses Produce responses at random by closing
# connections right after forwarding a request, while the broker is killed
# with SIGKILL twice and stopped cleanly once and restarted each time.
# Afterwards every record is in the log exactly once, in production order
# per partition. The proxy must actually have dropped responses.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
COUNT=${GR_IDEMPOTENT_RECORDS:-200000}
DROP_PERCENT=3

proxy_port=$(gr_free_port)
gr_start_broker num.partitions=3 "advertised.listeners=PLAINTEXT://127.0.0.1:$proxy_port"
"$GR_PYTHON" "$GR_INTEROP_DIR/py/drop_proxy.py" "$proxy_port" "$GR_PORT" $DROP_PERCENT \
    "$GR_TMP/dropped" 2>"$GR_TMP/proxy.err" &
gr_track $!
gr_wait_until 30 "the proxy listening" gr_port_open "$proxy_port"
via_proxy=127.0.0.1:$proxy_port

# Kills at three points of the run; $1 prints how many records are acked.
disturb()
{
    local progress=$1 at
    for at in $((COUNT / 5)) $((COUNT / 2)) $((COUNT * 4 / 5)); do
        gr_wait_until 240 "$at records acknowledged" eval "[ \"\$($progress)\" -ge $at ] 2>/dev/null"
        if [ $at = $((COUNT * 4 / 5)) ]; then
            gr_restart_broker
        else
            gr_kill9_broker
            gr_start_broker
        fi
    done
}

# Every value 0..COUNT-1 once, increasing within each partition ("%p %s" lines).
check_exactly_once()
{
    awk -v n="$COUNT" '
        { if (seen[$2]++) { print "duplicate " $2; bad = 1 }
          if ($1 in last && $2 + 0 <= last[$1]) { print "out of order in partition " $1 ": " $2 " after " last[$1]; bad = 1 }
          last[$1] = $2 + 0; total++ }
        END { for (i = 0; i < n; i++) if (!(i in seen)) { print "missing " i; bad = 1; break }
              if (total != n) { print total " records, want " n; bad = 1 }
              exit bad }' "$1"
}

# --- librdkafka -----------------------------------------------------------
"$GR_PROGS/roundtrip" -b "$via_proxy" -t idem-rdkafka -n "$COUNT" -s 16 -m produce -A -w 300 \
    -X enable.idempotence=true -X message.timeout.ms=300000 -X linger.ms=5 -X batch.num.messages=500 \
    -X reconnect.backoff.max.ms=1000 \
    >"$GR_TMP/rdkafka.acked" 2>"$GR_TMP/rdkafka.err" &
producer=$!
gr_track $producer
disturb "grep -c '^acked ' $GR_TMP/rdkafka.acked"
wait $producer || { tail -n 5 "$GR_TMP/rdkafka.err" >&2; gr_fail "librdkafka producer failed: $(tail -n 1 "$GR_TMP/rdkafka.acked")"; }
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t idem-rdkafka -n "$COUNT" -s 16 -m consume -w 120 2>"$GR_TMP/consume.err") ||
    gr_fail "librdkafka records not exactly once and in order: $(tail -n 3 <<<"$out")"
gr_note "librdkafka: $(tail -n 1 <<<"$out"); responses dropped so far: $(cat "$GR_TMP/dropped")"

# --- kafkajs --------------------------------------------------------------
if ! command -v node >/dev/null || [ ! -d "$GR_INTEROP_DIR/node_modules/kafkajs" ]; then
    gr_note "kafkajs part skipped: node or interop-tests/node_modules/kafkajs missing"
else
    echo 0 >"$GR_TMP/kafkajs.progress"
    # The progress file is rewritten in place: a read may see it empty.
    KAFKAJS_NO_PARTITIONER_WARNING=1 node "$GR_INTEROP_DIR/js/kafkajs_idempotent.js" "$via_proxy" \
        idem-kafkajs "$COUNT" "$GR_TMP/kafkajs.progress" >"$GR_TMP/kafkajs.out" 2>&1 &
    producer=$!
    gr_track $producer
    disturb "cat $GR_TMP/kafkajs.progress"
    wait $producer || { tail -n 20 "$GR_TMP/kafkajs.out" >&2; gr_fail "kafkajs producer failed"; }
    gr_kcat -C -t idem-kafkajs -o beginning -e -q -f '%p %s\n' >"$GR_TMP/kafkajs.got" ||
        gr_fail "kcat could not read idem-kafkajs"
    problems=$(check_exactly_once "$GR_TMP/kafkajs.got") ||
        gr_fail "kafkajs records not exactly once and in order: $(head -n 5 <<<"$problems")"
    gr_note "kafkajs: $COUNT records exactly once, in order per partition"
fi

dropped=$(cat "$GR_TMP/dropped")
[ "$dropped" -gt 0 ] || gr_fail "the proxy dropped no response: the retry path was not exercised"
gr_note "responses dropped by the proxy: $dropped"
gr_pass
