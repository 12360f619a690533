// SPDX-License-Identifier: Apache-2.0
// kafkajs' admin client against a broker (no consumer groups): createTopics,
// describeConfigs (topic with synonyms, broker), alterConfigs, an invalid
// alterConfigs answered INVALID_CONFIG, createPartitions, deleteTopicRecords
// after producing, fetchTopicOffsets, and describeCluster.
//
// Usage: node kafkajs_admin.js BOOTSTRAP
// Exit status 0 on success, 1 on a failed check (the reason on stderr).
'use strict';
const { Kafka, logLevel, ConfigResourceTypes } = require('kafkajs');

const DEADLINE_MS = 60000;
const SOURCE_TOPIC = 1;
const SOURCE_DEFAULT = 5;
const [bootstrap] = process.argv.slice(2);

function fail(msg) {
  console.error('kafkajs_admin: ' + msg);
  process.exit(1);
}

function check(cond, what) {
  if (!cond) fail(what);
}

async function topicConfigs(admin, topic) {
  const res = await admin.describeConfigs({
    includeSynonyms: true,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
  });
  const out = {};
  for (const e of res.resources[0].configEntries) out[e.configName] = e;
  return out;
}

async function main() {
  const kafka = new Kafka({
    clientId: 'gregor-kafkajs-admin',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 2 },
  });
  const timer = setTimeout(() => fail('deadline of ' + DEADLINE_MS + ' ms passed'), DEADLINE_MS);
  const admin = kafka.admin();
  await admin.connect();

  const created = await admin.createTopics({
    topics: [{ topic: 'js_admin', numPartitions: 2, configEntries: [{ name: 'retention.ms', value: '90000' }] }],
  });
  check(created === true, 'createTopics did not create js_admin');

  let cf = await topicConfigs(admin, 'js_admin');
  check(Object.keys(cf).length === 34, 'describeConfigs listed ' + Object.keys(cf).length + ' keys');
  check(cf['retention.ms'].configValue === '90000' && cf['retention.ms'].configSource === SOURCE_TOPIC,
    'retention.ms: ' + JSON.stringify(cf['retention.ms']));
  check(cf['segment.bytes'].configSource === SOURCE_DEFAULT &&
        cf['segment.bytes'].configSynonyms[0].configName === 'log.segment.bytes',
    'segment.bytes: ' + JSON.stringify(cf['segment.bytes']));

  await admin.alterConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name: 'js_admin',
      configEntries: [{ name: 'cleanup.policy', value: 'compact,delete' }] }],
  });
  cf = await topicConfigs(admin, 'js_admin');
  check(cf['cleanup.policy'].configValue === 'compact,delete', 'alterConfigs did not set cleanup.policy');
  check(cf['retention.ms'].configSource === SOURCE_DEFAULT, 'alterConfigs kept the replaced retention.ms');

  let refused = null;
  try {
    await admin.alterConfigs({
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 'js_admin',
        configEntries: [{ name: 'segment.ms', value: '0' }] }],
    });
  } catch (e) {
    refused = e;
  }
  check(refused && /INVALID_CONFIG|Configuration is invalid/i.test(String(refused.type || refused.message)),
    'segment.ms=0 was not refused with INVALID_CONFIG: ' + refused);

  const broker = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.BROKER, name: '0', configNames: ['num.partitions'] }],
  });
  const np = broker.resources[0].configEntries;
  check(np.length === 1 && np[0].configValue === '1' && np[0].readOnly === true,
    'broker num.partitions: ' + JSON.stringify(np));

  await admin.createPartitions({ topicPartitions: [{ topic: 'js_admin', count: 4 }] });
  const md = await admin.fetchTopicMetadata({ topics: ['js_admin'] });
  check(md.topics[0].partitions.length === 4, 'createPartitions: ' + md.topics[0].partitions.length);

  const producer = kafka.producer();
  await producer.connect();
  // Keyed: the topic is compact,delete now, and compacted topics refuse keyless records (as Kafka).
  await producer.send({ topic: 'js_admin', messages: Array.from({ length: 20 }, (_, i) => ({ key: 'k' + i, value: 'v' + i, partition: 3 })) });
  await producer.disconnect();
  await admin.deleteTopicRecords({ topic: 'js_admin', partitions: [{ partition: 3, offset: '12' }] });
  const offsets = await admin.fetchTopicOffsets('js_admin');
  const p3 = offsets.find((o) => o.partition === 3);
  check(p3.low === '12' && p3.high === '20', 'after deleteTopicRecords: ' + JSON.stringify(p3));

  const cluster = await admin.describeCluster();
  check(cluster.brokers.length === 1 && cluster.controller === 0 && cluster.clusterId,
    'describeCluster: ' + JSON.stringify(cluster));

  await admin.disconnect();
  clearTimeout(timer);
}

main().catch((e) => fail(e.stack || String(e)));
