#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# DescribeConfigs, AlterConfigs, CreatePartitions and DeleteRecords through
# librdkafka's Admin API (progs/admin_configs):
#  - a topic lists every Kafka 3.8 topic key; an override is
#    DYNAMIC_TOPIC_CONFIG with the broker key as its synonym, a key set on the
#    broker's command line is STATIC_BROKER_CONFIG, the rest DEFAULT_CONFIG;
#    retention.ms follows log.retention.hours;
#  - the broker resource lists the broker's keys, read-only; an unknown
#    topic is UNKNOWN_TOPIC_OR_PART;
#  - AlterConfigs replaces the override set; unknown keys and bad values are
#    INVALID_CONFIG and change nothing; validate-only changes nothing;
#    static broker keys cannot change (INVALID_CONFIG, Kafka's message);
#    overrides survive a restart;
#  - CreatePartitions grows a topic (usable at once, kept across a restart),
#    and refuses shrinking or the same count with INVALID_PARTITIONS;
#  - DeleteRecords moves the log start offset (ListOffsets earliest, consume
#    from the beginning) and refuses offsets past the high watermark.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor

gr_start_broker log.retention.hours=100 log.segment.bytes=4096 compression.type=producer
adm() { gr_prog admin_configs -b "$GR_BOOTSTRAP" "$@"; }
conf() { adm describe topic "$1" | grep "^$2="; }
expect_line()
{
    local want=$1 got=$2 what=$3
    grep -qE -- "$want" <<<"$got" || gr_fail "$what: got '$got', want /$want/"
}

out=$(gr_prog admin -b "$GR_BOOTSTRAP" create cfg 2 1 retention.ms=5000 cleanup.policy=delete)
expect_line "^cfg NO_ERROR" "$out" "create cfg"

all=$(adm describe topic cfg) || gr_fail "describe topic cfg: no answer"
n=$(wc -l <<<"$all")
[ "$n" = 34 ] || gr_fail "describe topic listed $n keys, want 34: $all"
expect_line '^retention.ms=5000 source=DYNAMIC_TOPIC_CONFIG readonly=0 synonyms=retention.ms:DYNAMIC_TOPIC_CONFIG$' \
    "$(conf cfg retention.ms)" "override"
expect_line '^segment.bytes=4096 source=STATIC_BROKER_CONFIG .*synonyms=log.segment.bytes:STATIC_BROKER_CONFIG,log.segment.bytes:DEFAULT_CONFIG$' \
    "$(conf cfg segment.bytes)" "static broker synonym"
expect_line '^max.message.bytes=1048588 source=DEFAULT_CONFIG .*synonyms=message.max.bytes:DEFAULT_CONFIG$' \
    "$(conf cfg max.message.bytes)" "default"
expect_line '^leader.replication.throttled.replicas= source=DEFAULT_CONFIG' \
    "$(conf cfg leader.replication.throttled.replicas)" "key without a broker synonym"

broker=$(adm describe broker 0) || gr_fail "describe broker 0: no answer"
expect_line '^log.retention.hours=100 source=STATIC_BROKER_CONFIG readonly=1' "$broker" "broker key set"
expect_line '^num.partitions=1 source=DEFAULT_CONFIG readonly=1' "$broker" "broker default"
expect_line '^ERROR UNKNOWN_TOPIC_OR_PART' "$(adm describe topic nosuch)" "unknown topic"

# AlterConfigs: the whole set is replaced.
expect_line '^cfg NO_ERROR$' "$(adm alter topic cfg segment.ms=100000 max.message.bytes=20000)" "alter"
expect_line '^retention.ms=360000000 source=DEFAULT_CONFIG' "$(conf cfg retention.ms)" \
    "retention.ms after its override went (log.retention.hours=100)"
expect_line '^segment.ms=100000 source=DYNAMIC_TOPIC_CONFIG' "$(conf cfg segment.ms)" "segment.ms set"
expect_line '^cfg INVALID_CONFIG .*no.such.key' "$(adm alter topic cfg no.such.key=1)" "unknown key"
expect_line '^cfg INVALID_CONFIG .*segment.bytes' "$(adm alter topic cfg segment.bytes=3)" "bad value"
expect_line '^cfg INVALID_CONFIG' "$(adm alter topic cfg cleanup.policy=sometimes)" "bad list item"
expect_line '^cfg INVALID_CONFIG' "$(adm alter topic cfg min.compaction.lag.ms=10 max.compaction.lag.ms=5)" \
    "min lag above max lag"
expect_line '^cfg NO_ERROR$' "$(adm alter -n topic cfg retention.ms=1)" "validate only"
expect_line '^max.message.bytes=20000 source=DYNAMIC_TOPIC_CONFIG' "$(conf cfg max.message.bytes)" \
    "after the refused and validate-only alters"
expect_line '^nosuch UNKNOWN_TOPIC_OR_PART' "$(adm alter topic nosuch retention.ms=1)" "alter unknown topic"
expect_line '^0 INVALID_CONFIG .*Cannot update these configs dynamically: Set.num.partitions.' \
    "$(adm alter broker 0 num.partitions=3)" "alter a broker key Kafka keeps static"

# CreatePartitions.
expect_line '^cfg NO_ERROR$' "$(adm grow cfg 5)" "grow to 5"
expect_line '^cfg INVALID_PARTITIONS' "$(adm grow cfg 5)" "grow to the same count"
expect_line '^cfg INVALID_PARTITIONS' "$(adm grow cfg 3)" "shrink"
expect_line '^cfg NO_ERROR$' "$(adm grow -n cfg 9)" "validate-only grow"
expect_line '^nosuch UNKNOWN_TOPIC_OR_PART' "$(adm grow nosuch 3)" "grow unknown topic"
gr_kcat -L -t cfg | grep -q 'topic "cfg" with 5 partitions' || gr_fail "cfg does not have 5 partitions"
echo on-new-partition | gr_kcat -P -t cfg -p 4
[ "$(gr_kcat -C -t cfg -p 4 -o beginning -e -q)" = on-new-partition ] ||
    gr_fail "the new partition 4 does not hold its record"

# DeleteRecords.
seq 1 200 | gr_kcat -P -t cfg -p 1
expect_line '^cfg 1 NO_ERROR 120$' "$(adm delete-records cfg 1 120)" "delete records below 120"
earliest=$(gr_kcat -Q -t cfg:1:-2 | sed -E 's/.*offset ([0-9-]+).*/\1/')
[ "$earliest" = 120 ] || gr_fail "earliest offset $earliest after DeleteRecords, want 120"
first=$(gr_kcat -C -t cfg -p 1 -o beginning -e -q | head -n 1)
[ "$first" = 121 ] || gr_fail "first record after DeleteRecords is '$first', want 121"
expect_line '^cfg 1 OFFSET_OUT_OF_RANGE' "$(adm delete-records cfg 1 201)" "past the high watermark"
expect_line '^cfg 1 NO_ERROR 200$' "$(adm delete-records cfg 1 -1)" "to the high watermark"

# Everything survives a restart.
gr_restart_broker
expect_line '^max.message.bytes=20000 source=DYNAMIC_TOPIC_CONFIG' "$(conf cfg max.message.bytes)" \
    "override after restart"
gr_kcat -L -t cfg | grep -q 'topic "cfg" with 5 partitions' || gr_fail "partitions lost at restart"
earliest=$(gr_kcat -Q -t cfg:1:-2 | sed -E 's/.*offset ([0-9-]+).*/\1/')
[ "$earliest" = 200 ] || gr_fail "earliest offset $earliest after restart, want 200"
gr_pass
