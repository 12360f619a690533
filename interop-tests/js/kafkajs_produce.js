// SPDX-License-Identifier: Apache-2.0
// kafkajs against a broker, without consumer groups (see pending/): its
// producer sends 100 keyed messages with headers (acks=all) to an
// auto-created topic, its admin client reads the topic's metadata and
// offsets (Metadata, ListOffsets), and the messages are printed for the
// shell test to compare with what kcat consumes.
//
// Usage: node kafkajs_produce.js BOOTSTRAP TOPIC
// Exit status 0 on success, 1 on a failed check (the reason on stderr).
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const COUNT = 100;
const DEADLINE_MS = 60000;
const [bootstrap, topic] = process.argv.slice(2);

function fail(msg) {
  console.error('kafkajs_produce: ' + msg);
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
    messages.push({ key: 'key-' + i, value: 'value-' + i, headers: { n: String(i) }, partition: 0 });
  }
  const acks = await producer.send({ topic, acks: -1, messages });
  await producer.disconnect();
  if (acks.some((r) => r.errorCode !== 0)) fail('produce errors: ' + JSON.stringify(acks));

  const admin = kafka.admin();
  await admin.connect();
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  if (meta.topics.length !== 1 || meta.topics[0].partitions.length < 1) {
    fail('unexpected metadata: ' + JSON.stringify(meta));
  }
  const offsets = await admin.fetchTopicOffsets(topic);
  const p0 = offsets.find((o) => o.partition === 0);
  if (!p0 || p0.low !== '0' || p0.high !== String(COUNT)) {
    fail('unexpected offsets: ' + JSON.stringify(offsets));
  }
  await admin.disconnect();
  clearTimeout(timer);
  console.log('kafkajs_produce: ' + COUNT + ' messages produced, offsets ' + p0.low + '-' + p0.high);
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
