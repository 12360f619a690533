// SPDX-License-Identifier: Apache-2.0
// kafkajs flow for capture.sh: produce 2 messages (one with a header) to t3,
// then consume t3 from the beginning in group kjs-group until 2 messages
// arrived (or 15 s passed), then leave. Argument: bootstrap address.
// Needs NODE_PATH pointing at a node_modules directory holding kafkajs.
const { Kafka, logLevel } = require('kafkajs');

async function main(broker) {
  const kafka = new Kafka({ clientId: 'kafkajs', brokers: [broker], logLevel: logLevel.WARN });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  await producer.send({
    topic: 't3',
    messages: [{ key: 'kj1', value: 'kafkajs value 1' },
               { key: 'kj2', value: 'kafkajs value 2', headers: { h: 'x' } }],
  });
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: 'kjs-group', heartbeatInterval: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic: 't3', fromBeginning: true });
  let received = 0;
  await new Promise((resolve) => {
    const giveUp = setTimeout(resolve, 15000);
    consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        console.log('kafkajs got', topic, partition, message.offset);
        received++;
        if (received === 2) {
          clearTimeout(giveUp);
          setTimeout(resolve, 1500); // let a heartbeat and a commit go out
        }
      },
    });
  });
  await consumer.disconnect();
  return received >= 2 ? 0 : 1;
}

main(process.argv[2]).then((code) => process.exit(code), (e) => {
  console.error('kafkajs capture failed:', e);
  process.exit(1);
});
