// SPDX-License-Identifier: Apache-2.0
// @platformatic/kafka consumers on the KIP-848 consumer-group protocol
// (groupProtocol 'consumer': ConsumerGroupHeartbeat to join, heartbeat and
// leave with member epoch -1; OffsetCommit carries the member epoch).
//
// Modes:
//  churn   MEMBERS members share a topic of PARTITIONS partitions while a
//          producer writes RECORDS records in ten rounds. Half the members
//          (at least one) start before the first round; the others join
//          during the rounds; then the first ones leave, one by one, and a
//          replacement joins for each, so ownership moves while records
//          arrive. Every member commits each record it consumed (offset + 1,
//          one commit at a time) and keeps reading until all are consumed.
//          Checks: every produced record consumed by some member; the
//          group's committed offsets at the end are the partitions' ends.
//          Records read twice (a new owner resuming at a commit older than
//          the last one, which the previous owner's in-flight commit can
//          cause) are counted: duplicates, and rewinds (reads below an
//          offset committed before the read). With --exactly-once a
//          duplicate fails the run.
//  static  A static member (groupInstanceId) joins with OTHERS dynamic
//          members over PARTITIONS partitions, leaves (the client's leave
//          is epoch -1) and a new consumer with the same instance id joins;
//          its assignment before and after is printed. Checks: it has a
//          non-empty assignment both times (when PARTITIONS > OTHERS), and
//          the members' assignments never overlap.
//
// Usage:
//   node cgroup.mjs BOOTSTRAP churn  [--members N=3] [--partitions P=4] [--records K=200]
//                                    [--exactly-once] [--group G] [--topic T] [--assignor NAME]
//   node cgroup.mjs BOOTSTRAP static [--partitions P=3] [--others N=1] [--instance ID]
//                                    [--group G] [--topic T] [--assignor NAME]
// Both take --protocol classic to run the same checks over the classic
// protocol (JoinGroup/SyncGroup), which is how the script itself was tried
// out before the broker had ConsumerGroupHeartbeat.
//
// Output: progress lines, then, as the last line, one JSON object:
//   churn:  {"mode":"churn","ok":true,"members":3,"partitions":4,"produced":200,
//            "consumed":205,"unique":200,"duplicates":5,"rewinds":5,"failedCommits":0,
//            "joins":5,"leaves":5,"committed":{"0":50,...},"ends":{"0":50,...}}
//   static: {"mode":"static","ok":true,"instanceId":"...","before":{"topic":[0,2]},
//            "after":{"topic":[0,2]},"memberIdBefore":"...","memberIdAfter":"..."}
// A failure prints "FAIL: <reason>" on stderr and the same JSON with
// "ok":false and "error", and exits 1, before PK_TIMEOUT_S (default 60) runs
// out. Against a broker without ConsumerGroupHeartbeat the first join fails
// with the client's "Unsupported API ConsumerGroupHeartbeat." error.
import { Admin, Consumer, Producer, ProduceAcks } from '@platformatic/kafka';
import { inspect } from 'node:util';
import { args, baseOptions, checkEqual, note, until } from './common.mjs';

const TIMEOUT_S = Number(process.env.PK_TIMEOUT_S ?? 60);
const MARGIN_S = 5; // to print the summary before pk_run's timeout kills us

