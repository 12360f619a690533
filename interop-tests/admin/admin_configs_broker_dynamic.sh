#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Dynamic broker configs (KIP-226) on one broker, without a restart:
#  - the raw wire (py/broker_dynamic_raw.py): IncrementalAlterConfigs and
#    AlterConfigs on BROKER "" (cluster default) and on this broker's id,
#    DescribeConfigs of the broker and of a topic without overrides (values,
#    DYNAMIC_BROKER_CONFIG / DYNAMIC_DEFAULT_BROKER_CONFIG sources and
#    synonyms), the broker's own value winning over the default,
#    validate_only, Kafka's refusal of static keys (broker.id, log.dirs),
#    keys Gregor cannot apply live refused, another broker's id refused;
#  - the effect: with log.retention.ms=1000 and log.segment.bytes=4096 as
#    cluster defaults, a topic without overrides rolls small segments and
#    loses its old ones, while a topic with its own retention.ms keeps all;
#    with message.max.bytes=2000 on the broker, a 5000-byte record accepted
#    before is refused (MESSAGE_TOO_LARGE);
#  - the topic-config synonyms' effects (py/broker_dynamic_effects.py):
#    min.insync.replicas, compression.type, log.message.timestamp.type and
#    log.roll.ms changed live reach a topic without overrides;
#  - gregor-admin configs --entity-type brokers (kafka-configs.sh's syntax):
#    --entity-default and --entity-name alter and describe, a static key
#    refused (exit 1);
#  - password values are never returned (ssl.key.password set at start);
#  - after a restart the values are read back from /config/brokers.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"

gr_start_broker broker.id=5 log.retention.check.interval.ms=200 ssl.key.password=hunter2
ga()
{
    local want=$1 rc=0
    shift
    out=$("$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" configs "$@" 2>"$GR_TMP/cli.err") || rc=$?
    [ "$rc" = "$want" ] || gr_fail "configs $*: exit $rc, want $want; '$out' '$(cat "$GR_TMP/cli.err")'"
}
raw() { timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/broker_dynamic_raw.py" 127.0.0.1 "$GR_PORT" 5 plain "$1"; }
produce() { seq 1 "$2" | sed 's/^/record-with-some-padding-/' | gr_kcat -P -t "$1" -X batch.size=2048; }
segments() { ls "$GR_TMP/logs/$1-0/"*.log | wc -l; }
earliest() { gr_kcat -Q -t "$1:0:-2" | sed -E 's/.*offset ([0-9-]+).*/\1/'; }

gr_prog admin -b "$GR_BOOTSTRAP" create plain 1 1 >/dev/null || gr_fail "create plain"
gr_prog admin -b "$GR_BOOTSTRAP" create kept 1 1 >/dev/null || gr_fail "create kept"
gr_prog admin_configs -b "$GR_BOOTSTRAP" alter topic kept retention.ms=604800000 >/dev/null ||
    gr_fail "retention.ms on kept"
produce plain 500
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t kept -n 1 -s 5000 -m produce -w 60) ||
    gr_fail "a 5000-byte record before message.max.bytes changed: $out"

raw alter || gr_fail "raw dynamic broker config checks failed"

produce plain 2000
produce kept 2000
gr_wait_until 60 "the default log.retention.ms=1000 to delete plain's closed segments" bash -c \
    "[ \$(ls '$GR_TMP/logs/plain-0/'*.log | wc -l) -le 1 ]"
[ "$(earliest plain)" -gt 0 ] || gr_fail "plain's log start offset did not move"
[ "$(segments kept)" -gt 5 ] || gr_fail "kept did not roll at the default log.segment.bytes=4096"
[ "$(earliest kept)" = 0 ] || gr_fail "kept lost records despite its own retention.ms"
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t kept -n 2 -s 5000 -m produce -w 60 \
    -x MSG_SIZE_TOO_LARGE) || gr_fail "message.max.bytes=2000 did not refuse 5000 bytes: $out"
timeout "$GR_CMD_TIMEOUT_S" "$GR_PYTHON" "$GR_INTEROP_DIR/py/broker_dynamic_effects.py" 127.0.0.1 \
    "$GR_PORT" 5 "$GR_TMP/logs" || gr_fail "topic-config synonyms changed live had no effect"

ga 0 --alter --entity-type brokers --entity-name 5 --add-config log.retention.bytes=100000000
[ "$out" = "Completed updating config for broker 5." ] || gr_fail "alter broker 5: '$out'"
ga 0 --describe --entity-type brokers --entity-name 5
grep -qE '^log.retention.bytes +100000000 +DYNAMIC_BROKER_CONFIG +false$' <<<"$out" ||
    gr_fail "describe broker 5: '$out'"
grep -qE '^log.retention.ms +1000 +DYNAMIC_DEFAULT_BROKER_CONFIG +false$' <<<"$out" ||
    gr_fail "the default's value on broker 5: '$out'"
ga 0 --describe --entity-type brokers --entity-name 5 --all
! grep -q hunter2 <<<"$out" || gr_fail "a password returned: '$out'"
grep -qE '^ssl.key.password +null +STATIC_BROKER_CONFIG' <<<"$out" || gr_fail "ssl.key.password: '$out'"
ga 0 --alter --entity-type brokers --entity-default --add-config log.retention.bytes=200000000
[ "$out" = "Completed updating default config for brokers in the cluster." ] || gr_fail "alter default: '$out'"
ga 0 --describe --entity-type brokers --entity-default
grep -qE '^log.retention.bytes +200000000 +DYNAMIC_DEFAULT_BROKER_CONFIG' <<<"$out" || gr_fail "describe default: '$out'"
ga 0 --alter --entity-type brokers --entity-name 5 --delete-config log.retention.bytes
ga 0 --describe --entity-type brokers --entity-name 5
grep -qE '^log.retention.bytes +200000000 +DYNAMIC_DEFAULT_BROKER_CONFIG' <<<"$out" ||
    gr_fail "the default back on broker 5 after --delete-config: '$out'"
ga 1 --alter --entity-type brokers --entity-default --add-config zookeeper.connect=x:2181
grep -q 'Cannot update these configs dynamically: Set(zookeeper.connect)' "$GR_TMP/cli.err" ||
    gr_fail "static key: $(cat "$GR_TMP/cli.err")"

gr_restart_broker
gr_wait_broker_started
raw kept || gr_fail "dynamic broker configs not read back after a restart"

gr_stop_broker
gr_check_log || gr_fail "broker log has errors"
gr_pass
