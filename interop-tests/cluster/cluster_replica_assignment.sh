#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Replica placement on three brokers, read back from /brokers/topics/<t> (the
# assignment the controller acts on) and from Metadata: topics created with
# replication factor 3 (raw CreateTopics) and 2 (librdkafka's admin client)
# get that many distinct brokers per partition, leaders spread evenly, laid
# out as Kafka's AdminUtils lays them out for some start and shift; factor 4
# is INVALID_REPLICATION_FACTOR; manual assignments with several brokers per
# partition are kept as given, while an unknown broker, a broker twice or
# uneven replica counts are INVALID_REPLICA_ASSIGNMENT; CreatePartitions
# gives new partitions the topic's factor, continuing its leaders' round;
# __consumer_offsets gets offsets.topic.replication.factor replicas.
# Followers do not replicate yet, so ISR and data are not checked here.
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/clusterlib.sh"
cl_require
NONE=0
INVALID_REPLICATION_FACTOR=38
INVALID_REPLICA_ASSIGNMENT=39
BROKERS=3
PARTS=6
GROWN=9
OFFSETS_PARTS=6

# The "partitions" map of /brokers/topics/$1 as "PARTITION R1,R2,..." lines.
zk_assignment()
{
    local doc
    doc=$(cl_zk get "$CL_ZK_CHROOT/brokers/topics/$1") || gr_fail "zkCli get /brokers/topics/$1 failed: $(tail -n 3 "$GR_TMP/zkcli.err")"
    "$GR_PYTHON" -c '
import json, sys
parts = json.loads(sys.argv[1])["partitions"]
for p in sorted(parts, key=int):
    print(p, ",".join(str(b) for b in parts[p]))' "$doc" || gr_fail "znode /brokers/topics/$1 holds '$doc'"
}

# Checks lines from zk_assignment: $2 partitions of $3 distinct brokers out of
# 0..BROKERS-1, each broker leading as many, and (with $4 = kafka) the layout
# of Kafka's rack-unaware placement for one start index and shift.
check_layout()
{
    "$GR_PYTHON" - "$2" "$3" "$BROKERS" "${4:-}" "$1" <<'EOF' || gr_fail "assignment of a $2-partition topic wrong: $(tr '\n' ';' <<<"$1")"
import sys
parts, factor, n, kafka = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "kafka"
got = {}
for line in sys.argv[5].splitlines():
    p, replicas = line.split()
    got[int(p)] = [int(b) for b in replicas.split(",")]
assert sorted(got) == list(range(parts)), "partitions %r" % sorted(got)
for p, replicas in got.items():
    assert len(replicas) == factor and len(set(replicas)) == factor, "partition %d: %r" % (p, replicas)
    assert all(0 <= b < n for b in replicas), "partition %d: %r" % (p, replicas)
leads = [sum(1 for r in got.values() if r[0] == b) for b in range(n)]
assert max(leads) - min(leads) <= 1, "leaders per broker %r" % leads

def kafka_layout(start, shift):
    out = {}
    for p in range(parts):
        if p > 0 and p % n == 0:
            shift += 1
        first = (p + start) % n
        out[p] = [first] + [(first + 1 + (shift + j) % (n - 1)) % n for j in range(factor - 1)]
    return out

assert not kafka or any(kafka_layout(s, t) == got for s in range(n) for t in range(n)), "not Kafka's layout"
EOF
}

# Metadata from broker $2 lists the same replicas as the znode text $1.
check_metadata()
{
    local meta
    meta=$(cl_state "$2" replicas "$3") || gr_fail "Metadata of $3 from broker $2 failed: $meta"
    [ "$meta" = "$1" ] || gr_fail "broker $2's Metadata replicas of $3 ($(tr '\n' ';' <<<"$meta")) differ from the znode's ($(tr '\n' ';' <<<"$1"))"
}

cl_start_cluster $BROKERS offsets.topic.replication.factor=$BROKERS \
    offsets.topic.num.partitions=$OFFSETS_PARTS

