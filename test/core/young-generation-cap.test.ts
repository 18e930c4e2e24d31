// The main thread's young generation stays at `maxYoungGenerationMb` while a thread pool runs
// (src/young-generation-cap.ts). Each case runs in a fresh process: the heap of this one has grown already.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';

const CHILD = path.join(__dirname, '..', 'fixtures', 'young-generation', 'child.js');
const MB = 1024 * 1024;

function largestYoungGeneration(capMb: number): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CHILD, String(capMb)], { encoding: 'utf8', timeout: 15_000 }, (err, stdout) =>
      err ? reject(err) : resolve(Number(stdout)),
    );
  });
}

describe('young generation cap', () => {
  it('grows past 8 MB under this allocation without a cap', async () => {
    expect(await largestYoungGeneration(0)).to.be.greaterThan(8 * MB);
  });

  it('stays at 8 MB with maxYoungGenerationMb 8, a worker thread started after the cap', async () => {
    expect(await largestYoungGeneration(8)).to.be.at.most(8 * MB);
  });
});
