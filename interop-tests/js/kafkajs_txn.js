// SPDX-License-Identifier: Apache-2.0
// kafkajs transactions against one broker, for txn_kafkajs.sh. A
// transactional producer (transactionalId kjs-app) writes four
// transactions of 10 records over the topic's two partitions, committing
// kjs-0 and kjs-2 and aborting kjs-1 and kjs-3; then it adds group offsets
// to two transactions (sendOffsets: AddOffsetsToTxn + TxnOffsetCommit),
// OFFSET_COMMITTED on partition 0 committed and 9 aborted; last, a committed
// sentinel record on each partition. A kafkajs consumer (its default
// isolation, read_committed) in a new group reads the topic from the
// beginning until it has both sentinels: it must have seen exactly the
// committed transactions' records and the sentinels, each once.
//
// Usage: node kafkajs_txn.js BOOTSTRAP TOPIC OFFSETS_GROUP
// Prints "kafkajs_txn: ok" and exits 0, or the problem and exits 1.
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const PARTITIONS = 2;
const PER_TXN = 10;
const OFFSET_COMMITTED = '5';
const OFFSET_ABORTED = '9';
const [bootstrap, topic, offsetsGroup] = process.argv.slice(2);

function fail(msg) {
  console.error('kafkajs_txn: ' + msg);
  process.exit(1);
}

function records(txn) {
  const messages = [];
  for (let i = 0; i < PER_TXN; i++) {
    messages.push({ value: `kjs-${txn}-${i}`, partition: i % PARTITIONS });
  }
  return messages;
}

// AddOffsetsToTxn sent while the previous transaction's markers are still
// being written is answered CONCURRENT_TRANSACTIONS, by Kafka as by Gregor;
// the Java producer retries it after a back-off, kafkajs 2.2.4 throws. Retry
// as Java does (a slow broker, e.g. under the sanitizers, hits the window).
const CONCURRENT_TRANSACTIONS = 'CONCURRENT_TRANSACTIONS';
const SEND_OFFSETS_TRIES = 50;
const SEND_OFFSETS_BACKOFF_MS = 100;

async function sendOffsetsRetrying(t, offsets) {
  for (let tried = 1; ; tried++) {
    try {
      return await t.sendOffsets(offsets);
    } catch (e) {
      if (e.type !== CONCURRENT_TRANSACTIONS || tried >= SEND_OFFSETS_TRIES) throw e;
      await new Promise((resolve) => setTimeout(resolve, SEND_OFFSETS_BACKOFF_MS));
    }
  }
}

async function produce(kafka) {
  const producer = kafka.producer({
    transactionalId: 'kjs-app',
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  for (let txn = 0; txn < 4; txn++) {
    const t = await producer.transaction();
    await t.send({ topic, messages: records(txn) });
    if (txn % 2 === 0) await t.commit();
    else await t.abort();
  }
  for (const [offset, commit] of [[OFFSET_COMMITTED, true], [OFFSET_ABORTED, false]]) {
    const t = await producer.transaction();
    await sendOffsetsRetrying(t, {
      consumerGroupId: offsetsGroup,
      topics: [{ topic, partitions: [{ partition: 0, offset }] }],
    });
    if (commit) await t.commit();
    else await t.abort();
  }
  const t = await producer.transaction();
  const sentinels = [];
  for (let p = 0; p < PARTITIONS; p++) sentinels.push({ value: `sentinel-${p}`, partition: p });
  await t.send({ topic, messages: sentinels });
  await t.commit();
  await producer.disconnect();
}

async function consume(kafka) {
  const consumer = kafka.consumer({ groupId: 'kjs-reader', maxWaitTimeInMs: 500 });
  const seen = [];
  let sentinels = 0;
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise((resolve, reject) => {
    consumer
      .run({
        eachMessage: async ({ message }) => {
          const value = message.value.toString();
          seen.push(value);
          if (value.startsWith('sentinel-') && ++sentinels === PARTITIONS) resolve();
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return seen;
}

async function main() {
  const kafka = new Kafka({
    clientId: 'gregor-kafkajs-txn',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 2000 },
  });
  await produce(kafka);
  const seen = (await consume(kafka)).sort();
  const want = [];
  for (const txn of [0, 2]) records(txn).forEach((m) => want.push(m.value));
  for (let p = 0; p < PARTITIONS; p++) want.push(`sentinel-${p}`);
  want.sort();
  if (JSON.stringify(seen) !== JSON.stringify(want)) {
    fail(`the read_committed consumer saw ${JSON.stringify(seen)}, want ${JSON.stringify(want)}`);
  }
  console.log('kafkajs_txn: ok');
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
