# SASL helpers for interop tests (source after lib.sh).
#
#   gr_sasl_start_broker [key=value]...  a broker with a SASL_PLAINTEXT listener
#       first (the one Metadata advertises) on $GR_SASL_PORT and a PLAINTEXT
#       one on $GR_PORT for the inter-broker listener and gregor-admin; PLAIN
#       users admin/admin-secret, alice/alice-secret and bob/bob-secret; every
#       mechanism enabled.
#   gr_sasl_kcat MECH USER PASSWORD ARGS...   kcat over SASL to $GR_SASL_BOOTSTRAP
#   gr_sasl_admin ARGS...                     gregor-admin on the PLAINTEXT listener
#   gr_sasl_tls_start_broker [key=value]...   as gr_sasl_start_broker, plus an SSL
#       listener on $GR_SSL_PORT and a SASL_SSL one on $GR_SASL_SSL_PORT (the same
#       PLAIN users), with certificates from gr_tls_make_certs (source
#       tlslib.sh too); the client CA is $GR_TLS/ca.pem
#   gr_sasl_add_scram_user USER PASSWORD      SCRAM-SHA-256 and SCRAM-SHA-512
#       credentials for USER (4096 iterations), by gregor-admin
#   gr_sasl_client_matrix TAG AFTER_MECH CLIENT...  a client's logins over
#       every secured listener of gr_sasl_tls_start_broker's broker (after
#       gr_sasl_add_scram_user bob bob-secret): see below

GR_ADMIN_BIN=$(dirname "${GR_BROKER:-.}")/gregor-admin
GR_SASL_PORT=
GR_SASL_BOOTSTRAP=
GR_SSL_PORT=
GR_SASL_SSL_PORT=
GR_SASL_JAAS='org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret" user_bob="bob-secret";'

gr_sasl_start_broker()
{
    # gr_start_broker picks GR_PORT only when unset: choose both ports here.
    [ -n "$GR_PORT" ] || GR_PORT=$(gr_free_port)
    [ -n "$GR_SASL_PORT" ] || GR_SASL_PORT=$(gr_free_port)
    GR_SASL_BOOTSTRAP=127.0.0.1:$GR_SASL_PORT
    gr_start_broker \
        "listeners=SASL_PLAINTEXT://127.0.0.1:$GR_SASL_PORT,PLAINTEXT://127.0.0.1:$GR_PORT" \
        "inter.broker.listener.name=PLAINTEXT" \
        "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512" \
        "listener.name.sasl_plaintext.plain.sasl.jaas.config=$GR_SASL_JAAS" "$@"
}

gr_sasl_kcat()
{
    local mech=$1 user=$2 password=$3 rc=0
    shift 3
    timeout "$GR_CMD_TIMEOUT_S" "$GR_KCAT" -b "$GR_SASL_BOOTSTRAP" -X security.protocol=SASL_PLAINTEXT \
        -X "sasl.mechanism=$mech" -X "sasl.username=$user" -X "sasl.password=$password" "$@" || rc=$?
    return $rc
}

