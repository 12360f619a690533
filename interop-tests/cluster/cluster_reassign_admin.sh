#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# gregor-admin reassign-partitions in a 3-broker cluster, bootstrapped on a
# broker that is not the controller (the reassignment APIs are the
# controller's):
#  - mv has two partitions of replication factor 1, both on broker 0, with
#    records in them; --execute with a file moving mv-0 to brokers 1,2 and
#    mv-1 to 2,1 prints the current assignment (to roll back with) and
#    "Successfully started partition reassignments for mv-0,mv-1";
#  - --verify is polled until it exits 0 ("is completed" for both);
#    --list then finds no reassignment;
#  - every broker's Metadata has the target replicas in order, broker 0's
#    partition directories are removed, the new replicas are byte for byte
#    the same, and every record produced before the move is consumed;
#  - a reassignment held in progress (a target broker frozen): --verify
#    "is still in progress" (exit 1), --list shows its adding and removing
#    replicas, --cancel stops it;
#  - --cancel with nothing in progress reports NO_REASSIGNMENT_IN_PROGRESS
#    per partition (exit 1); --execute naming a broker that does not exist
#    is refused (exit 1); --generate proposes the placement over 1,2.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
ADMIN=$(dirname "$GR_BROKER")/gregor-admin
[ -x "$ADMIN" ] || gr_fail "no gregor-admin next to $GR_BROKER"
TOPIC="mv"
RECORDS=2000

cl_start_cluster 3
cl_create_assigned 0 $TOPIC 0/0
[ "$(cl_replica_dirs $TOPIC 0)|$(cl_replica_dirs $TOPIC 1)" = "0|0" ] ||
    gr_fail "$TOPIC not on broker 0 alone: $(cl_replica_dirs $TOPIC 0)|$(cl_replica_dirs $TOPIC 1)"
gr_prog roundtrip -b "$GR_BOOTSTRAP" -t $TOPIC -n $RECORDS -m produce -w 60 >"$GR_TMP/produce.out" 2>&1 ||
    gr_fail "producing to $TOPIC: $(tail -n 3 "$GR_TMP/produce.out")"

other=$(cl_non_controller)
gr_note "controller $CL_CONTROLLER; gregor-admin bootstraps on broker $other"
# ga WANT_RC ARGS...: gregor-admin bootstrapped on $other; sets out, err.
ga()
{
    local want=$1 rc=0
    shift
    out=$("$ADMIN" --bootstrap-server "$(cl_addr "$other")" "$@" 2>"$GR_TMP/cli.err") || rc=$?
    err=$(cat "$GR_TMP/cli.err")
    [ "$rc" = "$want" ] || gr_fail "gregor-admin $*: exit $rc, want $want; out '$out' err '$err'"
}

# --generate: only Metadata; the proposal over brokers 1,2 keeps factor 1.
printf '{"version":1,"topics":[{"topic":"%s"}]}\n' $TOPIC >"$GR_TMP/topics.json"
ga 0 reassign-partitions --generate --topics-to-move-json-file "$GR_TMP/topics.json" --broker-list 1,2 --json
got=$("$GR_PYTHON" -c 'import json, sys
d = json.load(sys.stdin)
print([p["replicas"] for p in d["current"]["partitions"]], [p["replicas"] for p in d["proposed"]["partitions"]])' <<<"$out")
[ "$got" = "[[0], [0]] [[1], [2]]" ] || gr_fail "--generate: $got ($out)"

cat >"$GR_TMP/plan.json" <<EOF
{"version":1,"partitions":[
  {"topic":"$TOPIC","partition":0,"replicas":[1,2],"log_dirs":["any","any"]},
  {"topic":"$TOPIC","partition":1,"replicas":[2,1]}]}
EOF
ga 0 reassign-partitions --execute --reassignment-json-file "$GR_TMP/plan.json"
want=$(printf '%s\n\n%s\n\n%s\n%s' "Current partition replica assignment" \
    '{"version":1,"partitions":[{"topic":"mv","partition":0,"replicas":[0],"log_dirs":["any"]},{"topic":"mv","partition":1,"replicas":[0],"log_dirs":["any"]}]}' \
    "Save this to use as the --reassignment-json-file option during rollback" \
    "Successfully started partition reassignments for mv-0,mv-1")
[ "$out" = "$want" ] || gr_fail "--execute printed '$out'"
printf '%s\n' "$(sed -n 3p <<<"$out")" >"$GR_TMP/rollback.json"

# shellcheck disable=SC2317
verified()
{
    "$ADMIN" --bootstrap-server "$(cl_addr "$other")" reassign-partitions --verify \
        --reassignment-json-file "$GR_TMP/plan.json" >"$GR_TMP/verify.out" 2>&1
}
gr_wait_until "$CL_WAIT_S" "--verify reporting both partitions complete" verified
want=$(printf '%s\n%s\n%s' "Status of partition reassignment:" \
    "Reassignment of partition mv-0 is completed." "Reassignment of partition mv-1 is completed.")
[ "$(cat "$GR_TMP/verify.out")" = "$want" ] || gr_fail "--verify printed '$(cat "$GR_TMP/verify.out")'"
ga 0 reassign-partitions --list
[ "$out" = "No partition reassignments found." ] || gr_fail "--list after completion: '$out'"
# The rollback file, verified now, names replicas the partitions no longer have.
ga 1 reassign-partitions --verify --reassignment-json-file "$GR_TMP/rollback.json"
grep -q "There is no active reassignment of partition mv-0, but replica set is 1,2 rather than 0." <<<"$out" ||
    gr_fail "--verify of the rollback file: '$out'"

# shellcheck disable=SC2317
replicas_everywhere()
{
    local i
    for i in $(cl_live); do
        [ "$(cl_state "$i" replicas $TOPIC 2>/dev/null | paste -sd'|')" = "0 1,2|1 2,1" ] || return 1
    done
}
gr_wait_until "$CL_WAIT_S" "every broker's Metadata: mv-0 on 1,2 and mv-1 on 2,1" replicas_everywhere
# shellcheck disable=SC2317
moved_dirs() { [ "$(cl_replica_dirs $TOPIC 0)|$(cl_replica_dirs $TOPIC 1)" = "1 2|1 2" ]; }
gr_wait_until "$CL_WAIT_S" "broker 0's directories of mv removed, 1 and 2 holding both" moved_dirs
gr_wait_until "$CL_WAIT_S" "every ISR of mv on both new replicas" cl_isr_size_is $TOPIC 2
gr_wait_until "$CL_WAIT_S" "the new replicas byte for byte the same" cl_replicas_equal $TOPIC 2
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t $TOPIC -n $RECORDS -m consume -w 60 2>"$GR_TMP/consume.err") ||
    gr_fail "consuming $TOPIC after the move: $out $(tail -n 3 "$GR_TMP/consume.err")"
