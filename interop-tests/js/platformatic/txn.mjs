// SPDX-License-Identifier: Apache-2.0
// @platformatic/kafka transactions against read_committed consumers:
//  - a transactional producer commits a transaction of RECORDS records to
//    TOPIC (values "c1-<n>", record n to partition n % 2), aborts one
//    ("a2-<n>"), and holds a third open ("c3-<n>") while ListOffsets with
//    read_committed answers the last stable offset (the open transaction's
//    first offset) below the high watermark; then commits it;
//  - consume-transform-produce offsets: a group consumer reads SOURCE; the
//    offset of its first record goes with a committed transaction, that of
//    its third with an aborted one: the group's committed offset is 1; each
//    transaction also commits an offset of TOPIC with TxnOffsetCommit
//    carrying metadata with a NUL byte ("Hello\0world!"): the committed one
//    comes back whole (12 bytes; checked last), the aborted one not at all;
//  - a second producer with the same transactional id gets the same
//    producer id at a higher epoch and fences the first (its next send or
//    commit fails);
//  - a final committed transaction writes "end" to both partitions; a
//    read_committed group consumer reads up to both "end"s and sees exactly
//    the committed records, per partition in order; read_uncommitted Fetch
//    sees the aborted ones too, and the commit and abort control batches;
//    read_committed Fetch lists the aborted transaction and ends at the
//    high watermark.
//
// Usage: node txn.mjs BOOTSTRAP
import {
  Admin, Connection, Consumer, FetchIsolationLevels, ListOffsetTimestamps, Producer, ProduceAcks,
  txnOffsetCommitV3, txnOffsetCommitV4,
} from '@platformatic/kafka';
import { baseOptions, bootstrap, check, checkEqual, main, note, readBatches, show, take, until } from './common.mjs';

const TOPIC = 'pk-txn';
const SOURCE = 'pk-txn-source';
const GROUP = 'pk-txn-group';
const TXN_ID = 'pk-txn-app';
const RECORDS = 10;
const METADATA = 'Hello\u0000world!';

function records(prefix) {
  const out = [];
  for (let n = 0; n < RECORDS; n++) {
    out.push({ topic: TOPIC, partition: n % 2, key: Buffer.from(prefix), value: Buffer.from(`${prefix}-${n}`) });
  }
  return out;
}

function producer(name) {
  return new Producer({ ...baseOptions(name), idempotent: true, transactionalId: TXN_ID, acks: ProduceAcks.ALL });
}

async function committedPartition(admin, topic, partition) {
  const [g] = await admin.listConsumerGroupOffsets({ groups: [GROUP] });
  return g.topics.find((t) => t.name === topic)?.partitions.find((x) => x.partitionIndex === partition);
}

async function committedOffset(admin) {
  return (await committedPartition(admin, SOURCE, 0))?.committedOffset ?? -1n;
}

// TxnOffsetCommit as the client sends it, but with commit metadata (the
// client's own always sends none): offset `offset` of TOPIC-`partition`
// for the group of `message`, in `producer`'s open transaction.
async function commitWithMetadata(txnApi, connection, producer, message, partition, offset) {
  const { groupId, generationId, memberId } = message.metadata.consumer;
  await txnApi.async(connection, TXN_ID, groupId, producer.producerId, producer.producerEpoch, generationId, memberId, null, [
    { name: TOPIC, partitions: [{ partitionIndex: partition, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: METADATA }] },
  ]);
}