gr_sasl_admin()
{
    [ -x "$GR_ADMIN_BIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
    "$GR_ADMIN_BIN" --bootstrap-server "127.0.0.1:$GR_PORT" "$@"
}

gr_sasl_tls_start_broker()
{
    gr_tls_make_certs
    [ -n "$GR_PORT" ] || GR_PORT=$(gr_free_port)
    [ -n "$GR_SASL_PORT" ] || GR_SASL_PORT=$(gr_free_port)
    [ -n "$GR_SSL_PORT" ] || GR_SSL_PORT=$(gr_free_port)
    [ -n "$GR_SASL_SSL_PORT" ] || GR_SASL_SSL_PORT=$(gr_free_port)
    local tls_overrides
    mapfile -t tls_overrides < <(gr_tls_ssl_overrides)
    gr_sasl_start_broker \
        "listeners=SASL_PLAINTEXT://127.0.0.1:$GR_SASL_PORT,PLAINTEXT://127.0.0.1:$GR_PORT,SSL://127.0.0.1:$GR_SSL_PORT,SASL_SSL://127.0.0.1:$GR_SASL_SSL_PORT" \
        "listener.name.sasl_ssl.plain.sasl.jaas.config=$GR_SASL_JAAS" "${tls_overrides[@]}" "$@"
}

gr_sasl_add_scram_user()
{
    gr_sasl_admin configs alter --entity-type users --entity-name "$1" \
        --add-config "SCRAM-SHA-256=[iterations=4096,password=$2],SCRAM-SHA-512=[iterations=4096,password=$2]" \
        >/dev/null || gr_fail "adding SCRAM credentials for $1 failed"
}

# gr_sasl_client_matrix TAG AFTER_MECH CLIENT...
# CLIENT is a command that takes HOST:PORT PROTOCOL MECHANISM USER PASSWORD
# CA TOPIC ok|denied, round-trips records to TOPIC (ok) or is refused (denied),
# prints what it saw and exits 0 when the outcome was the one asked. Over
# SASL_PLAINTEXT and SASL_SSL with PLAIN (alice) and SCRAM-SHA-256/512 (bob):
# the right password round-trips, a wrong one is refused and the broker logs
# the failed login; then SSL without SASL; then one more round trip on each
# SASL listener (SCRAM AFTER_MECH, and PLAIN over SSL) shows the refusals
# left the broker serving. Topics are named TAG-....
gr_sasl_client_matrix()
{
    local tag=$1 after_mech=$2 proto port mech
    shift 2
    for proto in SASL_PLAINTEXT SASL_SSL; do
        port=$GR_SASL_PORT
        [ $proto = SASL_PLAINTEXT ] || port=$GR_SASL_SSL_PORT
        gr_sasl_matrix_client "$@" -- $proto "$port" PLAIN alice alice-secret "$tag-$proto-plain" ok ||
            gr_fail "$proto PLAIN round trip failed"
        gr_sasl_matrix_refused "$@" -- $proto "$port" PLAIN alice
        for mech in SCRAM-SHA-256 SCRAM-SHA-512; do
            gr_sasl_matrix_client "$@" -- $proto "$port" $mech bob bob-secret "$tag-$proto-$mech" ok ||
                gr_fail "$proto $mech round trip failed"
            gr_sasl_matrix_refused "$@" -- $proto "$port" $mech bob
        done
    done
    gr_sasl_matrix_client "$@" -- SSL "$GR_SSL_PORT" - - - "$tag-ssl" ok || gr_fail "SSL round trip failed"
    gr_sasl_matrix_client "$@" -- SASL_PLAINTEXT "$GR_SASL_PORT" "$after_mech" bob bob-secret \
        "$tag-after-scram" ok || gr_fail "SASL_PLAINTEXT round trip after the refusals failed"
    gr_sasl_matrix_client "$@" -- SASL_SSL "$GR_SASL_SSL_PORT" PLAIN alice alice-secret \
        "$tag-after-plain" ok || gr_fail "SASL_SSL round trip after the refusals failed"
}

# gr_sasl_matrix_client CLIENT... -- PROTOCOL PORT MECHANISM USER PASSWORD TOPIC ok|denied
gr_sasl_matrix_client()
{
    local client=() out rc=0
    while [ "$1" != -- ]; do
        client+=("$1")
        shift
    done
    shift
    out=$(timeout "$GR_CMD_TIMEOUT_S" "${client[@]}" "127.0.0.1:$2" "$1" "$3" "$4" "$5" \
        "$GR_TLS/ca.pem" "$6" "$7") || rc=$?
    gr_note "${out:-$1 $3 $7: no output}"
    return $rc
}

# gr_sasl_matrix_refused CLIENT... -- PROTOCOL PORT MECHANISM USER: a wrong
# password is refused, and logged as such
gr_sasl_matrix_refused()
{
    local args=("$@") before n=$#
    local proto=${args[n - 4]} mech=${args[n - 2]} user=${args[n - 1]}
    local failed="$mech authentication failed for user '$user'"
    before=$(gr_broker_run_log | grep -c "$failed" || true)
    gr_sasl_matrix_client "$@" not-the-password none denied ||
        gr_fail "$proto $mech: a wrong password was not refused"
    [ "$(gr_broker_run_log | grep -c "$failed" || true)" -gt "$before" ] ||
        gr_fail "$proto $mech: no failed login in the broker log"
}
