#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The metrics and health listener (gregor.http.listener): /healthz answers
# "ok", /readyz "ready" once the broker serves clients, /metrics is
# Prometheus' text format 0.0.4 that promtool accepts; an unknown path is
# 404, a method other than GET or HEAD 405 (with Allow), HEAD has the
# headers and no body, and one connection serves several requests.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v curl >/dev/null || { gr_note "no curl: skipped"; exit 77; }
command -v promtool >/dev/null || { gr_note "no promtool: skipped"; exit 77; }

GR_HTTP=1
gr_start_broker
gr_wait_broker_started
# The HTTP listener opens after the Kafka port the start waited for.
gr_wait_until "$GR_START_DEADLINE_S" "the http address logged" gr_broker_run_log_has \
    "INFO  \\[http\\] serving /metrics /healthz /readyz on http://127.0.0.1:$GR_HTTP_PORT"

# status PATH [CURL ARGS]: the HTTP status code only.
status() { gr_http_get "$1" -o /dev/null -w '%{http_code}' "${@:2}"; }
header() { gr_http_get "$1" -o /dev/null -D - "${@:3}" | tr -d '\r' | grep -i "^$2:" | cut -d' ' -f2-; }

[ "$(gr_http_get /healthz)" = ok ] || gr_fail "/healthz is not ok"
[ "$(status /healthz)" = 200 ] || gr_fail "/healthz is not 200"
ready_ok() { [ "$(gr_http_get /readyz)" = ready ]; }
gr_wait_until 30 "/readyz to answer ready" ready_ok
[ "$(status /readyz)" = 200 ] || gr_fail "/readyz is not 200"

gr_kcat -P -t http-t <<<"one"
gr_http_get /metrics >"$GR_TMP/metrics.txt"
[ "$(status /metrics)" = 200 ] || gr_fail "/metrics is not 200"
type=$(header /metrics content-type)
[ "$type" = "text/plain; version=0.0.4; charset=utf-8" ] || gr_fail "/metrics content type: $type"
grep -q '^# TYPE process_cpu_seconds_total counter' "$GR_TMP/metrics.txt" ||
    gr_fail "/metrics has no process_cpu_seconds_total"
promtool check metrics <"$GR_TMP/metrics.txt" >&2 || gr_fail "promtool check metrics fails"

[ "$(status /nothing-here)" = 404 ] || gr_fail "an unknown path is not 404"
[ "$(status /metrics -X POST -d x=1)" = 405 ] || gr_fail "POST is not 405"
[ "$(status /metrics -X DELETE)" = 405 ] || gr_fail "DELETE is not 405"
allow=$(header /metrics allow -X PUT -d x)
[ "$allow" = "GET, HEAD" ] || gr_fail "405 without Allow: GET, HEAD ($allow)"

# HEAD: the headers only (curl -I reads no body).
head=$(gr_http_get /metrics -I | tr -d '\r')
grep -q '^HTTP/1.1 200' <<<"$head" || gr_fail "HEAD /metrics is not 200: $head"
grep -qi '^content-type: text/plain; version=0.0.4' <<<"$head" || gr_fail "HEAD without content type"

# Keep-alive: three requests over one connection.
out=$(curl -sS --max-time 10 -v "$GR_HTTP_URL/healthz" "$GR_HTTP_URL/readyz" \
    "$GR_HTTP_URL/metrics" -o /dev/null -o /dev/null -o /dev/null 2>&1)
grep -q 'Re-using existing connection' <<<"$out" || gr_fail "the connection is not reused"

gr_alive "$GR_PID" || gr_fail "the broker died"
gr_pass
