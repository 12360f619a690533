#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Two named listeners (listener.security.protocol.map), advertised under
# different host names: each client is told the brokers' endpoint of the
# listener it connected to, in Metadata and FindCoordinator (a consumer
# group through the second listener would otherwise be sent to the first),
# and produces and consumes through it. A listener name with no protocol in
# the map, more listeners than supported, or an inter-broker listener that
# is not advertised stop the broker at start-up with a clear message.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
topic=named_listeners
GR_PORT=$(gr_free_port)
ext_port=$(gr_free_port)
gr_start_broker "listeners=INTERNAL://127.0.0.1:$GR_PORT,EXTERNAL://127.0.0.1:$ext_port" \
    "advertised.listeners=INTERNAL://127.0.0.1:$GR_PORT,EXTERNAL://localhost:$ext_port" \
    "listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT" \
    "inter.broker.listener.name=INTERNAL"
ext=127.0.0.1:$ext_port

out=$(gr_kcat -L) || gr_fail "kcat -L on INTERNAL failed"
grep -q "broker 0 at 127.0.0.1:$GR_PORT" <<<"$out" || gr_fail "INTERNAL lists: $out"
out=$("$GR_KCAT" -b "$ext" -L -m 10) || gr_fail "kcat -L on EXTERNAL failed"
grep -q "broker 0 at localhost:$ext_port" <<<"$out" || gr_fail "EXTERNAL lists: $out"

seq 1 20 | sed 's/^/ext-/' | timeout 60 "$GR_KCAT" -b "$ext" -P -t $topic ||
    gr_fail "producing through EXTERNAL failed"
got=$(timeout 60 "$GR_KCAT" -b "$ext" -C -t $topic -o beginning -e -q | sort -V)
[ "$got" = "$(seq 1 20 | sed 's/^/ext-/')" ] || gr_fail "consumed through EXTERNAL: $got"
# A consumer group: FindCoordinator must name the EXTERNAL endpoint.
got=$(timeout 60 "$GR_KCAT" -b "$ext" -G named_group $topic -o beginning -e -X debug=cgrp 2>"$GR_TMP/cgrp.log" | sort -V)
[ "$got" = "$(seq 1 20 | sed 's/^/ext-/')" ] || gr_fail "group consumer through EXTERNAL got: $got"
grep -q "coordinator.*localhost:$ext_port" "$GR_TMP/cgrp.log" ||
    gr_fail "the group coordinator was not given as localhost:$ext_port: $(grep -i coordinator "$GR_TMP/cgrp.log" | head -3)"
gr_stop_broker

# Configurations the broker must refuse at start-up.
refuse() # WHY NEEDLE OVERRIDES...
{
    local why=$1 needle=$2
    shift 2
    local rc=0 out kv args=(--override "log.dirs=$GR_TMP/refused")
    for kv in "$@"; do args+=(--override "$kv"); done
    out=$("$GR_BROKER" "${args[@]}" 2>&1 </dev/null) || rc=$?
    [ $rc -ne 0 ] || gr_fail "$why: the broker started"
    grep -q -- "$needle" <<<"$out" || gr_fail "$why: message lacks '$needle': $out"
}
refuse "unmapped listener" "CLIENT" "listeners=CLIENT://127.0.0.1:0"
refuse "inter-broker listener not advertised" "inter-broker listener" \
    "listeners=A://127.0.0.1:0" "listener.security.protocol.map=A:PLAINTEXT"
many=$(for i in 1 2 3 4 5 6 7 8 9; do printf 'L%d://127.0.0.1:0,' $i; done)
map=$(for i in 1 2 3 4 5 6 7 8 9; do printf 'L%d:PLAINTEXT,' $i; done)
refuse "nine listeners" "at most 8" "listeners=${many%,}" "listener.security.protocol.map=${map%,}" \
    "inter.broker.listener.name=L1"
gr_pass