function parseArgs(list) {
  const mode = list[0];
  const opts = { flags: new Set() };
  for (let i = 1; i < list.length; i++) {
    const a = list[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const name = a.slice(2);
    if (name === 'exactly-once') opts.flags.add(name);
    else opts[name] = list[++i];
  }
  return { mode, opts };
}

const { mode, opts } = parseArgs(args);
const summary = { mode, ok: false };

function finish(ok, error) {
  summary.ok = ok;
  if (error) {
    summary.error = error.message ?? String(error);
    console.error('FAIL: ' + (error instanceof Error ? inspect(error, { depth: 6 }) : String(error)));
  }
  console.log(JSON.stringify(summary));
  process.exit(ok ? 0 : 1);
}

// A hang fails with the summary so far rather than being killed silently.
setTimeout(() => finish(false, new Error(`no result within ${TIMEOUT_S - MARGIN_S}s (PK_TIMEOUT_S=${TIMEOUT_S})`)),
  Math.max(1, TIMEOUT_S - MARGIN_S) * 1000).unref();

function consumerOptions(name, group, extra = {}) {
  const o = {
    ...baseOptions(name),
    groupId: group,
    groupProtocol: opts.protocol ?? 'consumer',
    sessionTimeout: 10000,
    rebalanceTimeout: 10000,
    heartbeatInterval: 200,
    maxWaitTime: 200,
    autocommit: false,
    ...extra,
  };
  if (opts.assignor) o.groupRemoteAssignor = opts.assignor;
  if (o.groupProtocol === 'classic') o.sessionTimeout = 6000;
  return o;
}

// {topic: [partitions]} of a consumer's current assignment.
function owned(consumer) {
  const out = {};
  for (const a of consumer.assignments ?? []) out[a.topic] = [...a.partitions].sort((x, y) => x - y);
  return out;
}

function ownedList(consumer, topic) {
  return owned(consumer)[topic] ?? [];
}

// ---- churn ----------------------------------------------------------------------

class Member {
  constructor(n, group, topic, log) {
    this.name = `pk-cgroup-m${n}`;
    this.topic = topic;
    this.log = log;
    this.consumer = new Consumer(consumerOptions(this.name, group));
    this.closed = false;
  }

  async start() {
    this.stream = await this.consumer.consume({ topics: [this.topic], mode: 'committed', fallbackMode: 'earliest' });
    this.loop = this.run();
  }

  // Reads and commits one record at a time until closed.
  async run() {
    for await (const m of this.stream) {
      const key = `${m.partition}:${m.offset}`;
      this.log.consumed.push({ member: this.name, key, partition: m.partition, offset: m.offset, at: this.log.seq++ });
      try {
        await this.consumer.commit({ offsets: [{ topic: this.topic, partition: m.partition, offset: m.offset + 1n, leaderEpoch: m.leaderEpoch }] });
        this.log.commits.push({ partition: m.partition, offset: m.offset + 1n, at: this.log.seq++ });
      } catch (error) {
        // A partition moved away since the read: the next owner reads it again.
        this.log.failedCommits++;
      }
      if (this.closed) break;
    }
  }

  async stop() {
    this.closed = true;
    await this.stream?.close();
    await this.consumer.close();
    await this.loop?.catch(() => {});
  }
}

// Reads below an offset already committed when the record was read: a new
// owner that took its position from an older commit (the previous owner's
// commit was still in flight when the partition moved). Reported, not an
// error: the client's commits race with its revocations.
function rewinds(log) {
  const out = [];
  const committedBefore = new Map(); // partition -> highest commit so far
  const events = [
    ...log.consumed.map((c) => ({ kind: 'read', ...c })),
    ...log.commits.map((c) => ({ kind: 'commit', ...c })),
  ].sort((a, b) => a.at - b.at);
  for (const e of events) {
    const high = committedBefore.get(e.partition) ?? 0n;
    if (e.kind === 'commit') committedBefore.set(e.partition, e.offset > high ? e.offset : high);
    else if (e.offset < high) out.push(`${e.member} read ${e.key} after offset ${high} was committed`);
  }
  return out;
}

async function churn() {
  const members = Number(opts.members ?? 3);
  const partitions = Number(opts.partitions ?? 4);
  const records = Number(opts.records ?? 200);
  const topic = opts.topic ?? `pk-cgroup-churn-${process.pid}`;
  const group = opts.group ?? `pk-cgroup-churn-${process.pid}`;
  const exactlyOnce = opts.flags.has('exactly-once');
  Object.assign(summary, { members, partitions, produced: 0, consumed: 0, unique: 0, duplicates: 0, rewinds: 0, joins: 0, leaves: 0 });

  const admin = new Admin(baseOptions('pk-cgroup-admin'));
  await admin.createTopics({ topics: [topic], partitions, replicas: 1 });
  const producer = new Producer({ ...baseOptions('pk-cgroup-producer'), acks: ProduceAcks.ALL });
  const log = { consumed: [], commits: [], failedCommits: 0, seq: 0 };
  let next = 0;
  const live = [];
  const join = async () => {
    const m = new Member(next++, group, topic, log);
    await m.start();
    live.push(m);
    summary.joins++;
    note(`joined: ${m.name} (${live.length} live)`);
  };
  const leave = async () => {
    const m = live.shift();
    await m.stop();
    summary.leaves++;
    note(`left: ${m.name} (${live.length} live)`);
  };

  const first = Math.max(1, Math.floor(members / 2));
  for (let i = 0; i < first; i++) await join();
  const rounds = 10;
  for (let round = 0; round < rounds; round++) {
    const count = Math.floor(records / rounds) + (round < records % rounds ? 1 : 0);
    const messages = [];
    for (let i = 0; i < count; i++) {
      const n = summary.produced + i;
      messages.push({ topic, partition: n % partitions, key: Buffer.from(`k${n}`), value: Buffer.from(`r${n}`) });
    }
    await producer.send({ messages });
    summary.produced += count;
    // Rounds 2-4 add the late members; rounds 5 on replace the first ones.
    if (round >= 2 && live.length < members) await join();
    else if (round >= 5 && summary.leaves < first) {
      await leave();
      await join();
    }
  }
  const ends = await endOffsets(admin, topic, partitions);
  summary.ends = Object.fromEntries(ends.map((e, p) => [p, Number(e)]));
  const total = ends.reduce((a, b) => a + b, 0n);
  checkEqual(Number(total), records, 'records in the topic');
  await until(`every record consumed (${records})`, () => new Set(log.consumed.map((c) => c.key)).size >= records,
    Math.max(5, TIMEOUT_S - MARGIN_S - 15));
  while (live.length) await leave();

  const keys = log.consumed.map((c) => c.key);
  const unique = new Set(keys);
  Object.assign(summary, { consumed: keys.length, unique: unique.size, duplicates: keys.length - unique.size, failedCommits: log.failedCommits });
  for (let p = 0; p < partitions; p++) {
    for (let o = 0n; o < ends[p]; o++) {
      if (!unique.has(`${p}:${o}`)) throw new Error(`record ${p}:${o} never consumed`);
    }
  }
  const committed = await committedOffsets(admin, group, topic);
  summary.committed = Object.fromEntries([...Array(partitions).keys()].map((p) => [p, Number(committed.get(p) ?? -1n)]));
  checkEqual(summary.committed, summary.ends, 'committed offsets at the end');
  const rewound = rewinds(log);
  summary.rewinds = rewound.length;
  if (rewound.length) note(`rewinds: ${rewound.slice(0, 5).join('; ')}`);
  if (exactlyOnce && summary.duplicates) {
    const seen = new Map();
    const dups = log.consumed.filter((c) => seen.has(c.key) || !seen.set(c.key, c.member)).slice(0, 5);
    throw new Error(`${summary.duplicates} records consumed twice, e.g. ${dups.map((d) => `${d.key} by ${seen.get(d.key)} and ${d.member}`).join('; ')}`);
  }
  await producer.close();
  await admin.close();
}

async function endOffsets(admin, topic, partitions) {
  const res = await admin.listOffsets({ topics: [{ name: topic, partitions: [...Array(partitions).keys()].map((p) => ({ partitionIndex: p, timestamp: -1n })) }] });
  const out = Array(partitions).fill(0n);
  for (const t of res) for (const p of t.partitions) out[p.partitionIndex] = p.offset;
  return out;
}

async function committedOffsets(admin, group, topic) {
  const [g] = await admin.listConsumerGroupOffsets({ groups: [group] });
  const out = new Map();
  for (const t of g.topics) if (t.name === topic) for (const p of t.partitions) out.set(p.partitionIndex, p.committedOffset);
  return out;
}

// ---- static ---------------------------------------------------------------------

async function staticMember() {
  const partitions = Number(opts.partitions ?? 3);
  const others = Number(opts.others ?? 1);
  const topic = opts.topic ?? `pk-cgroup-static-${process.pid}`;
  const group = opts.group ?? `pk-cgroup-static-${process.pid}`;
  const instanceId = opts.instance ?? `pk-static-${process.pid}`;
  Object.assign(summary, { instanceId, partitions, others });

  const admin = new Admin(baseOptions('pk-cgroup-admin'));
  await admin.createTopics({ topics: [topic], partitions, replicas: 1 });
  const start = async (name, extra) => {
    const c = new Consumer(consumerOptions(name, group, extra));
    const s = await c.consume({ topics: [topic], mode: 'committed', fallbackMode: 'earliest' });
    return { c, s };
  };
  const dynamic = [];
  for (let i = 0; i < others; i++) dynamic.push(await start(`pk-cgroup-d${i}`));
  let member = await start('pk-cgroup-static', { groupInstanceId: instanceId });

  // Settled: every partition owned by exactly one of the live members.
  const settled = (live) => until('assignments covering every partition once', () => {
    const all = live.flatMap((m) => ownedList(m.c, topic));
    return all.length === partitions && new Set(all).size === partitions;
  }, 20);
  await settled([member, ...dynamic]);
  summary.before = owned(member.c);
  summary.memberIdBefore = member.c.memberId;
  note(`static member ${instanceId} before: ${JSON.stringify(summary.before)} (member id ${member.c.memberId})`);

  await member.s.close();
  await member.c.close();
  if (others) await settled(dynamic);
  note(`static member left; the others own ${JSON.stringify(dynamic.map((m) => owned(m.c)))}`);

  member = await start('pk-cgroup-static-again', { groupInstanceId: instanceId });
  await settled([member, ...dynamic]);
  summary.after = owned(member.c);
  summary.memberIdAfter = member.c.memberId;
  note(`static member ${instanceId} after: ${JSON.stringify(summary.after)} (member id ${member.c.memberId})`);
  if (partitions > others) {
    if (!(summary.before[topic]?.length)) throw new Error('the static member had no partition before leaving');
    if (!(summary.after[topic]?.length)) throw new Error('the static member has no partition after rejoining');
  }
  for (const m of [member, ...dynamic]) {
    await m.s.close();
    await m.c.close();
  }
  await admin.close();
}

const modes = { churn, static: staticMember };
if (!modes[mode]) {
  console.error('usage: node cgroup.mjs BOOTSTRAP churn|static [options] (see the header)');
  process.exit(2);
}
modes[mode]().then(() => finish(true), (error) => finish(false, error));
