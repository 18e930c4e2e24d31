// Schedules set at run time (nexq.schedules): kept in Redis, seen by every node within a second,
// each tick enqueued once across nodes, replaced and removed at run time, checked as they are set.
import { expect } from 'chai';
import { ScheduleError } from '../../src/errors';
import type { Nexq } from '../../src/nexq';
import { enqueuePeriodic } from '../../src/redis/enqueue-scripts';
import { useNodes, waitFor } from '../support/node';

const EVERY_SECOND = '* * * * * *';

describe('schedules set at run time', () => {
  const t = useNodes();

  /** The jobs waiting in `queue` (no node serves it in these tests), oldest first. */
  async function queued(queue: string): Promise<Array<{ jid: string; class: string; args: unknown[] }>> {
    return (await t.redis.lrange(t.keys.queue(queue), 0, -1)).map((raw) => JSON.parse(raw)).reverse();
  }

  async function waitForJobs(queue: string, count: number, timeoutMs = 10_000) {
    await waitFor(
      async () => (await t.redis.llen(t.keys.queue(queue))) >= count,
      timeoutMs,
      `${count} jobs in ${queue}`,
    );
    return queued(queue);
  }

  it('is set on a producer and enqueued by a worker node, which saw it without a restart', async () => {
    await t.start({ nodeId: 'worker' });
    const producer: Nexq = await t.start({ mode: 'enqueuer' });
    await producer.schedules.set('beat', { cron: EVERY_SECOND, queue: 'cron', class: 'Record', args: ['x', 1] });
    const [job] = await waitForJobs('cron', 1);
    expect(job.class).to.equal('Record');
    expect(job.args).to.deep.equal(['x', 1]);
    expect(job.jid).to.match(/^periodic-beat-\d+$/);
  });

  it("runs the first tick after the set, even when it comes before a node's first read of the schedule", async () => {
    const producer: Nexq = await t.start({ mode: 'enqueuer' });
    const setAt = Math.floor(Date.now() / 1000);
    await producer.schedules.set('first', { cron: '0 0 * * *', queue: 'cron', class: 'Record' });
    // A node reads the schedules each second. Its first call for the run promised next (as `list()`
    // says) is its first for this schedule too: it must run the tick, not take it as where to start.
    const [stored] = await producer.schedules.list();
    const next = stored.nextRunAt!.getTime() / 1000;
    const state = t.keys.periodic(
      `first@${JSON.parse((await t.redis.hget(t.keys.schedules, 'first'))!).token}`,
      'cron',
    );
    expect(Number(await t.redis.get(state))).to.be.at.most(setAt);
    const outcome = await enqueuePeriodic(
      producer.node.ctx.redis,
      t.keys,
      state,
      'cron',
      next,
      '{"jid":"periodic-first"}',
      'p',
      true,
    );
    expect(outcome).to.equal('enqueued');
  });

  it('enqueues each tick once with two nodes running it', async () => {
    const a = await t.start({ nodeId: 'a' });
    await t.start({ nodeId: 'b' });
    await a.schedules.set('twice', { cron: EVERY_SECOND, queue: 'cron', class: 'Record' });
    const jobs = await waitForJobs('cron', 4);
    const ticks = jobs.map((job) => Number(/^periodic-twice-(\d+)$/.exec(job.jid)![1]));
    expect(new Set(ticks).size, ticks.join(', ')).to.equal(ticks.length);
    expect([...ticks].sort(), 'in tick order').to.deep.equal(ticks);
  });

  it('replaces a schedule at run time, lists it with its next run, and removes it', async () => {
    const node = await t.start();
    await node.schedules.set('swap', { cron: EVERY_SECOND, queue: 'cron', class: 'Record', args: ['old'] });
    await waitForJobs('cron', 1);
    await node.schedules.set('swap', { cron: EVERY_SECOND, queue: 'cron', class: 'Record', args: ['new'] });
    await waitFor(
      async () => (await queued('cron')).some((job) => job.args[0] === 'new'),
      10_000,
      'a job of the new form',
    );
    const jobs = await queued('cron');
    const firstNew = jobs.findIndex((job) => job.args[0] === 'new');
    expect(jobs.slice(firstNew).every((job) => job.args[0] === 'new')).to.equal(true);

    await node.schedules.set('berlin', { cron: '0 9 * * *', queue: 'cron', class: 'Record', tz: 'Europe/Berlin' });
    const listed = await node.schedules.list();
    expect(listed.map((s) => s.name)).to.deep.equal(['berlin', 'swap']);
    const berlin = listed[0];
    expect(berlin).to.include({ cron: '0 9 * * *', queue: 'cron', class: 'Record', tz: 'Europe/Berlin' });
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', timeStyle: 'short' });
    expect(local.format(berlin.nextRunAt)).to.equal('09:00');
    expect(berlin.nextRunAt!.getTime()).to.be.within(Date.now(), Date.now() + 25 * 3600_000);

    expect(await node.schedules.remove('swap')).to.equal(true);
    expect(await node.schedules.remove('swap')).to.equal(false);
    expect((await node.schedules.list()).map((s) => s.name)).to.deep.equal(['berlin']);
    expect(await t.redis.keys(`*periodic*swap@*`)).to.deep.equal([]);
  });

  it('refuses a bad schedule, naming the field, and writes nothing', async () => {
    const node = await t.start({ mode: 'enqueuer' });
    const refused = (spec: object) =>
      node.schedules.set('bad', { cron: '0 * * * *', queue: 'q', class: 'Record', ...spec }).then(
        () => expect.fail('accepted'),
        (err: unknown) => err as ScheduleError,
      );
    const zone = await refused({ tz: 'Mars/Olympus' });
    expect(zone).to.be.instanceOf(ScheduleError);
    expect(zone.code).to.equal('SCHEDULE_INVALID');
    expect(zone.message).to.equal('schedules.set("bad").tz must be an IANA time zone name (got "Mars/Olympus")');
    expect((await refused({ cron: '61 * * * *' })).message).to.match(/^schedules\.set\("bad"\)\.cron must be a cron/);
    const badName = await node.schedules.set('b a d', { cron: '0 * * * *', queue: 'q', class: 'R' }).then(
      () => expect.fail('accepted'),
      (err: unknown) => err as Error,
    );
    expect(badName.message).to.match(/^schedules\.set\("b a d"\)\.name must be up to 100 letters/);
    expect(await node.schedules.list()).to.deep.equal([]);
  });
});
