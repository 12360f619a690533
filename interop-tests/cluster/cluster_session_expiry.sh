#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every broker's ZooKeeper session expires: all three are frozen (SIGSTOP)
# while ZooKeeper runs, until ZooKeeper has dropped their ephemeral nodes
# (/brokers/ids empty, no /controller). Thawed, each finds its session
# expired, opens a new one and registers again, and a controller is elected
# again (a higher controller epoch). Then the cluster serves as before: the
# old topic's records are all there and its partitions led, a new topic is
# created and used.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
PARTS=6

cl_start_cluster 3
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create before $PARTS 1) || gr_fail "admin create failed: $out"
[ "$out" = "before NO_ERROR" ] || gr_fail "creating before: $out"
cl_wait_all_led before $PARTS
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t before -m produce -n 500 -w 60) || gr_fail "producing failed: $(tail -n 1 <<<"$out")"
epoch=$(cl_zk get "$CL_ZK_CHROOT/controller_epoch") || gr_fail "zkCli get /controller_epoch failed"

for i in 0 1 2; do cl_freeze_broker "$i"; done
# shellcheck disable=SC2317
sessions_expired() { [ "$(cl_zk ls "$CL_ZK_CHROOT/brokers/ids" 2>/dev/null)" = "[]" ]; }
gr_wait_until "$CL_WAIT_S" "ZooKeeper to expire the frozen brokers' sessions (/brokers/ids empty)" sessions_expired
! cl_zk get "$CL_ZK_CHROOT/controller" >/dev/null 2>&1 || gr_fail "/controller still exists after every session expired"
for i in 0 1 2; do cl_thaw_broker "$i"; done

cl_wait_stable "brokers registered again after session expiry"
ids=$(cl_zk ls "$CL_ZK_CHROOT/brokers/ids") || gr_fail "zkCli ls /brokers/ids failed"
[ "$ids" = "[0, 1, 2]" ] || gr_fail "/brokers/ids holds '$ids' after re-registration, want [0, 1, 2]"
zk_controller=$(cl_zk_field "$CL_ZK_CHROOT/controller" brokerid)
[ "$zk_controller" = "$CL_CONTROLLER" ] || gr_fail "/controller names broker $zk_controller, brokers report $CL_CONTROLLER"
new_epoch=$(cl_zk get "$CL_ZK_CHROOT/controller_epoch")
[ "$new_epoch" -gt "$epoch" ] || gr_fail "/controller_epoch is $new_epoch after re-election, was $epoch"

cl_wait_all_led before $PARTS
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t before -m consume -n 500 -w 60) || gr_fail "reading before back failed: $(tail -n 1 <<<"$out")"
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create after $PARTS 1) || gr_fail "admin create after failed: $out"
[ "$out" = "after NO_ERROR" ] || gr_fail "creating after: $out"
cl_wait_all_led after $PARTS
out=$(gr_prog roundtrip -b "$GR_BOOTSTRAP" -t after -n 300 -w 60) || gr_fail "roundtrip on after failed: $(tail -n 1 <<<"$out")"
gr_pass
