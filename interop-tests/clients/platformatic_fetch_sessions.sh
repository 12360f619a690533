#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# @platformatic/kafka's Consumer uses fetch sessions (KIP-227): after its
# produce/consume round trip (js/platformatic/produce.mjs, checked there)
# the broker keeps the consumer's session, with its partitions
# (kafka_server_fetchsessioncache_* on /metrics; sessions outlive the
# connection, as in Kafka).
. "$(dirname "$0")/../lib/lib.sh"
. "$GR_INTEROP_DIR/lib/platformaticlib.sh"
gr_require_gregor
pk_require
command -v curl >/dev/null || { gr_note "no curl"; exit 77; }

metric() { gr_http_get /metrics | awk -v m="$1" '$1 == m { print $2 }'; }

GR_HTTP=1
gr_start_broker group.initial.rebalance.delay.ms=0
out=$(pk_run produce 2>&1) || gr_fail "platformatic produce/consume: $(tail -n 30 <<<"$out")"
sessions=$(metric kafka_server_fetchsessioncache_numincrementalfetchsessions)
cached=$(metric kafka_server_fetchsessioncache_numincrementalfetchpartitionscached)
gr_note "${sessions:-no} fetch session(s), ${cached:-no} partition(s) cached"
[ "${sessions:-0}" != 0 ] && [ "${cached:-0}" != 0 ] ||
    gr_fail "the consumer's fetch session is not kept"
gr_pass
