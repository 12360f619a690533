#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A listener's TLS keystore rotated live (Kafka's KIP-226 per-broker
# listener.name.<l>.ssl.* keys), with gregor-admin configs (kafka-configs.sh's
# syntax), one broker with an SSL listener serving certificate A:
#  - refused, with nothing stored and A still served: a keystore path that
#    does not exist, a wrong ssl.key.password, a certificate with another DN
#    (Kafka's check), the key at the cluster default (<default>), the key
#    without its listener prefix, a store password (PEM has none, as Kafka
#    says), validate-only of a good keystore;
#  - certificate B (same DN and SANs, another serial, its key encrypted, the
#    password set live too): a new TLS connection gets B, while a connection
#    opened before, still open, goes on producing with A;
#  - the password is stored encrypted with password.encoder.secret, never in
#    clear; both keys described (DYNAMIC_BROKER_CONFIG), the password null;
#  - after a restart the broker serves B from /config/brokers/<id> from its
#    first connection; the keys deleted, it serves A (the file's) again.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/tlslib.sh"
gr_require_gregor
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
gr_tls_make_certs
san="subjectAltName=IP:127.0.0.1,DNS:localhost"
gr_tls_issue server-b "/CN=localhost" "$san"
openssl pkey -in "$GR_TLS/server-b.key" -aes256 -passout pass:rotate-pw -out "$GR_TLS/b-enc.key"
cat "$GR_TLS/b-enc.key" "$GR_TLS/server-b.crt" >"$GR_TLS/server-b.pem"
gr_tls_issue other "/CN=someone-else" "$san"
cat "$GR_TLS/other.key" "$GR_TLS/other.crt" >"$GR_TLS/other.pem"
serial_of() { openssl x509 -noout -serial -in "$1" | sed 's/^serial=//' | tr a-f A-F; }
serial_a=$(serial_of "$GR_TLS/server.crt")
serial_b=$(serial_of "$GR_TLS/server-b.crt")

GR_PORT=$(gr_free_port) # plaintext: the admin tool's way in
ssl_port=$(gr_free_port)
mapfile -t tls_overrides < <(gr_tls_ssl_overrides)
gr_start_broker broker.id=3 "listeners=SSL://127.0.0.1:$ssl_port,PLAINTEXT://127.0.0.1:$GR_PORT" \
    "inter.broker.listener.name=PLAINTEXT" password.encoder.secret=enc-secret "${tls_overrides[@]}"
gr_wait_until 30 "SSL port open" gr_port_open "$ssl_port"
gr_prog admin -b "$GR_BOOTSTRAP" create rotated 1 1 >/dev/null || gr_fail "create rotated"

ga()
{
    local want=$1 rc=0
    shift
    out=$("$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" configs "$@" 2>&1) || rc=$?
    [ "$rc" = "$want" ] || gr_fail "configs $*: exit $rc, want $want: $out"
}
key=listener.name.ssl.ssl
served() { openssl s_client -connect "127.0.0.1:$ssl_port" </dev/null 2>/dev/null |
    openssl x509 -noout -serial | sed 's/^serial=//'; }

# The kept connection: opened now, used before and after the rotation.
coproc CLIENT { exec "$GR_PYTHON" "$GR_INTEROP_DIR/py/tls_rotate_client.py" 127.0.0.1 "$ssl_port" \
    "$GR_TLS/ca.pem" rotated; }
gr_track "$CLIENT_PID"
ask() { echo "$1" >&"${CLIENT[1]}"; read -r -t 30 answer <&"${CLIENT[0]}" || gr_fail "client: no answer to $1"; }
ask produce
[[ $answer == "ok "* ]] || gr_fail "produce before the rotation: $answer"
ask serial
[ "$answer" = "$serial_a" ] || gr_fail "kept connection: serial $answer, want A's $serial_a"

refused()
{
    local why=$1
    shift
    ga 1 --alter --entity-type brokers "$@"
    grep -q -- "$why" <<<"$out" || gr_fail "refusal of $*: '$out', want '$why'"
}
refused "No such file" --entity-name 3 --add-config "$key.keystore.location=$GR_TMP/nope.pem"
refused "ssl.key.password" --entity-name 3 \
    --add-config "$key.keystore.location=$GR_TLS/server-b.pem,$key.key.password=wrong"
refused "DistinguishedName does not match" --entity-name 3 \
    --add-config "$key.keystore.location=$GR_TLS/other.pem"
refused "broker id must be specified" --entity-default \
    --add-config "$key.keystore.location=$GR_TLS/server-b.pem"
refused "only per-listener using the listener prefix" --entity-name 3 \
    --add-config "ssl.keystore.location=$GR_TLS/server-b.pem"
refused "key store password cannot be specified with PEM format" --entity-name 3 \
    --add-config "$key.keystore.password=x"
ga 0 --alter --entity-type brokers --entity-name 3 --validate-only \
    --add-config "$key.keystore.location=$GR_TLS/server-b.pem,$key.key.password=rotate-pw"
[ "$(served)" = "$serial_a" ] || gr_fail "a refused or validate-only alter changed the certificate"
gr_allow_log_errors "new SSL keystore not used" # none expected; named if one shows

# The rotation.
ga 0 --alter --entity-type brokers --entity-name 3 \
    --add-config "$key.keystore.location=$GR_TLS/server-b.pem,$key.key.password=rotate-pw"
[ "$(served)" = "$serial_b" ] || gr_fail "openssl s_client after the rotation: $(served), want B's $serial_b"
ask new-serial
[ "$answer" = "$serial_b" ] || gr_fail "a new connection got $answer, want B's $serial_b"
ask produce
[[ $answer == "ok "* ]] || gr_fail "the kept connection after the rotation: $answer"
ask serial
[ "$answer" = "$serial_a" ] || gr_fail "the kept connection's certificate changed: $answer"
echo quit >&"${CLIENT[1]}"
wait "$CLIENT_PID" || gr_fail "the kept connection's client failed"

# Stored encrypted, never described.
doc=$(grep -rl "$GR_TLS/server-b.pem" "$GR_TMP/logs/__gregor_metadata" 2>/dev/null | head -n 1)
[ -n "$doc" ] || gr_fail "no stored /config/brokers/3 naming the new keystore"
grep -q "encryptedPassword" "$doc" || gr_fail "the key password is not stored encrypted"
! grep -q "rotate-pw" "$doc" || gr_fail "the key password is stored in clear"
ga 0 --describe --entity-type brokers --entity-name 3 --all
! grep -q "rotate-pw" <<<"$out" || gr_fail "describe shows the password"
grep -qE "^$key.keystore.location +$GR_TLS/server-b.pem +DYNAMIC_BROKER_CONFIG" <<<"$out" ||
    gr_fail "describe lacks the keystore set live: $out"
grep -qE "^$key.key.password +null +DYNAMIC_BROKER_CONFIG" <<<"$out" ||
    gr_fail "describe lacks the key password set live (as null): $out"

gr_restart_broker
gr_wait_until 30 "SSL port open after the restart" gr_port_open "$ssl_port"
[ "$(served)" = "$serial_b" ] || gr_fail "after the restart: $(served), want B's $serial_b"
gr_broker_run_log_has "listener SSL: SSL keys set live: subject CN=localhost" ||
    gr_fail "no start-up line naming the keystore set live"

# Deleted: back to the file's keystore.
ga 0 --alter --entity-type brokers --entity-name 3 \
    --delete-config "$key.keystore.location,$key.key.password"
[ "$(served)" = "$serial_a" ] || gr_fail "after the delete: $(served), want A's $serial_a"
gr_pass
