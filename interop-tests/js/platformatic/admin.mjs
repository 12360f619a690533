// SPDX-License-Identifier: Apache-2.0
// @platformatic/kafka's Admin against one broker: the API versions it
// negotiates, cluster metadata (one broker, its controller, the cluster id),
// topics created with configs and listed, their ids and leaders, grown with
// CreatePartitions (shrinking refused with INVALID_PARTITIONS), a second
// create refused with TOPIC_ALREADY_EXISTS; topic and broker configs
// described (values and sources), replaced with AlterConfigs and edited with
// IncrementalAlterConfigs (SET, DELETE, APPEND); DescribeLogDirs; topics
// deleted and gone from the list and from Metadata.
//
// Usage: node admin.mjs BOOTSTRAP
import { Admin, ConfigResourceTypes, ConfigSources, IncrementalAlterConfigOperationTypes } from '@platformatic/kafka';
import { baseOptions, bootstrap, check, checkEqual, main, note, until } from './common.mjs';

const TOPIC = 'pk-admin';
const OTHER = 'pk-admin-other';

// The Kafka error codes anywhere in a client error (it nests them in
// `errors` and keeps each response's per-resource codes).
function errorCodes(error) {
  const codes = new Set();
  const walk = (value, depth) => {
    if (!value || typeof value !== 'object' || depth > 8) return;
    if (typeof value.errorCode === 'number' && value.errorCode !== 0) codes.add(value.errorCode);
    for (const v of Array.isArray(value) ? value : Object.values(value)) walk(v, depth + 1);
    if (value.errors) walk(value.errors, depth + 1);
    if (value.response) walk(value.response, depth + 1);
  };
  walk(error, 0);
  return [...codes];
}

// Runs fn, which must fail with Kafka error `want` (a code), or with a
// client error whose message matches `want` (a RegExp: the client turns
// some codes into its own errors, UNKNOWN_TOPIC_OR_PARTITION from Metadata
// into "Unknown topic T.").
async function refused(what, want, fn) {
  try {
    await fn();
  } catch (error) {
    const codes = errorCodes(error);
    const ok = want instanceof RegExp ? want.test(error.message) : codes.includes(want);
    if (!ok) throw new Error(`${what}: error codes ${JSON.stringify(codes)}, want ${want}`, { cause: error });
    note(`${what}: refused (${want})`);
    return;
  }
  throw new Error(`${what}: succeeded, want error ${want}`);
}

async function topicConfigs(admin, name) {
  const [described] = await admin.describeConfigs({
    resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: name }],
    includeSynonyms: true,
  });
  checkEqual(described.resourceName, name, 'described resource');
  return new Map(described.configs.map((c) => [c.name, c]));
}

