// SPDX-License-Identifier: Apache-2.0
// kafkajs' admin.alterPartitionReassignments and listPartitionReassignments
// (KIP-455) against a cluster, for the cluster_reassign_* tests.
//
// Usage:
//   node kafkajs_reassign.js BOOTSTRAP move TOPIC PARTITION TARGET
//       Moves TOPIC-PARTITION to the brokers TARGET ("1,2"), then polls
//       listPartitionReassignments until the partition is no longer listed.
//       Each time it is listed, its replicas must be the union of TARGET
//       then the original replicas (as Metadata gave them before the
//       move), adding TARGET minus the original, removing the original
//       minus TARGET. Prints "moved TOPIC-PARTITION listed N time(s)".
//   node kafkajs_reassign.js BOOTSTRAP errors TOPIC PARTITION
//       Refused requests, TOPIC-PARTITION existing and not being moved:
//       an unknown topic and an unknown partition (UNKNOWN_TOPIC_OR_PARTITION),
//       an unregistered broker id, an empty list and a duplicate id
//       (INVALID_REPLICA_ASSIGNMENT); nothing listed before or after, for
//       every topic or for TOPIC and an unknown one; the replicas unchanged.
//
// Exit status 0 on success, 1 on a failed check (the reason on stderr).
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const DEADLINE_MS = 90000;
const POLL_MS = 100;
const UNREGISTERED_BROKER = 99;
const [bootstrap, mode, topic, partitionText, targetText] = process.argv.slice(2);
const partition = Number(partitionText);

function fail(msg) {
  console.error('kafkajs_reassign: ' + msg);
  process.exit(1);
}

function check(cond, what) {
  if (!cond) fail(what);
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));

async function replicasOf(admin, name) {
  const md = await admin.fetchTopicMetadata({ topics: [name] });
  const p = md.topics[0].partitions.find(q => q.partitionId === partition);
  check(p, `Metadata has no partition ${partition} of ${name}`);
  return p.replicas;
}

// The partition's entry in listPartitionReassignments for TOPIC, or null.
async function listed(admin) {
  const res = await admin.listPartitionReassignments({ topics: [{ topic, partitions: [partition] }] });
  for (const t of res.topics) {
    check(t.name === topic, 'listed a topic not asked for: ' + JSON.stringify(res.topics));
    for (const p of t.partitions) {
      check(p.partition === partition, 'listed a partition not asked for: ' + JSON.stringify(res.topics));
      return p;
    }
  }
  return null;
}

async function move(admin) {
  const target = targetText.split(',').map(Number);
  const original = await replicasOf(admin, topic);
  const union = [...new Set([...target, ...original])];
  const adding = target.filter(b => !original.includes(b));
  const removing = original.filter(b => !target.includes(b));
  await admin.alterPartitionReassignments({
    topics: [{ topic, partitionAssignment: [{ partition, replicas: target }] }],
  });
  let times = 0;
  for (;;) {
    const p = await listed(admin);
    if (!p) break;
    times++;
    check(same(p.replicas, union) && same(p.addingReplicas, adding) && same(p.removingReplicas, removing),
      `listed ${JSON.stringify(p)}, want replicas ${JSON.stringify(union)} adding ` +
      `${JSON.stringify(adding)} removing ${JSON.stringify(removing)}`);
    await sleep(POLL_MS);
  }
  console.log(`moved ${topic}-${partition} listed ${times} time(s)`);
}

// The error types of a refused alterPartitionReassignments, in answer order.
async function refusal(admin, name, index, replicas) {
  try {
    await admin.alterPartitionReassignments({
      topics: [{ topic: name, partitionAssignment: [{ partition: index, replicas }] }],
    });
  } catch (e) {
    if (Array.isArray(e.errors)) return e.errors.map(x => `${x.topic}-${x.partition} ${x.type}`).join(', ');
    return 'no per-partition errors: ' + e;
  }
  return 'accepted';
}

async function errors(admin) {
  const nothingListed = async when => {
    const all = await admin.listPartitionReassignments({});
    check(all.topics.every(t => t.partitions.length === 0),
      `${when}: every reassignment: ${JSON.stringify(all.topics)}, want none`);
    const some = await admin.listPartitionReassignments({
      topics: [{ topic, partitions: [partition] }, { topic: 'no-such-topic', partitions: [0] }],
    });
    check(some.topics.every(t => t.partitions.length === 0),
      `${when}: ${topic}-${partition} and no-such-topic-0: ${JSON.stringify(some.topics)}, want none`);
  };
  await nothingListed('before');
  const original = await replicasOf(admin, topic);
  const expect = async (what, name, index, replicas, want) => {
    const got = await refusal(admin, name, index, replicas);
    check(got === `${name}-${index} ${want}`, `${what}: ${got}, want ${name}-${index} ${want}`);
    console.log(`${what}: ${want}`);
  };
  await expect('unknown topic', 'no-such-topic', 0, [0, 1], 'UNKNOWN_TOPIC_OR_PARTITION');
  await expect('unknown partition', topic, 99, [0, 1], 'UNKNOWN_TOPIC_OR_PARTITION');
  await expect('unregistered broker', topic, partition, [original[0], UNREGISTERED_BROKER],
    'INVALID_REPLICA_ASSIGNMENT');
  await expect('empty replica list', topic, partition, [], 'INVALID_REPLICA_ASSIGNMENT');
  await expect('duplicate replica', topic, partition, [original[0], original[0]], 'INVALID_REPLICA_ASSIGNMENT');
  await nothingListed('after');
  const now = await replicasOf(admin, topic);
  check(same(now, original), `replicas ${JSON.stringify(now)} after refused requests, were ${JSON.stringify(original)}`);
}

async function main() {
  const kafka = new Kafka({
    clientId: 'gregor-kafkajs-reassign',
    brokers: bootstrap.split(','),
    logLevel: logLevel.NOTHING,
    retry: { retries: 5 },
  });
  const timer = setTimeout(() => fail('deadline of ' + DEADLINE_MS + ' ms passed'), DEADLINE_MS);
  const admin = kafka.admin();
  await admin.connect();
  if (mode === 'move' && targetText) await move(admin);
  else if (mode === 'errors') await errors(admin);
  else fail('usage: kafkajs_reassign.js BOOTSTRAP move TOPIC PARTITION TARGET | errors TOPIC PARTITION');
  await admin.disconnect();
  clearTimeout(timer);
}

main().catch(e => fail((e && e.stack) || String(e)));
