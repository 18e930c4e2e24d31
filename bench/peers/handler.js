// The job every JavaScript peer runs, in process or in a worker thread: a no-op; for W3 a
// reading of its start − the moment the bench stamped into the job just before enqueueing it
// (`at`, ms on the machine's monotonic clock, one clock for every process and thread, as nexq's
// W3 reads it: bench/workloads/w3-latency.ts says why not timeOrigin + performance.now()); for W6
// a hash chain of `iterations` (about 2 ms of CPU, calibrated by the bench).
'use strict';
const hashChain = require('./cpu-work');

/** Returns undefined for a no-op or CPU job, or { index, seconds } for a latency job. */
module.exports = function perform(data) {
  if (data.iterations !== undefined) {
    hashChain(data.iterations);
    return undefined;
  }
  if (data.at === undefined) return undefined;
  const startedAt = Number(process.hrtime.bigint()) / 1e6;
  return { index: data.i, seconds: (startedAt - data.at) / 1000 };
};
