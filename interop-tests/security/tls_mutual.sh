#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Mutual TLS: with ssl.client.auth=required a client without a certificate is
# refused and one with a certificate is served, its principal taken from the
# certificate (logged); ssl.principal.mapping.rules maps the subject (here to
# User:alice); with ssl.client.auth=requested both clients are served. The
# listener's settings come with Kafka's listener.name.<listener>. prefix.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
gr_require_gregor
gr_tls_make_certs

ssl_port=$(gr_free_port)
GR_PORT=$ssl_port
listener="listeners=SSL://127.0.0.1:$ssl_port"
inter_broker=security.inter.broker.protocol=SSL
mapfile -t tls_overrides < <(gr_tls_ssl_overrides)

with_cert=(-X "ssl.certificate.location=$GR_TLS/client.crt" -X "ssl.key.location=$GR_TLS/client.key")

gr_start_broker "$listener" "$inter_broker" "${tls_overrides[@]}" "listener.name.ssl.ssl.client.auth=required"
if echo no-cert | gr_kcat_ssl -P -t mtls -p 0 -m 5 -X message.timeout.ms=5000 2>/dev/null; then
    gr_fail "a client without a certificate was served with ssl.client.auth=required"
fi
echo with-cert | gr_kcat_ssl "${with_cert[@]}" -P -t mtls -p 0
gr_kcat_ssl "${with_cert[@]}" -C -t mtls -p 0 -o beginning -e -q | grep -qx with-cert ||
    gr_fail "the client with a certificate could not consume"
gr_broker_run_log_has "TLS client .* certificate CN=alice,OU=eng,O=acme, principal User:CN=alice,OU=eng,O=acme" ||
    gr_fail "no log line with the certificate's principal"
gr_stop_broker

gr_start_broker "listener.name.ssl.ssl.client.auth=requested" \
    'ssl.principal.mapping.rules=RULE:^CN=([a-zA-Z]+),OU=eng,.*$/$1/L,DEFAULT'
echo no-cert-requested | gr_kcat_ssl -P -t mtls -p 0
echo cert-requested | gr_kcat_ssl "${with_cert[@]}" -P -t mtls -p 0
gr_kcat_ssl -C -t mtls -p 0 -o beginning -e -q >"$GR_TMP/got"
printf 'with-cert\nno-cert-requested\ncert-requested\n' | cmp -s - "$GR_TMP/got" ||
    gr_fail "ssl.client.auth=requested: records differ: $(tr '\n' ' ' <"$GR_TMP/got")"
gr_broker_run_log_has "TLS client .* principal User:alice$" ||
    gr_fail "ssl.principal.mapping.rules did not map the subject to User:alice"
gr_pass
