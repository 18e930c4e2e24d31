// Periodic jobs on real nodes: each tick enqueued exactly once however many nodes run the schedule,
// a restart neither skips nor doubles a tick, a gap while every node was down is caught up with
// one job (its most recent tick), never a flood, and Redis errors never stop the schedule.
import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import winston from 'winston';
import { ConfigError, resolveConfig } from '../../config/validate';
import type { PeriodicSpec } from '../../config/defaults';
import { Nexq } from '../../src/nexq';
import { ActorNames } from '../../src/run/node-context';
import { parseCron } from '../../config/cron';
import { periodicId } from '../../config/periodic-id';
import { periodicJid } from '../../src/periodic/schedule';
import { Keys } from '../../src/redis/keys';
import { defineScripts } from '../../src/redis/scripts';
import { enqueuePeriodic } from '../../src/redis/enqueue-scripts';
import { sharedRedis } from '../support/global-hooks';
import { sleep, useNodes, waitFor } from '../support/node';

const EVERY_SECOND = '* * * * * *';

/** The tick (epoch seconds) a periodic jid names, checking its shape. */
function tickOf(jid: string, id: string): number {
  const match = new RegExp(`^periodic-${id.replace(/[.]/g, '\\.')}-(\\d+)$`).exec(jid);
  expect(match, `jid ${jid}`).to.not.equal(null);
  return Number(match![1]);
}

function expectConsecutive(ticks: number[], what: string): void {
  for (let i = 1; i < ticks.length; i++) expect(ticks[i], `${what}: ${ticks.join(', ')}`).to.equal(ticks[i - 1] + 1);
}

/**
 * Resolves within the first 200 ms of a wall-clock second, so what follows has most of a second
 * before the next tick.
 */
async function earlyInASecond(): Promise<void> {
  await waitFor(() => Date.now() % 1000 >= 20 && Date.now() % 1000 < 200, 2000, 'the start of a second');
}

