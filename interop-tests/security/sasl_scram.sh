#!/usr/bin/env bash
# SASL/SCRAM: users made with gregor-admin configs alter log in with each
# mechanism; a wrong password or a deleted credential fails; describe lists them.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/sasllib.sh"
gr_require_gregor
gr_sasl_start_broker

gr_sasl_admin configs alter --entity-type users --entity-name bob \
    --add-config 'SCRAM-SHA-256=[iterations=4096,password=bob-256],SCRAM-SHA-512=[iterations=8192,password=bob-512]' ||
    gr_fail "configs alter failed"
out=$(gr_sasl_admin configs describe --entity-type users)
echo "$out" | grep -q "'bob' are SCRAM-SHA-256=iterations=4096, SCRAM-SHA-512=iterations=8192" ||
    gr_fail "describe: $out"

echo hello | gr_sasl_kcat SCRAM-SHA-256 bob bob-256 -P -t scram-t || gr_fail "SCRAM-SHA-256 produce failed"
out=$(gr_sasl_kcat SCRAM-SHA-512 bob bob-512 -C -t scram-t -o beginning -e -q)
[ "$out" = hello ] || gr_fail "SCRAM-SHA-512 consumed '$out'"
err=$(gr_sasl_kcat SCRAM-SHA-256 bob bob-512 -L -m 3 2>&1) && gr_fail "a wrong password got metadata"
echo "$err" | grep -q "invalid credentials with SASL mechanism SCRAM-SHA-256" || gr_fail "kcat said: $err"

# Kafka's bounds on iterations, and deleting what is not there.
out=$(gr_sasl_admin configs alter --entity-type users --entity-name carol \
    --add-config 'SCRAM-SHA-256=[iterations=100,password=x]' 2>&1) && gr_fail "iterations=100 accepted"
echo "$out" | grep -q UNACCEPTABLE_CREDENTIAL || gr_fail "iterations=100: $out"
out=$(gr_sasl_admin configs alter --entity-type users --entity-name carol \
    --delete-config SCRAM-SHA-256 2>&1) && gr_fail "deleting nothing accepted"
echo "$out" | grep -q RESOURCE_NOT_FOUND || gr_fail "deleting nothing: $out"

gr_sasl_admin configs alter --entity-type users --entity-name bob --delete-config SCRAM-SHA-256 ||
    gr_fail "delete failed"
gr_sasl_kcat SCRAM-SHA-256 bob bob-256 -L -m 3 >/dev/null 2>&1 && gr_fail "a deleted credential still logs in"
gr_sasl_kcat SCRAM-SHA-512 bob bob-512 -L -m 3 >/dev/null || gr_fail "the other mechanism went too"

# Credentials come back from the metadata store after a restart.
gr_restart_broker
gr_sasl_kcat SCRAM-SHA-512 bob bob-512 -L -m 10 >/dev/null || gr_fail "SCRAM-SHA-512 lost on restart"
gr_pass
