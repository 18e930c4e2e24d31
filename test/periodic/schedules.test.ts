// Schedules set at run time (nexq.schedules): kept in Redis, seen by every node within a second,
// each tick enqueued once across nodes, replaced and removed at run time, checked as they are set.
import { expect } from 'chai';
import { ScheduleError } from '../../src/errors';
import type { Nexq } from '../../src/nexq';
import { enqueuePeriodic } from '../../src/redis/enqueue-scripts';
import { captureLogs } from '../support/capture-logs';
import { sleep, useNodes, waitFor } from '../support/node';

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

  /** The state key of the version of `name` stored now. */
  async function stateKey(name: string, queue: string): Promise<string> {
    const token = JSON.parse((await t.redis.hget(t.keys.schedules, name))!).token as string;
    return t.keys.periodic(`${name}@${token}`, queue);
  }

  /** What a node's call for `tick` of the schedule version whose state is `state` does. */
  function runTick(node: Nexq, state: string, tick: number) {
    const jid = `periodic-x-${tick}`;
    return enqueuePeriodic(node.node.ctx.redis, t.keys, state, 'cron', tick, JSON.stringify({ jid }), jid, 'kept');
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
    const state = await stateKey('first', 'cron');
    expect(Number(await t.redis.get(state))).to.be.at.most(setAt);
    expect(await runTick(producer, state, next)).to.equal('enqueued');
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

  it("goes on from a replaced version's last tick, so a tick that version ran is not run again", async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.schedules.set('swap', { cron: EVERY_SECOND, queue: 'cron', class: 'Record', args: ['old'] });
    const oldState = await stateKey('swap', 'cron');
    // A node runs the old version's tick of this second, and the schedule is replaced within it.
    const tick = Math.floor((await t.redis.time())[0]);
    expect(await runTick(producer, oldState, tick)).to.equal('enqueued');
    await producer.schedules.set('swap', { cron: EVERY_SECOND, queue: 'cron', class: 'Record', args: ['new'] });
    const newState = await stateKey('swap', 'cron');
    expect(await runTick(producer, newState, tick)).to.equal('already');
    // A node still running the old version finds it gone, and writes nothing.
    expect(await runTick(producer, oldState, tick)).to.equal('gone');
    expect(await t.redis.exists(oldState)).to.equal(0);
    expect(await t.redis.llen(t.keys.queue('cron'))).to.equal(1);
    // The tick the new version goes on from was run: it is the schedule's last run.
    const [listed] = await producer.schedules.list();
    expect(listed.lastRunAt?.getTime()).to.equal(tick * 1000);
  });

  it('writes nothing for a schedule removed after a node read it: no job, no state key left', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.schedules.set('gone', { cron: EVERY_SECOND, queue: 'cron', class: 'Record' });
    const state = await stateKey('gone', 'cron');
    expect(await producer.schedules.remove('gone')).to.equal(true);
    const tick = Math.floor((await t.redis.time())[0]) + 1;
    expect(await runTick(producer, state, tick)).to.equal('gone');
    expect(await t.redis.exists(state)).to.equal(0);
    expect(await t.redis.llen(t.keys.queue('cron'))).to.equal(0);
  });

  it('starts a listed schedule again, with a warning, when its state key stays gone', async () => {
    const logs = captureLogs();
    const node = await t.start({ logger: logs.logger });
    await node.schedules.set('lost', { cron: EVERY_SECOND, queue: 'cron', class: 'Record' });
    await waitForJobs('cron', 1);
    const state = await stateKey('lost', 'cron');
    // As a failover that lost the write, or an eviction, would leave it.
    await t.redis.del(state);
    const lostAt = Math.floor((await t.redis.time())[0]);
    await waitFor(
      async () => (await queued('cron')).some((job) => Number(job.jid.split('-').pop()) > lostAt + 1),
      20_000,
      'a tick after the state key was lost',
    );
    expect(logs.text()).to.match(
      /periodic lost: its state in Redis \(its last tick\) was gone while the schedule stayed listed/,
    );
  });

  it('counts a state gone only in rounds that read the schedules: one removed while they cannot be read stays gone', async () => {
    const node = await t.start();
    await node.schedules.set('z', { cron: EVERY_SECOND, queue: 'cron', class: 'Record' });
    await waitForJobs('cron', 1);
    const state = await stateKey('z', 'cron');
    // Removed as remove() does, while the node cannot read the schedules (as in a failover of their master).
    await t.redis.multi().del(t.keys.schedules).del(state).set(t.keys.schedules, 'unreadable').exec();
    const removedAt = Math.floor((await t.redis.time())[0]);
    await sleep(6500); // more rounds than a listed schedule's state may be gone before it starts again
    await t.redis.del(t.keys.schedules);
    const late = (await queued('cron')).filter((job) => Number(job.jid.split('-').pop()) > removedAt);
    expect(late.map((job) => job.jid)).to.deep.equal([]);
    expect(await t.redis.exists(state)).to.equal(0);
  });

  it('lists no last run after a replace of a schedule that had not run', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.schedules.set('hourly', { cron: '0 * * * *', queue: 'cron', class: 'Record', args: [1] });
    await producer.schedules.set('hourly', { cron: '0 * * * *', queue: 'cron', class: 'Record', args: [2] });
    const [listed] = await producer.schedules.list();
    expect(listed.args).to.deep.equal([2]);
    expect(listed).not.to.have.property('lastRunAt');
  });

  it('brings back a `periodic` entry from under a removed schedule of its name at its next tick, not catching up', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const hour = Math.floor((await t.redis.time())[0] / 3600) * 3600;
    // The entry ran the tick an hour ago, then a schedule of its name replaced it.
    await t.redis.set(t.keys.periodic('hourly', 'cron'), String(hour - 3600));
    await producer.schedules.set('hourly', { cron: '0 * * * *', queue: 'cron', class: 'Record', args: ['set'] });
    await t.start({ periodic: [{ name: 'hourly', cron: '0 * * * *', queue: 'cron', class: 'Record' }] });
    await sleep(1500); // a round or more with the schedule read
    expect(await producer.schedules.remove('hourly')).to.equal(true);
    // The entry is back within a second; the tick of this hour, which the schedule may have run, is
    // recorded, not run again.
    await waitFor(
      async () => Number(await t.redis.get(t.keys.periodic('hourly', 'cron'))) >= hour,
      5000,
      "the entry's state at this hour's tick",
    );
    expect(await t.redis.llen(t.keys.queue('cron'))).to.equal(0);
  });

  it('goes on from the last tick of the `periodic` entry of its name that it replaces', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    // The entry (its state keyed by its name) ran this second's tick just before the set.
    const tick = Math.floor((await t.redis.time())[0]);
    await t.redis.set(t.keys.periodic('entry', 'cron'), String(tick));
    await producer.schedules.set('entry', { cron: EVERY_SECOND, queue: 'cron', class: 'Record' });
    expect(await runTick(producer, await stateKey('entry', 'cron'), tick)).to.equal('already');
    const [listed] = await producer.schedules.list();
    expect(listed.lastRunAt?.getTime()).to.equal(tick * 1000);
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