describe('periodic jobs', () => {
  const t = useNodes();

  /** Every jid of the test's periodic jobs: those that ran (Tally's list) and those still queued. */
  async function allJids(out: string): Promise<string[]> {
    const ran = await t.redis.lrange(out, 0, -1);
    const queued = (await t.redis.lrange(t.keys.queue('default'), 0, -1)).map((raw) => JSON.parse(raw).jid as string);
    return [...ran, ...queued];
  }

  describe('the enqueue-periodic script', () => {
    it('enqueues a tick once, never an older one, and records a new schedule at boot without enqueuing', async () => {
      const redis = defineScripts(t.redis.duplicate());
      try {
        const { keys } = t;
        const state = keys.periodic('s', 'q');
        const run = (tick: number, boot = false) =>
          enqueuePeriodic(
            redis,
            keys,
            state,
            'q',
            tick,
            `{"jid":"periodic-s-${tick}"}`,
            `periodic-s-${tick}`,
            boot ? 'boot' : '',
          );

        expect(await run(100, true)).to.equal('new-schedule');
        expect(await t.redis.get(state)).to.equal('100');
        expect(await t.redis.llen(keys.queue('q'))).to.equal(0);

        expect(await run(100)).to.equal('already');
        expect(await run(101)).to.equal('enqueued');
        expect(await run(101)).to.equal('already');
        expect(await run(101, true)).to.equal('already');
        expect(await run(99)).to.equal('already');
        // A boot with state already there is a catch-up: it enqueues.
        expect(await run(105, true)).to.equal('enqueued');
        expect(await t.redis.get(state)).to.equal('105');
        expect(await t.redis.lrange(keys.queue('q'), 0, -1)).to.deep.equal([
          '{"jid":"periodic-s-105"}',
          '{"jid":"periodic-s-101"}',
        ]);
        expect(await t.redis.smembers(keys.queues)).to.deep.equal(['q']);
        // 'start' (a `periodic` entry back from under a schedule of its name) records, never enqueues.
        expect(await enqueuePeriodic(redis, keys, state, 'q', 110, '{}', 'j', 'start')).to.equal('new-schedule');
        expect(await enqueuePeriodic(redis, keys, state, 'q', 110, '{}', 'j', 'start')).to.equal('already');
        expect(await t.redis.get(state)).to.equal('110');
        expect(await t.redis.llen(keys.queue('q'))).to.equal(2);
      } finally {
        redis.disconnect();
      }
    });

    it('lets exactly one of many racing clients enqueue a tick', async () => {
      const clients = Array.from({ length: 12 }, () => defineScripts(t.redis.duplicate()));
      try {
        const { keys } = t;
        await t.redis.set(keys.periodic('race', 'q'), '0');
        for (const tick of [1, 2, 3]) {
          const outcomes = await Promise.all(
            clients.map((c) =>
              enqueuePeriodic(
                c,
                keys,
                keys.periodic('race', 'q'),
                'q',
                tick,
                `{"jid":"periodic-race-${tick}"}`,
                `periodic-race-${tick}`,
                '',
              ),
            ),
          );
          expect(outcomes.filter((o) => o === 'enqueued')).to.have.length(1);
        }
        expect(await t.redis.llen(keys.queue('q'))).to.equal(3);
      } finally {
        clients.forEach((c) => c.disconnect());
      }
    });

    it('fails whole, pushing nothing, when the state key holds another type', async () => {
      const redis = defineScripts(t.redis.duplicate());
      try {
        const { keys } = t;
        await t.redis.lpush(keys.periodic('broken', 'q'), 'x');
        const err = await enqueuePeriodic(redis, keys, keys.periodic('broken', 'q'), 'q', 5, '{}', 'x', '').catch(
          (e: unknown) => e,
        );
        expect(err).to.be.instanceOf(Error);
        expect((err as Error).message).to.match(/WRONGTYPE/);
        expect(await t.redis.llen(keys.queue('q'))).to.equal(0);
      } finally {
        redis.disconnect();
      }
    });
  });

  it('runs each per-second tick exactly once with two nodes on one namespace', async function () {
    this.timeout(30_000);
    const out = t.out('ticks');
    const periodic: PeriodicSpec[] = [
      { name: 'every-second', cron: EVERY_SECOND, queue: 'default', class: 'Tally', args: [t.url, out] },
    ];
    const [a, b] = await Promise.all([t.start({ periodic }), t.start({ periodic })]);
    await waitFor(async () => (await t.redis.llen(out)) >= 4, 15_000, '4 ticks run');
    await Promise.all([t.stop(a), t.stop(b)]);

    const jids = await allJids(out);
    expect(new Set(jids).size, `duplicates in ${jids.join(', ')}`).to.equal(jids.length);
    const ticks = jids.map((jid) => tickOf(jid, 'every-second')).sort((x, y) => x - y);
    expect(ticks.length).to.be.at.least(4);
    expectConsecutive(ticks, 'ticks');
    expect(Number(await t.redis.get(t.keys.periodic('every-second', 'default')))).to.equal(ticks[ticks.length - 1]);
    // Tally's list holds each job that ran: no job ran twice either.
    const ran = await t.redis.lrange(out, 0, -1);
    expect(new Set(ran).size).to.equal(ran.length);
  });

  it('neither skips nor doubles a tick through a rolling restart', async function () {
    this.timeout(30_000);
    const out = t.out('rolling');
    const periodic: PeriodicSpec[] = [
      { name: 'rolling', cron: EVERY_SECOND, queue: 'default', class: 'Tally', args: [t.url, out] },
    ];
    const steady = await t.start({ periodic });
    let restarting = await t.start({ periodic });
    await waitFor(async () => (await t.redis.llen(out)) >= 2, 10_000, '2 ticks run');
    for (let i = 0; i < 2; i++) {
      await t.stop(restarting);
      await sleep(700);
      restarting = await t.start({ periodic });
    }
    const seen = await t.redis.llen(out);
    await waitFor(async () => (await t.redis.llen(out)) >= seen + 2, 10_000, '2 more ticks run');
    await Promise.all([t.stop(steady), t.stop(restarting)]);

    const jids = await allJids(out);
    expect(new Set(jids).size, `duplicates in ${jids.join(', ')}`).to.equal(jids.length);
    expectConsecutive(
      jids.map((jid) => tickOf(jid, 'rolling')).sort((x, y) => x - y),
      'ticks',
    );
  });

  it('after every node was down across several ticks, enqueues the most recent missed tick once, then goes on', async function () {
    this.timeout(40_000);
    const out = t.out('gap');
    const periodic: PeriodicSpec[] = [
      { name: 'gap', cron: EVERY_SECOND, queue: 'default', class: 'Tally', args: [t.url, out] },
    ];
    const first = await t.start({ periodic });
    await waitFor(async () => (await t.redis.llen(out)) >= 2, 10_000, '2 ticks run');
    await t.stop(first);
    const lastBeforeStop = Number(await t.redis.get(t.keys.periodic('gap', 'default')));

    await sleep(3500);
    // Start early in a second, so the nodes boot well before the next tick: the catch-up tick is
    // then the last one that passed while no node ran.
    await earlyInASecond();
    const lastMissed = Math.floor(Date.now() / 1000);
    const [a, b] = await Promise.all([t.start({ periodic }), t.start({ periodic })]);
    await waitFor(
      async () => (await allJids(out)).some((jid) => tickOf(jid, 'gap') >= lastMissed + 2),
      10_000,
      'ticks after the restart',
    );
    await Promise.all([t.stop(a), t.stop(b)]);

    expect(lastMissed - lastBeforeStop).to.be.at.least(3);
    const jids = await allJids(out);
    expect(new Set(jids).size, `duplicates in ${jids.join(', ')}`).to.equal(jids.length);
    const ticks = jids.map((jid) => tickOf(jid, 'gap')).sort((x, y) => x - y);
    const before = ticks.filter((tick) => tick <= lastBeforeStop);
    const inGap = ticks.filter((tick) => tick > lastBeforeStop && tick <= lastMissed);
    const after = ticks.filter((tick) => tick > lastMissed);
    // Before the stop only the last tick matters here: a node's first second (its threads starting)
    // may run a tick late on a loaded machine, and the rule then takes the latest one, as in a gap.
    expect(before.at(-1), 'the last tick before the stop').to.equal(lastBeforeStop);
    expect(inGap, `ticks of the gap ${lastBeforeStop + 1}..${lastMissed}`).to.deep.equal([lastMissed]);
    expect(after[0]).to.equal(lastMissed + 1);
    expectConsecutive(after, 'ticks after the restart');
  });

  it('catches up one job, not one per missed tick, for a daily schedule last run days ago', async () => {
    const out = t.out('daily');
    const periodic: PeriodicSpec[] = [
      { name: 'daily', cron: '@daily', queue: 'default', class: 'Tally', args: [t.url, out] },
    ];
    const cron = parseCron('@daily');
    const today = cron.previous(Date.now() / 1000);
    await t.redis.set(t.keys.periodic('daily', 'default'), String(today - 5 * 86400));
    await Promise.all([t.start({ periodic }), t.start({ periodic })]);
    await waitFor(() => t.redis.llen(out), 5000, 'the catch-up job run');
    await sleep(300);
    const todayNow = cron.previous(Date.now() / 1000); // the same, unless midnight UTC just passed
    const jids = await allJids(out);
    expect(jids[0]).to.equal(periodicJid('daily', today));
    expect(jids).to.have.length(todayNow === today ? 1 : 2);
    expect(Number(await t.redis.get(t.keys.periodic('daily', 'default')))).to.equal(todayNow);
  });

  it('starts a schedule new to Redis with its next tick, without running the one before the boot', async () => {
    const out = t.out('fresh');
    const periodic: PeriodicSpec[] = [{ cron: '@daily', queue: 'default', class: 'Tally', args: [t.url, out] }];
    const id = periodicId(periodic[0]);
    expect(id).to.match(/^[0-9a-f]{12}$/);
    const today = parseCron('@daily').previous(Date.now() / 1000);
    await t.start({ periodic });
    await waitFor(() => t.redis.get(t.keys.periodic(id, periodic[0].queue)), 5000, 'the schedule state');
    await sleep(300);
    expect(Number(await t.redis.get(t.keys.periodic(id, periodic[0].queue)))).to.equal(today);
    expect(await allJids(out)).to.deep.equal([]);
  });

  it('keeps ticking through Redis errors: logs them, never crashes, and resumes once the key is fixed', async function () {
    this.timeout(20_000);
    const out = t.out('broken');
    const lines: string[] = [];
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    const logger = winston.createLogger({
      level: 'warn',
      format: winston.format.json(),
      transports: [new winston.transports.Stream({ stream: sink })],
    });
    await t.redis.lpush(t.keys.periodic('broken', 'default'), 'not a tick');
    const periodic: PeriodicSpec[] = [
      { name: 'broken', cron: EVERY_SECOND, queue: 'default', class: 'Tally', args: [t.url, out] },
    ];
    const node = await t.start({ periodic, logger });
    await waitFor(
      () => lines.filter((l) => /periodic broken: enqueuing.*WRONGTYPE/.test(l)).length >= 3,
      8000,
      '3 logged failures',
    );
    expect(node.node.running).to.equal(true);
    expect(node.node.ctx.registry.whereis(ActorNames.periodic)?.alive).to.equal(true);
    expect(lines.join('')).to.not.match(/exited|restarted|gave up/);
    expect(await t.redis.llen(out)).to.equal(0);

    await t.redis.del(t.keys.periodic('broken', 'default'));
    await waitFor(async () => (await t.redis.llen(out)) >= 2, 8000, '2 ticks run');
    expect(node.node.running).to.equal(true);
  });

  it('runs no periodic actor in enqueuer mode; a worker node runs one without entries (for nexq.schedules)', async () => {
    const periodic: PeriodicSpec[] = [
      { name: 'none', cron: EVERY_SECOND, queue: 'default', class: 'Tally', args: [t.url, t.out('none')] },
    ];
    const producer = await t.start({ mode: 'enqueuer', periodic });
    const plain = await t.start();
    expect(producer.node.ctx.registry.whereis(ActorNames.periodic)).to.equal(undefined);
    expect(plain.node.ctx.registry.whereis(ActorNames.periodic)).not.to.equal(undefined);
    await sleep(1200);
    expect(await t.redis.exists(t.keys.periodic('none', 'default'))).to.equal(0);
  });

  it('writes the job as any producer does, with the tick in its jid', async () => {
    const periodic: PeriodicSpec[] = [
      { name: 'shape', cron: EVERY_SECOND, queue: 'elsewhere', class: 'Mailer::Weekly', args: [1, { a: 'b' }] },
    ];
    const node = await t.start({ periodic });
    const raw = await waitFor(
      async () => (await t.redis.lrange(t.keys.queue('elsewhere'), -1, -1))[0],
      5000,
      'a periodic job',
    );
    await t.stop(node);
    const job = JSON.parse(raw);
    expect(job).to.include({ queue: 'elsewhere', class: 'Mailer::Weekly', retry: true });
    expect(job.args).to.deep.equal([1, { a: 'b' }]);
    expect(job.jid).to.equal(periodicJid('shape', tickOf(job.jid, 'shape')));
    expect(raw).to.match(/"created_at":\d+\.\d+,"enqueued_at":\d+\.\d+\}$/);
    expect(await t.redis.sismember(t.keys.queues, 'elsewhere')).to.equal(1);
  });
});

