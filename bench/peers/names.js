// The queue and job names every peer uses (the bench's verify step reads the same keys).
'use strict';
module.exports = { QUEUE: 'default', JOB: 'Noop' };
