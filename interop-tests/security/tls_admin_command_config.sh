#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor-admin over mutual TLS with --command-config: Kafka's property names
# (security.protocol=SSL, ssl.truststore.*, ssl.keystore.* PEM) and
# librdkafka's (ssl.ca.location, ssl.certificate.location, ssl.key.location)
# both work; no command config (plaintext on the SSL port) fails to connect;
# a JKS keystore is refused with the conversion hint; a wrong CA fails the
# handshake.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
gr_require_gregor
gr_tls_make_certs
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"

GR_PORT=$(gr_free_port)
mapfile -t tls_overrides < <(gr_tls_ssl_overrides)
gr_start_broker "listeners=SSL://127.0.0.1:$GR_PORT" security.inter.broker.protocol=SSL \
    ssl.client.auth=required "${tls_overrides[@]}"

admin() { timeout 60 "$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" "$@"; }

cat >"$GR_TMP/kafka.properties" <<P
security.protocol=SSL
ssl.truststore.type=PEM
ssl.truststore.location=$GR_TLS/ca.pem
ssl.keystore.type=PEM
ssl.keystore.location=$GR_TLS/client.pem
P
cat >"$GR_TMP/rdkafka.properties" <<P
# librdkafka's names
security.protocol = ssl
ssl.ca.location = $GR_TLS/ca.pem
ssl.certificate.location = $GR_TLS/client.crt
ssl.key.location = $GR_TLS/client.key
P
admin topics create --topic tls_admin --partitions 2 --replication-factor 1 \
    --command-config "$GR_TMP/kafka.properties" >/dev/null ||
    gr_fail "topics create over TLS (Kafka property names) failed"
admin topics list --command-config "$GR_TMP/rdkafka.properties" | grep -q "^tls_admin " ||
    gr_fail "topics list over TLS (librdkafka property names) failed"

rc=0
admin topics list >/dev/null 2>&1 || rc=$?
[ "$rc" = 3 ] || gr_fail "plaintext admin on the SSL port: exit $rc, want 3"

sed 's/ssl.keystore.type=PEM/ssl.keystore.type=JKS/' "$GR_TMP/kafka.properties" >"$GR_TMP/jks.properties"
rc=0
admin topics list --command-config "$GR_TMP/jks.properties" 2>"$GR_TMP/jks.err" || rc=$?
[ "$rc" = 2 ] || gr_fail "JKS keystore: exit $rc, want 2"
grep -q "ssl.keystore.type=JKS is not supported; convert to PEM" "$GR_TMP/jks.err" ||
    gr_fail "JKS keystore: no conversion hint: $(cat "$GR_TMP/jks.err")"

sed "s|$GR_TLS/ca.pem|$GR_TLS/client.crt|" "$GR_TMP/kafka.properties" >"$GR_TMP/wrongca.properties"
rc=0
admin topics list --command-config "$GR_TMP/wrongca.properties" 2>"$GR_TMP/ca.err" || rc=$?
[ "$rc" = 3 ] && grep -q "certificate verify failed" "$GR_TMP/ca.err" ||
    gr_fail "wrong CA: exit $rc: $(cat "$GR_TMP/ca.err")"
gr_pass
