// SPDX-License-Identifier: Apache-2.0
// kafkajs's idempotent producer writes COUNT records to a 3-partition topic
// while the test kills and restarts the broker and a proxy drops responses:
// record i has value String(i) and goes to partition i % 3, sent in awaited
// batches of BATCH records (retried by kafkajs on every failure). After each
// batch the number acknowledged so far is written to PROGRESS_FILE so the
// shell test can time its kills.
//
// Usage: node kafkajs_idempotent.js BOOTSTRAP TOPIC COUNT PROGRESS_FILE
// Exit status 0 when every record was acknowledged, 1 otherwise.
'use strict';
const fs = require('fs');
const { Kafka, logLevel } = require('kafkajs');

const PARTITIONS = 3;
const BATCH = 2000;
const [bootstrap, topic, countArg, progressFile] = process.argv.slice(2);
const count = Number(countArg);

function fail(msg) {
  console.error('kafkajs_idempotent: ' + msg);
  process.exit(1);
}

async function main() {
  const kafka = new Kafka({
    clientId: 'gregor-kafkajs-idempotent',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3000,
    requestTimeout: 10000,
    retry: { retries: 1000, initialRetryTime: 100, maxRetryTime: 2000 },
  });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  for (let start = 0; start < count; start += BATCH) {
    const messages = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      messages.push({ value: String(i), partition: i % PARTITIONS });
    }
    await producer.send({ topic, acks: -1, messages });
    fs.writeFileSync(progressFile, String(start + messages.length) + '\n');
  }
  await producer.disconnect();
  console.log('kafkajs_idempotent: ' + count + ' records acknowledged');
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
