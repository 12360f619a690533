// SPDX-License-Identifier: Apache-2.0
// KIP-848's online migration with live traffic: a group of three classic
// consumers (JoinGroup, cooperative-sticky) reads a 4-partition topic while
// a producer keeps writing; one at a time, each is replaced by a consumer
// using ConsumerGroupHeartbeat (groupProtocol 'consumer'): the first one's
// join upgrades the group, the others join it beside the classic members
// still there. Then the way back: one at a time, classic consumers replace
// the consumer-protocol ones, and the last one's leave downgrades the group
// to a classic group.
//
// Each member handles one record at a time: it takes a record only while it
// owns its partition, then commits offset + 1 and waits for the answer
// before taking the next. A record is "consumed" when a member takes it and
// "committed" when that commit succeeded. A member reads where to start
// (OffsetFetch) when it gets partitions: that is the hand-over. At-least-once
// delivery allows a record to be consumed again only if its commit had not
// succeeded when the member that takes it again read its position (the
// commit was in flight or refused at the hand-over); such re-deliveries are
// counted and printed. The checks, after each direction:
//   - no record is taken by a member other than its first taker at an
//     offset below what had been committed when that member read its
//     position (nothing consumed twice after its commit);
//   - no OffsetFetch answers an offset older than a commit acknowledged
//     before it was sent;
//   - no record is taken while another running member also owns its
//     partition (a partition changes hands only after its owner let go);
//   - every record written is consumed (nothing lost), and the committed
//     offsets end at the partitions' ends;
//   - the members move partitions while records flow (each step waits for
//     all four partitions to be owned, by one member each).
//
// Usage: node cgroup_migration.mjs BOOTSTRAP
import { Admin, Consumer, Producer, ProduceAcks } from '@platformatic/kafka';
import { baseOptions, check, checkEqual, main, note, until } from './common.mjs';

const TOPIC = 'pk-migration';
const GROUP = 'pk-migration-group';
const PARTITIONS = 4;

const state = {
  committed: new Array(PARTITIONS).fill(0n), // the highest offset + 1 a commit succeeded with
  consumed: Array.from({ length: PARTITIONS }, () => new Set()), // offsets taken at least once
  redelivered: 0, // taken again, not committed at the hand-over (allowed)
  afterCommit: [], // taken again after a commit covered it (forbidden)
  written: new Array(PARTITIONS).fill(0n),
  committer: new Array(PARTITIONS).fill(''), // who made the commit in committed[]
  takers: Array.from({ length: PARTITIONS }, () => new Map()), // offset -> who took it first
  overlaps: [], // records taken while another member owned their partition too (forbidden)
  staleFetches: [], // OffsetFetch answers older than an acknowledged commit (forbidden)
  refused: new Set(), // why commits were refused (printed)
};
const active = []; // members whose consuming loop runs

function member(name, protocol) {
  const options = {
    ...baseOptions(name),
    groupId: GROUP,
    groupProtocol: protocol,
    sessionTimeout: 10000,
    rebalanceTimeout: 10000,
    heartbeatInterval: 200,
    maxWaitTime: 100,
    autocommit: false,
  };
  if (protocol === 'classic') options.protocols = [{ name: 'cooperative-sticky', version: 3 }];
  const consumer = new Consumer(options);
  const m = { name, protocol, consumer, stream: null, loop: null, floor: new Array(PARTITIONS).fill(0n) };
  // The hand-over moment of a partition is when the member reads its committed offset: what was
  // committed by then must never be read again; what was committed later may be.
  const list = consumer.listCommittedOffsets.bind(consumer);
  consumer.listCommittedOffsets = (opts, callback) => {
    const known = [...state.committed];
    return list(opts, (error, commits) => {
      for (const t of error ? [] : opts.topics) {
        if (t.topic !== TOPIC) continue;
        for (const p of t.partitions) {
          m.floor[p] = known[p];
          const got = commits.get(TOPIC)?.[p] ?? -1n;
          if (known[p] > 0n && got < known[p]) state.staleFetches.push(`${name}: p${p} committed ${got}, ${known[p]} was acknowledged`);
        }
      }
      callback(error, commits);
    });
  };
  return m;
}

function owns(m, partition) {
  return (m.consumer.assignments ?? []).some((a) => a.topic === TOPIC && a.partitions.includes(partition));
}

function owned(m) {
  return (m.consumer.assignments ?? []).filter((a) => a.topic === TOPIC).flatMap((a) => a.partitions);
}

