#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor-admin in a 3-broker cluster, bootstrapped on a broker that is not
# the controller: topics create / add-partitions / delete reach the
# controller (they would fail with NOT_CONTROLLER if the tool did not route
# them), describe shows the 12 partitions led by all three brokers, a config
# altered through one broker is seen by DescribeConfigs on another once the
# /config/changes notification is applied, max.message.bytes set through a
# broker takes effect on the leaders of the other partitions (a produce to
# them fails with MESSAGE_TOO_LARGE, where the same record was accepted
# before), and a deleted topic leaves every broker's metadata and log dirs.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
PARTS=12
GROWN=15
TOPIC=cli_spread
BIG=4000 # value size of the record refused once max.message.bytes is SMALL
SMALL=1000

cl_start_cluster 3
other=$(cl_non_controller)
for i in 0 1 2; do [ "$i" = "$CL_CONTROLLER" ] || [ "$i" = "$other" ] || third=$i; done
gr_note "controller $CL_CONTROLLER; gregor-admin bootstraps on broker $other, reads back on broker $third"

# run BROKER WANT_EXIT ARGS...: gregor-admin bootstrapped on BROKER; stdout in $out.
run()
{
    local i=$1 want=$2 rc=0
    shift 2
    out=$("$ADMIN" --bootstrap-server "$(cl_addr "$i")" "$@" 2>"$GR_TMP/cli.err") || rc=$?
    [ "$rc" = "$want" ] || gr_fail "gregor-admin (broker $i) $*: exit $rc, want $want; out '$out' err '$(cat "$GR_TMP/cli.err")'"
}
json() { "$GR_PYTHON" -c "import json,sys; d=json.load(sys.stdin); print($1)" <<<"$out" ||
    gr_fail "not JSON, or no $1: '$out'"; }

run "$other" 0 topics create --topic $TOPIC --partitions $PARTS
[ "$out" = "Created topic $TOPIC." ] || gr_fail "create: '$out'"
cl_wait_all_led $TOPIC $PARTS
run "$other" 0 topics describe --topic $TOPIC --json
[ "$(json 'len(d[0]["partitions"])')" = $PARTS ] || gr_fail "describe: not $PARTS partitions: $out"
[ "$(json 'sorted(set(p["leader"] for p in d[0]["partitions"]))')" = "[0, 1, 2]" ] ||
    gr_fail "describe: the partitions are not led by all three brokers: $out"

run "$other" 0 topics add-partitions --topic $TOPIC --partitions $GROWN
[ "$out" = "Added partitions to topic $TOPIC." ] || gr_fail "add-partitions: '$out'"
cl_wait_all_led $TOPIC $GROWN
run "$third" 0 topics describe --topic $TOPIC --json
[ "$(json 'len(d[0]["partitions"])')" = $GROWN ] || gr_fail "describe after add-partitions: $out"

# A config altered through one broker, read back through each of the others.
run "$other" 0 configs alter --entity-type topics --entity-name $TOPIC --add-config retention.ms=7654321
config_is()
{
    local i=$1 key=$2 want=$3 got
    got=$("$ADMIN" --bootstrap-server "$(cl_addr "$i")" configs describe --topic $TOPIC --json 2>/dev/null |
        "$GR_PYTHON" -c "import json,sys; print([c['value'] for c in json.load(sys.stdin) if c['name']=='$key'])") || return 1
    [ "$got" = "['$want']" ]
}
for i in "$third" "$CL_CONTROLLER"; do
    gr_wait_until "$CL_WAIT_S" "broker $i describing retention.ms=7654321" config_is "$i" retention.ms 7654321
done

# max.message.bytes, set through broker $other, enforced by every leader.
# Before: a BIG record is accepted by a partition of each broker.
produce_big()
{
    gr_prog roundtrip -b "$GR_BOOTSTRAP" -t $TOPIC -p "$1" -n 1 -s $BIG -m produce -w 30 \
        -X message.max.bytes=10000000 "${@:2}" >>"$GR_TMP/produce.out" 2>&1
}
declare -a part_of
for i in 0 1 2; do
    part_of[i]=$(cl_led_by $TOPIC "$i" | head -n 1)
    [ -n "${part_of[$i]}" ] || gr_fail "broker $i leads no partition of $TOPIC"
    produce_big "${part_of[$i]}" || gr_fail "a $BIG-byte record to partition ${part_of[$i]} (led by $i) was refused before the limit: $(tail -n 3 "$GR_TMP/produce.out")"
done
run "$other" 0 configs alter --topic $TOPIC --add-config max.message.bytes=$SMALL
for i in 0 1 2; do
    gr_wait_until "$CL_WAIT_S" "a $BIG-byte record to partition ${part_of[$i]} (led by broker $i) refused with MESSAGE_TOO_LARGE" \
        produce_big "${part_of[$i]}" -x MSG_SIZE_TOO_LARGE
    gr_note "broker $i refuses $BIG-byte records to partition ${part_of[$i]} (max.message.bytes=$SMALL set through broker $other)"
done

# Delete: gone from every broker's metadata and log dirs.
[ -n "$(ls -d "$GR_TMP"/b*/logs/$TOPIC-* 2>/dev/null)" ] || gr_fail "no log directory of $TOPIC before deleting it"
run "$other" 0 topics delete --topic $TOPIC
[ "$out" = "Deleted topic $TOPIC." ] || gr_fail "delete: '$out'"
topic_gone()
{
    local i
    for i in 0 1 2; do
        [ "$(cl_state "$i" leaders $TOPIC 2>/dev/null)" = "error 3" ] || return 1
    done
    [ -z "$(ls -d "$GR_TMP"/b*/logs/$TOPIC-* 2>/dev/null)" ]
}
gr_wait_until "$CL_WAIT_S" "$TOPIC gone from every broker's metadata and log dirs" topic_gone
run "$third" 0 topics list
! grep -q "$TOPIC" <<<"$out" || gr_fail "topics list still shows $TOPIC: $out"
gr_pass
