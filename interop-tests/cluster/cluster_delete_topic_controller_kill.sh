#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A topic deletion that outlives its controller: with a broker holding the
# topic down, the deletion waits in /admin/delete_topics; the controller is
# then killed with -9 and started again (another broker takes over), and
# only after that does the down broker return. The next controller reads
# the queued deletion back and finishes it: the topic is gone from every
# broker's metadata, from /brokers/topics, from /admin/delete_topics and
# from every log dir, and the other topic keeps all its records.
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
    out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t $topic -m produce -n 300 -w 60) ||
        gr_fail "producing to $topic failed: $(tail -n 1 <<<"$out")"
done
victim=$(cl_non_controller)
first_controller=$CL_CONTROLLER
[ -n "$(cl_led_by doomed "$victim")" ] || gr_fail "broker $victim holds no partition of doomed"
cl_kill9_broker "$victim"
cl_wait_stable "broker $victim gone"

got=$(cl_state "$CL_CONTROLLER" delete doomed 2000) || gr_fail "DeleteTopics to the controller got no answer"
[ "$got" = 0 ] || [ "$got" = "$REQUEST_TIMED_OUT" ] || gr_fail "DeleteTopics answered $got, want 0 or REQUEST_TIMED_OUT"
pending=$(cl_zk ls "$CL_ZK_CHROOT/admin/delete_topics") || gr_fail "zkCli ls /admin/delete_topics failed"
[ "$pending" = "[doomed]" ] || gr_fail "/admin/delete_topics holds '$pending' while broker $victim is down, want [doomed]"

cl_kill9_broker "$first_controller"
cl_wait_stable "a new controller without brokers $victim and $first_controller"
[ "$CL_CONTROLLER" != "$first_controller" ] || gr_fail "broker $first_controller still reported as controller"
gr_note "broker $CL_CONTROLLER took over from $first_controller"
cl_start_broker "$first_controller"
cl_wait_stable "broker $first_controller back"
pending=$(cl_zk ls "$CL_ZK_CHROOT/admin/delete_topics") || gr_fail "zkCli ls /admin/delete_topics failed"
[ "$pending" = "[doomed]" ] || gr_fail "/admin/delete_topics holds '$pending' with broker $victim still down, want [doomed]"

cl_start_broker "$victim"
GR_BOOTSTRAP=$(cl_bootstrap)
gr_wait_until "$CL_WAIT_S" "doomed gone from every broker's metadata and log dirs" cl_topic_gone doomed
cl_wait_stable "broker $victim back"
topics=$(cl_zk ls "$CL_ZK_CHROOT/brokers/topics") || gr_fail "zkCli ls /brokers/topics failed"
[[ "$topics" != *doomed* ]] || gr_fail "/brokers/topics still lists doomed: $topics"
pending=$(cl_zk ls "$CL_ZK_CHROOT/admin/delete_topics") || gr_fail "zkCli ls /admin/delete_topics failed"
[ "$pending" = "[]" ] || gr_fail "/admin/delete_topics holds '$pending' after the deletion completed"

cl_wait_all_led kept $PARTS
n=$(timeout "$GR_CMD_TIMEOUT_S" "$GR_KCAT" -b "$GR_BOOTSTRAP" -C -t kept -o beginning -e -q -f '%o\n' | wc -l)
[ "$n" = 300 ] || gr_fail "topic kept has $n records after the other's deletion, want 300"
gr_pass
