#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor-admin under Kafka's tool names (the kafka-*.sh links in the build
# dir): the common kafka-topics.sh, kafka-configs.sh,
# kafka-consumer-groups.sh, kafka-acls.sh, kafka-get-offsets.sh and
# kafka-delete-records.sh command lines, run as scripts
# write them, with their outputs checked (exact lines where Kafka's format
# is fixed), and the options Gregor has no meaning for refused with exit 2.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/acllib.sh"
gr_require_gregor
BIN=$(dirname "$GR_BROKER")
[ -x "$BIN/kafka-topics.sh" ] || gr_fail "no kafka-topics.sh link next to $GR_BROKER"

gr_start_broker authorizer.class.name=$ACL_AUTHORIZER allow.everyone.if.no.acl.found=true
# Runs a tool with --bootstrap-server, asserting its exit status; stdout in $out.
run()
{
    local want=$1 tool=$2 rc=0
    shift 2
    out=$("$BIN/$tool" --bootstrap-server "$GR_BOOTSTRAP" "$@" 2>"$GR_TMP/tool.err") || rc=$?
    [ "$rc" = "$want" ] || gr_fail "$tool $*: exit $rc, want $want; out '$out' err '$(cat "$GR_TMP/tool.err")'"
}
expect() { [ "$out" = "$1" ] || gr_fail "want '$1', got '$out'"; }

# kafka-topics.sh: create, list, describe, alter, delete.
run 0 kafka-topics.sh --create --topic kt_a --partitions 3 --replication-factor 1 --config retention.ms=60000
expect "Created topic kt_a."
run 0 kafka-topics --create --topic kt_b --partitions 1 --if-not-exists
run 0 kafka-topics.sh --create --topic kt_b --if-not-exists
run 0 kafka-topics.sh --list
expect "$(printf 'kt_a\nkt_b')"
run 0 kafka-topics.sh --describe --topic kt_a
head -n 1 <<<"$out" | grep -q $'^Topic: kt_a\tTopicId: .*\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: retention.ms=60000$' ||
    gr_fail "describe: '$out'"
grep -q $'^\tTopic: kt_a\tPartition: 2\tLeader: 0\tReplicas: 0\tIsr: 0\tElr: N/A\tLastKnownElr: N/A$' <<<"$out" || gr_fail "describe partitions: '$out'"
run 0 kafka-topics.sh --alter --topic kt_b --partitions 2
run 0 kafka-topics.sh --describe --topic kt_b
head -n 1 <<<"$out" | grep -q $'PartitionCount: 2\t' || gr_fail "alter --partitions: '$out'"
run 0 kafka-topics.sh --delete --topic kt_b
expect ""
gr_wait_until 10 "kt_b gone" bash -c "! '$BIN/kafka-topics' --bootstrap-server $GR_BOOTSTRAP --list | grep -qx kt_b"
run 1 kafka-topics.sh --create --topic kt_a --partitions 1
grep -q TOPIC_ALREADY_EXISTS "$GR_TMP/tool.err" || gr_fail "create twice: $(cat "$GR_TMP/tool.err")"
"$BIN/kafka-topics.sh" --help | grep -q '^usage:' || gr_fail "kafka-topics.sh --help"

# kafka-topics.sh --describe's other filters: --topics-with-overrides (the
# topic lines of topics with configs of their own), --under-min-isr-partitions
# and --at-min-isr-partitions (min.insync.replicas against the ISR).
run 0 kafka-topics.sh --create --topic kt_m --partitions 1 --config min.insync.replicas=2
run 0 kafka-topics.sh --describe --topics-with-overrides
[ "$(wc -l <<<"$out")" = 2 ] && grep -q $'^Topic: kt_a\tTopicId: .*\tConfigs: retention.ms=60000$' <<<"$out" &&
    grep -q $'^Topic: kt_m\tTopicId: .*\tConfigs: min.insync.replicas=2$' <<<"$out" || gr_fail "--topics-with-overrides: '$out'"
run 0 kafka-topics.sh --describe --under-min-isr-partitions
expect $'\tTopic: kt_m\tPartition: 0\tLeader: 0\tReplicas: 0\tIsr: 0\tElr: N/A\tLastKnownElr: N/A'
run 0 kafka-topics.sh --describe --at-min-isr-partitions
[ "$(grep -c $'^\tTopic: kt_a\tPartition: [012]\t' <<<"$out")" = 3 ] && ! grep -q kt_m <<<"$out" ||
    gr_fail "--at-min-isr-partitions: '$out'"
