#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor-admin against a live broker: every topics, configs, cluster and
# records command, in table form and with --json (parsed by python3), with
# the exit codes (0 done, 1 refused by the broker, 2 bad usage, 3 no
# connection) and --help on every command. Effects are checked with kcat
# and with a second, independent read (librdkafka's Admin API through
# progs/admin_configs) where the CLI's own output could hide a mistake.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }

gr_start_broker
ga() { "$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" "$@"; }
# Runs ga, asserting its exit status; its stdout goes to $out.
run()
{
    local want=$1 rc=0
    shift
    out=$(ga "$@" 2>"$GR_TMP/cli.err") || rc=$?
    [ "$rc" = "$want" ] || gr_fail "gregor-admin $*: exit $rc, want $want; out '$out' err '$(cat "$GR_TMP/cli.err")'"
}
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" <<<"$out" ||
    gr_fail "not JSON, or no $1: '$out'"; }

# --help everywhere, usage errors.
for cmd in "" topics configs cluster records groups; do
    "$ADMIN" $cmd --help | grep -q '^usage: gregor-admin' || gr_fail "no help for '$cmd'"
done
run 2 topics
run 2 topics frobnicate
run 2 nosuchcommand
run 2 topics create --partitions 3
out=$("$ADMIN" topics list 2>&1) && gr_fail "no --bootstrap-server accepted"
rc=0; "$ADMIN" --bootstrap-server 127.0.0.1:1 topics list 2>/dev/null || rc=$?
[ "$rc" = 3 ] || gr_fail "unreachable broker: exit $rc, want 3"

# topics create / list / describe.
run 0 topics create --topic cli_a --partitions 3 --config retention.ms=60000 --config cleanup.policy=delete
[ "$out" = "Created topic cli_a." ] || gr_fail "create: '$out'"
run 1 topics create --topic cli_a --partitions 3
grep -q TOPIC_ALREADY_EXISTS "$GR_TMP/cli.err" || gr_fail "create twice: $(cat "$GR_TMP/cli.err")"
run 0 topics create --topic cli_a --if-not-exists
run 1 topics create --topic cli_bad --config no.such=1
run 0 topics create --topic cli_v --partitions 2 --validate-only
run 0 topics create --topic cli_b --partitions 1 --json
[ "$(json 'd["topic"], d["error"]')" = "cli_b None" ] || gr_fail "create --json: $out"

run 0 topics list
want=$(printf 'TOPIC  PARTITIONS  REPLICATION-FACTOR\ncli_a  3           1\ncli_b  1           1')
[ "$out" = "$want" ] || gr_fail "topics list table: '$out'"
run 0 topics list --json
[ "$(json '[(t["topic"], t["partitions"]) for t in d]')" = "[('cli_a', 3), ('cli_b', 1)]" ] ||
    gr_fail "topics list --json: $out"

run 0 topics describe --topic cli_a
id=$(sed -n 's/^topic_id: //p' "$GR_TMP/logs/cli_a-0/partition.metadata")
head -n 1 <<<"$out" | grep -q $'^Topic: cli_a\tTopicId: '"$id"$'\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: cleanup.policy=delete,retention.ms=60000$' ||
    gr_fail "describe header: '$out' (topic id $id)"
[ "$(sed -n 3p <<<"$out" | tr -s ' ' | sed 's/ $//')" = "cli_a 0 0 0 0" ] || gr_fail "describe rows: '$out'"
run 0 topics describe --topic cli_a --json
[ "$(json 'len(d[0]["partitions"]), d[0]["configs"]["retention.ms"], d[0]["partitions"][2]["isr"], d[0]["topic_id"]')" = \
    "3 60000 [0] $id" ] || gr_fail "describe --json: $out"
run 1 topics describe --topic cli_none

# topics alter / add-partitions.
run 0 topics alter --topic cli_a --partitions 4
run 0 topics add-partitions --topic cli_a --partitions 6
gr_kcat -L -t cli_a | grep -q 'topic "cli_a" with 6 partitions' || gr_fail "cli_a did not grow to 6"
run 1 topics alter --topic cli_a --partitions 2
grep -q INVALID_PARTITIONS "$GR_TMP/cli.err" || gr_fail "shrink: $(cat "$GR_TMP/cli.err")"

