// SPDX-License-Identifier: Apache-2.0
// kafkajs consumer-group member for the group interop tests: a consumer in
// GROUP subscribed to TOPIC from the beginning, committing every message as
// it is processed (autoCommit off, commitOffsets). It prints the same lines
// as progs/group_member.c, so interop-tests/lib/grouplib.sh reads both:
//
//   assignment COUNT PARTS        after each join (GROUP_JOIN event)
//   got TOPIC PARTITION OFFSET KEY, committed TOPIC PARTITION OFFSET,
//   commit-failed ERROR, fatal ERROR reason, closed consumed=N ok
//
// Usage: node group_member.js BOOTSTRAP GROUP TOPIC
// SIGTERM or SIGINT disconnects (LeaveGroup) and exits 0; a crash of the
// consumer exits 3; after DEADLINE_MS it exits 1.
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const DEADLINE_MS = 120000;
const [bootstrap, group, topic] = process.argv.slice(2);
let consumed = 0;

function say(line) {
  process.stdout.write(line + '\n');
}

function partsText(assignment) {
  const parts = [];
  for (const [name, partitions] of Object.entries(assignment)) {
    for (const p of partitions) parts.push({ name, p });
  }
  parts.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : x.p - y.p));
  return { count: parts.length, text: parts.map((x) => x.name + ':' + x.p).join(',') || '-' };
}

async function main() {
  const kafka = new Kafka({
    clientId: 'gregor-kafkajs-' + group,
    brokers: [bootstrap],
    logLevel: logLevel.WARN,
    retry: { retries: 5 },
  });
  const consumer = kafka.consumer({ groupId: group, sessionTimeout: 6000, heartbeatInterval: 500 });
  let stopping = false;
  const stop = async (status) => {
    if (stopping) return;
    stopping = true;
    await consumer.disconnect();
    say('closed consumed=' + consumed + (status === 0 ? ' ok' : ' FAILED'));
    process.exit(status);
  };
  const timer = setTimeout(() => {
    console.error('group_member.js: deadline passed');
    stop(1);
  }, DEADLINE_MS);
  process.on('SIGTERM', () => { clearTimeout(timer); stop(0); });
  process.on('SIGINT', () => { clearTimeout(timer); stop(0); });
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    const parts = partsText(e.payload.memberAssignment);
    say('assignment ' + parts.count + ' ' + parts.text);
  });
  consumer.on(consumer.events.CRASH, (e) => {
    say('fatal ' + ((e.payload.error && e.payload.error.type) || 'CRASH') + ' ' +
        (e.payload.error && e.payload.error.message));
    process.exit(3);
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic: name, partition, message }) => {
      consumed++;
      const key = message.key ? message.key.toString() : '-';
      say('got ' + name + ' ' + partition + ' ' + message.offset + ' ' + key);
      const next = (BigInt(message.offset) + 1n).toString();
      try {
        await consumer.commitOffsets([{ topic: name, partition, offset: next }]);
        say('committed ' + name + ' ' + partition + ' ' + next);
      } catch (e) {
        say('commit-failed ' + (e.type || e.name));
        throw e;
      }
    },
  });
}

main().catch((e) => {
  console.error('group_member.js: ' + (e && e.stack ? e.stack : String(e)));
  process.exit(1);
});
