// The job every JavaScript peer runs, in process or in a worker thread: a no-op; for W3 a
// reading of its start − the moment the bench stamped into the job just before enqueueing it
// (`at`, epoch ms read as timeOrigin + performance.now(), as nexq's enqueued_at is read); for W6
// a hash chain of `iterations` (about 2 ms of CPU, calibrated by the bench).
'use strict';
const { performance } = require('node:perf_hooks');
const hashChain = require('./cpu-work');

/** Returns undefined for a no-op or CPU job, or { index, seconds } for a latency job. */
module.exports = function perform(data) {
  if (data.iterations !== undefined) {
    hashChain(data.iterations);
    return undefined;
  }
  if (data.at === undefined) return undefined;
  const startedAt = performance.timeOrigin + performance.now();
  return { index: data.i, seconds: (startedAt - data.at) / 1000 };
};
