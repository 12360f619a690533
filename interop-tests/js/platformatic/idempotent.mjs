// SPDX-License-Identifier: Apache-2.0
// Several @platformatic/kafka idempotent producers at once. The client asks
// InitProducerId with no transactional id and producer id 0, epoch 0 (not
// -1/-1); Kafka hands every such request a fresh producer id with epoch 0.
// PRODUCERS producers start together; producer i writes PER records (value
// "p<i>-<n>", record n to partition n % PARTITIONS) in awaited sends of
// BATCH. Then:
//  - every send is acknowledged, and every producer has its own producer
//    id, at epoch 0;
//  - read back to the high watermarks, each partition holds each producer's
//    acknowledged records complete, in order, exactly once, in batches
//    carrying that producer's id and epoch and the sequence numbers it
//    gave them (0, 1, 2, ... per partition).
//
// Usage: node idempotent.mjs BOOTSTRAP
import { Admin, Consumer, Producer, ProduceAcks } from '@platformatic/kafka';
import { baseOptions, check, main, note, readBatches, show } from './common.mjs';

const TOPIC = 'pk-idempotent';
const PARTITIONS = 3;
const PRODUCERS = 4;
const PER = 60;
const BATCH = 6;

main(async () => {
  const admin = new Admin(baseOptions('pk-idem-admin'));
  await admin.createTopics({ topics: [TOPIC], partitions: PARTITIONS, replicas: 1 });

  const producers = Array.from({ length: PRODUCERS },
    (_, i) => new Producer({ ...baseOptions(`pk-idem-${i}`), idempotent: true, acks: ProduceAcks.ALL }));
  const acked = producers.map(() => 0);
  // Each producer's (id, epoch) at its last acknowledged send (a fenced
  // producer forgets its id).
  const ids = producers.map(() => [-1n, -1]);
  const results = await Promise.allSettled(producers.map(async (producer, i) => {
    for (let start = 0; start < PER; start += BATCH) {
      const messages = [];
      for (let n = start; n < start + BATCH; n++) {
        messages.push({ topic: TOPIC, partition: n % PARTITIONS, key: Buffer.from(`p${i}`), value: Buffer.from(`p${i}-${n}`) });
      }
      await producer.send({ messages });
      acked[i] = start + BATCH;
      ids[i] = [producer.producerId, producer.producerEpoch];
    }
  }));
  note(`acknowledged records per producer: ${show(acked)}; (producer id, epoch): ${show(ids)}`);
  const problems = [];
  for (const [i, r] of results.entries()) {
    if (r.status === 'rejected') {
      const codes = (r.reason.errors ?? []).flatMap((e) => e.errors ?? [e]).map((e) => e.apiId ?? e.message);
      problems.push(`producer ${i}: send failed after ${acked[i]} acknowledged records: ${r.reason.message} ${show([...new Set(codes)])}`);
    }
  }

  // What the log holds, checked before the ids: with shared ids the
  // records are what a user loses.
  const consumer = new Consumer({ ...baseOptions('pk-idem-reader'), groupId: 'pk-idem-reader' });
  const partitions = await readBatches(consumer, TOPIC);
  for (const [partition, { batches, end }] of partitions) {
    const seen = Array.from({ length: PRODUCERS }, () => []);
    for (const batch of batches) {
      batch.records.forEach((record, index) => {
        const [who, n] = record.value.toString().slice(1).split('-').map(Number);
        seen[who].push(n);
        const [id, epoch] = ids[who];
        if (batch.producerId !== id || batch.producerEpoch !== epoch) {
          problems.push(`partition ${partition} offset ${batch.firstOffset + BigInt(record.offsetDelta)}: p${who}-${n} in a batch of producer ${batch.producerId} epoch ${batch.producerEpoch}, want ${id} epoch ${epoch}`);
        }
        if (batch.firstSequence + index !== Math.floor(n / PARTITIONS)) {
          problems.push(`partition ${partition}: p${who}-${n} has sequence ${batch.firstSequence + index}, want ${Math.floor(n / PARTITIONS)}`);
        }
      });
    }
    // Acknowledged records once each, in order; an unacknowledged one
    // (a send that failed) at most once, after them.
    for (const [who, got] of seen.entries()) {
      const want = [];
      for (let n = partition; n < acked[who]; n += PARTITIONS) want.push(n);
      const prefix = got.slice(0, want.length);
      const rest = got.slice(want.length);
      const restOk = rest.every((n, k) => n >= acked[who] && n % PARTITIONS === partition && (k === 0 || n > rest[k - 1]));
      if (show(prefix) !== show(want) || !restOk) {
        problems.push(`partition ${partition} (end ${end}): producer ${who} records ${show(got)}, want ${show(want)} (then at most the unacknowledged ones)`);
      }
    }
  }
  const distinct = new Set(ids.map(([id]) => id));
  if (distinct.size !== PRODUCERS) problems.push(`producer ids not distinct: ${show(ids)}`);
  for (const [i, [id, epoch]] of ids.entries()) {
    if (id < 0n || epoch !== 0) problems.push(`producer ${i}: id ${id} epoch ${epoch}, want a fresh id at epoch 0`);
  }
  check(problems.length === 0, `${problems.length} problem(s):\n  ${problems.slice(0, 20).join('\n  ')}`);

  await consumer.close();
  await Promise.all(producers.map((p) => p.close()));
  await admin.close();
  note('idempotent producers: all checks passed');
});
