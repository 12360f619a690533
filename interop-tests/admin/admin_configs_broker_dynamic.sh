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
#  - after a restart the values are read back from /config/brokers.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }

gr_start_broker broker.id=5 log.retention.check.interval.ms=200
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

gr_restart_broker
gr_wait_broker_started
raw kept || gr_fail "dynamic broker configs not read back after a restart"

gr_stop_broker
gr_check_log || gr_fail "broker log has errors"
gr_pass
