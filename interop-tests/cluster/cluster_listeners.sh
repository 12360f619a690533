#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Three brokers with two listeners each: INTERNAL (inter.broker.listener.name:
# the controller, the replica fetchers and the coordinators use it) and
# EXTERNAL (advertised as "localhost", for clients). Every broker registers
# both endpoints with their protocols in /brokers/ids/N; a client that
# bootstraps on EXTERNAL is told every broker's EXTERNAL endpoint and
# produces with acks=all to a topic replicated three times; the followers
# replicate over INTERNAL; a consumer group through EXTERNAL reads it all;
# the three replicas hold the same bytes.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
topic=listeners
declare -a EXT_PORT
for i in 0 1 2; do
    CL_PORT[i]=$(gr_free_port)
    EXT_PORT[i]=$(gr_free_port)
done
cl_broker_overrides()
{
    local i=$1
    echo "listeners=INTERNAL://127.0.0.1:${CL_PORT[$i]},EXTERNAL://127.0.0.1:${EXT_PORT[$i]}"
    echo "advertised.listeners=INTERNAL://127.0.0.1:${CL_PORT[$i]},EXTERNAL://localhost:${EXT_PORT[$i]}"
    echo "listener.security.protocol.map=INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT"
    echo "inter.broker.listener.name=INTERNAL"
}
cl_start_cluster 3
ext=127.0.0.1:${EXT_PORT[1]}

doc=$(cl_zk get /gregor/brokers/ids/2)
grep -q "\"INTERNAL://127.0.0.1:${CL_PORT[2]}\",\"EXTERNAL://localhost:${EXT_PORT[2]}\"" <<<"$doc" ||
    gr_fail "/brokers/ids/2 lacks both endpoints: $doc"
grep -q '"EXTERNAL":"PLAINTEXT"' <<<"$doc" || gr_fail "/brokers/ids/2 lacks the protocol map: $doc"

out=$(gr_prog admin -b "$ext" create $topic 3 3 min.insync.replicas=2) || gr_fail "admin create failed: $out"
cl_wait_all_led $topic 3
lists_external() {
    local out
    out=$("$GR_KCAT" -b "$ext" -L -m 10 -t $topic) || return 1
    for i in 0 1 2; do grep -q "broker $i at localhost:${EXT_PORT[$i]}" <<<"$out" || return 1; done
    ! grep -q "127.0.0.1:${CL_PORT[0]}" <<<"$out"
}
gr_wait_until "$CL_WAIT_S" "Metadata on EXTERNAL to list every broker's EXTERNAL endpoint" lists_external

seq 1 3000 | sed 's/^/rec-/' | timeout 120 "$GR_KCAT" -b "$ext" -P -t $topic -X acks=all ||
    gr_fail "acks=all produce through EXTERNAL failed"
got=$(timeout 120 "$GR_KCAT" -b "$ext" -G listeners_group $topic -o beginning -e -q | sort -V)
[ "$got" = "$(seq 1 3000 | sed 's/^/rec-/')" ] ||
    gr_fail "the group consumer on EXTERNAL read $(wc -l <<<"$got") records, want 3000"
cl_wait_replicas_equal $topic 3
gr_pass