async function handle(m, record) {
  const p = record.partition;
  if (!owns(m, p)) return; // fetched before a revocation: not this member's any more
  const o = record.offset;
  const also = active.filter((n) => n !== m && owns(n, p)).map((n) => n.name);
  if (also.length) state.overlaps.push(`${m.name} took p${p}@${o} while ${also} owned it too`);
  if (o < m.floor[p] && state.takers[p].get(o) !== m.name) {
    state.afterCommit.push(`${m.name} took p${p}@${o}, committed (${m.floor[p]}) before it read its position` +
      ` (first taken by ${state.takers[p].get(o)})`);
  } else if (state.consumed[p].has(o)) state.redelivered++;
  state.consumed[p].add(o);
  if (!state.takers[p].has(o)) state.takers[p].set(o, m.name);
  // A commit refused while the member still owns the partition (its epoch or generation moved
  // on meanwhile: STALE_MEMBER_EPOCH, REBALANCE_IN_PROGRESS...) is retried, as the Java consumer
  // does; once the partition is gone the record is the next owner's to read again.
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await m.consumer.commit({ offsets: [{ topic: TOPIC, partition: p, offset: o + 1n, leaderEpoch: record.leaderEpoch }] });
      if (o + 1n > state.committed[p]) {
        state.committed[p] = o + 1n;
        state.committer[p] = m.name;
      }
      return;
    } catch (error) {
      state.refused.add(error.errors?.[0]?.apiId ?? error.apiId ?? error.message);
      if (!owns(m, p)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function start(m) {
  m.stream = await m.consumer.consume({ topics: [TOPIC], mode: 'committed', fallbackMode: 'earliest' });
  active.push(m);
  m.loop = (async () => {
    for await (const record of m.stream) await handle(m, record);
  })().finally(() => active.splice(active.indexOf(m), 1));
  return m;
}

async function stop(m) {
  await m.stream.close();
  await m.loop.catch(() => {});
  await m.consumer.close();
}

// Waits until the live members own every partition, each exactly once, and each member owns one.
const t0 = Date.now();
async function settled(live, what) {
  const show = () => live.map((m) => `${m.name}=${owned(m)}`).join(' ');
  await until(what, async () => {
    const all = live.flatMap(owned).sort();
    return all.length === PARTITIONS && new Set(all).size === PARTITIONS && live.every((m) => owned(m).length > 0);
  }, 30).catch((error) => {
    throw new Error(`${error.message} (${show()})`);
  });
  if (process.env.PK_TRACE) note(`${Date.now() - t0} ms: ${what}: ${show()}`);
}

function producing(producer) {
  let n = 0;
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const messages = [];
      for (let partition = 0; partition < PARTITIONS; partition++) {
        messages.push({ topic: TOPIC, partition, value: Buffer.from(`r${n}`) });
      }
      await producer.send({ messages });
      for (let partition = 0; partition < PARTITIONS; partition++) state.written[partition]++;
      n++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return async () => {
    stopped = true;
    await done;
  };
}

// Every written record consumed and committed, none after its commit.
async function verify(what) {
  await until(`${what}: every record consumed and committed`, () =>
    state.committed.every((c, p) => c === state.written[p]), 30).catch((error) => {
    throw new Error(`${error.message} (committed ${state.committed}, written ${state.written}; ` +
      `${active.map((m) => `${m.name}=${owned(m)}`).join(' ')})`);
  });
  checkEqual(state.afterCommit, [], `${what}: records consumed after their commit`);
  checkEqual(state.overlaps, [], `${what}: records taken while two members owned their partition`);
  checkEqual(state.staleFetches, [], `${what}: committed offsets read older than acknowledged`);
  for (let p = 0; p < PARTITIONS; p++) {
    checkEqual(BigInt(state.consumed[p].size), state.written[p], `${what}: distinct records consumed on partition ${p}`);
  }
  note(`${what}: ${state.written.reduce((a, b) => a + b)} records consumed and committed, ` +
       `${state.redelivered} re-delivered before their commit, none after` +
       (state.refused.size ? `; commits refused with ${[...state.refused].join(', ')} and retried` : ''));
}

main(async () => {
  const admin = new Admin(baseOptions('pk-migration-admin'));
  await admin.createTopics({ topics: [TOPIC], partitions: PARTITIONS, replicas: 1 });
  const producer = new Producer({ ...baseOptions('pk-migration-producer'), acks: ProduceAcks.ALL });

  // A classic group of three, consuming.
  // All three in the first generation (group.initial.rebalance.delay.ms holds it for them).
  let live = await Promise.all([1, 2, 3].map((i) => start(member(`classic-${i}`, 'classic'))));
  await settled(live, 'three classic members own the partitions');
  let stopProducing = producing(producer);
  const groups = await admin.describeGroups({ groups: [GROUP] });
  checkEqual(groups.get(GROUP).protocolType, 'consumer', 'classic group protocol type');

  // Upgrade: each classic member is replaced by a consumer-protocol member.
  for (const i of [1, 2, 3]) {
    const next = await start(member(`consumer-${i}`, 'consumer'));
    await settled([...live, next], `consumer-${i} joined beside the classic members`);
    const gone = live.shift();
    await stop(gone);
    live.push(next);
    await settled(live, `classic-${i} left`);
    note(`upgrade step ${i}: ${live.map((m) => `${m.name}=${owned(m)}`).join(' ')}`);
  }
  await stopProducing();
  await verify('upgrade');
  check(live.every((m) => m.protocol === 'consumer'), 'only consumer-protocol members left');

  // Downgrade: each consumer-protocol member is replaced by a classic member.
  stopProducing = producing(producer);
  for (const i of [1, 2, 3]) {
    const next = await start(member(`classic-again-${i}`, 'classic'));
    await settled([...live, next], `classic-again-${i} joined the consumer group`);
    const gone = live.shift();
    await stop(gone);
    live.push(next);
    await settled(live, `consumer-${i} left`);
    note(`downgrade step ${i}: ${live.map((m) => `${m.name}=${owned(m)}`).join(' ')}`);
  }
  await stopProducing();
  await verify('downgrade');
  const after = (await admin.describeGroups({ groups: [GROUP] })).get(GROUP);
  checkEqual([after.protocolType, after.state, after.members.size], ['consumer', 'Stable', 3],
    'the group is classic again (DescribeGroups)');

  for (const m of live) await stop(m);
  await producer.close();
  await admin.close();
  note('cgroup_migration: all checks passed');
});
