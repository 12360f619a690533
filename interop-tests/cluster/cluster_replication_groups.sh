#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A group's committed offsets survive its coordinator's death when
# __consumer_offsets is replicated: with offsets.topic.replication.factor=3
# (an override after clusterlib.sh's default of 1, which the last one wins),
# every __consumer_offsets partition has 3 replicas. A topic of 3 partitions
# on all 3 brokers gets records; member c1 of a group consumes them,
# committing every record synchronously, and is killed; more records come.
# group_admin's ListConsumerGroupOffsets answers c1's last commits. Once
# every replica of the group's __consumer_offsets partition holds them, the
# coordinator (not the controller) is killed with SIGKILL: every surviving
# broker then names another live broker for the group in FindCoordinator,
# that one answers the same committed offsets, and a new member c2 resumes
# there: c1 and c2 together consumed every record exactly once (c1
# committed each record before consuming the next and its last commit
# before it was killed, so at-least-once allows no redelivery here). The
# killed broker, restarted on its log dirs, rejoins the cluster and catches
# its __consumer_offsets replica up; the group keeps working: c3 reads only
# what is produced afterwards, and the committed offsets are the
# partitions' ends.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/grouplib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
OFFSETS_PARTS=6
OFFSETS_RF=3
PARTS=3
RF=3
topic=grdata
gm_topic $topic $PARTS
SYNC_WAIT_S=${SYNC_WAIT_S:-60}
# How long a follower's fetch waits for data (Kafka's default, 500): it
# learns a high watermark its own fetch moved only when that wait ends.
FETCH_WAIT_MS=${FETCH_WAIT_MS:-500}

cl_start_cluster 3 offsets.topic.num.partitions=$OFFSETS_PARTS offsets.topic.replication.factor=$OFFSETS_RF \
    replica.lag.time.max.ms=10000 replica.fetch.wait.max.ms="$FETCH_WAIT_MS"
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic $PARTS $RF) || gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic $PARTS

# The first FindCoordinator creates __consumer_offsets; wait for its leaders.
# shellcheck disable=SC2317
coordinator_found() { [ "$(cl_state "$CL_CONTROLLER" coordinator "$1" 2>/dev/null | cut -d' ' -f1)" = 0 ]; }
gr_wait_until "$CL_WAIT_S" "FindCoordinator to succeed (__consumer_offsets created)" coordinator_found probe
cl_wait_all_led __consumer_offsets $OFFSETS_PARTS
replicas=$(cl_state "$CL_CONTROLLER" replicas __consumer_offsets)
awk -v rf=$OFFSETS_RF '{ if (split($2, r, ",") != rf) bad = 1 } END { exit bad || NR == 0 }' <<<"$replicas" ||
    gr_fail "__consumer_offsets does not have $OFFSETS_RF replicas per partition (the later --override offsets.topic.replication.factor=$OFFSETS_RF lost?): $(tr '\n' ';' <<<"$replicas")"

# A group coordinated by a broker other than the controller: the test is
# about the coordinator's failover, not the controller's (other tests kill
# that one).
group='' victim=''
for ((n = 0; n < 200; n++)); do
    node=$(cl_state "$CL_CONTROLLER" coordinator "rgroup-$n" | awk '$1 == 0 { print $2 }')
    if [ -n "$node" ] && [ "$node" != "$CL_CONTROLLER" ]; then
        group=rgroup-$n victim=$node
        break
    fi
