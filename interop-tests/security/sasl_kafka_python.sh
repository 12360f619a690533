#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kafka-python (python3-kafka) over every secured listener of one broker:
# SASL_PLAINTEXT with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, SSL (a test CA
# made with the openssl tool) and SASL_SSL with each mechanism. The right
# login produces and consumes records (py/sasl_kafka_python.py); a wrong
# password cannot start a producer and the broker logs the failed login.
# kafka-python 2.0.x logs in with SaslHandshake v0 and bare tokens (the
# script prints the SASL requests it saw); the SaslAuthenticate path is
# kafkajs' (sasl_kafkajs.sh). After the refusals the broker still serves.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
. "$(dirname "$0")/../lib/sasllib.sh"
gr_require_gregor
"$GR_PYTHON" -c 'import kafka' 2>/dev/null || { gr_note "skipped: python3-kafka missing for $GR_PYTHON"; exit 77; }
gr_sasl_tls_start_broker
gr_sasl_add_scram_user bob bob-secret

# client PROTOCOL PORT MECHANISM USER PASSWORD TOPIC ok|denied
client()
{
    local out rc=0
    out=$(timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/sasl_kafka_python.py" \
        "127.0.0.1:$2" "$1" "$3" "$4" "$5" "$GR_TLS/ca.pem" "$6" "$7") || rc=$?
    gr_note "${out:-$1 $3 $7: no output}"
    return $rc
}

# wrong_password PROTOCOL PORT MECHANISM USER: refused, and logged as such
wrong_password()
{
    local before
    before=$(gr_broker_run_log | grep -c "$3 authentication failed for user '$4'" || true)
    client "$1" "$2" "$3" "$4" not-the-password none denied || gr_fail "$1 $3: a wrong password was not refused"
    [ "$(gr_broker_run_log | grep -c "$3 authentication failed for user '$4'" || true)" -gt "$before" ] ||
        gr_fail "$1 $3: no failed login in the broker log"
}

for proto in SASL_PLAINTEXT SASL_SSL; do
    port=$GR_SASL_PORT
    [ $proto = SASL_PLAINTEXT ] || port=$GR_SASL_SSL_PORT
    client $proto "$port" PLAIN alice alice-secret "py-$proto-plain" ok || gr_fail "$proto PLAIN round trip failed"
    wrong_password $proto "$port" PLAIN alice
    for mech in SCRAM-SHA-256 SCRAM-SHA-512; do
        client $proto "$port" $mech bob bob-secret "py-$proto-$mech" ok || gr_fail "$proto $mech round trip failed"
        wrong_password $proto "$port" $mech bob
    done
done
client SSL "$GR_SSL_PORT" - - - py-ssl ok || gr_fail "SSL round trip failed"

# The refused logins left the broker serving: one more round trip each way.
client SASL_PLAINTEXT "$GR_SASL_PORT" SCRAM-SHA-512 bob bob-secret py-after-scram ok ||
    gr_fail "SASL_PLAINTEXT round trip after the refusals failed"
client SASL_SSL "$GR_SASL_SSL_PORT" PLAIN alice alice-secret py-after-plain ok ||
    gr_fail "SASL_SSL round trip after the refusals failed"
gr_pass