run 0 kafka-topics.sh --delete --topic kt_m
gr_wait_until 10 "kt_m gone" bash -c "! '$BIN/kafka-topics' --bootstrap-server $GR_BOOTSTRAP --list | grep -qx kt_m"

# Refused rather than ignored: no action, two actions, options Gregor has no meaning for.
run 2 kafka-topics.sh --topic kt_a
run 2 kafka-topics.sh --list --describe
run 2 kafka-topics.sh --describe --replica-assignment 0:0
grep -q 'option --replica-assignment is not supported' "$GR_TMP/tool.err" || gr_fail "$(cat "$GR_TMP/tool.err")"
rc=0; "$BIN/kafka-topics.sh" --zookeeper localhost:2181 --list 2>"$GR_TMP/tool.err" || rc=$?
[ "$rc" = 2 ] && grep -q -- '--zookeeper is not supported: .*--bootstrap-server' "$GR_TMP/tool.err" ||
    gr_fail "--zookeeper: exit $rc, $(cat "$GR_TMP/tool.err")"
run 2 kafka-configs.sh --bootstrap-controller 127.0.0.1:1 --describe --topic kt_a
run 2 kafka-acls.sh --authorizer-properties zookeeper.connect=x --list

# kafka-configs.sh: --entity-type/--entity-name and the --topic shorthand.
run 0 kafka-configs.sh --entity-type topics --entity-name kt_a --alter --add-config cleanup.policy=compact
expect "Completed updating config for topic kt_a."
run 0 kafka-configs.sh --topic kt_a --describe
grep -q '^Dynamic configs for topic kt_a are:$' <<<"$out" || gr_fail "configs describe: '$out'"
grep -q '^  cleanup.policy=compact sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact, ' <<<"$out" ||
    gr_fail "configs describe cleanup.policy: '$out'"
run 0 kafka-configs --entity-type topics --entity-name kt_a --alter --delete-config cleanup.policy
# --add-config-file: a properties file's keys set (a comma needs no brackets).
printf '# topic settings\ncleanup.policy = compact,delete\nsegment.ms=3600000\n' >"$GR_TMP/topic.properties"
run 0 kafka-configs.sh --topic kt_a --alter --add-config-file "$GR_TMP/topic.properties"
expect "Completed updating config for topic kt_a."
run 0 kafka-configs.sh --topic kt_a --describe
grep -q '^  cleanup.policy=compact,delete sensitive=false ' <<<"$out" && grep -q '^  segment.ms=3600000 sensitive=false ' <<<"$out" ||
    gr_fail "--add-config-file: '$out'"
run 0 kafka-configs.sh --topic kt_a --alter --delete-config cleanup.policy,segment.ms
run 2 kafka-configs.sh --topic kt_a --alter --add-config-file "$GR_TMP/topic.properties" --add-config retention.ms=1
run 2 kafka-configs.sh --topic kt_a --alter --add-config-file "$GR_TMP/missing.properties"
run 2 kafka-configs.sh --entity-type users --entity-name alice --alter --add-config-file "$GR_TMP/topic.properties"
run 0 kafka-configs.sh --entity-type brokers --entity-name 0 --describe
expect "Dynamic configs for broker 0 are:"

# kafka-consumer-groups.sh: a kcat group commits offsets, then list,
# describe, reset-offsets and delete.
seq 1 6 | gr_kcat -P -t kt_a -p 0
gr_kcat -G kt_g -e -q -X auto.offset.reset=earliest kt_a >/dev/null
run 0 kafka-consumer-groups.sh --list
expect "kt_g"
run 0 kafka-consumer-groups.sh --list --state
expect "$(printf '%-25s %-20s\n%-25s %-20s' GROUP STATE kt_g Empty)"
run 0 kafka-consumer-groups.sh --describe --group kt_g
grep -Eq '^kt_g +kt_a +0 +6 +6 +0 ' <<<"$out" || gr_fail "groups describe: '$out'"
run 0 kafka-consumer-groups.sh --reset-offsets --group kt_g --topic kt_a --to-earliest --execute
grep -Eq '^kt_g +kt_a +0 +0 *$' <<<"$out" || gr_fail "reset-offsets: '$out'"
# --export's CSV (in the tool's HashMap order), --to-current, --by-duration.
run 0 kafka-consumer-groups.sh --reset-offsets --group kt_g --topic kt_a --to-current --dry-run --export
expect "$(printf 'kt_a,2,0\nkt_a,1,0\nkt_a,0,0')"
run 0 kafka-consumer-groups.sh --reset-offsets --group kt_g --topic kt_a:0 --by-duration PT0S --dry-run --export
expect "kt_a,0,6"
run 0 kafka-consumer-groups.sh --reset-offsets --group kt_g --topic kt_a:0 --by-duration P1D --dry-run
grep -Eq '^kt_g +kt_a +0 +0 *$' <<<"$out" || gr_fail "--by-duration: '$out'"
run 2 kafka-consumer-groups.sh --reset-offsets --group kt_g --topic kt_a --by-duration 1h --dry-run
# --delete-offsets: Kafka's lines and table; a partition without its commit
# then resets --to-current from the log's end.
run 1 kafka-consumer-groups.sh --delete-offsets --group kt_g --topic kt_a:0 --topic kt_none
unknown='Error: :org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.'
expect "$(printf 'Request succeed for deleting offsets with topic kt_a:0, kt_none group kt_g\n\n%-30s %-15s %-15s\n%-30s %-15s %-15s\n%-30s %-15s %-15s' \
    TOPIC PARTITION STATUS kt_a 0 Successful kt_none 'Not Provided' "$unknown")"
