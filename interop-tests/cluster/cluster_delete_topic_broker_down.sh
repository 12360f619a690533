#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Delete a topic while one of the brokers holding it is down: DeleteTopics is
# accepted (answered at once or at its timeout, as ZooKeeper-mode Kafka does
# while the deletion waits for that broker) and the deletion stays queued in
# /admin/delete_topics; once the broker returns it completes: the topic is
# gone from every broker's metadata, from /brokers/topics and from
# /admin/delete_topics, and no broker keeps a log directory of it. A topic of
# the same name can then be created again, empty, and without the offsets a
# group committed for the old one (Kafka's coordinator drops them when the
# controller announces the deletion).
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
PARTS=6
REQUEST_TIMED_OUT=7

cl_start_cluster 3
for topic in doomed kept; do
    out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic $PARTS 1) || gr_fail "admin create $topic failed: $out"
    [ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
    cl_wait_all_led $topic $PARTS
    out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t $topic -m produce -n 300 -w 60) || gr_fail "producing to $topic failed: $(tail -n 1 <<<"$out")"
done
victim=$(cl_non_controller)
# A group whose coordinator stays up through the deletion commits to doomed-0
# (a coordinator that is down misses the announcement, in Kafka too).
group=
for n in 0 1 2 3 4 5 6 7 8 9; do
    coordinator=$(cl_state "$CL_CONTROLLER" coordinator "doomed_group_$n") || gr_fail "FindCoordinator failed"
    [ "${coordinator#0 }" = "$coordinator" ] || [ "${coordinator#0 }" = "$victim" ] || { group=doomed_group_$n; break; }
done
[ -n "$group" ] || gr_fail "no group of doomed_group_0..9 is coordinated by a broker other than $victim"
out=$(gr_prog commit_loop -b "$GR_BOOTSTRAP" -g "$group" -t doomed -n 5) || gr_fail "committing to doomed failed: $out"
out=$(gr_prog commit_loop -b "$GR_BOOTSTRAP" -g "$group" -t doomed -r) || gr_fail "reading $group's offset failed"
[ "$out" = "offset 5" ] || gr_fail "$group's offset of doomed-0 before the delete: '$out', want 'offset 5'"
[ -n "$(cl_led_by doomed "$victim")" ] || gr_fail "broker $victim holds no partition of doomed"
cl_kill9_broker "$victim"
cl_wait_stable "broker $victim gone"

got=$(cl_state "$CL_CONTROLLER" delete doomed 3000) || gr_fail "DeleteTopics to the controller got no answer"
[ "$got" = 0 ] || [ "$got" = "$REQUEST_TIMED_OUT" ] || gr_fail "DeleteTopics answered $got, want 0 or REQUEST_TIMED_OUT"
pending=$(cl_zk ls "$CL_ZK_CHROOT/admin/delete_topics") || gr_fail "zkCli ls /admin/delete_topics failed"
# Unless the broker came back already, nothing can have finished the deletion.
[ "$pending" = "[doomed]" ] || gr_fail "/admin/delete_topics holds '$pending' while broker $victim is down, want [doomed]"

cl_start_broker "$victim"
gr_wait_until "$CL_WAIT_S" "doomed gone from every broker's metadata and log dirs" cl_topic_gone doomed
cl_wait_stable "broker $victim back"
topics=$(cl_zk ls "$CL_ZK_CHROOT/brokers/topics") || gr_fail "zkCli ls /brokers/topics failed"
[[ "$topics" != *doomed* ]] || gr_fail "/brokers/topics still lists doomed: $topics"
pending=$(cl_zk ls "$CL_ZK_CHROOT/admin/delete_topics") || gr_fail "zkCli ls /admin/delete_topics failed"
[ "$pending" = "[]" ] || gr_fail "/admin/delete_topics holds '$pending' after the deletion completed"

# The other topic is untouched; the name is free again.
cl_wait_all_led kept $PARTS
n=$(timeout "$GR_CMD_TIMEOUT_S" "$GR_KCAT" -b "$GR_BOOTSTRAP" -C -t kept -o beginning -e -q -f '%o\n' | wc -l)
[ "$n" = 300 ] || gr_fail "topic kept has $n records after the other's deletion, want 300"
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create doomed 3 1) || gr_fail "admin create doomed again failed: $out"
[ "$out" = "doomed NO_ERROR" ] || gr_fail "creating doomed again: $out"
cl_wait_all_led doomed 3
n=$(timeout "$GR_CMD_TIMEOUT_S" "$GR_KCAT" -b "$GR_BOOTSTRAP" -C -t doomed -o beginning -e -q -f '%o\n' | wc -l)
[ "$n" = 0 ] || gr_fail "re-created topic doomed holds $n records, want none"
out=$(gr_prog commit_loop -b "$GR_BOOTSTRAP" -g "$group" -t doomed -r) || gr_fail "reading $group's offset failed"
[ "$out" = "offset -1001" ] || gr_fail "$group's offset of the re-created doomed-0: '$out', want none (-1001)"
gr_pass
