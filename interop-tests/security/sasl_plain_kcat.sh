#!/usr/bin/env bash
# SASL/PLAIN with kcat: the right password produces and consumes, a wrong one
# gets Kafka's authentication error, a client without SASL gets nothing.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/sasllib.sh"
gr_require_gregor
gr_sasl_start_broker

printf 'one\ntwo\nthree\n' | gr_sasl_kcat PLAIN alice alice-secret -P -t plain-t ||
    gr_fail "producing over SASL/PLAIN failed"
out=$(gr_sasl_kcat PLAIN alice alice-secret -C -t plain-t -o beginning -e -q)
[ "$out" = "$(printf 'one\ntwo\nthree')" ] || gr_fail "consumed '$out'"

err=$(gr_sasl_kcat PLAIN alice wrong -L -m 3 2>&1) && gr_fail "a wrong password got metadata"
echo "$err" | grep -q "Authentication failed during authentication due to invalid credentials with SASL mechanism PLAIN" ||
    gr_fail "no authentication error from kcat: $err"
gr_broker_run_log_has "PLAIN authentication failed for user 'alice'" || gr_fail "no WARN line"

timeout 20 "$GR_KCAT" -b "$GR_SASL_BOOTSTRAP" -L -m 3 >/dev/null 2>&1 &&
    gr_fail "a client without SASL got metadata"
gr_broker_run_log_has "before SASL authentication, closing" || gr_fail "no gate log line"
gr_pass