gr_note "all $RECORDS records consumed after the move: $(tail -n 1 <<<"$out")"

# A reassignment held in progress: "held" on the controller alone, moved to
# the other two brokers while one of them is frozen (it cannot catch up).
# --verify says "still in progress" (exit 1), --list shows the adding and
# removing replicas, --cancel stops it and the partition keeps its replica.
cl_wait_stable "before holding a reassignment"
ctl=$CL_CONTROLLER
other=$(cl_non_controller)
for i in 0 1 2; do [ "$i" = "$ctl" ] || [ "$i" = "$other" ] || third=$i; done
cl_create_assigned "$ctl" held "$ctl"
printf '{"version":1,"partitions":[{"topic":"held","partition":0,"replicas":[%s,%s]}]}\n' \
    "$other" "$third" >"$GR_TMP/held.json"
cl_freeze_broker "$third"
ga 0 reassign-partitions --execute --reassignment-json-file "$GR_TMP/held.json"
[ "$(tail -n 1 <<<"$out")" = "Successfully started partition reassignments for held-0" ] ||
    gr_fail "--execute held: '$out'"
ga 1 reassign-partitions --verify --reassignment-json-file "$GR_TMP/held.json"
[ "$(tail -n 1 <<<"$out")" = "Reassignment of partition held-0 is still in progress." ] ||
    gr_fail "--verify held: '$out'"
ga 0 reassign-partitions --list
[ "$(head -n 1 <<<"$out")" = "Current partition reassignments:" ] || gr_fail "--list held: '$out'"
grep -q "^held-0: replicas: .*\. adding: $other,$third\. removing: $ctl\.$" <<<"$out" ||
    gr_fail "--list held: '$out'"
ga 0 reassign-partitions --list --json
[ "$("$GR_PYTHON" -c 'import json, sys; d = json.load(sys.stdin)["partitions"]; print(d[0]["topic"], d[0]["adding"], d[0]["removing"])' <<<"$out")" = \
    "held [$other, $third] [$ctl]" ] || gr_fail "--list --json held: '$out'"
ga 0 reassign-partitions --cancel --reassignment-json-file "$GR_TMP/held.json"
[ "$out" = "Successfully cancelled partition reassignments for: held-0" ] || gr_fail "--cancel held: '$out'"
ga 0 reassign-partitions --list
[ "$out" = "No partition reassignments found." ] || gr_fail "--list after --cancel: '$out'"
cl_thaw_broker "$third"
cl_wait_stable "broker $third thawed"
# shellcheck disable=SC2317
held_back() { [ "$(cl_state "$ctl" replicas held 2>/dev/null)" = "0 $ctl" ]; }
gr_wait_until "$CL_WAIT_S" "held-0 back on broker $ctl alone" held_back

# Nothing to cancel; a target broker that does not exist.
ga 1 reassign-partitions --cancel --reassignment-json-file "$GR_TMP/plan.json"
[ "$(grep -c NO_REASSIGNMENT_IN_PROGRESS <<<"$err")" = 2 ] || gr_fail "--cancel with nothing in progress: '$err'"
cat >"$GR_TMP/ghost.json" <<EOF
{"version":1,"partitions":[{"topic":"$TOPIC","partition":0,"replicas":[1,7]}]}
EOF
ga 1 reassign-partitions --execute --reassignment-json-file "$GR_TMP/ghost.json"
grep -q "broker 7" <<<"$err" || gr_fail "--execute to broker 7: '$err'"
gr_pass
