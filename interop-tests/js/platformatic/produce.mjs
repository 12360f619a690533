// SPDX-License-Identifier: Apache-2.0
// @platformatic/kafka's Producer and Consumer with every compression codec
// it has (none, gzip, snappy, lz4, zstd), then ListOffsets by time and
// DeleteRecords:
//  - codec i sends RECORDS records to partition i of TOPIC in one batch:
//    key "k-<codec>-<n>", a compressible value naming codec and n, headers
//    (two with the same key, one with an empty value), CreateTime BASE+n;
//    record n == 3 has no key, record n == 4 no value (a tombstone);
//  - a raw Fetch (v12+, by topic id) shows every batch still carries the
//    codec it was sent with (gregor stores batches as sent) and the records
//    decode to what was sent;
//  - a group consumer reads all of them back from the earliest offset: per
//    partition in offset order, keys, values, headers (in order) and
//    timestamps as sent;
//  - ListOffsets: EARLIEST, LATEST, MAX_TIMESTAMP and by timestamp (the first
//    record at or after it; -1 past the last), through the Admin and the
//    Consumer;
//  - LOG_TOPIC (message.timestamp.type=LogAppendTime) hands back the broker's
//    append time instead of the one sent;
//  - DeleteRecords moves partition 0's start, which ListOffsets EARLIEST and
//    a fetch from there then show.
//
// Usage: node produce.mjs BOOTSTRAP
import { Admin, Consumer, ListOffsetTimestamps, Producer, ProduceAcks } from '@platformatic/kafka';
import { baseOptions, check, checkEqual, main, note, take } from './common.mjs';

const TOPIC = 'pk-codecs';
const LOG_TOPIC = 'pk-logappend';
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
const CODEC_BITS = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };
const RECORDS = 20;
const BASE = 1700000000000n;

function expected(codec, n) {
  const value = n === 4 ? null : `value ${codec} ${n} ` + 'abcdefgh'.repeat(32);
  return {
    key: n === 3 ? null : `k-${codec}-${n}`,
    value,
    headers: [['h', `first-${n}`], ['h', `second-${n}`], ['empty', '']],
    timestamp: BASE + BigInt(n),
  };
}

function messagesFor(codec, partition) {
  const out = [];
  for (let n = 0; n < RECORDS; n++) {
    const e = expected(codec, n);
    out.push({
      topic: TOPIC,
      partition,
      key: e.key === null ? undefined : Buffer.from(e.key),
      value: e.value === null ? undefined : Buffer.from(e.value),
      headers: new Map(e.headers.map(([k, v]) => [Buffer.from(k), Buffer.from(v)])),
      timestamp: e.timestamp,
    });
  }
  return out;
}

const str = (b) => (b === null || b === undefined ? null : Buffer.from(b).toString());

function checkRecord(got, codec, n, what) {
  const e = expected(codec, n);
  checkEqual(str(got.key), e.key, `${what} key`);
  checkEqual(str(got.value), e.value, `${what} value`);
  checkEqual(got.headers.map(([k, v]) => [str(k), str(v)]), e.headers, `${what} headers`);
  checkEqual(got.timestamp, e.timestamp, `${what} timestamp`);
}

function fetchPartition(partition, offset) {
  return { partition, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, partitionMaxBytes: 1 << 20 };
}

