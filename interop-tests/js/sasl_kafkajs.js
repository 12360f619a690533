// SPDX-License-Identifier: Apache-2.0
// kafkajs over one secured listener. kafkajs logs in with SaslHandshake v1
// and then SaslAuthenticate requests (the path kafka-python 2.0's bare
// tokens do not take).
//
// With EXPECT "ok": its producer logs in and sends COUNT keyed messages
// (acks=all) to TOPIC; a consumer in group GROUP (kafkajs has no group-less
// consumer), logged in the same way, reads each back once.
// With EXPECT "denied": producer.connect() must fail with kafkajs'
// KafkaJSSASLAuthenticationError carrying the broker's message.
//
// Usage: node sasl_kafkajs.js BOOTSTRAP PROTOCOL MECHANISM USER PASSWORD CA TOPIC ok|denied
// (PROTOCOL: SASL_PLAINTEXT, SSL or SASL_SSL; MECHANISM (PLAIN, SCRAM-SHA-256,
// SCRAM-SHA-512), USER and PASSWORD are ignored for SSL; CA is the PEM file
// the broker's certificate chains to)
// Exit status 0 when the client behaved as EXPECT says, 1 otherwise (the
// reason on stderr).
'use strict';
const fs = require('fs');
const { Kafka, logLevel } = require('kafkajs');

const COUNT = 20;
const DEADLINE_MS = 40000;
const [bootstrap, protocol, mechanism, user, password, ca, topic, expect] = process.argv.slice(2);
const label = protocol + ' ' + (protocol.startsWith('SASL_') ? mechanism : '-');

function fail(msg) {
  console.error('sasl_kafkajs: ' + label + ': ' + msg);
  process.exit(1);
}

function clientConfig() {
  const config = {
    clientId: 'gregor-sasl-kafkajs',
    brokers: [bootstrap],
    // the refused logins log at ERROR by design; keep stderr for failures
    logLevel: logLevel.NOTHING,
    retry: { retries: 3 },
  };
  if (protocol.startsWith('SASL_')) {
    config.sasl = { mechanism: mechanism.toLowerCase(), username: user, password };
  }
  if (protocol.endsWith('SSL')) {
    // Node checks the certificate's IP SAN against 127.0.0.1
    config.ssl = { ca: [fs.readFileSync(ca)] };
  }
  return config;
}

async function roundTrip(kafka) {
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  const messages = [];
  for (let i = 0; i < COUNT; i++) messages.push({ key: 'key-' + i, value: 'value-' + i });
  const acks = await producer.send({ topic, acks: -1, messages });
  await producer.disconnect();
  if (acks.some((r) => r.errorCode !== 0)) fail('produce errors: ' + JSON.stringify(acks));

  const consumer = kafka.consumer({ groupId: 'group-' + topic });
  consumer.on(consumer.events.CRASH, (e) => fail('consumer crashed: ' + (e.payload.error && e.payload.error.message)));
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen = new Set();
  let finish;
  const done = new Promise((resolve) => { finish = resolve; });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const key = message.key.toString();
      if (message.value.toString() !== 'value-' + key.slice(4)) fail('bad value for ' + key);
      if (seen.has(key)) fail('duplicate ' + key);
      seen.add(key);
      if (seen.size === COUNT) finish();
    },
  });
  await done;
  await consumer.disconnect();
  return COUNT + ' messages round-tripped';
}

async function denied(kafka) {
  const producer = kafka.producer();
  try {
    await producer.connect();
  } catch (e) {
    if (e.name !== 'KafkaJSSASLAuthenticationError' || !/invalid credentials/.test(e.message)) {
      fail('refused with something else: ' + e.name + ': ' + e.message);
    }
    return 'refused (' + e.message + ')';
  }
  await producer.disconnect();
  fail('a producer with a wrong password connected');
}

async function main() {
  if (expect !== 'ok' && expect !== 'denied') fail('usage: see the header of sasl_kafkajs.js');
  const timer = setTimeout(() => fail('deadline of ' + DEADLINE_MS + ' ms passed'), DEADLINE_MS);
  const kafka = new Kafka(clientConfig());
  const outcome = expect === 'ok' ? await roundTrip(kafka) : await denied(kafka);
  clearTimeout(timer);
  console.log('sasl_kafkajs: ' + label + ': ' + outcome);
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
