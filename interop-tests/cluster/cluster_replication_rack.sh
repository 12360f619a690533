#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fetch from followers (KIP-392): brokers in racks rack-0..2 with
# replica.selector.class=RackAwareReplicaSelector; a partition replicated on
# all three. A kcat consumer with client.rack set to a follower's rack is sent
# there by the leader (preferred read replica) and reads every record from
# it: at shutdown that follower reports record bytes served to consumers,
# the other follower none.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
topic=near
COUNT=200
CL_RACKS=(rack-0 rack-1 rack-2)

cl_start_cluster 3 replica.selector.class=org.apache.kafka.common.replica.RackAwareReplicaSelector
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create $topic 1 3) || gr_fail "admin create failed: $out"
[ "$out" = "$topic NO_ERROR" ] || gr_fail "creating $topic: $out"
cl_wait_all_led $topic 1
gr_wait_until "$CL_WAIT_S" "every broker to see an ISR of 3" cl_isr_size_is $topic 3

leader=$(cl_state 0 isr $topic | awk '$1 == 0 { print $2 }')
read -r near other <<<"$(cl_live | tr ' ' '\n' | grep -vx "$leader" | tr '\n' ' ')"
got=$(cl_state "$leader" produce $topic 0 -1 $COUNT) || gr_fail "acks=-1 produce got no answer"
[ "$got" = "0 0" ] || gr_fail "acks=-1 produce answered '$got', want '0 0'"
# The follower serves up to its own high watermark, which follows the
# leader's: the consumer's long poll there waits for it.
gr_note "leader $leader (${CL_RACKS[$leader]}), consumer in ${CL_RACKS[$near]} with broker $near"

count=$(timeout "$GR_CMD_TIMEOUT_S" "$GR_KCAT" -b "$(cl_addr "$leader")" -X "client.rack=${CL_RACKS[$near]}" \
    -C -t $topic -o beginning -c $COUNT -q -f '%o\n' | wc -l)
[ "$count" = $COUNT ] || gr_fail "the rack-aware consumer read $count records, want $COUNT"

served() # I: record bytes broker I put into fetch responses, from its shutdown line
{
    sed -nE 's/.*fetch responses carried ([0-9]+) record bytes.*/\1/p' "$(cl_broker_log "$1")" | tail -n 1
}
cl_stop_broker "$near"
cl_stop_broker "$other"
[ "$(served "$near")" -gt 0 ] || gr_fail "broker $near (the consumer's rack) served no record bytes"
[ "$(served "$other")" = 0 ] || gr_fail "broker $other (another rack) served $(served "$other") record bytes to consumers"
gr_note "broker $near served $(served "$near") record bytes to the consumer"
gr_pass
