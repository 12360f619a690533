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
