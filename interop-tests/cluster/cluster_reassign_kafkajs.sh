#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Partition reassignment (KIP-455) through kafkajs' admin client and through
# the legacy /admin/reassign_partitions znode:
#  - raw requests first: AlterPartitionReassignments and
#    ListPartitionReassignments to a broker that is not the controller get
#    NOT_CONTROLLER; cancelling (null replicas) with nothing in progress is
#    NO_REASSIGNMENT_IN_PROGRESS; a listing for an unknown topic leaves it out;
#  - kafkajs: an unknown topic or partition is UNKNOWN_TOPIC_OR_PARTITION, an
#    unregistered broker, an empty list or a duplicate id
#    INVALID_REPLICA_ASSIGNMENT, and none of them starts anything;
#  - topic mv, one replica on broker 0 holding seq_producer's records, moved
#    by kafkajs to [1,2] (listPartitionReassignments polled until it is no
#    longer listed): then every broker reports replicas 1,2, ISR {1,2} and
#    a leader among them, the assignment znode has no adding or removing
#    replicas, broker 0's directory for mv-0 is deleted, the two new
#    replicas hold the same bytes, seq_verify finds every acknowledged record
#    at its offset, and the partition takes records at the next offset;
#    reordered to [2,1] it keeps its leader and its directories; shrunk to
#    its leader alone, the other replica's directory goes, the records stay;
#  - one request for three partitions: the valid move is carried out, a
#    duplicate id and an unknown topic are refused, each on its own;
#  - /admin/reassign_partitions as the old kafka-reassign-partitions.sh
#    wrote it: unreadable, or naming only an unknown topic, the controller
#    deletes it; naming an unknown topic and topic legacy (on [1,0]) to
#    [2,1], the controller leaves the first out, completes the move and
#    deletes the znode; the leader, 1, is in the target and stays; broker
#    0's directory is deleted.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
if ! command -v node >/dev/null || [ ! -d "$GR_INTEROP_DIR/node_modules/kafkajs" ]; then
    gr_note "skipped: node or interop-tests/node_modules/kafkajs missing (run ci/install-node-deps.sh)"
    exit 77
fi
UNKNOWN=3 INVALID_ASSIGNMENT=39 NOT_CONTROLLER=41 NO_REASSIGNMENT=85
N=${SEQ_N:-3000}
LEGACY_N=${LEGACY_N:-1000}
js() { timeout "$GR_CMD_TIMEOUT_S" node "$GR_INTEROP_DIR/js/kafkajs_reassign.js" "$(cl_bootstrap)" "$@"; }

cl_start_cluster 3 auto.leader.rebalance.enable=false
ctl=$CL_CONTROLLER
other=$(cl_non_controller)
for spec in "mv 0" "legacy 1,0"; do
    read -r name assignment <<<"$spec"
    cl_create_assigned "$ctl" "$name" "$assignment"
done
gr_wait_until "$CL_WAIT_S" "the ISR of legacy-0 full" cl_isr_size_is legacy 2
cl_seq_produce mv "$N" "$GR_TMP/acked.mv"
cl_seq_produce legacy "$LEGACY_N" "$GR_TMP/acked.legacy"

# Raw corner cases, nothing in progress.
cl_expect "AlterPartitionReassignments to non-controller $other" "top $NOT_CONTROLLER" "$(cl_reassign "$other" alter mv:0=1,2)"
cl_expect "ListPartitionReassignments to non-controller $other" "top $NOT_CONTROLLER" "$(cl_reassign "$other" list)"
cl_expect "cancelling mv-0 with nothing in progress" "top 0|mv 0 $NO_REASSIGNMENT" "$(cl_reassign "$ctl" alter mv:0=null | paste -sd'|')"
cl_expect "listing every reassignment, none in progress" "top 0" "$(cl_reassign "$ctl" list)"
cl_expect "listing mv-0 and an unknown topic" "top 0" "$(cl_reassign "$ctl" list mv:0 no-such-topic:0)"
cl_expect "refused unknown topic in a raw request" "top 0|no-such-topic 0 $UNKNOWN" "$(cl_reassign "$ctl" alter no-such-topic:0=1,2 | paste -sd'|')"
out=$(js errors mv 0 2>&1) || gr_fail "kafkajs refusals: $out"
gr_note "kafkajs refusals: $(paste -sd';' <<<"$out")"
cl_expect "mv-0's assignment znode after the refusals" "0 - -" "$(cl_zk_assignment mv 0)"

