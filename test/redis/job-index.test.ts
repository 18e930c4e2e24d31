import { expect } from 'chai';
import { deleteAll } from '../../src/admin/actions';
import type { Nexq } from '../../src/nexq';
import { JobRunningError, parseEntry } from '../../src/redis/job-index';
import { useNodes, waitFor } from '../support/node';

describe('jobs by jid (the job index)', () => {
  const t = useNodes();

  /** Every index entry names a key that holds its job, and every job nexq holds is indexed once. */
  async function expectIndexInStep(node: Nexq): Promise<void> {
    // One MULTI reads the index and every place a job can be as of one instant.
    const backups = await t.redis.keys(`${t.ns}:queue:backup::*`);
    const tx = t.redis.multi().hgetall(t.keys.jobIndex('default')).lrange(t.keys.queue('default'), 0, -1);
    for (const key of [t.keys.schedule('default'), t.keys.retry('default'), t.keys.dead('default')])
      tx.zrange(key, 0, -1);
    for (const key of backups) tx.lrange(key, 0, -1);
    const [[, index], ...places] = (await tx.exec())! as Array<[Error | null, any]>;
    const held = places.flatMap(([, members]) => members as string[]).map((raw) => JSON.parse(raw).jid);
    expect(Object.keys(index).sort()).to.deep.equal(held.sort());
    for (const [jid, entry] of Object.entries(index as Record<string, string>)) {
      expect(parseEntry(entry), `index entry ${jid} -> ${JSON.stringify(entry)}`).to.not.equal(undefined);
      const shown = await node.show(jid);
      // A job may have moved on since the snapshot; one still there is where its entry said.
      if (shown && (await t.redis.hget(t.keys.jobIndex('default'), jid)) === entry)
        expect(shown.state).to.equal(parseEntry(entry)!.state);
    }
  }

  it('shows a job wherever it is: queued, scheduled, running on a node, waiting for a retry, dead', async () => {
    const node = await t.start();
    await node.pause('default', 'out');
    const queued = await node.enqueue('default', 'Record', [t.url, t.out('q'), 1]);
    const scheduled = await node.enqueueIn('default', 3600, 'Record', [t.url, t.out('s'), 1]);
    expect(await node.show(queued)).to.include({ state: 'queued', queue: 'default', deliveries: 0, jid: queued });
    const shownScheduled = await node.show(scheduled);
    expect(shownScheduled).to.include({ state: 'schedule', deliveries: 0 });
    expect(shownScheduled!.score).to.be.greaterThan(Date.now() / 1000 + 3000);
    expect(shownScheduled!.job).to.include({ class: 'Record', queue: 'default', jid: scheduled });

    await node.resume('default');
    const running = await node.enqueue('default', 'Sleep', [60_000]);
    const shownRunning = await waitFor(
      async () => {
        const s = await node.show(running);
        return s?.state === 'running' && s;
      },
      5000,
      'the job running',
    );
    expect(shownRunning).to.include({ queue: 'default', node: node.node.ctx.config.nodeId, deliveries: 1 });

    const retried = await node.enqueue('default', 'Fail', ['for the index']);
    const shownRetry = await waitFor(
      async () => {
        const s = await node.show(retried);
        return s?.state === 'retry' && s;
      },
      5000,
      'the job in retry',
    );
    // Exq's dialect (a namespace is set) counts the first failure as retry_count 1.
    expect(shownRetry).to.include({ retryCount: 1, deliveries: 1 });
    expect(shownRetry.job).to.include({ error_message: 'for the index' });

    const dead = await node.enqueue('default', 'Fail', [], { retry: 0 });
    await waitFor(async () => (await node.show(dead))?.state === 'dead', 5000, 'the job dead');
  });

  it('forgets a job once it succeeded, and counts deliveries and nacks of a job run again', async () => {
    const node = await t.start();
    const done = await node.enqueue('default', 'Record', [t.url, t.out('done'), 1]);
    const nacked = await node.enqueue('default', 'Nack', [t.url, t.out('nack'), 2]);
    await t.waitForRecords(t.out('done'), 1);
    await t.waitForRecords(t.out('nack'), 1);
    await waitFor(async () => (await t.redis.hlen(t.keys.jobIndex('default'))) === 0, 5000, 'the index emptied');
    expect(await node.show(done)).to.equal(undefined);
    expect(await node.show(nacked)).to.equal(undefined);

    // While it waits between nacks its counters show; pause output to catch it queued.
    const again = await node.enqueue('default', 'Nack', [t.url, t.out('nack2'), 100_000]);
    await waitFor(async () => ((await node.show(again))?.nacks ?? 0) >= 1, 5000, 'a nack');
    await node.pause('default', 'out');
    const shown = await waitFor(
      async () => {
        const s = await node.show(again);
        return s?.state === 'queued' && s;
      },
      5000,
      'the nacked job queued',
    );
    expect(shown.deliveries).to.equal(shown.nacks);
  });

  it('counts a delivery for each run of a job re-hydrated after its node stopped mid-run', async () => {
    const fixed = { nodeId: 'fixed-node', shutdownTimeout: 50 };
    const first = await t.start(fixed);
    const jid = await first.enqueue('default', 'Sleep', [60_000]);
    await waitFor(async () => (await first.show(jid))?.state === 'running', 5000, 'first run');
    await t.stop(first);
    // A fixed node id leaves the job in its backup list for its next boot.
    expect(await t.redis.llen(t.keys.backup('fixed-node', 'default'))).to.equal(1);
    const second = await t.start(fixed);
    const shown = await waitFor(
      async () => {
        const s = await second.show(jid);
        return s?.state === 'running' && s.deliveries === 2 && s;
      },
      5000,
      'second run',
    );
    expect(shown.node).to.equal('fixed-node');
  });

  it('indexes a job another producer pushed straight into the queue once a node fetches it', async () => {
    const node = await t.start();
    const raw = JSON.stringify({
      class: 'Sleep',
      args: [60_000],
      jid: 'foreign-1',
      queue: 'default',
      retry: true,
      enqueued_at: Date.now() / 1000,
    });
    await t.redis.lpush(t.keys.queue('default'), raw);
    const shown = await waitFor(async () => node.show('foreign-1'), 5000, 'the foreign job indexed');
    expect(shown).to.include({ state: 'running', raw, deliveries: 1 });
  });

  it('keeps the index in step with every job through successes, retries, deaths, nacks and schedules', async () => {
    const node = await t.start({ concurrency: 4 });
    await node.enqueueAll([
      ...Array.from({ length: 5 }, (_, i) => ({ queue: 'default', class: 'Record', args: [t.url, t.out('ok'), i] })),
      ...Array.from({ length: 3 }, () => ({ queue: 'default', class: 'Fail', args: [] })),
      ...Array.from({ length: 2 }, () => ({ queue: 'default', class: 'Fail', args: [], options: { retry: 0 } })),
      { queue: 'default', class: 'Nack', args: [t.url, t.out('nack'), 1] },
      { queue: 'default', class: 'Record', args: [t.url, t.out('later'), 1], in: 3600 },
    ]);
    await t.waitForRecords(t.out('ok'), 5);
    await t.waitForRecords(t.out('nack'), 1);
    await waitFor(
      async () =>
        (await t.redis.zcard(t.keys.retry('default'))) === 3 && (await t.redis.zcard(t.keys.dead('default'))) === 2,
      5000,
      'failures filed',
    );
    await waitFor(async () => (await t.redis.hlen(t.keys.jobIndex('default'))) === 6, 5000, 'acks landed');
    await expectIndexInStep(node);
  });

  it('forgets the jobs the dead set drops when it is trimmed', async () => {
    const node = await t.start({ deadMaxJobs: 2 });
    const jids: string[] = [];
    for (let i = 0; i < 3; i++) {
      jids.push(await node.enqueue('default', 'Fail', [], { retry: 0 }));
      await waitFor(async () => (await node.show(jids[i]))?.state === 'dead', 5000, `dead job ${i}`);
    }
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(2);
    expect(await node.show(jids[0])).to.equal(undefined);
    expect(await t.redis.hexists(t.keys.jobIndex('default'), jids[0])).to.equal(0);
    await expectIndexInStep(node);
  });

  it('deletes a waiting job wherever it waits, refuses a running one, and says false for an unknown jid', async () => {
    const node = await t.start();
    await node.pause('default', 'out');
    const queued = await node.enqueue('default', 'Record', [t.url, t.out('q'), 1]);
    const kept = await node.enqueue('default', 'Record', [t.url, t.out('q'), 2]);
    const scheduled = await node.enqueueIn('default', 3600, 'Record', [t.url, t.out('s'), 1]);
    const unique = await node.enqueue('default', 'Record', [t.url, t.out('u'), 1], { unique: { for: 3600 } });
    expect(await node.deleteJob(queued)).to.equal(true);
    expect(await node.deleteJob(scheduled)).to.equal(true);
    expect(await node.deleteJob(unique)).to.equal(true);
    expect(await node.deleteJob(queued)).to.equal(false);
    expect(await node.deleteJob('no-such-jid')).to.equal(false);
    expect((await t.redis.lrange(t.keys.queue('default'), 0, -1)).map((r) => JSON.parse(r).jid)).to.deep.equal([kept]);
    expect(await t.redis.zcard(t.keys.schedule('default'))).to.equal(0);
    // The unique lock went with the deleted job: the same job can be enqueued again.
    expect(
      (await node.enqueueResult('default', 'Record', [t.url, t.out('u'), 1], { unique: { for: 3600 } })).conflict,
    ).to.equal(false);

    await node.resume('default');
    const running = await node.enqueue('default', 'Sleep', [60_000]);
    await waitFor(async () => (await node.show(running))?.state === 'running', 5000, 'the job running');
    const err = await node.deleteJob(running).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(JobRunningError);
    expect((err as JobRunningError).code).to.equal('JOB_RUNNING');

    const dead = await node.enqueue('default', 'Fail', [], { retry: 0 });
    await waitFor(async () => (await node.show(dead))?.state === 'dead', 5000, 'the job dead');
    expect(await node.deleteJob(dead)).to.equal(true);
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(0);
    await expectIndexInStep(node);
  });

  it('moves jobs as usual when the index key is broken: the index only describes, it never blocks', async () => {
    await t.redis.set(t.keys.jobIndex('default'), 'not a hash');
    const node = await t.start();
    await node.enqueueAll([
      ...Array.from({ length: 3 }, (_, i) => ({ queue: 'default', class: 'Record', args: [t.url, t.out('ok'), i] })),
      { queue: 'default', class: 'Fail', args: [], options: { retry: 0 } },
    ]);
    await t.waitForRecords(t.out('ok'), 3);
    await waitFor(async () => (await t.redis.zcard(t.keys.dead('default'))) === 1, 5000, 'the failure filed');
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(0);
    expect(await t.redis.get(t.keys.jobIndex('default'))).to.equal('not a hash');
  });

  it('empties a set, forgetting its jobs and letting go of their unique locks', async () => {
    const node = await t.start();
    const unique = { unique: { for: 3600 } };
    await node.enqueueIn('default', 3600, 'Record', [t.url, t.out('u'), 1], unique);
    await node.enqueueIn('default', 3600, 'Record', [t.url, t.out('u'), 2]);
    const kept = await node.enqueue('default', 'Sleep', [60_000]);
    expect(await deleteAll(node.node.ctx, 'schedule')).to.equal(2);
    expect(await t.redis.zcard(t.keys.schedule('default'))).to.equal(0);
    expect(Object.keys(await t.redis.hgetall(t.keys.jobIndex('default')))).to.deep.equal([kept]);
    const again = await node.enqueueResult('default', 'Record', [t.url, t.out('u'), 1], unique);
    expect(again.conflict).to.equal(false);
  });
});
