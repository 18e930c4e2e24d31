// The main thread's young generation stays at `maxYoungGenerationMb` while a thread pool runs, and
// its threads start theirs at `threadYoungGenerationMb` (src/pool/young-generation-cap.ts). Each case
// runs in a fresh process: the heap of this one has grown already.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';

const CHILD = path.join(__dirname, '..', 'fixtures', 'young-generation', 'child.js');
const MB = 1024 * 1024;

function youngGenerations(
  mainCapMb: number,
  threadMb: number,
): Promise<{ mainLargest: number; threadSemiSpace: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CHILD, String(mainCapMb), String(threadMb)],
      { encoding: 'utf8', timeout: 15_000 },
      (err: Error | null, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout))),
    );
  });
}

describe('young generation sizes', () => {
  it("lets the main thread's grow past 8 MB under this allocation without a cap", async () => {
    expect((await youngGenerations(0, 0)).mainLargest).to.be.greaterThan(8 * MB);
  });

  it("keeps the main thread's at 8 MB with maxYoungGenerationMb 8, through a worker thread's start", async () => {
    expect((await youngGenerations(8, 0)).mainLargest).to.be.at.most(8 * MB);
  });

  it('starts a thread with a semi-space of at most 2 MB by default, 8 MB with threadYoungGenerationMb 16', async () => {
    expect((await youngGenerations(0, 0)).threadSemiSpace).to.be.below(3 * MB);
    expect((await youngGenerations(0, 16)).threadSemiSpace).to.be.above(7 * MB);
  });
});
