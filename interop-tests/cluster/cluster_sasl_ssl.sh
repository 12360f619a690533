#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Three brokers that talk to each other only over SASL_SSL: INTERNAL
# (inter.broker.listener.name) is SASL_SSL with SCRAM-SHA-512 as
# sasl.mechanism.inter.broker.protocol, so the controller's requests, the
# replica fetchers and the coordinators' markers all log in as User:broker
# over TLS. Clients use EXTERNAL (SASL_SSL, SCRAM-SHA-256 user alice,
# allowed by ACLs under the ACL authorizer); the test's own tools use CLIENT
# (PLAINTEXT, a super user).
# 1. The brokers start before the "broker" SCRAM credential exists: their
#    logins fail and are retried; once gregor-admin creates it the cluster
#    forms (every broker sees every other), and each broker logged the
#    others in as User:broker over INTERNAL.
# 2. alice produces with acks=all to a topic replicated three times
#    (min.insync.replicas=2), a leader is killed with kill -9 mid-way, she
#    produces again, the broker comes back; a group consumer over EXTERNAL
#    reads every acknowledged record, and the three replicas are the same
#    bytes. Inter-broker sessions last 3 s (connections.max.reauth.ms on
#    INTERNAL for SCRAM-SHA-512): the brokers re-authenticate on their
#    connections, so none is closed for an expired session.
# 3. A producer_byte_rate quota for alice, written through broker 0, reaches
#    the other brokers by /config/changes: brokers 1 and 2 throttle her too
#    (throttle_time_ms in their Produce responses).
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
source "$(dirname "$0")/../lib/tlslib.sh"
cl_require
gr_tls_make_certs
topic=secure
declare -a INT_PORT EXT_PORT
for i in 0 1 2; do
    CL_PORT[i]=$(gr_free_port)
    INT_PORT[i]=$(gr_free_port)
    EXT_PORT[i]=$(gr_free_port)
done
scram_jaas='org.apache.kafka.common.security.scram.ScramLoginModule required'
cl_broker_overrides()
{
    local i=$1
    echo "listeners=CLIENT://127.0.0.1:${CL_PORT[$i]},INTERNAL://127.0.0.1:${INT_PORT[$i]},EXTERNAL://127.0.0.1:${EXT_PORT[$i]}"
    echo "listener.security.protocol.map=CLIENT:PLAINTEXT,INTERNAL:SASL_SSL,EXTERNAL:SASL_SSL"
    echo "inter.broker.listener.name=INTERNAL"
    echo "sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512"
    echo "sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512"
    echo "listener.name.internal.scram-sha-512.sasl.jaas.config=$scram_jaas username=\"broker\" password=\"broker-secret\";"
    # Sessions between brokers last 3 s: peers must log in again on their connections (KIP-368).
    echo "listener.name.internal.scram-sha-512.connections.max.reauth.ms=3000"
    gr_tls_ssl_overrides
    echo "authorizer.class.name=kafka.security.authorizer.AclAuthorizer"
    echo "super.users=User:broker;User:ANONYMOUS"
    echo "quota.window.num=2" # a short first-burst allowance (see quota_produce.sh)
}
admin() { "$(dirname "$GR_BROKER")/gregor-admin" --bootstrap-server "$(cl_addr 0)" "$@"; }
alice_kcat()
{
    local i boot=""
    for i in 0 1 2; do boot="${boot:+$boot,}127.0.0.1:${EXT_PORT[$i]}"; done
    timeout 120 "$GR_KCAT" -b "$boot" -X security.protocol=SASL_SSL -X "ssl.ca.location=$GR_TLS/ca.pem" \
        -X sasl.mechanism=SCRAM-SHA-256 -X sasl.username=alice -X sasl.password=alice-secret "$@"
}

# --- 1: logins refused until the credential exists, then the cluster forms --
CL_START_WAIT=0 cl_start_cluster 3
gr_wait_until "$CL_WAIT_S" "a broker refusing the inter-broker login before the credential exists" \
    bash -c "grep -q \"authentication failed for user 'broker'\" $GR_TMP/b[012].log"
