// bee-queue 2.x with its documented throughput settings: no job kept after success
// (removeOnSuccess), no pub/sub events either way (getEvents, sendEvents), no Job objects kept
// in the producer (storeJobs). Concurrency is process(c, fn).
'use strict';
const Queue = require('bee-queue');
const perform = require('./handler');
const { QUEUE } = require('./names');

const FAST = { removeOnSuccess: true, getEvents: false, sendEvents: false, storeJobs: false };

module.exports = {
  version: `bee-queue ${require('bee-queue/package.json').version}`,

  async producer(redisUrl) {
    const queue = new Queue(QUEUE, { ...FAST, redis: redisUrl, isWorker: false });
    await queue.ready();
    return {
      one: (data) => queue.createJob(data).save(),
      async bulk(items) {
        const errors = await queue.saveAll(items.map((data) => queue.createJob(data)));
        if (errors.size) throw new Error(`saveAll: ${errors.size} jobs not saved: ${[...errors.values()][0].message}`);
      },
      close: () => queue.close(),
    };
  },

  async worker(redisUrl, concurrency, onFinished) {
    const queue = new Queue(QUEUE, { ...FAST, redis: redisUrl, isWorker: true });
    await queue.ready();
    // Local events, emitted once the job's outcome is written to Redis.
    queue.on('succeeded', (job, result) => onFinished(true, result));
    queue.on('failed', (job, err) => onFinished(false, undefined, err));
    queue.on('error', (err) => console.error(`bee-queue error: ${err.message}`));
    queue.process(concurrency, async (job) => perform(job.data));
    return { close: () => queue.close() };
  },
};
