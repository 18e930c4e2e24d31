// Every program under examples/ (the README shows them) run with plain `node` against a private
// redis-server, and checked for what it did: jobs written, run, followed up, stopped cleanly.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import { fileAndEnv, validateLayers } from '../../config/load';
import { Nexq } from '../../src/nexq';
import { repoRoot } from '../support/paths';
import { RedisServer } from '../support/redis-server';
import { examplesDir, ExampleProcess, runExample } from './support';

describe('examples/', function () {
  this.timeout(60_000);
  let server: RedisServer;
  let redis: Redis;
  const env = () => ({ REDIS_URL: server.url });

  before(async () => {
    server = await RedisServer.start();
    redis = new Redis(server.url);
  });
  after(async () => {
    // Unset when before failed part way.
    (redis as Redis | undefined)?.disconnect();
    await (server as RedisServer | undefined)?.stop();
  });
  beforeEach(async () => {
    await redis.flushall();
  });

  it('enqueue.js writes one job now and one for 60 s later, as a producer that runs none', async () => {
    const before = Date.now() / 1000;
    const { code, output } = await runExample('enqueue.js', env());
    expect(code, output).to.equal(0);
    const jid = /^enqueued (\S+)$/m.exec(output)?.[1];
    expect(jid, output).to.be.a('string');
    const queued = (await redis.lrange('exq:queue:default', 0, -1)).map((raw) => JSON.parse(raw));
    expect(queued).to.have.length(1);
    expect(queued[0]).to.include({ jid, class: 'HardWorker', queue: 'default' });
    expect(queued[0].args).to.deep.equal(['bob', 5]);
    const [raw, score] = await redis.zrange('exq:schedule', 0, -1, 'WITHSCORES');
    expect(JSON.parse(raw)).to.deep.include({ class: 'HardWorker', args: ['later', 1] });
    expect(Number(score)).to.be.within(before + 60, Date.now() / 1000 + 60);
    // An enqueuer registers no process and fetches nothing.
    expect(await redis.smembers('exq:processes')).to.deep.equal([]);
    expect(await redis.keys('exq:queue:backup::*')).to.deep.equal([]);
  });

  it("worker.js runs enqueue.js's job and SignUp's follow-up (through producer.js), then stops on SIGTERM", async () => {
    const worker = new ExampleProcess('worker.js', env());
    try {
      await worker.waitForOutput(/node \S+ started/);
      const { code, output } = await runExample('enqueue.js', env());
      expect(code, output).to.equal(0);
      const jid = /^enqueued (\S+)$/m.exec(output)![1];
      await worker.waitForOutput(new RegExp(`${jid}: working hard for bob, 5 times`));

      // SignUp runs on a worker thread, where producer.js starts an enqueuer from REDIS_URL.
      const producer = await Nexq.start({ mode: 'enqueuer', redis: server.url, logLevel: 'error' });
      await producer.enqueue('default', 'SignUp', [7, 'bo@example.com']);
      await producer.stop();
      await worker.waitForOutput(/: welcome mail to bo@example\.com \(user 7\)/);

      worker.kill('SIGTERM');
      expect(await worker.exited, worker.output).to.equal(0);
      expect(await redis.get('exq:stat:failed')).to.equal(null);
      expect(await redis.get('exq:stat:processed')).to.equal('3');
      expect(await redis.llen('exq:queue:default')).to.equal(0);
      expect(await redis.llen('exq:queue:mail')).to.equal(0);
      expect(await redis.keys('exq:queue:backup::*')).to.deep.equal([]);
      expect(await redis.zcard('exq:schedule')).to.equal(1); // the job for 60 s later still waits
    } finally {
      worker.kill('SIGKILL');
    }
  });

  it("batch.js writes three jobs as one batch, and worker.js runs them and then the batch's callback once", async () => {
    const { code, output } = await runExample('batch.js', env());
    expect(code, output).to.equal(0);
    const bid = /^batch (\S+): 3 jobs, 3 pending$/m.exec(output)?.[1];
    expect(bid, output).to.be.a('string');
    const queued = (await redis.lrange('exq:queue:default', 0, -1)).map((raw) => JSON.parse(raw));
    expect(queued.map((job) => [job.class, job.bid])).to.deep.equal([
      ['WelcomeEmail', bid],
      ['WelcomeEmail', bid],
      ['WelcomeEmail', bid],
    ]);
    const worker = new ExampleProcess('worker.js', env());
    try {
      await worker.waitForOutput(/working hard for the welcome batch, 1 times/);
      worker.kill('SIGTERM');
      expect(await worker.exited, worker.output).to.equal(0);
      for (const email of ['ann', 'bob', 'cy']) expect(worker.output).to.include(`welcome mail to ${email}@example.com`);
      expect(worker.output.match(/working hard for the welcome batch/g)).to.have.length(1);
      expect(await redis.get('exq:stat:processed')).to.equal('4');
    } finally {
      worker.kill('SIGKILL');
    }
  });

  it("the README's first commands end with a job run: npm start's node runs the job of node examples/enqueue.js", async () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const quickStart = /```sh\n([\s\S]*?)```/.exec(readme)![1];
    const promised = /the node's terminal then prints "<jid>(: working hard for bob, 5 times)"/.exec(quickStart);
    expect(quickStart, 'the quick start').to.match(/^npm install && npm start\s.*\nnode examples\/enqueue\.js\s/);
    expect(promised, 'the quick start says which line the node prints').to.not.equal(null);
    // `npm start` after its build step, as the package says it (its --local-redis finds this Redis answering).
    const scripts = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts;
    const [command, ...args] = scripts.start.split('&&').at(-1).trim().split(/\s+/);
    expect(command).to.equal('node');
    const node = new ExampleProcess(path.join(repoRoot, args[0]), env(), args.slice(1), repoRoot);
    try {
      await node.waitForOutput(/node \S+ started/);
      const { code, output } = await runExample('enqueue.js', env());
      expect(code, output).to.equal(0);
      const jid = /^enqueued (\S+)$/m.exec(output)![1];
      await node.waitForOutput(new RegExp(`^${jid}${promised![1]}$`, 'm'));
    } finally {
      node.kill('SIGKILL');
    }
  });

  it('testing.js runs its jobs with nexq/testing, without Redis', async () => {
    const { code, output } = await runExample('testing.js', { REDIS_URL: 'redis://127.0.0.1:1' });
    expect(code, output).to.equal(0);
    expect(output).to.match(/: welcome mail to ann@example\.com \(user unknown\)$/m);
    expect(output).to.match(/: welcome mail to bo@example\.com \(user 7\)$/m);
    expect(output).to.match(/^ran 2 jobs$/m);
  });

  it('nexq.yaml is a valid config file for nexq start --config', () => {
    const layers = fileAndEnv(path.join(examplesDir, 'nexq.yaml'), {});
    validateLayers(layers);
    expect(layers.config).to.deep.include({
      redis: 'redis://127.0.0.1:6379',
      shutdownTimeout: 10000,
      metrics: { port: 9400 },
    });
    expect(layers.config.queues).to.deep.equal(['default', { name: 'mail', concurrency: 5 }]);
    expect(layers.config.periodic).to.deep.equal([{ cron: '0 3 * * *', queue: 'default', class: 'Report' }]);
  });
});
