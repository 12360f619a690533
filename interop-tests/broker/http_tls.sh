#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor.http.listener=https://...: the metrics and health endpoints over
# TLS with the keystore the SSL listeners use (ssl.keystore.location, PEM),
# also with an encrypted key (ssl.key.password); a client that trusts the CA
# reads /healthz and /metrics, a plain-HTTP request gets no page, and a
# missing keystore stops the start-up with an ERROR naming the setting.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
gr_require_gregor
command -v curl >/dev/null || { gr_note "no curl: skipped"; exit 77; }
gr_tls_make_certs

GR_HTTP=https
mapfile -t tls < <(gr_tls_ssl_overrides)
gr_start_broker "${tls[@]}"
# The HTTP listener opens after the Kafka port the start waited for.
gr_wait_until "$GR_START_DEADLINE_S" "the https address logged" gr_broker_run_log_has \
    "INFO  \\[http\\] serving /metrics /healthz /readyz on https://127.0.0.1:$GR_HTTP_PORT"
[ "$(gr_http_get /healthz --cacert "$GR_TLS/ca.pem")" = ok ] || gr_fail "/healthz over https"
gr_http_get /metrics --cacert "$GR_TLS/ca.pem" | grep -q '^# TYPE process_cpu_seconds_total counter' ||
    gr_fail "/metrics over https"
if curl -sS --max-time 10 "http://127.0.0.1:$GR_HTTP_PORT/healthz" 2>/dev/null | grep -q ok; then
    gr_fail "plain HTTP served on the https listener"
fi
gr_stop_broker

# An encrypted key, as the SSL listeners take it.
gr_start_broker "ssl.keystore.location=$GR_TLS/server-enc.pem" ssl.key.password=secret
[ "$(gr_http_get /healthz --cacert "$GR_TLS/ca.pem")" = ok ] || gr_fail "/healthz with an encrypted key"
gr_stop_broker

# No keystore: the broker does not start.
GR_OVERRIDES=()
gr_allow_log_errors 'gregor.http.listener \(https\): no keystore'
"$GR_BROKER" --override "listeners=PLAINTEXT://127.0.0.1:$GR_PORT" --override "log.dirs=$GR_TMP/logs" \
    --override "gregor.http.listener=https://127.0.0.1:$GR_HTTP_PORT" 2>>"$GR_LOG" </dev/null &&
    gr_fail "the broker started without a keystore for https"
grep -q 'ERROR \[http\] gregor.http.listener (https): no keystore' "$GR_LOG" ||
    gr_fail "no ERROR naming the missing keystore"
gr_pass
