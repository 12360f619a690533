// SPDX-License-Identifier: Apache-2.0
// kafkajs against a broker: a producer sends 100 keyed messages (acks=all);
// a consumer in a group (kafkajs has no group-less consumer; its default
// isolation level is read_committed) subscribes from the beginning and must
// get every message back, once, in order within each partition.
//
// Usage: node group_consume.js BOOTSTRAP TOPIC GROUP
// Exit status 0 on success, 1 on a failed check (the reason on stderr).
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const COUNT = 100;
const DEADLINE_MS = 60000;
const [bootstrap, topic, group] = process.argv.slice(2);

function fail(msg) {
  console.error('group_consume: ' + msg);
  process.exit(1);
}

async function main() {
  const kafka = new Kafka({
    clientId: 'gregor-kafkajs-smoke',
    brokers: [bootstrap],
    logLevel: logLevel.WARN,
    retry: { retries: 5 },
  });
  const timer = setTimeout(() => fail('deadline of ' + DEADLINE_MS + ' ms passed'), DEADLINE_MS);

  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  const messages = [];
  for (let i = 0; i < COUNT; i++) {
    messages.push({ key: 'key-' + i, value: 'value-' + i, headers: { n: String(i) } });
  }
  const acks = await producer.send({ topic, acks: -1, messages });
  await producer.disconnect();
  const sent = acks.reduce((n, r) => n + (r.errorCode === 0 ? 1 : 0), 0);
  if (sent !== acks.length) fail('produce errors: ' + JSON.stringify(acks));

  const consumer = kafka.consumer({ groupId: group });
  // kafkajs retries inside the client first; a crash is what is left after
  // those retries, so report it at once instead of waiting for the deadline.
  consumer.on(consumer.events.CRASH, (e) => fail('consumer crashed: ' + (e.payload.error && e.payload.error.message)));
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen = new Map();
  const lastOffset = new Map();
  let finish;
  const done = new Promise((resolve) => { finish = resolve; });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const key = message.key.toString();
      const i = Number(key.slice(4));
      if (message.value.toString() !== 'value-' + i) fail('bad value for ' + key);
      if (message.headers.n.toString() !== String(i)) fail('bad header for ' + key);
      if (seen.has(key)) fail('duplicate ' + key);
      const offset = Number(message.offset);
      if (lastOffset.has(partition) && offset <= lastOffset.get(partition)) {
        fail('partition ' + partition + ': offset ' + offset + ' after ' + lastOffset.get(partition));
      }
      lastOffset.set(partition, offset);
      seen.set(key, true);
      if (seen.size === COUNT) finish();
    },
  });
  await done;
  await consumer.disconnect();
  clearTimeout(timer);
  console.log('group_consume: ' + COUNT + ' messages round-tripped through group ' + group);
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
