#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# message.format.version takes every version Kafka 3.8 knows, in every form
# it reads ("0.10.0.0", "0.10.0-IV1", "2.8.1", "3.8"), and only those:
# through CreateTopics, AlterConfigs and IncrementalAlterConfigs, and for
# log.message.format.version / inter.broker.protocol.version in the broker's
# own config (a broker given "banana" does not start). The value changes
# nothing: the topic still takes and serves v2 batches.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

gr_start_broker log.message.format.version=0.10.0.0 inter.broker.protocol.version=3.8
expect_line()
{
    local want=$1 got=$2 what=$3
    grep -qE -- "$want" <<<"$got" || gr_fail "$what: got '$got', want /$want/"
}
create() { gr_prog admin -b "$GR_BOOTSTRAP" create "$@"; }
alter() { gr_prog admin_configs -b "$GR_BOOTSTRAP" alter topic "$@"; }
conf() { gr_prog admin_configs -b "$GR_BOOTSTRAP" describe topic "$1" | grep "^$2="; }

expect_line '^mfv NO_ERROR' "$(create mfv 1 1 message.format.version=0.10.0.0)" "create 0.10.0.0"
expect_line '^message.format.version=0.10.0.0 source=DYNAMIC_TOPIC_CONFIG' \
    "$(conf mfv message.format.version)" "described"
expect_line '^mfv_old NO_ERROR' "$(create mfv_old 1 1 message.format.version=0.8.2)" "create 0.8.2"
expect_line '^mfv_bad INVALID_CONFIG' "$(create mfv_bad 1 1 message.format.version=banana)" \
    "create banana"
expect_line '^mfv NO_ERROR$' "$(alter mfv message.format.version=0.10.0-IV1)" "alter 0.10.0-IV1"
expect_line '^mfv INVALID_CONFIG' "$(alter mfv message.format.version=banana)" "alter banana"
expect_line '^message.format.version=0.10.0-IV1 ' "$(conf mfv message.format.version)" \
    "kept after a refused alter"

# IncrementalAlterConfigs (gregor-admin configs alter).
ga() { "$(dirname "$GR_BROKER")/gregor-admin" --bootstrap-server "$GR_BOOTSTRAP" "$@"; }
ga configs alter --entity-type topics --entity-name mfv --add-config message.format.version=2.8.1 \
    >/dev/null 2>"$GR_TMP/ga.err" || gr_fail "incremental alter 2.8.1: $(cat "$GR_TMP/ga.err")"
expect_line '^message.format.version=2.8.1 ' "$(conf mfv message.format.version)" "incremental"
rc=0
ga configs alter --entity-type topics --entity-name mfv --add-config message.format.version=banana \
    >/dev/null 2>"$GR_TMP/ga.err" || rc=$?
[ "$rc" = 1 ] && grep -q INVALID_CONFIG "$GR_TMP/ga.err" ||
    gr_fail "incremental alter banana: exit $rc, $(cat "$GR_TMP/ga.err")"

# Ignored for v2 batches: produce and consume as usual.
printf 'k1:v1\nk2:v2\n' | gr_kcat -P -t mfv -K: || gr_fail "produce to mfv failed"
got=$(gr_kcat -C -t mfv -o beginning -e -q -f '%k=%s\n')
[ "$got" = "$(printf 'k1=v1\nk2=v2')" ] || gr_fail "consumed '$got'"

# A broker configured with an unknown version refuses to start.
bad_port=$(gr_free_port)
rc=0
timeout "$GR_START_DEADLINE_S" "$GR_BROKER" --override "listeners=PLAINTEXT://127.0.0.1:$bad_port" \
    --override "log.dirs=$GR_TMP/bad-logs" --override log.message.format.version=banana \
    >"$GR_TMP/bad.out" 2>&1 </dev/null || rc=$?
[ "$rc" != 0 ] && [ "$rc" != 124 ] || gr_fail "a broker with log.message.format.version=banana: exit $rc"
grep -q 'log.message.format.version' "$GR_TMP/bad.out" ||
    gr_fail "no word of the bad key: $(cat "$GR_TMP/bad.out")"
gr_pass
