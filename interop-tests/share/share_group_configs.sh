#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Group configs (ConfigResource GROUP): gregor-admin configs --entity-type
# groups describes every group key with its broker default (DEFAULT_CONFIG;
# share.isolation.level read_committed, Gregor's default), sets overrides
# (IncrementalAlterConfigs; GROUP_CONFIG afterwards), deletes one (back to
# the default), refuses unknown keys and values Kafka's GroupConfig refuses
# (INVALID_CONFIG: a malformed or negative by_duration, a bad isolation
# level, a lock duration or session timeout outside the broker's
# group.share.* bounds, a session timeout not above the heartbeat
# interval), and the overrides survive a restart (/config/groups/<group>).
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }

gr_start_broker
ga() { "$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" "$@"; }
run()
{
    local want=$1 rc=0
    shift
    out=$(ga "$@" 2>"$GR_TMP/cli.err") || rc=$?
    [ "$rc" = "$want" ] || gr_fail "gregor-admin $*: exit $rc, want $want; out '$out' err '$(cat "$GR_TMP/cli.err")'"
}
# value SOURCE of one key of group "$1" (every key, defaults included)
entry()
{
    run 0 configs describe --entity-type groups --entity-name "$1" --all --json
    python3 -c "
import json, sys
for e in json.loads(sys.argv[1]):
    if e['name'] == sys.argv[2]:
        print(e['value'], e['source'])" "$out" "$2"
}
expect() { local got; got=$(entry "$1" "$2"); [ "$got" = "$3" ] || gr_fail "$1 $2: '$got', want '$3'"; }

expect sg share.auto.offset.reset "latest DEFAULT_CONFIG"
expect sg share.isolation.level "read_committed DEFAULT_CONFIG"
expect sg share.record.lock.duration.ms "30000 DEFAULT_CONFIG"
expect sg share.session.timeout.ms "45000 DEFAULT_CONFIG"
expect sg share.heartbeat.interval.ms "5000 DEFAULT_CONFIG"
expect sg consumer.session.timeout.ms "45000 DEFAULT_CONFIG"

run 0 configs alter --entity-type groups --entity-name sg \
    --add-config share.auto.offset.reset=by_duration:PT1H30M,share.isolation.level=read_uncommitted,share.record.lock.duration.ms=20000
expect sg share.auto.offset.reset "by_duration:PT1H30M GROUP_CONFIG"
expect sg share.isolation.level "read_uncommitted GROUP_CONFIG"
expect sg share.record.lock.duration.ms "20000 GROUP_CONFIG"
expect other share.isolation.level "read_committed DEFAULT_CONFIG"
run 0 configs alter --group sg --add-config share.auto.offset.reset=earliest
expect sg share.auto.offset.reset "earliest GROUP_CONFIG"
expect sg share.isolation.level "read_uncommitted GROUP_CONFIG"

refused()
{
    run 1 configs alter --entity-type groups --entity-name sg --add-config "$1"
    grep -q "$2" "$GR_TMP/cli.err" || gr_fail "$1: want $2, got '$(cat "$GR_TMP/cli.err")'"
}
refused share.auto.offset.reset=by_duration:-PT1H INVALID_CONFIG
refused share.auto.offset.reset=by_duration:1H INVALID_CONFIG
refused share.auto.offset.reset=newest INVALID_CONFIG
refused share.isolation.level=READ_COMMITTED INVALID_CONFIG
refused share.record.lock.duration.ms=999 INVALID_CONFIG
refused share.record.lock.duration.ms=70000 INVALID_CONFIG
refused share.session.timeout.ms=30000 INVALID_CONFIG
refused share.heartbeat.interval.ms=abc INVALID_CONFIG
refused no.such.key=1 INVALID_CONFIG
# a refused change changed nothing
expect sg share.auto.offset.reset "earliest GROUP_CONFIG"

run 0 configs alter --entity-type groups --entity-name sg --delete-config share.record.lock.duration.ms
expect sg share.record.lock.duration.ms "30000 DEFAULT_CONFIG"
run 0 configs alter --entity-type groups --entity-name "a/b c" --add-config share.session.timeout.ms=50000
expect "a/b c" share.session.timeout.ms "50000 GROUP_CONFIG"

gr_restart_broker
expect sg share.auto.offset.reset "earliest GROUP_CONFIG"
expect sg share.isolation.level "read_uncommitted GROUP_CONFIG"
expect sg share.record.lock.duration.ms "30000 DEFAULT_CONFIG"
expect "a/b c" share.session.timeout.ms "50000 GROUP_CONFIG"

gr_stop_broker
gr_check_log
gr_pass
