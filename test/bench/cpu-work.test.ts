// W6's job work: nexq's job (bench/cpu-work.ts) and the peers' (bench/peers/cpu-work.js) are the
// same hash chain, so an iteration count costs every runner the same CPU.
import path from 'node:path';
import { expect } from 'chai';
import { calibrateIterations, hashChain } from '../../bench/cpu-work';
import { PEERS_DIR } from '../../bench/peer-setup';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const peersHashChain = require(path.join(PEERS_DIR, 'cpu-work.js')) as (iterations: number) => string;

describe('bench W6 CPU work', () => {
  it('gives the same digest in nexq’s job and in the peers’ handler for the same iteration count', () => {
    for (const iterations of [0, 1, 7, 300]) expect(peersHashChain(iterations)).to.equal(hashChain(iterations));
  });

  it('does every iteration: one more hash is another digest', () => {
    expect(hashChain(301)).to.not.equal(hashChain(300));
  });

  it('calibrates to a whole, positive count of hashes per job', () => {
    const calibration = calibrateIterations(0.2);
    expect(Number.isInteger(calibration.iterations)).to.equal(true);
    expect(calibration.iterations).to.be.at.least(1);
    expect(calibration.microsPerHash).to.be.above(0);
  });
});