run 0 kafka-consumer-groups.sh --reset-offsets --group kt_g --topic kt_a --to-current --dry-run --export
expect "$(printf 'kt_a,2,0\nkt_a,1,0\nkt_a,0,6')"
run 1 kafka-consumer-groups.sh --delete-offsets --group kt_nobody --topic kt_a
[ "$(cat "$GR_TMP/tool.err")" = $'\nError: \'kt_nobody\' does not exist.' ] || gr_fail "$(cat "$GR_TMP/tool.err")"
run 2 kafka-consumer-groups.sh --describe --group kt_g --timeout 5000
# --describe over several groups (--all-groups, --group twice): each group's
# description in group id order; --delete's lines.
run 0 kafka-consumer-groups.sh --reset-offsets --group kt_g2 --topic kt_a:0 --to-earliest --execute
run 0 kafka-consumer-groups.sh --describe --all-groups
first=$(grep -nE '^kt_g +kt_a +1 ' <<<"$out" | cut -d: -f1)
second=$(grep -nE '^kt_g2 +kt_a +0 +0 ' <<<"$out" | cut -d: -f1)
[ -n "$first" ] && [ -n "$second" ] && [ "$first" -lt "$second" ] || gr_fail "--all-groups: '$out'"
all=$out
run 0 kafka-consumer-groups.sh --describe --group kt_g2 --group kt_g
[ "$out" = "$all" ] || gr_fail "--group twice: '$out', --all-groups: '$all'"
run 2 kafka-consumer-groups.sh --describe --group kt_g --all-groups
run 0 kafka-consumer-groups.sh --delete --group kt_g2
expect "Deletion of requested consumer groups ('kt_g2') was successful."
run 1 kafka-consumer-groups.sh --delete --group kt_g2
expect "* Group 'kt_g2' could not be deleted due to: java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.GroupIdNotFoundException: The group id does not exist."
run 0 kafka-consumer-groups.sh --delete --group kt_g
run 0 kafka-consumer-groups.sh --list
expect ""

# kafka-acls.sh: add, list, remove.
run 0 kafka-acls.sh --add --allow-principal User:alice --operation Read --topic kt_a
grep -q '^Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=kt_a, patternType=LITERAL)`: $' <<<"$out" ||
    gr_fail "acls add: '$out'"
run 0 kafka-acls.sh --list --topic kt_a
grep -q $'^ \t(principal=User:alice, host=\\*, operation=READ, permissionType=ALLOW) $' <<<"$out" ||
    gr_fail "acls list: '$out'"
run 0 kafka-acls.sh --remove --allow-principal User:alice --operation Read --topic kt_a --force
run 0 kafka-acls.sh --list --topic kt_a
grep -q 'alice' <<<"$out" && gr_fail "acl not removed: '$out'"