main(async () => {
  const admin = new Admin(baseOptions('pk-admin'));
  // For the refusals: UNKNOWN_TOPIC_OR_PARTITION is retriable, and the
  // client would retry it to its limit first.
  const once = new Admin({ ...baseOptions('pk-admin-once'), retries: 0 });

  // The versions the client will speak: its newest that gregor also serves.
  const apis = new Map((await admin.listApis()).map((a) => [a.name, a]));
  const newest = [['Metadata', 9], ['Fetch', 12], ['JoinGroup', 6], ['OffsetCommit', 8], ['OffsetFetch', 8],
    ['CreateTopics', 5], ['DescribeConfigs', 4], ['InitProducerId', 3], ['ListOffsets', 7]];
  for (const [name, min] of newest) {
    const api = apis.get(name);
    check(api && api.maxVersion >= min, `${name} served up to v${min} at least (got ${api && api.maxVersion})`);
  }
  note('served: ' + newest.map(([name]) => `${name} v${apis.get(name).maxVersion}`).join(', '));

  const cluster = await admin.metadata({ topics: [] });
  checkEqual(cluster.brokers.size, 1, 'brokers');
  const [brokerId, broker] = [...cluster.brokers][0];
  checkEqual(`${broker.host}:${broker.port}`, bootstrap, 'advertised broker');
  checkEqual(cluster.controllerId, brokerId, 'controller');
  check(typeof cluster.id === 'string' && cluster.id.length > 0, 'cluster id set');

  const created = await admin.createTopics({
    topics: [TOPIC, OTHER],
    partitions: 3,
    replicas: 1,
    configs: [{ name: 'retention.ms', value: '3600000' }],
  });
  checkEqual(created.map((t) => t.name).sort(), [TOPIC, OTHER].sort(), 'created topics');
  for (const t of created) {
    checkEqual(t.partitions, 3, `${t.name} partitions`);
    checkEqual(t.replicas, 1, `${t.name} replicas`);
    check(/^[0-9a-f-]{36}$/.test(t.id) && t.id !== '00000000-0000-0000-0000-000000000000', `${t.name} has a topic id (${t.id})`);
  }
  await refused('second CreateTopics', 36, () => admin.createTopics({ topics: [TOPIC], partitions: 1, replicas: 1 }));

  const listed = await admin.listTopics();
  check(listed.includes(TOPIC) && listed.includes(OTHER), `listTopics has both (${listed})`);

  let meta = await admin.metadata({ topics: [TOPIC], forceUpdate: true });
  let topic = meta.topics.get(TOPIC);
  checkEqual(topic.id, created.find((t) => t.name === TOPIC).id, 'metadata topic id');
  checkEqual(topic.partitionsCount, 3, 'metadata partitions');
  for (const p of topic.partitions) {
    checkEqual(p.leader, brokerId, 'leader');
    checkEqual(p.replicas, [brokerId], 'replicas');
    checkEqual(p.isr, [brokerId], 'isr');
  }

  await admin.createPartitions({ topics: [{ name: TOPIC, count: 5 }] });
  meta = await admin.metadata({ topics: [TOPIC], forceUpdate: true });
  checkEqual(meta.topics.get(TOPIC).partitionsCount, 5, 'partitions after CreatePartitions');
  await refused('CreatePartitions to fewer', 37, () => admin.createPartitions({ topics: [{ name: TOPIC, count: 2 }] }));

  // Configs: the override given at creation, a default, the broker's.
  let configs = await topicConfigs(admin, TOPIC);
  checkEqual(configs.get('retention.ms').value, '3600000', 'retention.ms');
  checkEqual(configs.get('retention.ms').configSource, ConfigSources.DYNAMIC_TOPIC_CONFIG, 'retention.ms source');
  check(configs.has('cleanup.policy'), 'cleanup.policy described');
  check(configs.get('cleanup.policy').configSource !== ConfigSources.DYNAMIC_TOPIC_CONFIG, 'cleanup.policy not an override');
  const [brokerConfigs] = await admin.describeConfigs({
    resources: [{ resourceType: ConfigResourceTypes.BROKER, resourceName: String(brokerId) }],
  });
  const brokerMap = new Map(brokerConfigs.configs.map((c) => [c.name, c.value]));
  checkEqual(brokerMap.get('broker.id'), String(brokerId), 'broker.id config');
  checkEqual(brokerMap.get('offsets.topic.replication.factor'), '1', 'offsets.topic.replication.factor config');

  // AlterConfigs replaces the whole set of overrides.
  await admin.alterConfigs({
    resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: TOPIC, configs: [{ name: 'cleanup.policy', value: 'compact' }] }],
  });
  configs = await topicConfigs(admin, TOPIC);
  checkEqual(configs.get('cleanup.policy').value, 'compact', 'cleanup.policy after AlterConfigs');
  checkEqual(configs.get('cleanup.policy').configSource, ConfigSources.DYNAMIC_TOPIC_CONFIG, 'cleanup.policy source');
  check(configs.get('retention.ms').configSource !== ConfigSources.DYNAMIC_TOPIC_CONFIG, 'retention.ms override dropped by AlterConfigs');

  // IncrementalAlterConfigs edits single keys.
  const { SET, DELETE, APPEND } = IncrementalAlterConfigOperationTypes;
  await admin.incrementalAlterConfigs({
    resources: [{
      resourceType: ConfigResourceTypes.TOPIC,
      resourceName: TOPIC,
      configs: [
        { name: 'retention.ms', configOperation: SET, value: '7200000' },
        { name: 'cleanup.policy', configOperation: APPEND, value: 'delete' },
        { name: 'segment.ms', configOperation: SET, value: '600000' },
      ],
    }],
  });
  configs = await topicConfigs(admin, TOPIC);
  checkEqual(configs.get('retention.ms').value, '7200000', 'retention.ms after SET');
  checkEqual(configs.get('cleanup.policy').value, 'compact,delete', 'cleanup.policy after APPEND');
  checkEqual(configs.get('segment.ms').value, '600000', 'segment.ms after SET');
  await admin.incrementalAlterConfigs({
    resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: TOPIC, configs: [{ name: 'segment.ms', configOperation: DELETE }] }],
  });
  configs = await topicConfigs(admin, TOPIC);
  check(configs.get('segment.ms').configSource !== ConfigSources.DYNAMIC_TOPIC_CONFIG, 'segment.ms override deleted');
  checkEqual(configs.get('retention.ms').value, '7200000', 'retention.ms kept by DELETE of another key');
  await refused('AlterConfigs of an unknown topic', 3, () => once.alterConfigs({
    resources: [{ resourceType: ConfigResourceTypes.TOPIC, resourceName: 'pk-no-such-topic', configs: [{ name: 'retention.ms', value: '1' }] }],
  }));

  const [dirs] = await admin.describeLogDirs({ topics: [{ name: TOPIC, partitions: [0, 1, 2, 3, 4] }] });
  checkEqual(dirs.broker, brokerId, 'log dirs broker');
  const dirTopics = dirs.results.flatMap((r) => r.topics);
  const dirPartitions = dirTopics.filter((t) => t.name === TOPIC).flatMap((t) => t.partitions.map((p) => p.partitionIndex));
  checkEqual(dirPartitions.sort(), [0, 1, 2, 3, 4], 'partitions in the log dirs');

  await admin.deleteTopics({ topics: [OTHER] });
  await until(`${OTHER} gone from listTopics`, async () => !(await admin.listTopics()).includes(OTHER));
  await refused('Metadata of the deleted topic', /^Unknown topic pk-admin-other\.$/, () => once.metadata({ topics: [OTHER], forceUpdate: true, autocreateTopics: false }));
  await refused('DeleteTopics of the deleted topic', 3, () => once.deleteTopics({ topics: [OTHER] }));
  check((await admin.listTopics()).includes(TOPIC), `${TOPIC} still listed`);
  check(!(await admin.listTopics()).includes('__consumer_offsets'), 'internal topics not listed');

  await once.close();
  await admin.close();
  note('admin: all checks passed');
});
