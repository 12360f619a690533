#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Log levels per logger changed at run time through Kafka's BROKER_LOGGER
# config resource:
#  - gregor.log.levels sets thresholds at start (replica=TRACE shows);
#  - gregor-admin configs --entity-type broker-loggers (kafka-configs.sh's
#    syntax): describe, --add-config net=DEBUG (a new connection then logs a
#    DEBUG [net] line), --delete-config net (back to root's level), an
#    unknown logger and a bad level refused (exit 1), a broker the cluster
#    does not list refused (exit 3);
#  - the raw wire (py/broker_logger_raw.py; kafka-python has no
#    BROKER_LOGGER): DescribeConfigs v1/v4, IncrementalAlterConfigs v0/v1,
#    validate_only and Kafka's errors, legacy AlterConfigs refused.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }

gr_start_broker broker.id=5 gregor.log.levels=replica=TRACE
ga() { "$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" "$@"; }
run()
{
    local want=$1 rc=0
    shift
    out=$(ga "$@" 2>"$GR_TMP/cli.err") || rc=$?
    [ "$rc" = "$want" ] || gr_fail "gregor-admin $*: exit $rc, want $want; out '$out' err '$(cat "$GR_TMP/cli.err")'"
}
level_of() { awk -v l="$1" '$1 == l { print $2 }' <<<"$out"; }
net_debug_lines() { grep -c 'DEBUG \[net\] accepted connection' "$GR_LOG" || true; }
more_net_debug() { [ "$(net_debug_lines)" -gt "$before" ]; }

run 0 configs --describe --entity-type broker-loggers --entity-name 5
[ "$(head -n 1 <<<"$out" | awk '{print $1, $2, $3}')" = "NAME VALUE SOURCE" ] || gr_fail "describe header: '$out'"
[ "$(level_of root)" = INFO ] || gr_fail "root not INFO: '$out'"
[ "$(level_of replica)" = TRACE ] || gr_fail "gregor.log.levels did not set replica: '$out'"
[ "$(level_of net)" = INFO ] || gr_fail "net not INFO: '$out'"
grep -q 'DYNAMIC_BROKER_LOGGER_CONFIG' <<<"$out" || gr_fail "source: '$out'"

before=$(net_debug_lines)
run 0 configs --alter --entity-type broker-loggers --entity-name 5 --add-config net=DEBUG
[ "$out" = "Completed updating config for broker-logger 5." ] || gr_fail "alter: '$out'"
run 0 configs describe --broker-logger 5 --json
[ "$(python3 -c 'import json,sys; print({c["name"]: c["value"] for c in json.load(sys.stdin)}["net"])' <<<"$out")" = DEBUG ] ||
    gr_fail "net not DEBUG after the alter: '$out'"
run 0 configs --describe --entity-type broker-loggers --entity-name 5 # a new connection
gr_wait_until 30 "a DEBUG [net] line" more_net_debug

run 0 configs --alter --entity-type broker-loggers --entity-name 5 --delete-config net
run 0 configs --describe --entity-type broker-loggers --entity-name 5
[ "$(level_of net)" = INFO ] || gr_fail "net not back to root's INFO: '$out'"

run 1 configs --alter --entity-type broker-loggers --entity-name 5 --add-config nosuch=DEBUG
grep -q 'INVALID_CONFIG (Logger nosuch does not exist!)' "$GR_TMP/cli.err" || gr_fail "unknown logger: $(cat "$GR_TMP/cli.err")"
run 1 configs --alter --entity-type broker-loggers --entity-name 5 --add-config net=LOUD
grep -q 'INVALID_CONFIG (Cannot set the log level of net to LOUD' "$GR_TMP/cli.err" || gr_fail "bad level: $(cat "$GR_TMP/cli.err")"
# A broker the cluster does not list cannot be asked (the broker's own check
# of the name is in the raw checks below).
run 3 configs --describe --entity-type broker-loggers --entity-name 6
grep -q 'broker 6 is not in the cluster' "$GR_TMP/cli.err" || gr_fail "another broker's id: $(cat "$GR_TMP/cli.err")"

timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/broker_logger_raw.py" 127.0.0.1 "$GR_PORT" 5 "$GR_LOG" ||
    gr_fail "raw BROKER_LOGGER checks failed"

gr_stop_broker
gr_check_log || gr_fail "broker log has errors"
gr_pass