done
[ -n "$group" ] || gr_fail "no group coordinated by another broker than the controller $CL_CONTROLLER"
# Its __consumer_offsets partition: Kafka's abs(String.hashCode) modulo the
# partition count (abs of INT_MIN is 0); its leader is the coordinator.
# (Java hashes UTF-16 code units; the group name is ASCII.)
offsets_part=$("$GR_PYTHON" -c '
import sys
h = 0
for c in sys.argv[1]:
    h = (31 * h + ord(c)) & 0xffffffff
h = h - (1 << 32) if h >= 1 << 31 else h
print((0 if h == -(1 << 31) else abs(h)) % int(sys.argv[2]))' "$group" $OFFSETS_PARTS)
leader=$(cl_state "$CL_CONTROLLER" leaders __consumer_offsets | awk -v p="$offsets_part" '$1 == p { print $2 }')
[ "$leader" = "$victim" ] ||
    gr_fail "group $group hashes to __consumer_offsets-$offsets_part, led by broker $leader, but its coordinator is broker $victim"
gr_note "group $group: __consumer_offsets-$offsets_part, coordinator broker $victim (controller $CL_CONTROLLER)"

# "TOPIC PARTITION OFFSET" of the group's committed offsets, as
# ListConsumerGroupOffsets answers through broker $1 (librdkafka asks it
# for the coordinator, then the coordinator); on any error returns 1 with
# the answer in $GR_TMP/admin.err.
admin_offsets()
{
    local out rc=0
    rm -f "$GR_TMP/admin.err"
    out=$(gr_prog group_admin -b "$(cl_addr "$1")" offsets "$group" 2>&1) || rc=$?
    if [ $rc != 0 ] || ! grep -q "^result $group NO_ERROR$" <<<"$out" ||
        awk '$1 == "offset" && $6 != "NO_ERROR"' <<<"$out" | grep -q .; then
        echo "group_admin offsets $group via broker $1: exit $rc: $(tr '\n' ';' <<<"$out")" >"$GR_TMP/admin.err"
        return 1
    fi
    awk '$1 == "offset" { print $3, $4, $5 }' <<<"$out" | sort
}
check_admin_offsets() # BROKER WANT DESC
{
    local got
    got=$(admin_offsets "$1") || gr_fail "$3: $(cat "$GR_TMP/admin.err")"
    [ "$got" = "$2" ] || gr_fail "$3: committed offsets via broker $1 are '$(tr '\n' ';' <<<"$got")', want '$(tr '\n' ';' <<<"$2")'"
    gr_note "$3: committed offsets via broker $1: $(tr '\n' ';' <<<"$got")"
}

# c1 commits each record before it reads the next, so once it committed the
# ends and is killed (SIGKILL: no LeaveGroup record after its last commit,
# which stays the partition's last record until its session expires) no
# record is uncommitted. Then more records come, for c2.
gm_produce $topic 150
gm_start c1 -g "$group" -t $topic -c sync -s 6000 -w 60
gm_wait_consumed_all c1
gm_wait_committed_ends c1
gm_kill c1
committed=$(gm_positions c1)
check_admin_offsets "$victim" "$committed" "before the kill"
gm_produce $topic 150

# OffsetCommit is answered once the ISR has the commit; group membership
# records (c1's departure) are not waited for. So that the test knows what
# the new coordinator must replay, before the kill it waits until the
# group's partition is byte for byte the same on all 3 brokers and the
# leader's high watermark is its log end.
# shellcheck disable=SC2317
log_end() # BROKER: the log end offset of its replica of the group's partition
{
    cl_replica_bytes "$1" "__consumer_offsets-$offsets_part" "$GR_TMP/offsets.$1"
    "$GR_PYTHON" -c '
import struct, sys
data, pos, end = open(sys.argv[1], "rb").read(), 0, 0
while pos + 61 <= len(data):
    base, length = struct.unpack_from(">qi", data, pos)
    end = base + struct.unpack_from(">i", data, pos + 23)[0] + 1
    pos += 12 + length
print(end)' "$GR_TMP/offsets.$1"
}
# shellcheck disable=SC2317
commits_replicated()
{
    cl_replicas_equal __consumer_offsets "$((offsets_part + 1))" 0 1 2 || return 1
    local hw
    hw=$(cl_state "$victim" offsets __consumer_offsets 2>/dev/null | awk -v p="$offsets_part" '$1 == p && $2 == 0 { print $3 }')
    [ -n "$hw" ] && [ "$hw" = "$(log_end "$victim")" ]
}
gr_wait_until "$SYNC_WAIT_S" "the 3 replicas of __consumer_offsets-$offsets_part to hold the group's commits, under the high watermark" \
    commits_replicated
gr_note "__consumer_offsets-$offsets_part replicated, high watermark $(log_end "$victim")"

cl_kill9_broker "$victim"
GR_BOOTSTRAP=$(cl_bootstrap)
# shellcheck disable=SC2317
coordinator_moved() # every live broker names one live broker, not the victim
{
    local i got first=""
    for i in $(cl_live); do
        got=$(cl_state "$i" coordinator "$group" 2>/dev/null) || return 1
        [ -n "$first" ] || first=$got
        [ "$got" = "$first" ] || return 1
    done
    [[ $first =~ ^0\ ([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" != "$victim" ] &&
        [[ " $(cl_live) " == *" ${BASH_REMATCH[1]} "* ]] || return 1
    new_coordinator=${BASH_REMATCH[1]}
}
gr_wait_until "$CL_WAIT_S" "FindCoordinator($group) to name a live broker other than $victim on every live broker" coordinator_moved
offsets_hw() # BROKER: the high watermark it serves for the group's partition
{
    cl_state "$1" offsets __consumer_offsets 2>&1 | awk -v p="$offsets_part" '$1 == p { print $3 " (error " $2 ")" }'
}
gr_note "group $group now coordinated by broker $new_coordinator, whose high watermark of __consumer_offsets-$offsets_part is $(offsets_hw "$new_coordinator")"
cl_wait_all_led $topic $PARTS
# The new coordinator replays the partition when elected, to its log end
# (its high watermark may lag the old leader's: a follower learns the
# watermark its own fetch moved only with its next response); commits every
# replica held must all be there. (Polled: an answer may come before the
# replay ends.)
# shellcheck disable=SC2317
offsets_are() { local got; got=$(admin_offsets "$1") && [ "$got" = "$2" ]; }
deadline=$((SECONDS + CL_WAIT_S))
until offsets_are "$new_coordinator" "$committed"; do
    [ $SECONDS -lt $deadline ] ||
        gr_fail "after the kill, the new coordinator $new_coordinator answers committed offsets" \
            "'$(admin_offsets "$new_coordinator" | tr '\n' ';')$(cat "$GR_TMP/admin.err" 2>/dev/null)', want '$(tr '\n' ';' <<<"$committed")': commits all 3 replicas" \
            "held (log end $(log_end "$new_coordinator") on broker $new_coordinator, high watermark $(offsets_hw "$new_coordinator") now)" \
            "were lost in the failover"
    sleep 0.2
done
check_admin_offsets "$new_coordinator" "$committed" "after the kill, from the new coordinator"

# c2 resumes where c1 committed: nothing again, nothing skipped.
# (It joins while the group still holds c1, until c1's session expires.)
gm_start c2 -g "$group" -t $topic -c sync -n 150 -w 60
gm_wait_exit c2 0
gm_check_no_duplicates c1 c2
gm_consumed_all c1 c2 || gr_fail "group $group missed records: $(comm -23 <(sort -u "$GM_PRODUCED") <(gm_consumed c1 c2 | sort -u) | head -n 5 | tr '\n' ';')"
gm_committed_ends c1 c2 || gr_fail "group $group's commits $(gm_positions c1 c2 | tr '\n' ';') are not the ends $(gm_produced_ends | tr '\n' ';')"
check_admin_offsets "$new_coordinator" "$(gm_produced_ends)" "after c2, from the new coordinator"

# The killed broker comes back, rejoins, and its __consumer_offsets replica
# catches up; the group goes on wherever its coordinator now is.
cl_start_broker "$victim"
GR_BOOTSTRAP=$(cl_bootstrap)
cl_wait_stable "broker $victim back"
cl_wait_all_led __consumer_offsets $OFFSETS_PARTS
cl_wait_all_led $topic $PARTS
# shellcheck disable=SC2317
coordinator_agreed() # every live broker names the same live coordinator
{
    local i got first=""
    for i in $(cl_live); do
        got=$(cl_state "$i" coordinator "$group" 2>/dev/null) || return 1
        [ -n "$first" ] || first=$got
        [ "$got" = "$first" ] || return 1
    done
    [[ $first =~ ^0\ ([0-9]+)$ ]] && [[ " $(cl_live) " == *" ${BASH_REMATCH[1]} "* ]] || return 1
    coordinator=${BASH_REMATCH[1]}
}
gr_wait_until "$CL_WAIT_S" "FindCoordinator($group) to name one live broker on every broker" coordinator_agreed
gr_note "group $group coordinated by broker $coordinator after broker $victim's restart"
# shellcheck disable=SC2317
offsets_caught_up() { cl_replicas_equal __consumer_offsets "$((offsets_part + 1))" 0 1 2; }
gr_wait_until "$SYNC_WAIT_S" "broker $victim's replica of __consumer_offsets-$offsets_part to catch up" offsets_caught_up
check_admin_offsets "$coordinator" "$(gm_produced_ends)" "after broker $victim's restart"

gm_produce $topic 90
gm_start c3 -g "$group" -t $topic -c sync -n 90 -w 60
gm_wait_exit c3 0
gm_check_no_duplicates c1 c2 c3
gm_consumed_all c1 c2 c3 || gr_fail "group $group missed records: $(comm -23 <(sort -u "$GM_PRODUCED") <(gm_consumed c1 c2 c3 | sort -u) | head -n 5 | tr '\n' ';')"
gm_committed_ends c1 c2 c3 || gr_fail "group $group's commits $(gm_positions c1 c2 c3 | tr '\n' ';') are not the ends $(gm_produced_ends | tr '\n' ';')"
check_admin_offsets "$coordinator" "$(gm_produced_ends)" "after c3"
gr_pass
