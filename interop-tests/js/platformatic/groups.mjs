// SPDX-License-Identifier: Apache-2.0
// @platformatic/kafka consumer groups (classic protocol, JoinGroup v6+,
// OffsetCommit v8+, OffsetFetch v8+) with committed offsets:
//  - a consumer reads the 2 x HALF records of TOPIC from the earliest offset,
//    commits after the last of each partition and leaves; the group's
//    committed offsets are HALF on both partitions (Consumer and Admin agree);
//  - two consumers of the same group at once: each is assigned one
//    partition; then HALF more records per partition, which each member
//    reads from its own partition, resuming at the committed offset;
//    DescribeGroups shows the two members, Stable, and ListGroups lists the
//    group;
//  - AlterConsumerGroupOffsets and DeleteConsumerGroupOffsets on the empty
//    group, then DeleteGroups removes it;
//  - commit metadata round-trips byte for byte, a NUL inside included
//    ("Hello\0world!", 12 bytes), at every OffsetCommit version from 8 to
//    the newest the broker serves, read back with OffsetFetch (Admin); the
//    last line printed is "metadata-versions V...", the versions committed.
//
// Usage: node groups.mjs BOOTSTRAP
//        node groups.mjs BOOTSTRAP metadata-after-restart V...
//          (after a restart: those commits' metadata is still whole)
import { Admin, Connection, Consumer, Producer, ProduceAcks, offsetCommitV8, offsetCommitV9 } from '@platformatic/kafka';
import { args, baseOptions, bootstrap, check, checkEqual, main, note, take, until } from './common.mjs';

const TOPIC = 'pk-groups';
const GROUP = 'pk-group';
const META_GROUP = 'pk-meta-group';
const HALF = 10;
const METADATA = 'Hello\u0000world!';

function records(round) {
  const out = [];
  for (let n = 0; n < HALF; n++) {
    for (const partition of [0, 1]) {
      out.push({ topic: TOPIC, partition, key: Buffer.from(`p${partition}`), value: Buffer.from(`r${round}-p${partition}-${n}`) });
    }
  }
  return out;
}

function consumer(name) {
  return new Consumer({
    ...baseOptions(name),
    groupId: GROUP,
    sessionTimeout: 10000,
    rebalanceTimeout: 10000,
    heartbeatInterval: 200,
    maxWaitTime: 200,
    autocommit: false,
  });
}

// The offset and metadata committed by the OffsetCommit of `version`.
async function checkMetadata(admin, version) {
  const p = (await committed(admin, `${META_GROUP}-v${version}`)).get(`${TOPIC}-0`);
  checkEqual(p?.committedOffset, 7n, `OffsetCommit v${version}: offset`);
  checkEqual(Buffer.byteLength(p.metadata ?? ''), 12, `OffsetCommit v${version}: metadata length (${JSON.stringify(p.metadata)})`);
  checkEqual(p.metadata, METADATA, `OffsetCommit v${version}: metadata`);
}

async function committed(admin, group) {
  const [g] = await admin.listConsumerGroupOffsets({ groups: [group] });
  checkEqual(g.groupId, group, 'listed group');
  const out = new Map();
  for (const t of g.topics) for (const p of t.partitions) out.set(`${t.name}-${p.partitionIndex}`, p);
  return out;
}

