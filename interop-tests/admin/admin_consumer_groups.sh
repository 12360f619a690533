#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor-admin groups on a KIP-848 consumer group (a member driven with raw
# ConsumerGroupHeartbeat frames, py/cgroup_admin_raw.py member), in
# kafka-consumer-groups.sh's columns: list with TYPE and the --type/--state
# filters; describe's offsets view (owner columns), --members (--verbose:
# epochs and assignments), --state (--verbose: group and target epochs) and
# --json; reset-offsets and delete refused while the member is there, and
# working once it left.
. "$(dirname "$0")/../lib/lib.sh"
gr_require_gregor
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
GR_CMD_TIMEOUT_S=60

gr_start_broker group.initial.rebalance.delay.ms=0 num.partitions=1
ga() { "$ADMIN" --bootstrap-server "$GR_BOOTSTRAP" "$@"; }
run()
{
    local want=$1 rc=0
    shift
    out=$(ga "$@" 2>"$GR_TMP/cli.err") || rc=$?
    [ "$rc" = "$want" ] || gr_fail "gregor-admin $*: exit $rc, want $want; out '$out' err '$(cat "$GR_TMP/cli.err")'"
}
has() { grep -qE "$1" <<<"$out" || gr_fail "$2: no line like '$1' in: $out"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)" <<<"$out" ||
    gr_fail "not JSON, or no $1: '$out'"; }
member()
{
    python3 "$GR_INTEROP_DIR/py/cgroup_admin_raw.py" member 127.0.0.1 "$GR_PORT" cg_admin m-1 "$@" ||
        gr_fail "heartbeat $*"
}

seq 1 10 | gr_kcat -P -t cgt -p 0
# An admin commit makes a classic group holding offset 4; the member's join
# turns it into a consumer group (offsets kept).
run 0 groups reset-offsets --group cg_admin --topic cgt --to-offset 4 --execute
[ "$(member 0 cgt)" = "0 1" ] || gr_fail "join: $(member 0 cgt)"

run 0 groups list
has '^cg_admin +consumer +Stable +consumer$' "groups list"
has '^GROUP +TYPE +STATE +PROTOCOL-TYPE$' "groups list header"
run 0 groups list --type Consumer
has '^cg_admin ' "--type Consumer"
run 0 groups list --type classic
grep -q '^cg_admin ' <<<"$out" && gr_fail "--type classic lists the consumer group: $out"
run 0 groups list --state stable --type consumer,classic
has '^cg_admin ' "--state stable"
run 0 groups list --state Empty
grep -q '^cg_admin ' <<<"$out" && gr_fail "--state Empty lists a Stable group: $out"
run 2 groups list --type share
run 2 groups list --state Sleepy
run 0 groups list --json
[ "$(json '[(g["type"], g["state"]) for g in d if g["group"] == "cg_admin"]')" = \
    "[('consumer', 'Stable')]" ] || gr_fail "groups list --json: $out"

run 0 groups describe --group cg_admin
has '^GROUP +TOPIC +PARTITION +CURRENT-OFFSET +LOG-END-OFFSET +LAG +CONSUMER-ID +HOST +CLIENT-ID$' \
    "describe header"
has '^cg_admin +cgt +0 +4 +10 +6 +m-1 +/?127\.0\.0\.1 +cga_raw$' "describe"
run 0 groups describe --group cg_admin --offsets --verbose
has '^GROUP +TOPIC +PARTITION +LEADER-EPOCH +CURRENT-OFFSET +LOG-END-OFFSET +LAG +CONSUMER-ID +HOST +CLIENT-ID$' \
    "--offsets --verbose header"
has '^cg_admin +cgt +0 +- +4 +10 +6 +m-1 ' "--offsets --verbose"
run 0 groups describe --group cg_admin --members
has '^GROUP +CONSUMER-ID +HOST +CLIENT-ID +#PARTITIONS$' "--members header"
has '^cg_admin +m-1 +/?127\.0\.0\.1 +cga_raw +1$' "--members"
run 0 groups describe --group cg_admin --members --verbose
has '#PARTITIONS +CURRENT-EPOCH +CURRENT-ASSIGNMENT +TARGET-EPOCH +TARGET-ASSIGNMENT$' \
    "--members --verbose header"
has '^cg_admin +m-1 +/?127\.0\.0\.1 +cga_raw +1 +1 +cgt:0 +1 +cgt:0$' "--members --verbose"
run 0 groups describe --group cg_admin --state
has '^GROUP +COORDINATOR \(ID\) +ASSIGNMENT-STRATEGY +STATE +#MEMBERS$' "--state header"
has "^cg_admin +127\.0\.0\.1:$GR_PORT +\([0-9]+\) +uniform +Stable +1$" "--state"
run 0 groups describe --group cg_admin --state --verbose
has 'STATE +GROUP-EPOCH +TARGET-ASSIGNMENT-EPOCH +#MEMBERS$' "--state --verbose header"
has ' +uniform +Stable +1 +1 +1$' "--state --verbose"
run 0 groups describe --group cg_admin --json
[ "$(json 'd["type"], d["state"], d["group_epoch"], [(m["member_id"], m["member_epoch"]) for m in d["members"]], [(o["current_offset"], o["lag"], o["consumer_id"]) for o in d["offsets"]]')" = \
    "consumer Stable 1 [('m-1', 1)] [(4, 6, 'm-1')]" ] || gr_fail "describe --json: $out"

# Kafka's tool resets only an inactive group; DeleteGroups refuses a group with members.
run 1 groups reset-offsets --group cg_admin --topic cgt --to-earliest --dry-run
grep -q "inactive, but the current state is Stable" "$GR_TMP/cli.err" ||
    gr_fail "reset with a member: $(cat "$GR_TMP/cli.err")"
run 1 groups delete --group cg_admin
grep -q NON_EMPTY_GROUP "$GR_TMP/cli.err" || gr_fail "delete with a member: $(cat "$GR_TMP/cli.err")"

[ "$(member -1)" = "0 -1" ] || gr_fail "leave: $(member -1)"
run 0 groups list --type consumer
has '^cg_admin +consumer +Empty +consumer$' "groups list after the leave"
run 0 groups describe --group cg_admin
has "^Consumer group 'cg_admin' has no active members\.$" "describe of an empty group"
has '^cg_admin +cgt +0 +4 +10 +6 +- +- +-$' "describe of an empty group"
run 0 groups reset-offsets --group cg_admin --topic cgt --to-earliest --execute
run 0 groups describe --group cg_admin --json
[ "$(json 'd["type"], [o["current_offset"] for o in d["offsets"]]')" = "consumer [0]" ] ||
    gr_fail "after reset: $out"
run 0 groups delete --group cg_admin
run 0 groups list --json
[ "$(json '[g["group"] for g in d if g["group"] == "cg_admin"]')" = "[]" ] || gr_fail "deleted group listed: $out"
run 1 groups describe --group cg_admin
gr_pass
