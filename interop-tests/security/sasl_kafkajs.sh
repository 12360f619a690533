#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kafkajs (pinned in package.json, installed by ci/install-node-deps.sh) over
# every secured listener of one broker: SASL_PLAINTEXT with PLAIN,
# SCRAM-SHA-256 and SCRAM-SHA-512, SSL (a test CA made with the openssl tool)
# and SASL_SSL with each mechanism. kafkajs logs in with SaslHandshake v1 and
# SaslAuthenticate. The right login produces and consumes in a group
# (js/sasl_kafkajs.js); a wrong password gets kafkajs' SASL authentication
# error with the broker's message, and the broker logs the failed login.
# After the refusals the broker still serves.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
. "$(dirname "$0")/../lib/sasllib.sh"
gr_require_gregor
if ! command -v node >/dev/null || [ ! -d "$GR_INTEROP_DIR/node_modules/kafkajs" ]; then
    gr_note "skipped: node or interop-tests/node_modules/kafkajs missing (run ci/install-node-deps.sh)"
    exit 77
fi
export KAFKAJS_NO_PARTITIONER_WARNING=1
# A new group rebalances as soon as its first member joins.
gr_sasl_tls_start_broker group.initial.rebalance.delay.ms=0
gr_sasl_add_scram_user bob bob-secret

# client PROTOCOL PORT MECHANISM USER PASSWORD TOPIC ok|denied
client()
{
    local out rc=0
    out=$(timeout "$GR_CMD_TIMEOUT_S" node "$GR_INTEROP_DIR/js/sasl_kafkajs.js" \
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
    client $proto "$port" PLAIN alice alice-secret "js-$proto-plain" ok || gr_fail "$proto PLAIN round trip failed"
    wrong_password $proto "$port" PLAIN alice
    for mech in SCRAM-SHA-256 SCRAM-SHA-512; do
        client $proto "$port" $mech bob bob-secret "js-$proto-$mech" ok || gr_fail "$proto $mech round trip failed"
        wrong_password $proto "$port" $mech bob
    done
done
client SSL "$GR_SSL_PORT" - - - js-ssl ok || gr_fail "SSL round trip failed"

# The refused logins left the broker serving: one more round trip each way.
client SASL_PLAINTEXT "$GR_SASL_PORT" SCRAM-SHA-256 bob bob-secret js-after-scram ok ||
    gr_fail "SASL_PLAINTEXT round trip after the refusals failed"
client SASL_SSL "$GR_SASL_SSL_PORT" PLAIN alice alice-secret js-after-plain ok ||
    gr_fail "SASL_SSL round trip after the refusals failed"
gr_pass
