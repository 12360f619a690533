// SPDX-License-Identifier: Apache-2.0
// A static member of a KIP-848 consumer group (groupProtocol 'consumer',
// groupInstanceId) restarting without a rebalance: S (static) and B consume
// TOPIC's partitions; S leaves with member epoch -2 (the "I will be back"
// of Kafka's consumer; @platformatic/kafka's close sends -1, so the -2 is
// sent with the client's own ConsumerGroupHeartbeat v1 right after one of
// S's heartbeats) and a new process S2 with the same instance id joins:
//  - the group epoch does not move, S2 owns exactly S's partitions at once,
//    B keeps its own;
//  - the old S, closed afterwards, changes nothing (its heartbeats name an
//    instance S2 now holds: FENCED_INSTANCE_ID);
//  - records produced afterwards are each read once, by S2 and B.
//
// Usage: node cgroup_static.mjs BOOTSTRAP
import { Admin, Connection, Consumer, Producer, ProduceAcks, consumerGroupDescribeV0, consumerGroupHeartbeatV1 } from '@platformatic/kafka';
import { baseOptions, bootstrap, checkEqual, main, note, until } from './common.mjs';

const TOPIC = 'pk-cg-static';
const GROUP = 'pk-cg-static-group';
const INSTANCE = 'pk-static';
const PARTITIONS = 4;
const PER_ROUND = 16;

const seen = new Map();
let produced = 0;

async function start(name, instance) {
  const c = new Consumer({
    ...baseOptions(name),
    groupId: GROUP,
    groupProtocol: 'consumer',
    ...(instance ? { groupInstanceId: instance } : {}),
    sessionTimeout: 45000,
    rebalanceTimeout: 45000,
    maxWaitTime: 100,
    autocommit: false,
  });
  const stream = await c.consume({ topics: [TOPIC], mode: 'committed', fallbackMode: 'earliest' });
  let chain = Promise.resolve();
  stream.on('data', (m) => {
    const v = m.value.toString();
    seen.set(v, (seen.get(v) ?? 0) + 1);
    const offset = { topic: TOPIC, partition: m.partition, offset: m.offset + 1n, leaderEpoch: m.leaderEpoch };
    chain = chain.then(() => c.commit({ offsets: [offset] }));
  });
  return { c, stream, drain: () => chain };
}

const parts = (m) => (m.c.assignments ?? []).flatMap((a) => a.partitions).sort();

async function round(producer, members, n) {
  const messages = [];
  for (let i = 0; i < PER_ROUND; i++) messages.push({ topic: TOPIC, partition: i % PARTITIONS, value: Buffer.from(`r${n}-${i}`) });
  await producer.send({ messages });
  produced += PER_ROUND;
  await until(`all ${produced} records read`, async () => seen.size >= produced);
  for (const m of members) await m.drain();
}

async function describe(connection) {
  const { groups } = await consumerGroupDescribeV0.api.async(connection, [GROUP], false);
  return groups[0];
}

main(async () => {
  const admin = new Admin(baseOptions('pk-cgs-admin'));
  await admin.createTopics({ topics: [TOPIC], partitions: PARTITIONS, replicas: 1 });
  const producer = new Producer({ ...baseOptions('pk-cgs-producer'), acks: ProduceAcks.ALL });
  const [host, port] = bootstrap.split(':');
  const connection = new Connection('pk-cgs-raw');
  await connection.connect(host, Number(port));

  const s = await start('pk-cgs-s1', INSTANCE);
  const b = await start('pk-cgs-b');
  await until('S and B share the partitions', async () => parts(s).length + parts(b).length === PARTITIONS && parts(s).length > 0 && parts(b).length > 0);
  await round(producer, [s, b], 1);
  await until('group Stable', async () => (await describe(connection)).groupState === 'Stable');
  const before = await describe(connection);
  const sParts = parts(s);
  const bParts = parts(b);

  // S stops reading; right after one of its heartbeats (the next is seconds
  // away) it leaves with -2, and S2 takes over.
  s.stream.pause(); // closing it would unsubscribe: a new subscription, a new epoch
  await new Promise((resolve) => s.c.once('consumer:heartbeat:end', resolve));
  const left = await consumerGroupHeartbeatV1.api.async(connection, GROUP, s.c.memberId, -2, INSTANCE, null, -1, [], null, null, []);
  checkEqual(left.memberEpoch, -2, 'static leave answered with epoch -2');
  const s2 = await start('pk-cgs-s2', INSTANCE);
  await until('S2 owns partitions', async () => parts(s2).length > 0);
  await s.stream.close();
  const closeError = await s.c.close().then(() => null, (e) => e);
  note(`old S closed: ${closeError ? closeError.message : 'ok'}`);

  const after = await describe(connection);
  checkEqual(after.groupEpoch, before.groupEpoch, 'group epoch across the static restart');
  checkEqual(parts(s2), sParts, "S2's partitions");
  checkEqual(parts(b), bParts, "B's partitions");
  checkEqual(after.members.length, 2, 'members after the static restart');

  await round(producer, [s2, b], 2);
  const twice = [...seen.entries()].filter(([, n]) => n > 1).map(([v]) => v);
  checkEqual(twice, [], 'records read more than once');
  checkEqual(seen.size, produced, 'records read');
  note(`static member rejoined at group epoch ${after.groupEpoch} with partitions ${sParts.join(',')}`);

  for (const m of [s2, b]) {
    await m.stream.close();
    await m.c.close();
  }
  await connection.close();
  await producer.close();
  await admin.close();
});
