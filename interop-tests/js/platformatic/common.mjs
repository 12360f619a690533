// SPDX-License-Identifier: Apache-2.0
// What the js/platformatic/*.mjs scripts share: the bootstrap address from
// argv, checks that fail with a message, a runner that prints every nested
// error of the client (its errors carry the Kafka error codes in `errors`
// and `response`) and exits 1, and a reader that takes a fixed number of
// messages from a consumer stream under a deadline.
import { inspect } from 'node:util';

export const bootstrap = process.argv[2];
export const args = process.argv.slice(3);

export function check(cond, what) {
  if (!cond) throw new Error('check failed: ' + what);
}

// JSON with bigints as numbers: how values are compared and printed.
export function show(value) {
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? `${v}n` : v));
}

export function checkEqual(got, want, what) {
  const g = show(got);
  const w = show(want);
  if (g !== w) throw new Error(`check failed: ${what}: got ${g}, want ${w}`);
}

export function note(...parts) {
  console.log(...parts);
}

// Runs fn, then exits: 0 when it resolved, 1 (with the whole error) when it
// threw. Exiting here rather than waiting for the event loop keeps a client
// that left a timer or socket behind from holding the test open.
export function main(fn) {
  fn().then(
    () => process.exit(0),
    (error) => {
      console.error('FAIL: ' + inspect(error, { depth: 8 }));
      process.exit(1);
    }
  );
}

export function baseOptions(clientId) {
  return {
    clientId,
    bootstrapBrokers: bootstrap.split(","), // a cluster test passes every broker
    // A cluster test that kills a leader sets PK_RETRIES to outlast the failover.
    retries: Number(process.env.PK_RETRIES ?? 20),
    retryDelay: 100,
    timeout: 10000,
  };
}

// Resolves with the first `count` messages of `stream` (rejecting after
// `seconds`, or on a stream error), then stops reading from it.
export function take(stream, count, seconds = 30) {
  return new Promise((resolve, reject) => {
    const messages = [];
    const timer = setTimeout(
      () => reject(new Error(`timed out after ${seconds}s with ${messages.length} of ${count} messages`)),
      seconds * 1000
    );
    const done = (error) => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('error', done);
      if (error) reject(error);
      else resolve(messages);
    };
    const onData = (message) => {
      messages.push(message);
      if (messages.length === count) done();
    };
    stream.on('data', onData);
    stream.on('error', done);
  });
}

// Polls fn until it returns a truthy value (then resolves with it) or the
// deadline passes.
export async function until(what, fn, seconds = 20) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${seconds}s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Every batch of `topic`, partition by partition, read with Fetch (by topic
// id, from the leader) from offset 0 to the end the broker reports: the
// high watermark, or with read_committed (isolationLevel 1) the last stable
// offset. With read_committed the client drops the batches of aborted
// transactions (from the response's aborted-transactions list) as its
// consumers do; control batches stay. Returns a Map partition ->
// { batches, end, abortedTransactions }.
export async function readBatches(consumer, topic, isolationLevel = 0) {
  const meta = await consumer.metadata({ topics: [topic], forceUpdate: true });
  const t = meta.topics.get(topic);
  const out = new Map();
  for (let partition = 0; partition < t.partitionsCount; partition++) {
    const batches = [];
    const abortedTransactions = [];
    let offset = 0n;
    let end;
    for (;;) {
      const response = await consumer.fetch({
        node: t.partitions[partition].leader,
        topics: [{
          topicId: t.id,
          partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, partitionMaxBytes: 1 << 20 }],
        }],
        maxWaitTime: 0, minBytes: 0, maxBytes: 4 << 20, isolationLevel,
      });
      const p = response.responses[0].partitions[0];
      end = isolationLevel ? p.lastStableOffset : p.highWatermark;
      abortedTransactions.push(...(p.abortedTransactions ?? []));
      const before = offset;
      for (const batch of p.records ?? []) {
        const next = batch.firstOffset + BigInt(batch.lastOffsetDelta) + 1n;
        if (next <= offset) continue;
        batches.push(batch);
        offset = next;
      }
      if (offset >= end) break;
      if (offset === before) throw new Error(`${topic}-${partition}: fetch at ${offset} made no progress (end ${end})`);
    }
    out.set(partition, { batches, end, abortedTransactions });
  }
  return out;
}
