#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Malformed and out-of-order SASL and TLS input (py/sasl_fuzz.py, raw
# sockets, a fixed seed): requests before authentication, SaslAuthenticate
# out of order, unknown mechanisms, malformed PLAIN tokens and SCRAM
# messages over SaslAuthenticate v1/v2 and as bare v0 tokens, truncated
# frames, seeded random bytes; on the SSL listener garbage before the
# handshake, a ClientHello cut short, garbage and corrupted or truncated
# records after it. Each case checks the broker's answer (error code, closed
# connection, nothing served); frames over sasl.server.max.receive.size
# before the login close the connection, and a 700 KB record after it is
# accepted. Then the broker must still be the same
# process and serve kcat over SASL; the harness fails on a sanitizer report
# or an ERROR line in its log.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
. "$(dirname "$0")/../lib/sasllib.sh"
gr_require_gregor
gr_sasl_tls_start_broker
gr_sasl_add_scram_user bob bob-secret
pid=$GR_PID

timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/sasl_fuzz.py" 127.0.0.1 "$GR_SASL_PORT" \
    "$GR_SSL_PORT" "$GR_TLS/ca.pem" 20261205 >&2 || gr_fail "the broker misbehaved on some input (above)"

gr_alive "$pid" || gr_fail "the broker died"
printf 'after\nfuzz\n' | gr_sasl_kcat SCRAM-SHA-512 bob bob-secret -P -t after-fuzz ||
    gr_fail "producing over SASL after the fuzzing failed"
out=$(gr_sasl_kcat PLAIN alice alice-secret -C -t after-fuzz -o beginning -e -q)
[ "$out" = "$(printf 'after\nfuzz')" ] || gr_fail "consumed '$out' after the fuzzing"
gr_kcat_ssl -b "127.0.0.1:$GR_SSL_PORT" -L -m 10 >/dev/null || gr_fail "SSL metadata after the fuzzing failed"
# (grep the log from a variable: grep -q quits early, and pipefail would
# count the writer's SIGPIPE)
log=$(gr_broker_run_log)
grep -q "Produce before SASL authentication, closing" <<<"$log" || gr_fail "no gate log line"
grep -q "SaslAuthenticate out of order, closing" <<<"$log" || gr_fail "no out-of-order log line"
grep -q "outside 0..524288 (sasl.server.max.receive.size before authentication)" <<<"$log" ||
    gr_fail "no log line for the oversized frames before the login"
# Once logged in, frames up to socket.request.max.bytes are read again.
head -c 700000 /dev/zero | tr '\0' x | gr_sasl_kcat PLAIN alice alice-secret -P -t big-after-login \
    -X message.max.bytes=1000000 || gr_fail "a 700 KB record after the login was refused"
out=$(gr_sasl_kcat PLAIN alice alice-secret -C -t big-after-login -o beginning -e -q | wc -c)
[ "$out" -ge 700000 ] || gr_fail "consumed $out bytes of the 700 KB record"
gr_pass
