#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Topic definitions live in the metadata store under the log dir
# (__gregor_metadata, Kafka's /brokers/topics and /config/topics JSON): topics
# created through librdkafka's Admin API (progs/admin), one with config
# overrides, come back after a clean restart with their partition counts; a
# creation and a deletion just before a SIGKILL are both kept (the local store
# is durable when CreateTopics/DeleteTopics answer); a deleted topic stays
# deleted.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
[ -x "${GR_PROGS:-}/admin" ] || { gr_note "skipped: progs/admin not built"; exit 77; }

store=$GR_TMP/logs/__gregor_metadata/metadata

# Prints "<partitions>" for topic $1 from a full metadata listing, or nothing.
partitions_of()
{
    gr_kcat -L | sed -n "s/^ *topic \"$1\" with \([0-9]*\) partitions.*/\1/p"
}

expect_admin()
{
    local out
    out=$(gr_prog admin -b "$GR_BOOTSTRAP" "$@") || gr_fail "admin $* got no answer: $out"
    case "$out" in *NO_ERROR*) ;; *) gr_fail "admin $*: $out" ;; esac
}

gr_start_broker
expect_admin create stored_a 3 1 retention.ms=3600000 cleanup.policy=delete
expect_admin create stored_b 2 1
[ "$(partitions_of stored_a)" = 3 ] || gr_fail "stored_a does not have 3 partitions before the restart"
gr_stop_broker

[ -f "$store" ] || gr_fail "no metadata store at $store"
[ ! -e "$GR_TMP/logs/.gregor-topics" ] || gr_fail "topic definitions still written to .gregor-topics"
grep -aq '/brokers/topics/stored_a' "$store" || gr_fail "the store has no /brokers/topics/stored_a"
grep -aq '{"version":1,"config":{"retention.ms":"3600000","cleanup.policy":"delete"}}' "$store" ||
    gr_fail "the store does not hold stored_a's config as Kafka's JSON"
grep -aq '"partitions":{"0":\[[0-9]*\],"1":\[[0-9]*\],"2":\[[0-9]*\]},"topic_id":"[A-Za-z0-9_-]\{22\}"' "$store" ||
    gr_fail "the store does not hold stored_a's assignment as Kafka's JSON"

gr_start_broker
[ "$(partitions_of stored_a)" = 3 ] || gr_fail "stored_a lost its partitions over the restart"
[ "$(partitions_of stored_b)" = 2 ] || gr_fail "stored_b lost its partitions over the restart"

# Changes answered just before a crash are kept.
expect_admin delete stored_b
expect_admin create stored_c 4 1
gr_kill9_broker
gr_start_broker
[ "$(partitions_of stored_c)" = 4 ] || gr_fail "stored_c, created before the SIGKILL, is missing"
[ -z "$(partitions_of stored_b)" ] || gr_fail "stored_b, deleted before the SIGKILL, came back"
[ "$(partitions_of stored_a)" = 3 ] || gr_fail "stored_a lost its partitions over the SIGKILL"
# A config key given twice keeps its last value (as Kafka) and the topic
# survives a restart (a duplicate key once made the stored JSON unreadable).
expect_admin create stored_dup 1 1 retention.ms=1000 retention.ms=7200000
gr_restart_broker
[ "$(partitions_of stored_dup)" = 1 ] || gr_fail "stored_dup did not survive the restart"
grep -aq '"retention.ms":"7200000"' "$store" || gr_fail "stored_dup's retention.ms is not the last value"
gr_stop_broker
if grep -aq '/topics/stored_b' "$store"; then gr_fail "the store still holds stored_b"; fi
gr_pass