# kafka-get-offsets.sh: topic:partition:offset lines.
run 0 kafka-get-offsets.sh --topic kt_a
expect "$(printf 'kt_a:0:6\nkt_a:1:0\nkt_a:2:0')"
run 0 kafka-get-offsets.sh --topic kt_a --partitions 0 --time -2
expect "kt_a:0:0"
run 2 kafka-get-offsets.sh --topic kt_a --time yesterday
grep -q '^Error occurred: Malformed time argument yesterday\. ' "$GR_TMP/tool.err" || gr_fail "$(cat "$GR_TMP/tool.err")"
# Topic patterns, --topic-partitions rules (a partition, a range with an
# exclusive upper bound), Kafka 3.8's time names, internal topics.
run 0 kafka-get-offsets.sh --topic-partitions 'kt_a:2,kt_.:-1'
expect "$(printf 'kt_a:0:6\nkt_a:2:0')"
run 0 kafka-get-offsets.sh --topic-partitions 'kt_a:1-' --time earliest-local
expect "$(printf 'kt_a:1:0\nkt_a:2:0')"
run 0 kafka-get-offsets.sh --topic 'kt_.*' --partitions 0,2 --time -1
expect "$(printf 'kt_a:0:6\nkt_a:2:0')"
run 0 kafka-get-offsets.sh --topic kt_a --time latest-tiered
expect ""
run 0 kafka-get-offsets.sh --time earliest
grep -q '^__consumer_offsets:0:0$' <<<"$out" || gr_fail "internal topics left out: '$out'"
run 0 kafka-get-offsets.sh --time earliest --exclude-internal-topics
expect "$(printf 'kt_a:0:0\nkt_a:1:0\nkt_a:2:0')"
run 2 kafka-get-offsets.sh --topic-partitions 'kt_a:x'
[ "$(cat "$GR_TMP/tool.err")" = "Error occurred: Invalid rule specification: kt_a:x" ] || gr_fail "$(cat "$GR_TMP/tool.err")"
run 2 kafka-get-offsets.sh --topic-partitions kt_a --topic kt_a
[ "$(cat "$GR_TMP/tool.err")" = "Error occurred: --topic-partitions cannot be used with --topic or --partitions" ] ||
    gr_fail "$(cat "$GR_TMP/tool.err")"
run 1 kafka-get-offsets.sh --topic 'nothing.*'
[ "$(cat "$GR_TMP/tool.err")" = "Error occurred: Could not match any topic-partitions with the specified filters" ] ||
    gr_fail "$(cat "$GR_TMP/tool.err")"

# kafka-delete-records.sh: Kafka's offset JSON file (-1: up to the high
# watermark); results in Kafka's (HashMap) order, a partition's error on its
# line and exit 0, as Kafka's tool.
cat >"$GR_TMP/delete.json" <<'EOF'
{"partitions": [{"topic": "kt_a", "partition": 0, "offset": 2}, {"topic": "kt_a", "partition": 1, "offset": -1},
 {"topic": "kt_a", "partition": 2, "offset": 5}, {"topic": "kt_none", "partition": 0, "offset": 1}], "version": 1}
EOF
run 0 kafka-delete-records.sh --offset-json-file "$GR_TMP/delete.json"
expect "Executing records delete operation
Records delete operation completed:
partition: kt_none-0	error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Failed to fetch metadata for partition kt_none-0 because metadata for topic \`kt_none\` could not be found
partition: kt_a-2	error: org.apache.kafka.common.errors.OffsetOutOfRangeException: The requested offset is not within the range of offsets maintained by the server.
partition: kt_a-1	low_watermark: 0
partition: kt_a-0	low_watermark: 2"
run 0 kafka-get-offsets.sh --topic kt_a --partitions 0 --time earliest
expect "kt_a:0:2"
echo '{"partitions":[{"topic":"kt_a","partition":0,"offset":3},{"topic":"kt_a","partition":0,"offset":4}]}' >"$GR_TMP/delete.json"
run 1 kafka-delete-records --offset-json-file "$GR_TMP/delete.json"
[ "$(cat "$GR_TMP/tool.err")" = "Offset json file contains duplicate topic partitions: kt_a-0" ] || gr_fail "$(cat "$GR_TMP/tool.err")"
echo '{"partitions":[{"topic":"kt_a","partition":0,"offset":"3"}],"version":1}' >"$GR_TMP/delete.json"
run 1 kafka-delete-records.sh --offset-json-file "$GR_TMP/delete.json"
[ "$(cat "$GR_TMP/tool.err")" = 'Expected `Long` value, received "3"' ] || gr_fail "$(cat "$GR_TMP/tool.err")"
run 2 kafka-delete-records.sh
run 0 kafka-get-offsets.sh --topic kt_a --partitions 0 --time earliest
expect "kt_a:0:2"

# The other tools take their command lines too (outputs checked by the
# gregor-admin tests of the same commands).
run 0 kafka-leader-election.sh --election-type PREFERRED --topic kt_a --partition 0
run 0 kafka-transactions.sh list
run 2 kafka-reassign-partitions.sh --zookeeper localhost:2181 --list
run 2 kafka-transactions.sh --json list

gr_pass
