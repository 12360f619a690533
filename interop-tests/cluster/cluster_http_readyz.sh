#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# /readyz of cluster brokers (gregor.http.listener): "ready" once each has
# registered and heard from the controller, and their /metrics pass
# promtool. A broker restarted right after kill -9 waits for its old
# ZooKeeper session to expire before it can register: meanwhile its /healthz
# answers "ok" (its loop turns) and its /readyz 503 with the reason ("not
# registered in ZooKeeper"), then "ready" once it has rejoined.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
command -v curl >/dev/null || { gr_note "no curl: skipped"; exit 77; }
command -v promtool >/dev/null || { gr_note "no promtool: skipped"; exit 77; }
# Long enough that the restarted broker's wait is seen.
CL_SESSION_TIMEOUT_MS=9000
GR_HTTP=1

cl_start_cluster 2
ready() { [ "$(cl_http_get "$1" /readyz 2>/dev/null)" = ready ]; }
for i in 0 1; do
    gr_wait_until "$CL_WAIT_S" "broker $i's /readyz to answer ready" ready "$i"
    cl_http_get "$i" /metrics >"$GR_TMP/metrics$i.txt"
    promtool check metrics <"$GR_TMP/metrics$i.txt" >&2 || gr_fail "promtool check metrics fails on broker $i"
done

victim=$(cl_non_controller)
cl_kill9_broker "$victim"
cl_start_broker "$victim"
# Every /readyz answer until "ready", in order, repeats dropped.
answers=
deadline=$((SECONDS + CL_WAIT_S))
while :; do
    a=$(curl -s --max-time 2 -w ' %{http_code}' "$(cl_http_url "$victim")/readyz" 2>/dev/null | tr -d '\n' || true)
    [ "$a" = " 000" ] || [ "$a" = "${answers##*|}" ] || answers="$answers|$a"
    [ "$a" != "ready 200" ] || break
    if [[ $a == *503 ]]; then
        [ "$(cl_http_get "$victim" /healthz)" = ok ] || gr_fail "/healthz not ok while not ready"
    fi
    [ $SECONDS -lt $deadline ] || gr_fail "broker $victim never ready again; /readyz said: $answers"
    sleep 0.05
done
gr_note "restarted broker $victim's /readyz: $answers"
[[ $answers == *"|not registered in ZooKeeper 503|"* ]] ||
    gr_fail "no 503 'not registered in ZooKeeper' while the old session held the registration: $answers"
cl_wait_stable "broker $victim back"
gr_pass
