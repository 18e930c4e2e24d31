// `.ts` handlers run as they are, in the start check and on every worker thread, when the app has
// a TypeScript loader (tsx here, nexq's dev dependency); without one the node refuses to start in
// one line saying what to install or to compile. Node 20 strips no types itself, and a worker
// thread does not inherit the main thread's `--import tsx`.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HandlerRegistry } from '../../src/handlers/registry';
import { readBacktrace } from '../../src/job/failure';
import { captureLogs } from '../support/capture-logs';
import { useNodes, waitFor } from '../support/node';
import { repoRoot } from '../support/paths';

const apps = path.join(repoRoot, 'test', 'fixtures', 'ts-apps');
const nexqModule = path.join(repoRoot, 'dist', 'src', 'nexq.js');

/** Runs `Nexq.start({ jobsDir })` in a child process (cwd `cwd`, node flags `execArgv`); resolves to how it ended. */
function startInChild(
  url: string,
  jobsDir: string,
  cwd: string,
  execArgv: string[] = [],
): Promise<{ code: number | null; output: string }> {
  const program = `
    const { Nexq } = require(${JSON.stringify(nexqModule)});
    Nexq.start({ redis: ${JSON.stringify(url)}, jobsDir: ${JSON.stringify(jobsDir)}, logLevel: 'error', threads: 1 }).then(
      (nexq) => nexq.stop().then(() => console.log('started')),
      (err) => { console.log(err.name + ': ' + err.message); process.exitCode = 3; },
    );`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...execArgv, '-e', program], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += String(d)));
    child.stderr.on('data', (d) => (output += String(d)));
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** A folder outside the repository (no tsx to find from it) holding a copy of the ESM app's `jobs/`. */
function appWithoutTsx(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-no-tsx-'));
  for (const sub of ['jobs', 'lib']) mkdirSync(path.join(dir, sub));
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  for (const file of ['jobs/Welcome.ts', 'jobs/Declined.ts', 'lib/greeting.ts'])
    copyFileSync(path.join(apps, 'esm', file), path.join(dir, file));
  return dir;
}

describe('TypeScript handlers', function () {
  this.timeout(30_000);
  const t = useNodes();

  it('finds .ts handlers in jobsDir and leaves declaration files out', () => {
    const registry = new HandlerRegistry({}, path.join(apps, 'esm', 'jobs'));
    expect(registry.classNames).to.deep.equal(['Declined', 'Welcome']);
    expect(registry.resolve('Welcome').file).to.equal(path.join(apps, 'esm', 'jobs', 'Welcome.ts'));
  });

  for (const app of ['esm', 'cjs']) {
    it(`runs the .ts handlers of ${app === 'esm' ? 'an ES-module' : 'a CommonJS'} app on the worker threads`, async () => {
      const logs = captureLogs('pretty');
      const nexq = await t.start({ jobsDir: path.join(apps, app, 'jobs'), threads: 2, logger: logs.logger });
      expect(logs.text()).to.match(/handlers: Declined \(\S+Declined\.ts\), Welcome \(\S+Welcome\.ts\)/);
      const jid = await nexq.enqueue('default', 'Welcome', [{ name: 'ann', id: 7 }], { keepResult: 60 });
      expect(await nexq.waitFor(jid, { timeout: 10_000 })).to.equal(`warm welcome, ann (7, job ${jid}, ${app})`);
      await waitFor(async () => (await t.redis.get(t.keys.stat('processed'))) === '1');
    });

    it(`points a failure's stack at the .ts line (${app})`, async () => {
      const nexq = await t.start({ jobsDir: path.join(apps, app, 'jobs') });
      await nexq.enqueue('default', 'Declined', [500], { retry: false });
      const [raw] = await waitFor(async () => {
        const dead = await t.redis.zrange(t.keys.dead('default'), 0, -1);
        return dead.length > 0 && dead;
      });
      const job = JSON.parse(raw);
      expect(job.error_class).to.equal('RangeError');
      const lines = readBacktrace(job.error_backtrace) ?? [];
      expect(lines[0]).to.include(`${path.join(apps, app, 'jobs', 'Declined.ts')}:5:`);
      // The span it ran in (@opentelemetry/api is installed here), nexq's frames (compiled, or the .ts
      // their source maps name: tsx turns maps on) and the loader's: trimmed, only the app's are left.
      expect(lines.filter((line) => !line.includes(path.join(apps, app)))).to.deep.equal([]);
    });
  }

  it("trims nexq's frames by their .ts names too, when source maps name them (the tsx command turns them on)", async () => {
    const program = `
      const { Nexq } = require(${JSON.stringify(nexqModule)});
      (async () => {
        const nexq = await Nexq.start({ redis: ${JSON.stringify(t.url)}, namespace: ${JSON.stringify(t.ns)},
          jobsDir: ${JSON.stringify(path.join(apps, 'esm', 'jobs'))}, logLevel: 'error', threads: 1, environment: false });
        await nexq.enqueue('default', 'Declined', [500], { retry: false });
        while ((await nexq.node.ctx.redis.zcard(nexq.node.ctx.keys.dead('default'))) === 0)
          await new Promise((resolve) => setTimeout(resolve, 50));
        await nexq.stop();
      })();`;
    const child = spawn(process.execPath, ['--enable-source-maps', '-e', program], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('close', resolve));
    const [raw] = await t.redis.zrange(t.keys.dead('default'), 0, -1);
    const lines = readBacktrace(JSON.parse(raw).error_backtrace) ?? [];
    expect(lines[0]).to.include(`${path.join(apps, 'esm', 'jobs', 'Declined.ts')}:5:`);
    expect(lines.filter((line) => !line.includes(path.join(apps, 'esm')))).to.deep.equal([]);
  });

  it('refuses to start without a TypeScript loader, in one line saying what to install or to compile', async () => {
    const dir = appWithoutTsx();
    const { code, output } = await startInChild(t.url, path.join(dir, 'jobs'), dir);
    expect(code, output).to.equal(3);
    expect(output.trim()).to.equal(
      `HandlerCheckError: handler Declined: ${path.join(dir, 'jobs', 'Declined.ts')} is TypeScript, which Node ` +
        `${process.versions.node} does not run by itself: install tsx (npm install --save-dev tsx), or compile ` +
        'the handlers to JavaScript (tsc)',
    );
  });

  it('refuses to start when only the main thread has a loader (node --import tsx, no tsx the threads can find)', async () => {
    const dir = appWithoutTsx();
    const tsx = path.join(repoRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs');
    const { code, output } = await startInChild(t.url, path.join(dir, 'jobs'), dir, ['--import', tsx]);
    expect(code, output).to.equal(3);
    expect(output.trim()).to.match(
      /^HandlerCheckError: handler Declined: on a worker thread, \S+Declined\.ts is TypeScript, .* install tsx/,
    );
  });
});