out=$(admin configs alter --entity-type users --entity-name broker \
    --add-config 'SCRAM-SHA-512=[iterations=4096,password=broker-secret]' 2>&1) ||
    gr_fail "creating the broker credential: $out"
out=$(admin configs alter --entity-type users --entity-name alice \
    --add-config 'SCRAM-SHA-256=[iterations=4096,password=alice-secret]' 2>&1) ||
    gr_fail "creating alice's credential: $out"
cl_wait_stable "the brokers logging in to each other"
# Followers fetch from leaders and the controller connects to everyone, so at
# least two brokers must have logged a peer in (the controller may only dial out).
logged_in=0
for i in 0 1 2; do
    if grep -q "authenticated as User:broker with SCRAM-SHA-512" "$(cl_broker_log "$i")"; then
        logged_in=$((logged_in + 1))
    fi
done
[ "$logged_in" -ge 2 ] || gr_fail "only $logged_in brokers logged another broker in over SASL"

out=$(admin acls --add --allow-principal User:alice --producer --consumer --topic $topic \
    --group secure-group 2>&1) || gr_fail "acls --add: $out"
out=$(gr_prog admin -b "$(cl_addr 0)" create $topic 3 3 min.insync.replicas=2) ||
    gr_fail "admin create failed: $out"
cl_wait_all_led $topic 3

# --- 2: acks=all over SASL_SSL, a leader killed, replicas the same bytes ----
seq 1 2000 | sed 's/^/a-/' | alice_kcat -P -t $topic -X acks=all || gr_fail "alice's first produce failed"
victim=$(cl_state 0 leaders $topic | awk '$1 == 0 { print $2 }')
[ -n "$victim" ] || gr_fail "no leader for $topic-0"
cl_kill9_broker "$victim"
seq 2001 4000 | sed 's/^/a-/' | alice_kcat -P -t $topic -X acks=all ||
    gr_fail "alice's produce with broker $victim down failed"
cl_start_broker "$victim"
cl_wait_stable "broker $victim back"
got=$(alice_kcat -G secure-group $topic -o beginning -e -q | sort -V)
[ "$got" = "$(seq 1 4000 | sed 's/^/a-/')" ] ||
    gr_fail "alice's group consumer read $(wc -l <<<"$got") records, want the 4000 acknowledged"
cl_wait_replicas_equal $topic 3

# --- 3: alice's quota, written through broker 0, throttles her everywhere ---
out=$(admin configs --alter --entity-type users --entity-name alice \
    --add-config producer_byte_rate=100000 2>&1) || gr_fail "alice's quota: $out"
line=$(printf 'q%.0s' $(seq 1 1000))
# Keyed, so the records spread over every partition (unkeyed ones would stick
# to one partition: the file is read faster than sticky.partitioning.linger.ms).
for i in $(seq 1 1000); do echo "k$i:q$i-$line"; done >"$GR_TMP/quota-data"
alice_kcat -P -t $topic -K: -X acks=all -X batch.size=100000 -l "$GR_TMP/quota-data" \
    2>"$GR_TMP/quota.err" || gr_fail "alice's produce over her quota failed: $(cat "$GR_TMP/quota.err")"
# kcat names the broker: "% Broker HOST:PORT (<id>) throttled request for N ms".
grep -Eq '\((1|2)\) throttled request for [1-9]' "$GR_TMP/quota.err" ||
    gr_fail "no broker but the one that wrote the quota throttled alice: $(grep -i throttl "$GR_TMP/quota.err")"
# Many 3 s sessions have passed: none was used after it expired (brokers re-authenticate).
for i in 0 1 2; do
    ! grep "after its SASL session expired" "$(cl_broker_log "$i")" ||
        gr_fail "broker $i closed a connection whose session had expired (no re-authentication)"
done
gr_pass