# configs describe / alter (kafka-configs.sh syntax, list values in brackets).
run 0 configs alter --entity-type topics --entity-name cli_a \
    --add-config 'segment.bytes=200000,cleanup.policy=[compact,delete]' --delete-config retention.ms
[ "$out" = "Completed updating config for topic cli_a." ] || gr_fail "configs alter: '$out'"
run 0 configs describe --entity-type topics --entity-name cli_a
want=$(printf 'NAME            VALUE           SOURCE                READ-ONLY\ncleanup.policy  compact,delete  DYNAMIC_TOPIC_CONFIG  false\nsegment.bytes   200000          DYNAMIC_TOPIC_CONFIG  false')
[ "$out" = "$want" ] || gr_fail "configs describe table: '$out'"
# An independent read of the same configs.
got=$(gr_prog admin_configs -b "$GR_BOOTSTRAP" describe topic cli_a | grep -E '^(retention.ms|segment.bytes)=' | cut -d' ' -f1-2)
[ "$got" = "$(printf 'retention.ms=604800000 source=DEFAULT_CONFIG\nsegment.bytes=200000 source=DYNAMIC_TOPIC_CONFIG')" ] ||
    gr_fail "librdkafka sees '$got' after configs alter"
run 0 configs describe --topic cli_a
[ "$out" = "$want" ] || gr_fail "configs describe --topic: '$out'"
run 0 configs describe --entity-type topics --entity-name cli_a --all --json
[ "$(json 'len(d), [c["value"] for c in d if c["name"]=="retention.ms"]')" = "34 ['604800000']" ] ||
    gr_fail "configs describe --all --json: $out"
run 1 configs alter --entity-type topics --entity-name cli_a --add-config segment.bytes=1
grep -q INVALID_CONFIG "$GR_TMP/cli.err" || gr_fail "bad value: $(cat "$GR_TMP/cli.err")"
run 1 configs alter --entity-type topics --entity-name cli_a --add-config segment.bytes=1 --json
[ "$(json 'd["error"]')" = INVALID_CONFIG ] || gr_fail "bad value --json: $out"
run 1 configs alter --entity-type brokers --entity-name 0 --add-config num.partitions=4
run 2 configs alter --entity-type topics --entity-name cli_a
run 2 configs describe --entity-type widgets --entity-name x # not an entity type (users and clients: quota_admin.sh; groups: share_group_configs.sh)
run 0 configs describe --entity-type brokers --entity-name 0 --all
grep -qE '^num.partitions +1 +DEFAULT_CONFIG +true$' <<<"$out" || gr_fail "broker configs: '$out'"
grep -qE '^listeners +PLAINTEXT://127.0.0.1:[0-9]+ +STATIC_BROKER_CONFIG +true$' <<<"$out" ||
    gr_fail "broker listeners: '$out'"

# cluster describe.
run 0 cluster describe
grep -q "^Controller: 0$" <<<"$out" && grep -qE "^0 +127.0.0.1 +$GR_PORT +-$" <<<"$out" ||
    gr_fail "cluster describe: '$out'"
run 0 cluster describe --json
[ "$(json 'd["controller"], d["brokers"][0]["port"], len(d["cluster_id"]) > 0')" = "0 $GR_PORT True" ] ||
    gr_fail "cluster describe --json: $out"

# records delete.
seq 1 30 | gr_kcat -P -t cli_b -p 0
run 0 records delete --topic cli_b --partition 0 --offset 10
[ "$(tail -n 1 <<<"$out" | tr -s ' ')" = "cli_b 0 10" ] || gr_fail "records delete: '$out'"
first=$(gr_kcat -C -t cli_b -p 0 -o beginning -e -q | head -n 1)
[ "$first" = 11 ] || gr_fail "first record after records delete: '$first'"
run 1 records delete --topic cli_b --offset 99 --json
[ "$(json 'd["error"], d["low_watermark"]')" = "OFFSET_OUT_OF_RANGE -1" ] ||
    gr_fail "records delete past the end: $out"
run 0 records delete --topic cli_b --offset -1 --json
[ "$(json 'd["low_watermark"]')" = 30 ] || gr_fail "records delete -1: $out"

# topics delete.
run 0 topics delete --topic cli_b
run 1 topics delete --topic cli_b
run 0 topics delete --topic cli_b --if-exists
run 0 topics list --json
[ "$(json '[t["topic"] for t in d]')" = "['cli_a']" ] || gr_fail "after delete: $out"
gr_pass
