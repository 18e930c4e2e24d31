// W6's unit of CPU work for the peers: the same hash chain as bench/cpu-work.ts (nexq's job), so
// every runner does the same work for the same iteration count (test/bench/cpu-work.test.ts
// checks that both give the same digest).
'use strict';
const { createHash } = require('node:crypto');

const SEED = Buffer.alloc(64, 0x6e);

module.exports = function hashChain(iterations) {
  let digest = SEED;
  for (let i = 0; i < iterations; i++) digest = createHash('sha256').update(digest).digest();
  return digest.toString('hex');
};
