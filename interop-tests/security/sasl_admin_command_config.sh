#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor-admin logging in with --command-config, under the ACL authorizer:
# - SASL_PLAINTEXT with PLAIN from Kafka's sasl.jaas.config (over two lines) as the super user
#   admin: creates a topic and adds ACLs for alice;
# - SASL_SSL with SCRAM-SHA-512 from librdkafka's sasl.username/sasl.password
#   and ssl.ca.location as alice: describes the topic her ACL allows, and is
#   refused the topic deletion it does not (so the broker really took her as
#   User:alice, not as the super user);
# - a wrong password fails with SASL_AUTHENTICATION_FAILED (exit 3), an
#   unsupported mechanism is a usage error (exit 2), and no command config on
#   a SASL port gets nothing (exit 3).
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
. "$(dirname "$0")/../lib/sasllib.sh"
gr_require_gregor
gr_sasl_tls_start_broker authorizer.class.name=kafka.security.authorizer.AclAuthorizer \
    "super.users=User:admin;User:ANONYMOUS"
gr_sasl_add_scram_user alice alice-secret

admin_at() # PORT ARGS...
{
    local port=$1
    shift
    timeout 60 "$GR_ADMIN_BIN" --bootstrap-server "127.0.0.1:$port" "$@"
}

# Quoted: the JAAS line continues on the next line in the file, as Java reads it.
cat >"$GR_TMP/admin.properties" <<'P'
security.protocol=SASL_PLAINTEXT
# a comment that ends in a backslash does not swallow the next line \
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \
    username="admin" password="admin-secret";
P
cat >"$GR_TMP/alice.properties" <<P
# librdkafka's names, over TLS
security.protocol=sasl_ssl
ssl.ca.location=$GR_TLS/ca.pem
sasl.mechanism=SCRAM-SHA-512
sasl.username=alice
sasl.password=alice-secret
P

out=$(admin_at "$GR_SASL_PORT" --command-config "$GR_TMP/admin.properties" topics create \
    --topic secured --partitions 2 --replication-factor 1 2>&1) ||
    gr_fail "topics create as admin over SASL_PLAINTEXT/PLAIN: $out"
out=$(admin_at "$GR_SASL_PORT" --command-config "$GR_TMP/admin.properties" acls --add \
    --allow-principal User:alice --operation Describe --topic secured 2>&1) ||
    gr_fail "acls --add as admin: $out"
gr_wait_until 30 "alice describing the topic her ACL allows over SASL_SSL/SCRAM-SHA-512" \
    bash -c "timeout 60 '$GR_ADMIN_BIN' --bootstrap-server 127.0.0.1:$GR_SASL_SSL_PORT \
        --command-config '$GR_TMP/alice.properties' topics describe --topic secured 2>&1 |
        grep -q 'PartitionCount: *2'"

rc=0
out=$(admin_at "$GR_SASL_SSL_PORT" --command-config "$GR_TMP/alice.properties" topics delete \
    --topic secured 2>&1) || rc=$?
grep -q "TOPIC_AUTHORIZATION_FAILED" <<<"$out" ||
    gr_fail "alice deleting a topic she may only describe: exit $rc: $out"
admin_at "$GR_SASL_PORT" --command-config "$GR_TMP/admin.properties" topics list |
    grep -q "^secured" || gr_fail "the topic is gone after alice's refused delete"

sed 's/alice-secret/wrong/' "$GR_TMP/alice.properties" >"$GR_TMP/wrong.properties"
rc=0
out=$(admin_at "$GR_SASL_SSL_PORT" --command-config "$GR_TMP/wrong.properties" topics list 2>&1) ||
    rc=$?
[ "$rc" = 3 ] && grep -q "SASL_AUTHENTICATION_FAILED" <<<"$out" ||
    gr_fail "a wrong password: exit $rc: $out"

sed 's/SCRAM-SHA-512/GSSAPI/' "$GR_TMP/alice.properties" >"$GR_TMP/gssapi.properties"
rc=0
out=$(admin_at "$GR_SASL_SSL_PORT" --command-config "$GR_TMP/gssapi.properties" topics list 2>&1) ||
    rc=$?
[ "$rc" = 2 ] && grep -q "sasl.mechanism=GSSAPI is not supported" <<<"$out" ||
    gr_fail "GSSAPI: exit $rc: $out"

# A logical line longer than the tool reads (8 KiB), split by continuations.
{
    echo "security.protocol=SASL_PLAINTEXT"
    printf 'sasl.password=%s\\\n' {1..2000}
    echo "x"
} >"$GR_TMP/long.properties"
rc=0
out=$(admin_at "$GR_SASL_PORT" --command-config "$GR_TMP/long.properties" topics list 2>&1) ||
    rc=$?
[ "$rc" = 2 ] && grep -q "long.properties:[0-9]*: line too long" <<<"$out" ||
    gr_fail "an over-long properties line: exit $rc: $out"

rc=0
out=$(admin_at "$GR_SASL_PORT" topics list 2>&1) || rc=$?
[ "$rc" = 3 ] || gr_fail "no command config on the SASL port: exit $rc: $out"
gr_pass