got=$(cl_state "$CL_CONTROLLER" create rf3 $PARTS 3) || gr_fail "CreateTopics rf3 got no answer"
[ "$got" = $NONE ] || gr_fail "CreateTopics rf3 (factor 3 on 3 brokers) answered $got"
out=$(gr_prog admin -b "$GR_BOOTSTRAP" create rf2 $PARTS 2) || gr_fail "admin create rf2 failed: $out"
[ "$out" = "rf2 NO_ERROR" ] || gr_fail "creating rf2: $out"
got=$(cl_state "$CL_CONTROLLER" create rf4 $PARTS 4) || gr_fail "CreateTopics rf4 got no answer"
[ "$got" = $INVALID_REPLICATION_FACTOR ] || gr_fail "factor 4 on 3 brokers answered $got, want INVALID_REPLICATION_FACTOR"

for factor in 3 2; do
    cl_wait_all_led rf$factor $PARTS
    layout=$(zk_assignment rf$factor)
    gr_note "rf$factor: $(tr '\n' ';' <<<"$layout")"
    check_layout "$layout" $PARTS $factor kafka
    check_metadata "$layout" "$(cl_non_controller)" rf$factor
done

# Manual assignments: kept as given; bad ones refused.
got=$(cl_state "$CL_CONTROLLER" create-assigned manual "2,0/0,1/1,2") || gr_fail "CreateTopics manual got no answer"
[ "$got" = $NONE ] || gr_fail "CreateTopics manual answered $got"
for spec in "0,7/1,2" "0,0/1,2" "0,1/2"; do
    got=$(cl_state "$CL_CONTROLLER" create-assigned badmanual "$spec") || gr_fail "CreateTopics $spec got no answer"
    [ "$got" = $INVALID_REPLICA_ASSIGNMENT ] || gr_fail "assignment $spec answered $got, want INVALID_REPLICA_ASSIGNMENT"
done
cl_wait_all_led manual 3
layout=$(zk_assignment manual)
[ "$layout" = $'0 2,0\n1 0,1\n2 1,2' ] || gr_fail "manual assignment stored as $(tr '\n' ';' <<<"$layout")"

# CreatePartitions: bad assignments refused, then rf3 grown with its factor.
for spec in "0/1/2" "0,1,7/1,2,0/2,0,1" "0,0,1/1,2,0/2,0,1"; do
    got=$(cl_state "$CL_CONTROLLER" grow rf3 $GROWN "$spec") || gr_fail "CreatePartitions $spec got no answer"
    [ "$got" = $INVALID_REPLICA_ASSIGNMENT ] || gr_fail "growing with $spec answered $got, want INVALID_REPLICA_ASSIGNMENT"
done
before=$(zk_assignment rf3)
got=$(cl_state "$CL_CONTROLLER" grow rf3 $GROWN) || gr_fail "CreatePartitions rf3 got no answer"
[ "$got" = $NONE ] || gr_fail "CreatePartitions rf3 to $GROWN answered $got"
cl_wait_all_led rf3 $GROWN
layout=$(zk_assignment rf3)
gr_note "rf3 grown: $(tr '\n' ';' <<<"$layout")"
check_layout "$layout" $GROWN 3
[ "$(head -n $PARTS <<<"$layout")" = "$before" ] || gr_fail "growing rf3 moved its existing partitions"
# Kafka continues from partition 0's leader: partitions 6.. are led as 0.. are.
for ((p = PARTS; p < GROWN; p++)); do
    lead=$(awk -v p=$p '$1 == p { split($2, r, ","); print r[1] }' <<<"$layout")
    want=$(awk -v p=$((p - PARTS)) '$1 == p { split($2, r, ","); print r[1] }' <<<"$layout")
    [ "$lead" = "$want" ] || gr_fail "new partition $p led by $lead, want $want (as partition $((p - PARTS)))"
done
check_metadata "$layout" "$(cl_non_controller)" rf3

# FindCoordinator has the offsets topic created, with every broker a replica.
cl_state "$CL_CONTROLLER" coordinator g >/dev/null || gr_fail "FindCoordinator got no answer"
cl_wait_all_led __consumer_offsets $OFFSETS_PARTS
layout=$(zk_assignment __consumer_offsets)
gr_note "__consumer_offsets: $(tr '\n' ';' <<<"$layout")"
check_layout "$layout" $OFFSETS_PARTS $BROKERS kafka
gr_pass
