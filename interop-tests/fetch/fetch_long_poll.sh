#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetch long poll: a consumer whose fetches may wait up to 120 s
# (fetch.wait.max.ms=120000) gets a record produced while it waits without
# waiting out max_wait: the broker completes the parked fetch when data
# arrives. The deadline (30 s) is far below 120 s; this checks correctness,
# not latency.
. "$(dirname "$0")/../lib/lib.sh"

# librdkafka's mock cluster answers an empty fetch only after max_wait (it
# never wakes a parked fetch), so against it this test fails as it should;
# GR_LONG_POLL_MS (small) lets the harness itself be checked against it.
wait_ms=${GR_LONG_POLL_MS:-120000}
[ -n "${GR_LONG_POLL_MS:-}" ] || gr_require_gregor
gr_start_broker
topic=long_poll
echo first | gr_kcat -P -t $topic -p 0

# Not -e: kcat keeps fetching after the end. (librdkafka reports the end only
# from a fetch response that starts at the high watermark, which is the parked
# one, so there is no EOF notice to wait for.)
# Started directly (not through gr_kcat) so that $! is kcat itself.
"$GR_KCAT" -b "$GR_BOOTSTRAP" -C -t $topic -p 0 -o beginning -u -f '%s\n' \
    -X fetch.wait.max.ms=$wait_ms -X socket.timeout.ms=$((wait_ms + 60000)) \
    >"$GR_TMP/consumed" 2>"$GR_TMP/consumer.err" &
consumer=$!
gr_track $consumer
stop_consumer() { kill -TERM "$consumer" 2>/dev/null || true; wait "$consumer" 2>/dev/null || true; }

gr_wait_until 30 "the consumer to read the first record" grep -qx first "$GR_TMP/consumed"

# The consumer's next fetch, from offset 1, is now parked on the broker (it is
# sent as soon as the first response is handled; starting kcat -P and its
# metadata round trip takes longer than that).
echo second | gr_kcat -P -t $topic -p 0
deadline=$((SECONDS + 30))
until grep -qx second "$GR_TMP/consumed"; do
    if [ $SECONDS -ge $deadline ]; then
        stop_consumer
        cat "$GR_TMP/consumer.err" >&2
        gr_fail "record produced during a long-poll fetch did not arrive within 30s"
    fi
    kill -0 "$consumer" 2>/dev/null || { cat "$GR_TMP/consumer.err" >&2; gr_fail "consumer exited"; }
    sleep 0.05
done
stop_consumer
[ "$(cat "$GR_TMP/consumed")" = "$(printf 'first\nsecond')" ] || gr_fail "consumed: $(cat "$GR_TMP/consumed")"
gr_pass