describe('periodic config', () => {
  const entry = { cron: '0 * * * *', queue: 'default', class: 'Tally', args: [] };
  const check = (periodic: unknown) => () => resolveConfig({ periodic } as never);

  it('rejects a bad cron expression at start with a ConfigError naming periodic[i].cron', async () => {
    const err = await Nexq.start({
      redis: sharedRedis().url,
      logLevel: 'error',
      threads: 1,
      periodic: [entry, { ...entry, cron: '61 * * * *' }],
    }).catch((e: unknown) => e);
    if (err instanceof Nexq) {
      await err.stop();
      expect.fail('Nexq.start should have rejected');
    }
    expect(err).to.be.instanceOf(ConfigError);
    expect((err as ConfigError).key).to.equal('periodic[1].cron');
    expect((err as ConfigError).message)
      .to.contain('periodic[1].cron')
      .and.contain('minute field "61": 61 is out of range 0-59');
  });

  it('names the key of each bad field', () => {
    const cases: Array<[unknown, string]> = [
      ['0 * * * *', 'periodic'],
      [[null], 'periodic[0]'],
      [[{ ...entry, cron: '* * *' }], 'periodic[0].cron'],
      [[{ ...entry, cron: 5 }], 'periodic[0].cron'],
      [[{ ...entry, queue: 'a b' }], 'periodic[0].queue'],
      [[{ ...entry, queue: undefined }], 'periodic[0].queue'],
      [[{ ...entry, class: '' }], 'periodic[0].class'],
      [[{ ...entry, args: 'x' }], 'periodic[0].args'],
      [[{ ...entry, args: [1n] }], 'periodic[0].args'],
      [[{ ...entry, name: 'a:b' }], 'periodic[0].name'],
      [[{ ...entry, clas: 'Tally' }], 'periodic[0].clas'],
      [[entry, { ...entry }], 'periodic[1]'],
      [
        [
          { ...entry, name: 'n' },
          { ...entry, cron: '@daily', name: 'n' },
        ],
        'periodic[1].name',
      ],
    ];
    for (const [periodic, key] of cases) {
      expect(check(periodic), key).to.throw(ConfigError).with.property('key', key);
    }
  });

  it('accepts good entries: args default to [], names, and the same job on two schedules', () => {
    const resolved = resolveConfig({
      periodic: [
        { cron: '*/5 * * * * *', queue: 'default', class: 'Tally' },
        { cron: '@hourly', queue: 'mail', class: 'Mailer::Digest', args: ['x'], name: 'digest.v2' },
        { cron: '@daily', queue: 'mail', class: 'Mailer::Digest', args: ['x'] },
      ],
    });
    expect(resolved.periodic).to.have.length(3);
    expect(resolveConfig({}).periodic).to.deep.equal([]);
  });

  it('keys a schedule by name, or by a hash that is the same on every node', () => {
    expect(new Keys('exq').periodic('nightly', 'q')).to.equal('exq:nexq:periodic:nightly');
    expect(new Keys('').periodic('nightly', 'q')).to.equal('nexq:periodic:nightly');
    const spec = { cron: '0  9 * * *', queue: 'q', class: 'C', args: [1] };
    expect(periodicId(spec)).to.equal(periodicId({ ...spec, cron: '0 9 * * *' }));
    expect(periodicId(spec)).to.not.equal(periodicId({ ...spec, args: [2] }));
    expect(periodicId({ ...spec, name: 'n' })).to.equal('n');
    expect(periodicJid('n', 1700000000)).to.equal('periodic-n-1700000000');
  });
});
