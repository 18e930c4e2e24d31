// BullMQ 5.x/6.x with its documented throughput setting: completed jobs removed
// (removeOnComplete). In process (`inProcess`), or sandboxed in worker threads with a processor
// file (`workerThreads`: useWorkerThreads, one thread per concurrent job). Concurrency is the
// Worker's `concurrency`.
'use strict';
const path = require('node:path');
const { Queue, Worker } = require('bullmq');
const perform = require('./handler');
const { QUEUE, JOB } = require('./names');

const version = `BullMQ ${require('bullmq/package.json').version}`;

function connection(redisUrl) {
  const url = new URL(redisUrl);
  // Workers block on Redis: BullMQ requires maxRetriesPerRequest null for them.
  return { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null };
}

async function producer(redisUrl) {
  const queue = new Queue(QUEUE, { connection: connection(redisUrl), defaultJobOptions: { removeOnComplete: true } });
  await queue.waitUntilReady();
  return {
    one: (data) => queue.add(JOB, data),
    bulk: (items) => queue.addBulk(items.map((data) => ({ name: JOB, data }))),
    close: () => queue.close(),
  };
}

function workerWith(processor, extra) {
  return async (redisUrl, concurrency, onFinished) => {
    const worker = new Worker(QUEUE, processor, { connection: connection(redisUrl), concurrency, ...extra });
    // 'completed' is emitted once the job was moved to completed (here: removed) in Redis.
    worker.on('completed', (job, result) => onFinished(true, result));
    worker.on('failed', (job, err) => onFinished(false, undefined, err));
    worker.on('error', (err) => console.error(`BullMQ worker error: ${err.message}`));
    await worker.waitUntilReady();
    return { close: () => worker.close() };
  };
}

module.exports = {
  inProcess: { version: `${version} in process`, producer, worker: workerWith(async (job) => perform(job.data), {}) },
  workerThreads: {
    version: `${version} worker threads`,
    producer,
    worker: workerWith(path.join(__dirname, 'bullmq-processor.js'), { useWorkerThreads: true }),
  },
};
