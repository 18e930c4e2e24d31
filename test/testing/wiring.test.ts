// How nexq/testing is shipped and what it shares with a real node.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import runJob from '../../workers/thread-entry';
import { repoRoot } from '../support/paths';
import { jobsDir, resetRuns, runs } from './support';

describe('nexq/testing wiring', () => {
  beforeEach(resetRuns);

  it('is the package subpath nexq/testing, built to dist/src/testing', () => {
    expect(require.resolve('nexq/testing')).to.equal(path.join(repoRoot, 'dist', 'src', 'testing', 'index.js'));
  });

  it('loads neither ioredis nor piscina, and starts no thread, while enqueueing, draining and performing', () => {
    const script = `
      const threads = require('node:worker_threads');
      let workers = 0;
      threads.Worker = class extends threads.Worker { constructor(...a) { workers++; super(...a); } };
      const { createTestNexq } = require('nexq/testing');
      (async () => {
        const nexq = createTestNexq({ jobsDir: ${JSON.stringify(jobsDir)} });
        await nexq.enqueue('default', 'Relay', ['default', 'Push', [1]]);
        await nexq.drain();
        await nexq.performJob('Push', [2]);
        await createTestNexq({ mode: 'inline', jobsDir: ${JSON.stringify(jobsDir)} }).enqueue('default', 'Push', [3]);
        const loaded = Object.keys(require.cache).filter((f) => /node_modules[\\\\/](ioredis|piscina)[\\\\/]/.test(f));
        const resources = process.getActiveResourcesInfo().filter((r) => /Worker|TCP/.test(r));
        console.log(JSON.stringify({ loaded, resources, workers, runs: globalThis.nexqTestingRuns.length }));
      })().catch((err) => { console.error(err); process.exit(1); });
    `;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: repoRoot, encoding: 'utf8' }));
    expect(out).to.deep.equal({ loaded: [], resources: [], workers: 0, runs: 4 });
  });

  it("runs handlers with the worker thread's own code: the piscina entry answers the same outcome", async () => {
    const raw = JSON.stringify({ class: 'Push', args: ['thread'], jid: 'j-1', queue: 'q', enqueued_at: 1700000000.5 });
    expect(await runJob({ raw, file: path.join(jobsDir, 'Push.js') })).to.deep.equal({ ok: true });
    expect(runs()[0]).to.deep.equal({
      class: 'Push',
      args: ['thread'],
      context: { jid: 'j-1', queue: 'q', className: 'Push', retryCount: 0, enqueuedAt: 1700000000.5, nacks: 0 },
    });
  });

  it('runs an ActiveJob payload with its wrapped class and arguments, as a node does', async () => {
    const raw = JSON.stringify({
      class: 'ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper',
      wrapped: 'Push',
      args: [{ job_class: 'Push', arguments: ['aj', 1] }],
      jid: 'j-2',
      queue: 'default',
    });
    expect(await runJob({ raw, file: path.join(jobsDir, 'Push.js'), activeJob: true })).to.deep.equal({ ok: true });
    expect(runs()[0]).to.deep.include({ args: ['aj', 1] });
    expect(runs()[0].context.className).to.equal('Push');
  });
});
