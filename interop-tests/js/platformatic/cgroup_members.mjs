// SPDX-License-Identifier: Apache-2.0
// @platformatic/kafka consumers with groupProtocol 'consumer' (KIP-848:
// ConsumerGroupHeartbeat, the coordinator assigns) while records flow:
//  - member A consumes alone, B then C join, A leaves, a new member D
//    joins; records are produced between each step;
//  - every record is read exactly once across the members, each member
//    committing (OffsetCommit with its member epoch) after each record;
//  - at the end the committed offsets are the partitions' ends, and
//    ConsumerGroupDescribe shows the group Stable, its three members owning
//    the four partitions between them (topic names resolved).
// Each membership change happens once every record produced so far has
// been read and committed (see main).
//
// Usage: node cgroup_members.mjs BOOTSTRAP
import { Admin, Connection, Consumer, Producer, ProduceAcks, consumerGroupDescribeV0 } from '@platformatic/kafka';
import { baseOptions, bootstrap, check, checkEqual, main, note, until } from './common.mjs';

const TOPIC = 'pk-cg';
const GROUP = 'pk-cg-group';
const PARTITIONS = 4;
const PER_ROUND = 24;

const seen = new Map(); // value -> times read
let produced = 0;

function member(name) {
  const c = new Consumer({
    ...baseOptions(name),
    groupId: GROUP,
    groupProtocol: 'consumer',
    sessionTimeout: 10000,
    rebalanceTimeout: 10000,
    maxWaitTime: 100,
    autocommit: false,
  });
  return c;
}

// A commit carries the member epoch it is sent with; one that crossed an
// epoch bump is STALE_MEMBER_EPOCH and is sent again, as Kafka's consumer does.
async function commit(c, offset) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await c.commit({ offsets: [offset] });
    } catch (e) {
      const stale = e.errors?.some((x) => x.apiId === 'STALE_MEMBER_EPOCH');
      if (!stale || attempt >= 50) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

// Starts a member reading: every record counted, then committed before the next.
const running = new Set();

async function start(name) {
  const c = member(name);
  const stream = await c.consume({ topics: [TOPIC], mode: 'committed', fallbackMode: 'earliest' });
  let chain = Promise.resolve();
  stream.on('data', (m) => {
    const v = m.value.toString();
    seen.set(v, (seen.get(v) ?? 0) + 1);
    const offset = { topic: TOPIC, partition: m.partition, offset: m.offset + 1n, leaderEpoch: m.leaderEpoch };
    chain = chain.then(() => commit(c, offset));
  });
  const m = { c, stream, drain: () => chain };
  running.add(m);
  return m;
}

async function stop(m) {
  running.delete(m);
  await m.drain();
  await m.stream.close();
  await m.c.close();
}

async function round(producer, n) {
  const messages = [];
  for (let i = 0; i < PER_ROUND; i++) {
    messages.push({ topic: TOPIC, partition: i % PARTITIONS, value: Buffer.from(`r${n}-${i}`) });
  }
  await producer.send({ messages });
  produced += PER_ROUND;
}

let members = [];

// Produces a round and waits until every record so far is read and committed.
async function step(producer, n, what) {
  await round(producer, n);
  await until(`${what}: all ${produced} records read`, async () => seen.size >= produced);
  for (const m of running) await m.drain();
}

async function owned(members, what) {
  // Every partition owned by exactly one member.
  await until(`${what}: partitions spread over ${members.length} members`, async () => {
    const parts = members.flatMap((m) => (m.c.assignments ?? []).flatMap((a) => a.partitions));
    return parts.length === PARTITIONS && new Set(parts).size === PARTITIONS && members.every((m) => (m.c.assignments ?? []).length > 0);
  });
}

main(async () => {
  const admin = new Admin(baseOptions('pk-cg-admin'));
  await admin.createTopics({ topics: [TOPIC], partitions: PARTITIONS, replicas: 1 });
  const producer = new Producer({ ...baseOptions('pk-cg-producer'), acks: ProduceAcks.ALL });

  // Each round is produced once the members of that step own every
  // partition, and read (and committed) in full before the next step: a
  // client that acknowledges a revocation before its last commit landed
  // (this one does) would otherwise read a record again, legitimately.
  const a = await start('pk-cg-a');
  await owned([a], 'A alone');
  await step(producer, 1, 'A alone');
  const b = await start('pk-cg-b');
  await owned([a, b], 'A and B');
  await step(producer, 2, 'A and B');
  const c = await start('pk-cg-c');
  await owned([a, b, c], 'A, B and C');
  await step(producer, 3, 'A, B and C');
  await stop(a);
  await owned([b, c], 'B and C after A left');
  await step(producer, 4, 'B and C');
  const d = await start('pk-cg-d');
  await owned([b, c, d], 'B, C and D');
  await step(producer, 5, 'B, C and D');
  members = [b, c, d];
  note(`read ${seen.size} distinct records of ${produced}`);

  const twice = [...seen.entries()].filter(([, n]) => n > 1).map(([v]) => v);
  checkEqual(twice, [], 'records read more than once');
  checkEqual(seen.size, produced, 'records read');

  const [g] = await admin.listConsumerGroupOffsets({ groups: [GROUP] });
  const committed = new Map(g.topics.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.committedOffset])));
  const end = BigInt((5 * PER_ROUND) / PARTITIONS);
  for (let p = 0; p < PARTITIONS; p++) checkEqual(committed.get(p), end, `committed offset of partition ${p}`);

  // ConsumerGroupDescribe (the Admin has no call for it: the API itself).
  const [host, port] = bootstrap.split(':');
  const connection = new Connection('pk-cg-describe');
  await connection.connect(host, Number(port));
  const { groups } = await consumerGroupDescribeV0.api.async(connection, [GROUP], false);
  await connection.close();
  const g0 = groups[0];
  checkEqual([g0.errorCode, g0.groupState, g0.members.length], [0, 'Stable', 3], 'ConsumerGroupDescribe');
  const assigned = g0.members.flatMap((m) => m.assignment.topicPartitions.flatMap((t) => t.partitions.map((p) => `${t.topicName}-${p}`)));
  checkEqual(assigned.sort(), [0, 1, 2, 3].map((p) => `${TOPIC}-${p}`), 'described assignments');
  note(`ConsumerGroupDescribe: ${g0.groupState}, epoch ${g0.groupEpoch}, assignor ${g0.assignorName}`);

  for (const m of members) await stop(m);
  await producer.close();
  await admin.close();
  check(true, 'done');
  note('cgroup members: all checks passed');
});