main(async () => {
  const admin = new Admin(baseOptions('pk-groups-admin'));
  if (args[0] === 'metadata-after-restart') {
    // The commits of the first run, replayed from __consumer_offsets.
    for (const version of args.slice(1)) await checkMetadata(admin, Number(version));
    await admin.close();
    note(`commit metadata after the restart: whole (OffsetCommit v${args.slice(1).join(', v')})`);
    return;
  }
  await admin.createTopics({ topics: [TOPIC], partitions: 2, replicas: 1 });
  const producer = new Producer({ ...baseOptions('pk-groups-producer'), acks: ProduceAcks.ALL });
  await producer.send({ messages: records(1) });

  // Round 1: one consumer reads everything and commits.
  const first = consumer('pk-groups-c1');
  let stream = await first.consume({ topics: [TOPIC], mode: 'committed', fallbackMode: 'earliest' });
  const round1 = await take(stream, 2 * HALF);
  const last = new Map();
  for (const m of round1) {
    const n = last.has(m.partition) ? last.get(m.partition).offset + 1n : 0n;
    checkEqual(m.offset, n, `round 1 offset on partition ${m.partition}`);
    checkEqual(m.value.toString(), `r1-p${m.partition}-${n}`, 'round 1 value');
    last.set(m.partition, m);
  }
  checkEqual([...last.keys()].sort(), [0, 1], 'round 1 partitions');
  await first.commit({
    offsets: [...last.values()].map((m) => ({ topic: TOPIC, partition: m.partition, offset: m.offset + 1n, leaderEpoch: m.leaderEpoch })),
  });
  const fromConsumer = await first.listCommittedOffsets({ topics: [{ topic: TOPIC, partitions: [0, 1] }] });
  checkEqual(fromConsumer.get(TOPIC), [BigInt(HALF), BigInt(HALF)], 'committed offsets (consumer)');
  await stream.close();
  await first.close();
  let offsets = await committed(admin, GROUP);
  checkEqual([offsets.get(`${TOPIC}-0`).committedOffset, offsets.get(`${TOPIC}-1`).committedOffset], [BigInt(HALF), BigInt(HALF)], 'committed offsets (admin)');
  note(`round 1: read ${round1.length}, committed ${HALF} on both partitions`);

  // Round 2: two members share the partitions and resume at the commits.
  // The records are written once both are in the group: a member that
  // joined alone would otherwise read the other's partition until the
  // second join rebalances the group.
  const members = [consumer('pk-groups-c2'), consumer('pk-groups-c3')];
  const streams = await Promise.all(members.map((c) => c.consume({ topics: [TOPIC], mode: 'committed', fallbackMode: 'earliest' })));
  const owners = await until('both members assigned one partition each', async () => {
    const owned = members.map((c) => (c.assignments ?? []).flatMap((a) => a.partitions));
    const ok = owned.every((p) => p.length === 1) && new Set(owned.flat()).size === 2;
    return ok ? owned.map(([partition]) => partition) : null;
  });
  await producer.send({ messages: records(2) });
  const perMember = await Promise.all(streams.map((s) => take(s, HALF)));
  for (const [i, got] of perMember.entries()) {
    got.forEach((m, n) => {
      checkEqual([m.partition, m.offset], [owners[i], BigInt(HALF + n)], `member ${i} record ${n}: its partition, resumed at the commit`);
      checkEqual(m.value.toString(), `r2-p${owners[i]}-${n}`, `member ${i} record ${n} value`);
    });
  }
  const groups = await admin.describeGroups({ groups: [GROUP] });
  const described = groups.get(GROUP);
  checkEqual(described.state, 'Stable', 'group state');
  checkEqual(described.protocolType, 'consumer', 'protocol type');
  checkEqual(described.members.size, 2, 'group members');
  check((await admin.listGroups()).has(GROUP), 'ListGroups lists the group');
  for (const [i, s] of streams.entries()) {
    const m = perMember[i][HALF - 1];
    await members[i].commit({ offsets: [{ topic: TOPIC, partition: m.partition, offset: m.offset + 1n, leaderEpoch: m.leaderEpoch }] });
    await s.close();
  }
  for (const c of members) await c.close();
  offsets = await committed(admin, GROUP);
  checkEqual([offsets.get(`${TOPIC}-0`).committedOffset, offsets.get(`${TOPIC}-1`).committedOffset], [BigInt(2 * HALF), BigInt(2 * HALF)], 'committed after round 2');
  note('round 2: two members resumed at the committed offsets');

  // Admin offset operations on the (now empty) group, then its deletion.
  await admin.alterConsumerGroupOffsets({ groupId: GROUP, topics: [{ name: TOPIC, partitionOffsets: [{ partition: 0, offset: 3n }] }] });
  offsets = await committed(admin, GROUP);
  checkEqual(offsets.get(`${TOPIC}-0`).committedOffset, 3n, 'offset after AlterConsumerGroupOffsets');
  await admin.deleteConsumerGroupOffsets({ groupId: GROUP, topics: [{ name: TOPIC, partitionIndexes: [1] }] });
  offsets = await committed(admin, GROUP);
  checkEqual(offsets.get(`${TOPIC}-1`)?.committedOffset ?? -1n, -1n, 'partition 1 offset after DeleteConsumerGroupOffsets');
  await admin.deleteGroups({ groups: [GROUP] });
  check(!(await admin.listGroups()).has(GROUP), 'group gone after DeleteGroups');
  note('AlterConsumerGroupOffsets, DeleteConsumerGroupOffsets, DeleteGroups: done');

  // Commit metadata with a NUL byte, at each OffsetCommit version (a
  // commit outside any generation: generation -1, no member id).
  const apis = new Map((await admin.listApis()).map((a) => [a.name, a]));
  const newest = apis.get('OffsetCommit').maxVersion;
  const [host, port] = bootstrap.split(':');
  const connection = new Connection('pk-groups-raw');
  await connection.connect(host, Number(port));
  const versions = [];
  for (const api of [offsetCommitV8, offsetCommitV9].map((m) => m.api).filter((a) => a.version <= newest)) {
    versions.push(api.version);
    const group = `${META_GROUP}-v${api.version}`;
    await api.async(connection, group, -1, '', null, [
      { name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: METADATA }] },
    ]);
    await checkMetadata(admin, api.version);
  }
  await connection.close();
  note('commit metadata with a NUL byte came back whole');
  console.log('metadata-versions ' + versions.join(' '));

  await producer.close();
  await admin.close();
  note('groups: all checks passed');
});
