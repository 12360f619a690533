#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The security worked example (docs/security.md), as a user would run it: one
# server.properties file (a SASL_SSL listener only, PLAIN for the admin from
# the JAAS line spread over continued lines, SCRAM-SHA-512 for applications,
# the ACL authorizer, admin the super user) and the gregor-admin and kcat
# commands it gives:
# - alice cannot log in before her SCRAM credential exists; once it does she
#   is refused the topic until the ACLs allow her, then produces and reads
#   everything back in her consumer group;
# - her producer_byte_rate quota throttles her (throttle_time_ms reported to
#   kcat) while the credential beside it keeps working;
# - a client without SASL (TLS only) or without TLS gets nothing.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
gr_require_gregor
gr_tls_make_certs
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
GR_PORT=$(gr_free_port)
cat >"$GR_TMP/server.properties" <<P
broker.id=0
log.dirs=$GR_TMP/logs
listeners=SASL_SSL://127.0.0.1:$GR_PORT
security.inter.broker.protocol=SASL_SSL
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=PLAIN
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\
    username="admin" password="admin-secret" \\
    user_admin="admin-secret";
ssl.keystore.type=PEM
ssl.keystore.location=$GR_TLS/server.pem
ssl.truststore.type=PEM
ssl.truststore.location=$GR_TLS/ca.pem
authorizer.class.name=kafka.security.authorizer.AclAuthorizer
super.users=User:admin
offsets.topic.replication.factor=1
quota.window.num=2
P
GR_CONFIG_FILE=$GR_TMP/server.properties
gr_start_broker "listeners=SASL_SSL://127.0.0.1:$GR_PORT"

cat >"$GR_TMP/admin.properties" <<P
security.protocol=SASL_SSL
ssl.truststore.type=PEM
ssl.truststore.location=$GR_TLS/ca.pem
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\
    username="admin" password="admin-secret";
P
admin() { timeout 60 "$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" --command-config "$GR_TMP/admin.properties" "$@"; }
alice() # kcat as alice; stderr in $GR_TMP/alice.err
{
    timeout 120 "$GR_KCAT" -b "$GR_BOOTSTRAP" -X security.protocol=SASL_SSL \
        -X "ssl.ca.location=$GR_TLS/ca.pem" -X sasl.mechanism=SCRAM-SHA-512 \
        -X sasl.username=alice -X sasl.password=alice-secret "$@" 2>"$GR_TMP/alice.err"
}

# Before her credential exists.
! echo early | alice -P -t orders -X message.timeout.ms=3000 ||
    gr_fail "alice produced before her SCRAM credential existed"
grep -qi "authentication" "$GR_TMP/alice.err" || gr_fail "no authentication error: $(cat "$GR_TMP/alice.err")"

out=$(admin configs --alter --entity-type users --entity-name alice \
    --add-config 'SCRAM-SHA-512=[password=alice-secret]' 2>&1) || gr_fail "SCRAM credential: $out"
out=$(admin topics create --topic orders --partitions 3 --replication-factor 1 2>&1) ||
    gr_fail "topics create: $out"

# Logged in, but no ACL yet.
gr_wait_until 30 "alice logging in (the credential reached the broker)" \
    bash -c "! timeout 60 '$GR_KCAT' -b $GR_BOOTSTRAP -X security.protocol=SASL_SSL \
        -X ssl.ca.location=$GR_TLS/ca.pem -X sasl.mechanism=SCRAM-SHA-512 -X sasl.username=alice \
        -X sasl.password=alice-secret -L 2>&1 | grep -qi 'authentication'"
! echo refused | alice -P -t orders -X message.timeout.ms=5000 ||
    gr_fail "alice produced without an ACL"
grep -q "Topic authorization failed\|TOPIC_AUTHORIZATION_FAILED" "$GR_TMP/alice.err" ||
    gr_fail "no authorization error: $(cat "$GR_TMP/alice.err")"

out=$(admin acls --add --allow-principal User:alice --producer --consumer --topic orders \
    --group billing 2>&1) || gr_fail "acls --add: $out"
out=$(admin configs --alter --entity-type users --entity-name alice \
    --add-config producer_byte_rate=250000 2>&1) || gr_fail "quota: $out"
gr_wait_until 30 "the ACLs reaching the broker" bash -c "echo probe | timeout 60 '$GR_KCAT' \
    -b $GR_BOOTSTRAP -X security.protocol=SASL_SSL -X ssl.ca.location=$GR_TLS/ca.pem \
    -X sasl.mechanism=SCRAM-SHA-512 -X sasl.username=alice -X sasl.password=alice-secret \
    -P -t orders -X message.timeout.ms=5000 2>/dev/null"

# About 1 MB at 250 kB/s: throttled, and told so.
line=$(printf 'o%.0s' $(seq 1 1000))
for i in $(seq 1 1000); do echo "$i-$line"; done >"$GR_TMP/orders"
alice -P -t orders -X batch.size=100000 -l "$GR_TMP/orders" ||
    gr_fail "alice's produce failed: $(cat "$GR_TMP/alice.err")"
grep -q 'throttled request for [1-9]' "$GR_TMP/alice.err" ||
    gr_fail "alice's producer was not throttled by her quota"
n=$(alice -G billing orders -o beginning -e -q -f '%s\n' | grep -c -- '-o')
[ "$n" = 1000 ] || gr_fail "alice's group read $n of her 1000 records"
out=$(admin configs --describe --entity-type users --entity-name alice 2>&1)
grep -q "producer_byte_rate=250000" <<<"$out" && grep -q "SCRAM-SHA-512" <<<"$out" ||
    gr_fail "configs --describe for alice: $out"

# Nothing for a client without SASL or without TLS.
! timeout 30 "$GR_KCAT" -b "$GR_BOOTSTRAP" -X security.protocol=SSL -X "ssl.ca.location=$GR_TLS/ca.pem" \
    -L -m 5 >/dev/null 2>&1 || gr_fail "a TLS client without SASL got metadata"
! timeout 30 "$GR_KCAT" -b "$GR_BOOTSTRAP" -X security.protocol=SASL_PLAINTEXT -X sasl.mechanism=SCRAM-SHA-512 \
    -X sasl.username=alice -X sasl.password=alice-secret -L -m 5 >/dev/null 2>&1 ||
    gr_fail "a client without TLS got metadata"
gr_pass