main(async () => {
  const admin = new Admin(baseOptions('pk-produce-admin'));
  await admin.createTopics({ topics: [TOPIC], partitions: CODECS.length, replicas: 1 });
  await admin.createTopics({
    topics: [LOG_TOPIC], partitions: 1, replicas: 1,
    configs: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }],
  });

  const producer = new Producer({ ...baseOptions('pk-produce'), acks: ProduceAcks.ALL });
  for (const [partition, codec] of CODECS.entries()) {
    const result = await producer.send({ messages: messagesFor(codec, partition), compression: codec });
    const offsets = result.offsets.filter((o) => o.topic === TOPIC && o.partition === partition);
    checkEqual(offsets.map((o) => o.offset), [0n], `${codec}: base offset of its batch`);
  }
  note(`produced ${RECORDS} records with each of ${CODECS.join(', ')}`);

  // Raw fetch by topic id: the batches as stored.
  const consumer = new Consumer({ ...baseOptions('pk-produce-consumer'), groupId: 'pk-produce-group', maxWaitTime: 200 });
  const meta = await consumer.metadata({ topics: [TOPIC, LOG_TOPIC] });
  const topicId = meta.topics.get(TOPIC).id;
  const leader = meta.topics.get(TOPIC).partitions[0].leader;
  const fetched = await consumer.fetch({
    node: leader,
    topics: [{ topicId, partitions: CODECS.map((_, p) => fetchPartition(p, 0n)) }],
    maxWaitTime: 100, minBytes: 1, maxBytes: 8 << 20,
  });
  checkEqual(fetched.responses.length, 1, 'fetch topics');
  checkEqual(fetched.responses[0].topicId, topicId, 'fetch topic id');
  checkEqual(fetched.responses[0].partitions.map((p) => p.partitionIndex).sort(), CODECS.map((_, p) => p), 'fetched partitions');
  for (const part of fetched.responses[0].partitions) {
    const codec = CODECS[part.partitionIndex];
    checkEqual(part.errorCode, 0, `${codec}: fetch error`);
    checkEqual(part.highWatermark, BigInt(RECORDS), `${codec}: high watermark`);
    checkEqual(part.logStartOffset, 0n, `${codec}: log start`);
    checkEqual(part.records.length, 1, `${codec}: one batch`);
    const batch = part.records[0];
    checkEqual(batch.attributes & 7, CODEC_BITS[codec], `${codec}: codec bits of the stored batch`);
    checkEqual(batch.firstOffset, 0n, `${codec}: batch first offset`);
    checkEqual(batch.lastOffsetDelta, RECORDS - 1, `${codec}: last offset delta`);
    checkEqual(batch.maxTimestamp, BASE + BigInt(RECORDS - 1), `${codec}: batch max timestamp`);
    checkEqual(batch.records.length, RECORDS, `${codec}: records in the batch`);
    for (const r of batch.records) {
      checkRecord({ ...r, timestamp: batch.firstTimestamp + r.timestampDelta }, codec, r.offsetDelta, `${codec} fetched record ${r.offsetDelta}`);
    }
  }
  note('raw fetch: every batch kept its codec, records as sent');

  // A group consumer from the earliest offset.
  const stream = await consumer.consume({ topics: [TOPIC], mode: 'earliest', autocommit: false, maxWaitTime: 200 });
  const messages = await take(stream, CODECS.length * RECORDS);
  const next = new Map();
  for (const m of messages) {
    checkEqual(m.topic, TOPIC, 'consumed topic');
    const codec = CODECS[m.partition];
    const n = next.get(m.partition) ?? 0;
    checkEqual(m.offset, BigInt(n), `${codec}: consumed offset in order`);
    checkRecord({ ...m, headers: m.headerEntries }, codec, n, `${codec} consumed record ${n}`);
    next.set(m.partition, n + 1);
  }
  await stream.close();
  note(`group consumer read all ${messages.length} records back`);

  // ListOffsets through the Admin: special timestamps and times.
  const ask = async (timestamp) => {
    const [t] = await admin.listOffsets({
      topics: [{ name: TOPIC, partitions: CODECS.map((_, p) => ({ partitionIndex: p, timestamp })) }],
    });
    checkEqual(t.partitions.length, CODECS.length, 'listOffsets partitions');
    return t.partitions.sort((a, b) => a.partitionIndex - b.partitionIndex);
  };
  for (const p of await ask(ListOffsetTimestamps.EARLIEST)) checkEqual(p.offset, 0n, `EARLIEST of ${p.partitionIndex}`);
  for (const p of await ask(ListOffsetTimestamps.LATEST)) checkEqual(p.offset, BigInt(RECORDS), `LATEST of ${p.partitionIndex}`);
  for (const p of await ask(ListOffsetTimestamps.MAX)) {
    checkEqual([p.offset, p.timestamp], [BigInt(RECORDS - 1), BASE + BigInt(RECORDS - 1)], `MAX_TIMESTAMP of ${p.partitionIndex}`);
  }
  for (const n of [0, 7, RECORDS - 1]) {
    for (const p of await ask(BASE + BigInt(n))) {
      checkEqual([p.offset, p.timestamp], [BigInt(n), BASE + BigInt(n)], `offset for time BASE+${n} on ${p.partitionIndex}`);
    }
  }
  for (const p of await ask(BASE - 1000n)) checkEqual([p.offset, p.timestamp], [0n, BASE], `time before all on ${p.partitionIndex}`);
  for (const p of await ask(BASE + 1000n)) checkEqual(p.offset, -1n, `time after all on ${p.partitionIndex}`);
  // ... and through the Consumer.
  const byTime = await consumer.listOffsetsWithTimestamps({ topics: [TOPIC], timestamp: BASE + 11n });
  for (const [p, { offset, timestamp }] of byTime.get(TOPIC)) {
    checkEqual([offset, timestamp], [11n, BASE + 11n], `consumer offset for time BASE+11 on ${p}`);
  }
  note('ListOffsets by time: as Kafka answers');

  // LogAppendTime: the broker's clock replaces the sent timestamp.
  const before = BigInt(Date.now());
  await producer.send({ messages: [{ topic: LOG_TOPIC, value: Buffer.from('x'), timestamp: BASE }], compression: 'lz4' });
  const after = BigInt(Date.now());
  const logFetch = await consumer.fetch({
    node: leader,
    topics: [{ topicId: meta.topics.get(LOG_TOPIC).id, partitions: [fetchPartition(0, 0n)] }],
    maxWaitTime: 100, minBytes: 1, maxBytes: 1 << 20,
  });
  const logBatch = logFetch.responses[0].partitions[0].records[0];
  check((logBatch.attributes & 8) === 8, 'LogAppendTime batch has the timestamp-type bit');
  check(logBatch.maxTimestamp >= before - 1000n && logBatch.maxTimestamp <= after + 1000n,
    `LogAppendTime ${logBatch.maxTimestamp} is the append time (sent ${BASE}, clock ${before}..${after})`);

  // DeleteRecords on partition 0.
  const [deleted] = await admin.deleteRecords({ topics: [{ name: TOPIC, partitions: [{ partition: 0, offset: 5n }] }] });
  checkEqual(deleted.partitions.map((p) => [p.partition, p.lowWatermark]), [[0, 5n]], 'DeleteRecords low watermark');
  checkEqual((await ask(ListOffsetTimestamps.EARLIEST))[0].offset, 5n, 'EARLIEST after DeleteRecords');
  // The client throws on a partition error; the response rides along.
  const belowStart = await consumer.fetch({
    node: leader,
    topics: [{ topicId, partitions: [fetchPartition(0, 0n)] }],
    maxWaitTime: 100, minBytes: 1, maxBytes: 1 << 20,
  }).then(() => null, (error) => error);
  check(belowStart !== null, 'fetch below the log start fails');
  const refusal = belowStart.errors?.[0];
  checkEqual(refusal?.apiId, 'OFFSET_OUT_OF_RANGE', 'fetch below the log start');
  const fromStart = await consumer.fetch({
    node: leader,
    topics: [{ topicId, partitions: [fetchPartition(0, 5n)] }],
    maxWaitTime: 100, minBytes: 1, maxBytes: 1 << 20,
  });
  const startPart = fromStart.responses[0].partitions[0];
  checkEqual([startPart.logStartOffset, startPart.highWatermark], [5n, BigInt(RECORDS)], 'log start and high watermark fetched from 5');
  note('DeleteRecords: log start moved to 5');

  await consumer.close();
  await producer.close();
  await admin.close();
  note('produce/consume: all checks passed');
});
