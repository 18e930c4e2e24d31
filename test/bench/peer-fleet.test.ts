// W6's fleet of peer processes: the run ends when their reports add up to the jobs, at the latest
// finish any of them reported, and their CPU and peak RSS are summed. The two processes here are
// stand-ins for a peer: they speak the peers' protocol (bench/peers/peer.js) without a queue library.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import Redis from 'ioredis';
import type { BenchContext } from '../../bench/context';
import { peerFleet } from '../../bench/peer-fleet';
import type { Peer } from '../../bench/peer-setup';
import { freshNamespace, sharedRedis } from '../support/global-hooks';

/**
 * The first process to start reports half the jobs finished at its ready; the second, the other
 * half finished 5 s after its ready. Both stop on SIGTERM, as the peers do.
 */
function standIn(flagFile: string): string {
  return `
const fs = require('node:fs');
const config = JSON.parse(process.env.NEXQ_BENCH_PEER);
let first = true;
try { fs.writeFileSync(${JSON.stringify(flagFile)}, '', { flag: 'wx' }); } catch { first = false; }
const emit = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const at = performance.timeOrigin + performance.now();
emit({ type: 'version', version: 'stand-in 1.0' });
emit({ type: 'ready', nodeId: 'x', at, mono: 0, finishedAtReady: 0, cpu: process.cpuUsage() });
const half = config.expect / 2;
setInterval(() => emit({ type: 'progress', acked: half, failed: 0, lastAt: first ? at : at + 5000 }), config.progressMs);
process.once('SIGTERM', () => process.exit(0));
`;
}

describe('bench W6 fleet of peer processes', () => {
  let admin: Redis;
  before(() => {
    admin = new Redis(sharedRedis().url);
  });
  after(async () => {
    await admin.quit();
  });

  it('sums the processes’ reports, ends at the latest finish, and checks that nothing is left in Redis', async () => {
    const prefix = freshNamespace('w6');
    const redisPid = Number(/process_id:(\d+)/.exec(await admin.info('server'))?.[1]);
    const flag = path.join(mkdtempSync(path.join(os.tmpdir(), 'w6-fleet-')), 'first');
    const peer = {
      id: 'bee-queue',
      enqueues: true,
      queuedKey: `${prefix}:waiting`,
      leftKeys: [[`${prefix}:waiting`, 'list']],
      command: () => ({ command: process.execPath, args: ['-e', standIn(flag)] }),
    } as unknown as Peer;
    const problems: string[] = [];
    const ctx = {
      server: { url: sharedRedis().url, pid: redisPid },
      admin,
      log: () => {},
      problems,
    } as unknown as BenchContext;
    const result = await peerFleet(ctx, peer, { what: 'fleet', processes: 2, concurrency: 10, expect: 1000 });
    expect(problems).to.deep.equal([]);
    expect(result.version).to.equal('stand-in 1.0');
    expect(result.processes).to.equal(2);
    expect(result.jobsInWindow).to.equal(1000);
    // The second process's finish, 5 s after its ready, ends the run (not the first's, at its ready).
    expect(result.seconds).to.be.at.least(5).and.below(25);
    expect(result.peakRssMb).to.be.above(0);
  });
});
