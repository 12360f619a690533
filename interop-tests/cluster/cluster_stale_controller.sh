#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Controller epoch fencing: after a controller failover (epoch 2 in
# /controller_epoch), UpdateMetadata and LeaderAndIsr sent by hand with an
# older epoch, claiming the old controller, are answered
# STALE_CONTROLLER_EPOCH by every broker, and what they carried (a broker
# 99, a new leader at a high leader epoch) changes nothing in any broker's
# metadata. The same UpdateMetadata at the current epoch is applied (the
# check would see the change), so the refusal is the epoch's doing.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
STALE_CONTROLLER_EPOCH=11
FORGED=99
TOPIC=fenced

cl_start_cluster 3
first=$CL_CONTROLLER
# A failover, so that the stale controller is a real former one.
cl_stop_broker "$first"
cl_wait_stable "a new controller after broker $first stopped"
cl_start_broker "$first"
cl_wait_stable "broker $first back"
epoch=$(cl_zk get "$CL_ZK_CHROOT/controller_epoch") || gr_fail "zkCli get /controller_epoch failed"
[[ "$epoch" =~ ^[0-9]+$ ]] && [ "$epoch" -ge 2 ] || gr_fail "/controller_epoch holds '$epoch', want 2 or more after a failover"
gr_note "controller $CL_CONTROLLER at epoch $epoch; former controller $first"
out=$(gr_prog admin -b "$(cl_addr "$CL_CONTROLLER")" create $TOPIC 3 1) || gr_fail "creating $TOPIC failed: $out"
cl_wait_all_led $TOPIC 3

views() { local i; for i in 0 1 2; do echo "$i: [$(cl_state "$i" brokers)] $(cl_state "$i" controller) $(cl_state "$i" leaders $TOPIC | tr '\n' ' ')"; done; }
before=$(views)
for i in 0 1 2; do
    for kind in update-metadata leader-and-isr; do
        got=$(cl_state "$i" $kind "$first" $((epoch - 1)) $TOPIC $FORGED) || gr_fail "$kind to broker $i got no answer"
        [ "$got" = $STALE_CONTROLLER_EPOCH ] || gr_fail "$kind at epoch $((epoch - 1)) (current $epoch) to broker $i answered $got, want STALE_CONTROLLER_EPOCH"
    done
done
after=$(views)
[ "$after" = "$before" ] || gr_fail "stale requests changed the metadata: before
$before
after
$after"

# Positive control: the same UpdateMetadata at the current epoch is applied
# (the target is not the controller, whose own view would be pushed again).
target=$(cl_non_controller)
got=$(cl_state "$target" update-metadata "$CL_CONTROLLER" "$epoch" ghost "$CL_CONTROLLER") || gr_fail "UpdateMetadata at the current epoch got no answer"
[ "$got" = 0 ] || gr_fail "UpdateMetadata at the current epoch answered $got, want 0"
[ "$(cl_state "$target" leaders ghost)" = "0 $CL_CONTROLLER 0" ] ||
    gr_fail "UpdateMetadata at the current epoch was not applied: $(cl_state "$target" leaders ghost 2>&1)"
gr_pass