main(async () => {
  const admin = new Admin(baseOptions('pk-txn-admin'));
  await admin.createTopics({ topics: [TOPIC], partitions: 2, replicas: 1 });
  await admin.createTopics({ topics: [SOURCE], partitions: 1, replicas: 1 });
  const plain = new Producer({ ...baseOptions('pk-txn-plain'), acks: ProduceAcks.ALL });
  await plain.send({ messages: [0, 1, 2].map((n) => ({ topic: SOURCE, partition: 0, value: Buffer.from(`s-${n}`) })) });

  const source = new Consumer({ ...baseOptions('pk-txn-source'), groupId: GROUP, autocommit: false, maxWaitTime: 200, heartbeatInterval: 200 });
  const sourceStream = await source.consume({ topics: [SOURCE], mode: 'earliest' });
  const sourced = await take(sourceStream, 3);

  const servedTxnCommit = new Map((await admin.listApis()).map((a) => [a.name, a.maxVersion])).get('TxnOffsetCommit');
  const txnApi = [txnOffsetCommitV4, txnOffsetCommitV3].map((m) => m.api).find((a) => a.version <= servedTxnCommit);
  const [host, port] = bootstrap.split(':');
  const raw = new Connection('pk-txn-raw');
  await raw.connect(host, Number(port));

  const first = producer('pk-txn-1');
  let tx = await first.beginTransaction();
  await tx.send({ messages: records('c1') });
  await tx.addConsumer(source);
  await tx.addOffset(sourced[0]);
  await commitWithMetadata(txnApi, raw, first, sourced[0], 0, 4n);
  await tx.commit();
  // EndTxn answers once the commit is decided; the markers that make the
  // offset visible to a read without requireStable follow (as in Kafka).
  await until('the committed transaction\'s group offset', async () => (await committedOffset(admin)) === 1n, 10).catch(() => {});
  checkEqual(await committedOffset(admin), 1n, 'group offset after the committed transaction');

  tx = await first.beginTransaction();
  await tx.send({ messages: records('a2') });
  await tx.addConsumer(source);
  await tx.addOffset(sourced[2]);
  await commitWithMetadata(txnApi, raw, first, sourced[2], 1, 9n);
  await tx.abort();
  await raw.close();
  checkEqual(await committedOffset(admin), 1n, 'group offset after the aborted transaction');
  await sourceStream.close();
  await source.close();
  note('committed and aborted transactions, offsets sent with them: done');

  // An open transaction holds the last stable offset.
  tx = await first.beginTransaction();
  await tx.send({ messages: records('c3') });
  const ends = async (isolationLevel) => {
    const [t] = await admin.listOffsets({
      topics: [{ name: TOPIC, partitions: [0, 1].map((p) => ({ partitionIndex: p, timestamp: ListOffsetTimestamps.LATEST })) }],
      isolationLevel,
    });
    return t.partitions.sort((a, b) => a.partitionIndex - b.partitionIndex).map((p) => p.offset);
  };
  // Per partition: 5 + marker, 5 + marker, then the open 5.
  const open = BigInt(2 * (RECORDS / 2 + 1));
  checkEqual(await ends(FetchIsolationLevels.READ_COMMITTED), [open, open], 'LSO with a transaction open');
  checkEqual(await ends(FetchIsolationLevels.READ_UNCOMMITTED), [open + 5n, open + 5n], 'high watermark with a transaction open');
  await tx.commit();
  checkEqual(await ends(FetchIsolationLevels.READ_COMMITTED), [open + 6n, open + 6n], 'LSO after the commit');
  note('an open transaction held the last stable offset');

  // Fencing by a second producer with the same transactional id.
  const idBefore = [first.producerId, first.producerEpoch];
  const second = producer('pk-txn-2');
  tx = await second.beginTransaction();
  checkEqual(second.producerId, idBefore[0], 'same producer id for the same transactional id');
  check(second.producerEpoch > idBefore[1], `higher epoch (${second.producerEpoch} > ${idBefore[1]})`);
  const fenced = await (async () => {
    const old = await first.beginTransaction();
    await old.send({ messages: [{ topic: TOPIC, partition: 0, value: Buffer.from('fenced') }] });
    await old.commit();
  })().then(() => null, (error) => error);
  check(fenced !== null, 'the first producer is fenced');
  const fencedCodes = new Set();
  const walk = (e, depth) => {
    if (!e || depth > 6) return;
    if (e.apiId) fencedCodes.add(e.apiId);
    for (const inner of e.errors ?? []) walk(inner, depth + 1);
  };
  walk(fenced, 0);
  checkEqual([...fencedCodes], ['PRODUCER_FENCED'], `the fenced producer's error (${fenced.message})`);
  note(`first producer fenced: ${fenced.message}: PRODUCER_FENCED`);
  await tx.send({ messages: [0, 1].map((partition) => ({ topic: TOPIC, partition, value: Buffer.from('end') })) });
  await tx.commit();

  // read_committed as a consumer sees it.
  const reader = new Consumer({ ...baseOptions('pk-txn-reader'), groupId: 'pk-txn-reader', maxWaitTime: 200, autocommit: false });
  const stream = await reader.consume({ topics: [TOPIC], mode: 'earliest', isolationLevel: FetchIsolationLevels.READ_COMMITTED });
  const seen = new Map([[0, []], [1, []]]);
  const endsSeen = new Set();
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out; seen ${show([...seen])}`)), 30000);
    stream.on('error', reject);
    stream.on('data', (m) => {
      const value = m.value.toString();
      if (value === 'end') endsSeen.add(m.partition);
      else seen.get(m.partition).push(value);
      if (endsSeen.size === 2) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  await stream.close();
  for (const partition of [0, 1]) {
    const want = [];
    for (const prefix of ['c1', 'c3']) for (let n = partition; n < RECORDS; n += 2) want.push(`${prefix}-${n}`);
    checkEqual(seen.get(partition), want, `read_committed records of partition ${partition}`);
  }
  note('read_committed consumer: exactly the committed records');

  // The log as fetched.
  const uncommitted = await readBatches(reader, TOPIC, FetchIsolationLevels.READ_UNCOMMITTED);
  const committed = await readBatches(reader, TOPIC, FetchIsolationLevels.READ_COMMITTED);
  for (const partition of [0, 1]) {
    const all = uncommitted.get(partition).batches;
    const values = all.filter((b) => !(b.attributes & 0x20)).flatMap((b) => b.records.map((r) => r.value.toString()));
    const markers = all.filter((b) => b.attributes & 0x20).map((b) => (b.records[0].key.readInt16BE(2) === 1 ? 'commit' : 'abort'));
    checkEqual(values.filter((v) => v.startsWith('a2-')).length, RECORDS / 2, `read_uncommitted sees the aborted records of ${partition}`);
    checkEqual(markers, ['commit', 'abort', 'commit', 'commit'], `control batches of partition ${partition}`);
    check(!values.includes('fenced'), 'nothing of the fenced producer');
    const c = committed.get(partition);
    checkEqual(c.end, uncommitted.get(partition).end, `LSO = high watermark on ${partition}`);
    checkEqual(c.abortedTransactions.map((a) => [a.producerId, a.firstOffset]), [[idBefore[0], 6n]], `aborted transactions listed on ${partition}`);
    const committedValues = c.batches.filter((b) => !(b.attributes & 0x20)).flatMap((b) => b.records.map((r) => r.value.toString()));
    check(!committedValues.some((v) => v.startsWith('a2-')), `read_committed fetch drops the aborted records of ${partition}`);
  }
  note('fetched log: aborted records, markers and the aborted-transaction list as Kafka has them');

  // Last, as it fails on its own: the metadata sent with TxnOffsetCommit.
  const withMetadata = await committedPartition(admin, TOPIC, 0);
  checkEqual(withMetadata?.committedOffset, 4n, `TxnOffsetCommit v${txnApi.version} offset, committed`);
  checkEqual(Buffer.byteLength(withMetadata.metadata ?? ''), 12, `TxnOffsetCommit v${txnApi.version} metadata length (${JSON.stringify(withMetadata.metadata)})`);
  checkEqual(withMetadata.metadata, METADATA, `TxnOffsetCommit v${txnApi.version} metadata`);
  checkEqual((await committedPartition(admin, TOPIC, 1))?.committedOffset ?? -1n, -1n, 'TxnOffsetCommit of the aborted transaction');
  note('TxnOffsetCommit metadata with a NUL byte came back whole');

  await reader.close();
  await second.close();
  await first.close(true).catch(() => {});
  await plain.close();
  await admin.close();
  note('transactions: all checks passed');
});
