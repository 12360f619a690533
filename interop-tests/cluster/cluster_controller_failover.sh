#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# kill -9 the controller: once its ZooKeeper session expires (6 s here) the
# two others elect one of themselves, /controller names it and the
# controller epoch grows; then admin requests work again: CreateTopics to the
# new controller succeeds, to the other broker gets NOT_CONTROLLER, and
# librdkafka's admin client creates a topic through either bootstrap broker
# (it retries on the controller). The new topic's partitions are led by the
# live brokers only. When the old controller returns it registers as an
# ordinary broker (the controller stays), takes its share of a topic created
# afterwards, and serves records.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
NOT_CONTROLLER=41

cl_start_cluster 3
old=$CL_CONTROLLER
epoch=$(cl_zk get "$CL_ZK_CHROOT/controller_epoch") || gr_fail "zkCli get /controller_epoch failed"
cl_kill9_broker "$old"

# The survivors see a new controller only after the dead one's session
# expires and they win the race for /controller.
cl_wait_stable "a new controller after broker $old was killed"
new=$CL_CONTROLLER
[ "$new" != "$old" ] || gr_fail "killed broker $old still the controller"
zk_controller=$(cl_zk_field "$CL_ZK_CHROOT/controller" brokerid)
[ "$zk_controller" = "$new" ] || gr_fail "/controller names broker $zk_controller, brokers report $new"
new_epoch=$(cl_zk get "$CL_ZK_CHROOT/controller_epoch")
[ "$new_epoch" -gt "$epoch" ] || gr_fail "/controller_epoch is $new_epoch after the failover, was $epoch"

other=$(cl_non_controller)
got=$(cl_state "$other" create after-failover-raw 2) || gr_fail "CreateTopics to broker $other got no answer"
[ "$got" = "$NOT_CONTROLLER" ] || gr_fail "CreateTopics to broker $other (controller is $new) answered $got, want NOT_CONTROLLER"
got=$(cl_state "$new" create after-failover-raw 4) || gr_fail "CreateTopics to controller $new got no answer"
[ "$got" = 0 ] || gr_fail "CreateTopics to the new controller $new answered $got, want 0"
cl_wait_all_led after-failover-raw 4
for i in "$other" "$new"; do
    out=$(gr_prog admin -b "$(cl_addr "$i")" create "via-$i" 4 1) || gr_fail "admin create through broker $i failed: $out"
    [ "$out" = "via-$i NO_ERROR" ] || gr_fail "creating via-$i through broker $i: $out"
    cl_wait_all_led "via-$i" 4
done
[ -z "$(ls -d "$GR_TMP/b$old"/logs/after-failover-raw-* "$GR_TMP/b$old"/logs/via-* 2>/dev/null)" ] ||
    gr_fail "the dead broker $old got log directories"
out=$(gr_prog roundtrip -b "$(cl_bootstrap)" -t "via-$other" -n 400 -w 60) || gr_fail "roundtrip after the failover: $(tail -n 1 <<<"$out")"

# The old controller returns as an ordinary broker.
cl_start_broker "$old"
cl_wait_stable "broker $old back"
[ "$CL_CONTROLLER" = "$new" ] || gr_fail "controller moved from $new to $CL_CONTROLLER when broker $old returned"
out=$(gr_prog admin -b "$(cl_addr "$old")" create after-return 6 1) || gr_fail "admin create through broker $old failed: $out"
[ "$out" = "after-return NO_ERROR" ] || gr_fail "creating after-return through broker $old: $out"
cl_wait_all_led after-return 6
[ -n "$(cl_led_by after-return "$old")" ] || gr_fail "returned broker $old leads no partition of a topic created after its return"
GR_BOOTSTRAP=$(cl_addr "$old")
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t after-return -n 600 -w 60) || gr_fail "roundtrip through broker $old: $(tail -n 1 <<<"$out")"
gr_pass
