// BullMQ's sandboxed processor file: what runs in its worker threads (useWorkerThreads: true).
'use strict';
const perform = require('./handler');

module.exports = async (job) => perform(job.data);
