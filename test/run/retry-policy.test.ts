// A handler's own retry policy (its `retry` export) and `exhausted` hook, with real handlers on
// threads (test/fixtures/jobs/RetryFixed.js, RetryFunction.js), in both dialects' counting.
import { expect } from 'chai';
import { nowSeconds } from '../../src/job/time';
import { captureLogs } from '../support/capture-logs';
import { onlyEntry } from '../support/sets';
import { NodeTest, sleep, useNodes, waitFor } from '../support/node';

/** Pushes a raw payload into the default queue, as another producer would (a later failure). */
async function pushRaw(t: NodeTest, job: Record<string, unknown>): Promise<void> {
  await t.redis.sadd(t.keys.queues, 'default');
  await t.redis.lpush(t.keys.queue('default'), JSON.stringify({ queue: 'default', retry: true, ...job }));
}

async function backupEmpty(t: NodeTest, nodeId: string): Promise<void> {
  await waitFor(async () => (await t.redis.llen(t.keys.backup(nodeId, 'default'))) === 0, 5000, 'an empty backup');
}

describe("a handler's retry policy", () => {
  const t = useNodes();

  it('retries by its named backoff: a fixed 100 s', async () => {
    const node = await t.start();
    const key = t.out('fixed');
    const before = nowSeconds();
    const jid = await node.enqueue('default', 'RetryFixed', [t.url, key]);
    const { job, score } = await onlyEntry(t, t.keys.retry('default'));
    expect(job).to.include({ jid, retry_count: 1, error_class: 'RangeError' });
    // The node's clock is Redis' time carried by its monotonic clock (docs/time.md): within a few
    // ms of this process's wall clock, either way (it read 29 µs past it once).
    expect(score).to.be.within(before + 100 - 0.05, nowSeconds() + 100 + 0.05);
  });

  it('goes to dead after its own max, runs exhausted once with the args and the error, then never again', async () => {
    await t.start({ nodeId: 'n1' });
    const key = t.out('max');
    // Exq counts the first failure as 1: retry_count 2 is two failures, the third is past max 2.
    await pushRaw(t, { class: 'RetryFixed', args: [t.url, key], jid: 'out-of-retries', retry_count: 2 });
    const { job } = await onlyEntry(t, t.keys.dead('default'));
    expect(job).to.include({ jid: 'out-of-retries', retry_count: 3 });
    const [record] = await t.waitForRecords(`${key}:exhausted`);
    expect(record).to.deep.equal({
      jid: 'out-of-retries',
      args: [t.url, key],
      name: 'RangeError',
      message: `failed for ${key}`,
      isError: true,
    });
    await backupEmpty(t, 'n1');
    await sleep(200);
    expect(await t.redis.llen(`${key}:exhausted`)).to.equal(1);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it("lets the job's own numeric retry win over the handler's max", async () => {
    await t.start();
    const key = t.out('own');
    await pushRaw(t, { class: 'RetryFixed', args: [t.url, key], jid: 'own-retry', retry: 5, retry_count: 2 });
    const { job } = await onlyEntry(t, t.keys.retry('default'));
    expect(job).to.include({ jid: 'own-retry', retry_count: 3 });
    expect(await t.redis.llen(`${key}:exhausted`)).to.equal(0);
  });

  it("asks its backoff function on the job's thread with Sidekiq's count and the thrown error", async () => {
    await t.start();
    const key = t.out('fn');
    // The score is by the node's clock (Redis' time, docs/time.md), this window by this machine's:
    // taken before the push, with the 50 ms the two clocks may differ by under load.
    const before = nowSeconds() - 0.05;
    await pushRaw(t, { class: 'RetryFunction', args: [t.url, key, 'later'], jid: 'fn', retry_count: 1 });
    const { job, score } = await onlyEntry(t, t.keys.retry('default'));
    // retry_count 1 in Exq's dialect is one failure before this one: Sidekiq's count 1.
    expect(job).to.include({ retry_count: 2, error_class: 'PolicyError' });
    expect(score).to.be.within(before + 1001, nowSeconds() + 0.05 + 1001);
    expect(await t.records(`${key}:calls`)).to.deep.equal([{ retryCount: 1, message: 'later' }]);
  });

  it("'kill' sends the job to dead with retries left and runs exhausted; its failure is logged, not retried", async () => {
    const logs = captureLogs();
    await t.start({ nodeId: 'n1', logger: logs.logger });
    const key = t.out('kill');
    await pushRaw(t, { class: 'RetryFunction', args: [t.url, key, 'kill'], jid: 'killed' });
    const { job } = await onlyEntry(t, t.keys.dead('default'));
    expect(job).to.include({ jid: 'killed', retry_count: 1 });
    expect(await t.waitForRecords(`${key}:exhausted`)).to.deep.equal([{ jid: 'killed' }]);
    await waitFor(() => logs.text().includes('exhausted hook failed: Error: the hook failed too; not retried'));
    await backupEmpty(t, 'n1');
    expect(await t.redis.llen(`${key}:exhausted`)).to.equal(1);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it("'discard' drops the job: neither retry nor dead, and no exhausted", async () => {
    await t.start({ nodeId: 'n1' });
    const key = t.out('discard');
    await pushRaw(t, { class: 'RetryFunction', args: [t.url, key, 'discard'], jid: 'dropped' });
    await t.waitForRecords(`${key}:calls`);
    await backupEmpty(t, 'n1');
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(0);
    expect(await t.redis.llen(`${key}:exhausted`)).to.equal(0);
  });

  it('falls back to the default backoff, saying why, when the function throws or answers nonsense', async () => {
    const logs = captureLogs();
    await t.start({ logger: logs.logger });
    const key = t.out('broken');
    await pushRaw(t, { class: 'RetryFunction', args: [t.url, key, 'throw'], jid: 'threw' });
    await pushRaw(t, { class: 'RetryFunction', args: [t.url, key, 'nonsense'], jid: 'nonsense' });
    await waitFor(async () => (await t.redis.zcard(t.keys.retry('default'))) === 2, 5000, 'two retries');
    const before = nowSeconds();
    // Exq's default backoff for the first failure (count 1): 16 to 16 + 30 * 2 seconds.
    for (const score of (await t.redis.zrange(t.keys.retry('default'), 0, -1, 'WITHSCORES')).filter((_, i) => i % 2))
      expect(Number(score)).to.be.within(before - 5 + 16, nowSeconds() + 16 + 60);
    expect(logs.text()).to.contain('the retry backoff threw Error: backoff broke; the default backoff applies');
    expect(logs.text()).to.contain("the retry backoff returned 'soon', not seconds >= 0, 'kill' or 'discard'");
  });
});

describe("a handler's retry policy (sidekiq dialect)", () => {
  const t = useNodes();

  it("counts the first failure as 0, as Sidekiq's sidekiq_retry_in does, and keeps retry: false a discard", async () => {
    await t.start({ dialect: 'sidekiq', nodeId: 'n1' });
    const key = t.out('sk');
    await pushRaw(t, { class: 'RetryFunction', args: [t.url, key, 'later'], jid: 'first' });
    const { job } = await onlyEntry(t, t.keys.retry('default'));
    expect(job).to.include({ retry_count: 0 });
    await pushRaw(t, { class: 'RetryFunction', args: [t.url, key, 'later'], jid: 'never', retry: false });
    await backupEmpty(t, 'n1');
    await waitFor(async () => (await t.redis.llen(t.keys.queue('default'))) === 0);
    await backupEmpty(t, 'n1');
    expect(await t.records(`${key}:calls`)).to.deep.equal([{ retryCount: 0, message: 'later' }]);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(1);
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(0);
  });
});