# The move through kafkajs.
out=$(js move mv 0 1,2 2>&1) || gr_fail "kafkajs move of mv-0 to [1,2]: $out"
gr_note "kafkajs: $out"
cl_wait_partition mv 0 1,2 1,2 "1 2"
cl_expect "mv-0's assignment znode after the move" "1,2 - -" "$(cl_zk_assignment mv 0)"
cl_expect "nothing listed after the move" "top 0" "$(cl_reassign "$ctl" list)"
cl_wait_replica_dirs mv 0 1 2
cl_wait_replicas_equal mv 1 1 2
cl_seq_verify mv "$N" "$GR_TMP/acked.mv"
leader=$(cl_state "$ctl" leaders mv | awk '$1 == 0 { print $2 }')
cl_expect "acks=all produce to mv-0 on its new leader $leader" "0 $N" "$(cl_state "$leader" produce mv 0 -1 5)"

# The same brokers in another order: nothing to copy, only the order (the
# preferred leader) changes; the leader stays, no directory goes.
cl_expect "reordering mv-0 to [2,1]" "top 0|mv 0 0" "$(cl_reassign "$ctl" alter mv:0=2,1 | paste -sd'|')"
cl_wait_partition mv 0 2,1 1,2 "$leader"
cl_expect "mv-0's assignment znode after the reorder" "2,1 - -" "$(cl_zk_assignment mv 0)"
cl_expect "nothing listed after the reorder" "top 0" "$(cl_reassign "$ctl" list)"
cl_expect "brokers holding mv-0 after the reorder" "1 2" "$(cl_replica_dirs mv 0)"
# A shorter list: the replication factor goes down to the leader alone.
cl_expect "shrinking mv-0 to [$leader]" "top 0|mv 0 0" "$(cl_reassign "$ctl" alter "mv:0=$leader" | paste -sd'|')"
cl_wait_partition mv 0 "$leader" "$leader" "$leader"
cl_wait_replica_dirs mv 0 "$leader"
cl_expect "mv-0's high watermark on broker $leader after the shrink" "0 0 $((N + 5))" "$(cl_state "$leader" offsets mv)"

# One request, several partitions: each has its own outcome, and the valid
# one is carried out.
cl_create_assigned "$ctl" pair 2/2
cl_expect "moving pair-0 to [0], pair-1 to [0,0], no-such-topic-0 to [1]" \
    "top 0|no-such-topic 0 $UNKNOWN|pair 0 0|pair 1 $INVALID_ASSIGNMENT" \
    "$(cl_reassign "$ctl" alter pair:0=0 pair:1=0,0 no-such-topic:0=1 | { read -r top; echo "$top"; LC_ALL=C sort; } | paste -sd'|')"
cl_wait_partition pair 0 0 0 0
cl_wait_replica_dirs pair 0 0
cl_expect "pair-1 unchanged" "1 2 2 2" "$(cl_state "$ctl" isr pair | awk '$1 == 1')"
cl_expect "nothing listed after moving pair-0" "top 0" "$(cl_reassign "$ctl" list)"

# The legacy znode, as kafka-reassign-partitions.sh before KIP-455 wrote it:
# one that cannot be read, then one naming only an unknown topic, are
# deleted without moving anything; then legacy-0 and an unknown topic: the
# unknown one is left out, legacy-0 is moved, and the znode deleted.
legacy_znode() # JSON WHAT
{
    cl_legacy_reassign "$1"
    gr_wait_until "$CL_MOVE_WAIT_S" "/admin/reassign_partitions with $2 deleted by the controller" cl_legacy_reassign_gone
    gr_note "/admin/reassign_partitions with $2 deleted by the controller"
}
gr_allow_log_errors 'reassign_partitions is unreadable'
legacy_znode 'not-json' "an unreadable document"
legacy_znode '{"version":1,"partitions":[{"topic":"no-such-topic","partition":0,"replicas":[1]}]}' "an unknown topic only"
cl_expect "nothing listed after the unknown-topic znode" "top 0" "$(cl_reassign "$ctl" list)"
legacy_znode '{"version":1,"partitions":[{"topic":"no-such-topic","partition":0,"replicas":[1]},{"topic":"legacy","partition":0,"replicas":[2,1]}]}' \
    "legacy-0 to [2,1] and an unknown topic"
cl_wait_partition legacy 0 2,1 1,2 1
cl_expect "legacy-0's assignment znode after the move" "2,1 - -" "$(cl_zk_assignment legacy 0)"
cl_expect "nothing listed after the legacy move" "top 0" "$(cl_reassign "$ctl" list)"
cl_wait_replica_dirs legacy 0 1 2
cl_wait_replicas_equal legacy 1 1 2
cl_seq_verify legacy "$LEGACY_N" "$GR_TMP/acked.legacy"
cl_expect "acks=all produce to legacy-0 on broker 1" "0 $LEGACY_N" "$(cl_state 1 produce legacy 0 -1 5)"
gr_pass
