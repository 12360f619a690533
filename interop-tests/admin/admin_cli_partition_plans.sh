#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor-admin's leader-election, reassign-partitions and topics describe
# filters against one broker (the cluster behaviour is in
# cluster_reassign_admin.sh): bad command lines and bad JSON files are usage
# errors (exit 2) caught before connecting; --generate prints the current
# assignment and a proposal in Kafka's JSON; leader-election reports
# "Valid replica already elected" (exit 0) and unknown partitions (exit 1);
# a healthy broker has no under-replicated or unavailable partitions.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
command -v python3 >/dev/null || { gr_note "no python3"; exit 77; }

# run WANT ARGS...: gregor-admin against $GR_BOOTSTRAP (or port 1 before the
# broker starts: usage errors must not need it); stdout in $out, stderr in $err.
run()
{
    local want=$1 rc=0
    shift
    out=$("$ADMIN" --bootstrap-server "${GR_BOOTSTRAP:-127.0.0.1:1}" "$@" 2>"$GR_TMP/cli.err") || rc=$?
    err=$(cat "$GR_TMP/cli.err")
    [ "$rc" = "$want" ] || gr_fail "gregor-admin $*: exit $rc, want $want; out '$out' err '$err'"
}
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" <<<"$out" ||
    gr_fail "not JSON, or no $1: '$out'"; }
file() { printf '%s\n' "$2" >"$GR_TMP/$1"; }

# Usage errors, with no broker to connect to.
for cmd in leader-election reassign-partitions; do
    "$ADMIN" $cmd --help | grep -q '^usage: gregor-admin' || gr_fail "no help for $cmd"
done
run 2 leader-election --all-topic-partitions
run 2 leader-election --election-type sideways --all-topic-partitions
run 2 leader-election --election-type preferred
run 2 leader-election --election-type preferred --topic t
run 2 leader-election --election-type preferred --all-topic-partitions --topic t --partition 0
run 2 reassign-partitions
run 2 reassign-partitions --execute --verify --reassignment-json-file x
run 2 reassign-partitions --execute
run 2 reassign-partitions --execute --reassignment-json-file "$GR_TMP/none.json"
file dup_replicas.json '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2,1]}]}'
run 2 reassign-partitions --execute --reassignment-json-file "$GR_TMP/dup_replicas.json"
grep -q "broker 1 is listed twice" <<<"$err" || gr_fail "duplicate replicas: '$err'"
file dup_parts.json '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1]},
  {"topic":"t","partition":0,"replicas":[2]}]}'
run 2 reassign-partitions --verify --reassignment-json-file "$GR_TMP/dup_parts.json"
grep -q "partition t-0 is listed twice" <<<"$err" || gr_fail "duplicate partitions: '$err'"
file v2.json '{"version":2,"partitions":[{"topic":"t","partition":0,"replicas":[1]}]}'
run 2 reassign-partitions --cancel --reassignment-json-file "$GR_TMP/v2.json"
file dirs.json '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1],"log_dirs":["/d"]}]}'
run 2 reassign-partitions --execute --reassignment-json-file "$GR_TMP/dirs.json"
file junk.json '{"version":1,'
run 2 reassign-partitions --execute --reassignment-json-file "$GR_TMP/junk.json"
run 2 reassign-partitions --generate --topics-to-move-json-file "$GR_TMP/junk.json" --broker-list 0
file el_dup.json '{"partitions":[{"topic":"t","partition":0},{"topic":"t","partition":0}]}'
run 2 leader-election --election-type preferred --path-to-json-file "$GR_TMP/el_dup.json"

gr_start_broker
run 0 topics create --topic plan --partitions 3

# --generate on one broker: the same replicas, Kafka's JSON.
file move.json '{"version":1,"topics":[{"topic":"plan"}]}'
run 0 reassign-partitions --generate --topics-to-move-json-file "$GR_TMP/move.json" --broker-list 0
assignment='{"version":1,"partitions":[{"topic":"plan","partition":0,"replicas":[0],"log_dirs":["any"]},{"topic":"plan","partition":1,"replicas":[0],"log_dirs":["any"]},{"topic":"plan","partition":2,"replicas":[0],"log_dirs":["any"]}]}'
want=$(printf 'Current partition replica assignment\n%s\n\nProposed partition reassignment configuration\n%s' \
    "$assignment" "$assignment")
[ "$out" = "$want" ] || gr_fail "--generate: '$out'"
run 0 reassign-partitions --generate --topics-to-move-json-file "$GR_TMP/move.json" --broker-list 0 --json
[ "$(json 'd["proposed"]["partitions"][2]["replicas"]')" = "[0]" ] || gr_fail "--generate --json: $out"
run 1 reassign-partitions --generate --topics-to-move-json-file "$GR_TMP/move.json" --broker-list 0,5
grep -q "broker 5" <<<"$err" || gr_fail "--generate with an unknown broker: '$err'"
file nosuch.json '{"version":1,"topics":[{"topic":"nosuch"}]}'
run 1 reassign-partitions --generate --topics-to-move-json-file "$GR_TMP/nosuch.json" --broker-list 0

# leader-election on one broker: every leader is the preferred one already.
run 0 leader-election --election-type PREFERRED --topic plan --partition 1
[ "$out" = "Valid replica already elected for partitions plan-1" ] || gr_fail "election: '$out'"
file el.json '{"partitions":[{"topic":"plan","partition":2},{"topic":"plan","partition":0},{"topic":"plan","partition":9}]}'
run 1 leader-election --election-type preferred --path-to-json-file "$GR_TMP/el.json"
want=$(printf '%s\n%s' "Valid replica already elected for partitions plan-0, plan-2" \
    "Error completing leader election (PREFERRED) for partition: plan-9: UNKNOWN_TOPIC_OR_PARTITION")
[ "$(sed 's/ ([^()]*)$//' <<<"$out")" = "$want" ] || gr_fail "election from a file: '$out'"
run 0 leader-election --election-type unclean --all-topic-partitions --json
[ "$(json 'd["election_type"]')" = UNCLEAN ] || gr_fail "election --json: $out"

# topics describe: the OFFLINE column, and nothing under the filters.
run 0 topics describe --topic plan
[ "$(sed -n 2p <<<"$out" | tr -s ' ')" = "TOPIC PARTITION LEADER REPLICAS ISR OFFLINE" ] ||
    gr_fail "describe headers: '$out'"
run 0 topics describe --under-replicated-partitions
[ -z "$out" ] || gr_fail "under-replicated partitions on a healthy broker: '$out'"
run 0 topics describe --unavailable-partitions --json
[ "$out" = "[]" ] || gr_fail "unavailable partitions on a healthy broker: '$out'"
run 0 topics describe --topic plan --json
[ "$(json 'd[0]["partitions"][0]["offline"]')" = "[]" ] || gr_fail "describe --json offline: $out"
gr_pass
