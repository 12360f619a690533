#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# __consumer_offsets as Kafka has it. With Kafka's default
# offsets.topic.replication.factor (3) a single broker refuses to create it,
# so a group finds no coordinator (and the log says why). With 1 it is
# created on first use, internal (clients cannot produce to it), and a
# group's records land in partition abs(hashCode(group)) % 50 with Kafka's
# key layout: int16 version 1 (offset commit) or 2 (group metadata), then
# the group id as an int16-length string.
. "$(dirname "$0")/../lib/lib.sh"

gr_require_gregor
GR_CMD_TIMEOUT_S=${GR_GROUP_READ_TIMEOUT_S:-60}
topic=plain
gr_start_broker group.initial.rebalance.delay.ms=0 offsets.topic.replication.factor=3
seq 1 10 | gr_kcat -P -t $topic -p 0
# No coordinator: the consumer never gets an assignment, so it reads nothing.
got=$(GR_CMD_TIMEOUT_S=8 gr_kcat -G g1 -e -q -X auto.offset.reset=earliest $topic 2>/dev/null || true)
[ -z "$got" ] || gr_fail "a group consumed without a coordinator: $got"
gr_broker_run_log_has "cannot create __consumer_offsets: offsets.topic.replication.factor=3" ||
    gr_fail "the broker did not say why the offsets topic was not created"
! gr_kcat -L -t __consumer_offsets 2>/dev/null | grep -q "partition 0" ||
    gr_fail "__consumer_offsets created despite replication factor 3"
gr_stop_broker

gr_start_broker offsets.topic.replication.factor=1
got=$(gr_kcat -G g1 -e -q -f '%s\n' -X auto.offset.reset=earliest $topic | sort -n)
[ "$got" = "$(seq 1 10)" ] || gr_fail "group g1 read '$got', want 1..10"

# Java: "g1".hashCode() = 103 * 31 + 49 = 3242; 3242 % 50 = 42.
keys=$(gr_kcat -C -t __consumer_offsets -p 42 -e -q -f '%k' | xxd -p | tr -d '\n')
grep -q "000100026731" <<<"$keys" || gr_fail "no offset commit key (v1, g1) in partition 42: $keys"
grep -q "000200026731" <<<"$keys" || gr_fail "no group metadata key (v2, g1) in partition 42: $keys"
for p in 0 41 43; do
    n=$(gr_kcat -C -t __consumer_offsets -p $p -e -q -f 'x\n' | wc -l)
    [ "$n" = 0 ] || gr_fail "partition $p of __consumer_offsets has $n records, want none"
done

out=$(echo forged | gr_kcat -P -t __consumer_offsets -p 42 2>&1 || true)
grep -qi "invalid topic" <<<"$out" || gr_fail "a client produced to __consumer_offsets: $out"
gr_pass
