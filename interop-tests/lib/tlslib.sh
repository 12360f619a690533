# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# TLS helpers for the interop tests, sourced after lib.sh.
#
#   gr_tls_make_certs       a CA and, signed by it, in $GR_TLS (= $GR_TMP/tls):
#                           ca.pem, server.pem (key + chain: a keystore),
#                           server.key / server.crt, client.pem / client.key /
#                           client.crt (subject CN=alice,OU=eng,O=acme), and
#                           server-enc.pem (key encrypted with "secret")
#   gr_tls_ssl_overrides    the broker overrides for an SSL listener's keystore
#   gr_kcat_ssl ARGS...     gr_kcat over SSL, trusting ca.pem
#
# Certificates are made fresh for each test with the openssl tool (skip, exit
# 77, without it); the server's carries 127.0.0.1 and localhost.
GR_TLS=$GR_TMP/tls

gr_tls_make_certs()
{
    command -v openssl >/dev/null || { gr_note "no openssl tool: skipped"; exit 77; }
    mkdir -p "$GR_TLS"
    local d=$GR_TLS
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=gregor-test-ca" \
        -keyout "$d/ca.key" -out "$d/ca.pem" 2>/dev/null
    gr_tls_issue server "/CN=localhost" "subjectAltName=IP:127.0.0.1,DNS:localhost"
    gr_tls_issue client "/O=acme/OU=eng/CN=alice" "extendedKeyUsage=clientAuth"
    cat "$d/server.key" "$d/server.crt" >"$d/server.pem"
    cat "$d/client.key" "$d/client.crt" >"$d/client.pem"
    openssl pkey -in "$d/server.key" -aes256 -passout pass:secret -out "$d/server-enc.key"
    cat "$d/server-enc.key" "$d/server.crt" >"$d/server-enc.pem"
}

# gr_tls_issue NAME SUBJECT EXTENSION: NAME.key and NAME.crt signed by the CA.
gr_tls_issue()
{
    local d=$GR_TLS name=$1 subject=$2 ext=$3
    openssl req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$d/$name.key" \
        -out "$d/$name.csr" 2>/dev/null
    printf '%s\n' "$ext" >"$d/$name.ext"
    openssl x509 -req -in "$d/$name.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
        -days 2 -extfile "$d/$name.ext" -out "$d/$name.crt" 2>/dev/null
}

gr_tls_ssl_overrides()
{
    printf '%s\n' "ssl.keystore.type=PEM" "ssl.keystore.location=$GR_TLS/server.pem" \
        "ssl.truststore.type=PEM" "ssl.truststore.location=$GR_TLS/ca.pem"
}

gr_kcat_ssl()
{
    gr_kcat -X security.protocol=ssl -X "ssl.ca.location=$GR_TLS/ca.pem" "$@"
}
