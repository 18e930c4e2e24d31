// Rate limits across nodes (queues[].rateLimit, classRateLimits) and a handler's pause
// (`this.rateLimited`), with real nodes on a real Redis, in both key layouts. Counts, not timings:
// a run's duration is measured around it and the count checked against what the limit allows.
import { expect } from 'chai';
import { fateOf } from '../../src/run/outcome';
import { monitorOf } from '../support/monitor';
import { sleep, useNodes, waitFor } from '../support/node';

describe('rate limits across all nodes', () => {
  const t = useNodes();
  /** Ms, by Redis' clock, until the pause in `rateKey` ends (its mark scores minus its end: _prelude.lua). */
  const pausedFor = async (rateKey: string) => {
    const [[, mark], [, [seconds, micros]]] = (await t.redis.multi().zscore(rateKey, 'pause').time().exec()) as [
      [null, string | null],
      [null, [string, string]],
    ];
    return -Number(mark ?? 0) - (Number(seconds) * 1000 + Number(micros) / 1000);
  };

  it('starts 50 jobs a second across 3 nodes: the count is within one window of 50 x seconds, spread over the nodes', async () => {
    const options = { concurrency: 10, queues: [{ name: 'default', rateLimit: { limit: 50, per: 1 } }] };
    const nodes = [await t.start(options), await t.start(options), await t.start(options)];
    const started = nodes.map(() => 0);
    // Warm up: every node's threads loaded and its handler's Redis client connected, then the
    // window left to refill (on a busy machine a cold start would eat into the measured seconds).
    const warm = 60;
    await nodes[0].enqueueAll(
      Array.from({ length: warm }, () => ({ queue: 'default', class: 'Tally', args: [t.url, t.out('warm')] })),
    );
    await waitFor(async () => (await t.redis.llen(t.out('warm'))) === warm, 10_000, 'the warm-up done');
    await nodes[0].pause('default', 'out');
    await sleep(1000);
    nodes.forEach((node, i) => node.events.on('job:start', () => started[i]++));
    const total = 1000;
    await nodes[0].enqueueAll(
      Array.from({ length: total }, () => ({ queue: 'default', class: 'Tally', args: [t.url, t.out('ran')] })),
    );
    const from = Date.now();
    await nodes[0].resume('default');
    const opened = Date.now();
    await sleep(4000);
    const closing = Date.now();
    await nodes[0].pause('default', 'out');
    const closed = Date.now();
    // Every job taken out of the queue runs; none is taken after the pause.
    const taken = total - (await t.redis.llen(t.keys.queue('default')));
    await waitFor(async () => (await t.redis.llen(t.out('ran'))) === taken, 10_000, 'the jobs taken done');
    const most = 50 + 50 * ((closed - from) / 1000);
    const least = 50 * ((closing - opened) / 1000) - 50;
    expect(taken, `taken in ${closed - from} ms (${closing - opened} ms open)`)
      .to.be.at.most(most)
      .and.at.least(least);
    expect(started.reduce((a, b) => a + b)).to.equal(taken);
    // Spread: every node started a share of them (a node left out would start none).
    for (const count of started) expect(count, `per node: ${started.join(', ')}`).to.be.greaterThan(taken / 10);
  });

  it('never starts more than 20 in any second across 3 nodes, by the starts the fetches counted: 300 jobs, all done', async function () {
    this.timeout(90_000);
    // Watching before the nodes start: MONITOR's start can break on a command racing in (monitor.ts).
    const monitor = await monitorOf(t.redis);
    const options = { concurrency: 10, queues: [{ name: 'default', rateLimit: { limit: 20, per: 1 } }] };
    const nodes = [await t.start(options), await t.start(options), await t.start(options)];
    const total = 300;
    // The starts as the fetches counted them, by Redis' clock: one `<start ms>:<n>` member each,
    // added to the queue's rate key by the fetch script. MONITOR shows every command a script runs,
    // so each ZADD is seen however long the test's own reads are held up (a member stays in the key
    // only for the window, 1 s: a read of the key could miss one on a loaded machine).
    const rateKey = t.keys.rate('default');
    const seen = new Set<string>();
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() !== 'zadd' || args[1] !== rateKey) return;
      for (let i = 3; i < args.length; i += 2) seen.add(args[i]);
    });
    await nodes[0].enqueueAll(
      Array.from({ length: total }, () => ({ queue: 'default', class: 'Tally', args: [t.url, t.out('ran')] })),
    );
    try {
      await waitFor(async () => (await t.redis.llen(t.out('ran'))) === total, 60_000, 'every job done');
      // The monitor's lines come on a connection of their own: the last may trail the read above.
      await waitFor(() => seen.size >= total, 5000, 'the monitor to show every start').catch(() => {});
    } finally {
      monitor.disconnect();
    }
    expect(seen.size, 'every start counted once').to.equal(total);
    // A window of 1 s holding 21 starts would have its 21st less than 1000 ms after its first.
    const starts = [...seen].map((member) => Number(member.split(':')[0])).sort((a, b) => a - b);
    const over = starts.filter((start, i) => i + 20 < starts.length && starts[i + 20] - start < 1000);
    expect(over, 'windows of 1 s over 20 starts').to.deep.equal([]);
    // Every job ran once, spread over the nodes' fetches.
    expect(new Set(await t.redis.lrange(t.out('ran'), 0, -1)).size).to.equal(total);
  });

  it('holds back only the limited class: its waiting jobs keep their place while the others run', async () => {
    const node = await t.start({ concurrency: 5, classRateLimits: { Tally: { limit: 2, per: 600 } } });
    await node.pause('default', 'out');
    const limited = await node.enqueueAll(
      Array.from({ length: 5 }, () => ({ queue: 'default', class: 'Tally', args: [t.url, t.out('limited')] })),
    );
    await node.enqueueAll(
      Array.from({ length: 10 }, (_, i) => ({ queue: 'default', class: 'Record', args: [t.url, t.out('others'), i] })),
    );
    await node.resume('default');
    await t.waitForRecords(t.out('others'), 10, 10_000);
    await waitFor(async () => (await t.redis.llen(t.out('limited'))) === 2, 5000, 'the two the limit allows');
    // The other three wait at the head of the queue, oldest next, and the queue holds nothing else.
    const waiting = (await t.redis.lrange(t.keys.queue('default'), 0, -1)).map((raw) => JSON.parse(raw).jid);
    expect(waiting).to.deep.equal(limited.slice(2).reverse());
    expect(await t.redis.lrange(t.out('limited'), 0, -1)).to.deep.equal(limited.slice(0, 2));
  });

  it('puts a rateLimited job back at the head of its queue, its retry count unchanged, and pauses its queue on every node', async () => {
    const [a] = [await t.start({ concurrency: 5 }), await t.start({ concurrency: 5 })];
    const key = t.out('throttled');
    const jid = await a.enqueue('default', 'Throttled', [t.url, key, 3]);
    const rateKey = t.keys.rate('default');
    await waitFor(async () => (await t.redis.pttl(rateKey)) > 0, 5000, 'the queue paused');
    await a.enqueueAll(
      Array.from({ length: 3 }, () => ({ queue: 'default', class: 'Tally', args: [t.url, t.out('behind')] })),
    );
    // While the pause holds, neither node takes a job of the queue; the throttled one is next in line.
    await waitFor(async () => (await t.redis.llen(t.keys.queue('default'))) === 4, 5000, 'the job back in its queue');
    const queued = (await t.redis.lrange(t.keys.queue('default'), 0, -1)).map((raw) => JSON.parse(raw));
    const ranMeanwhile = await t.redis.llen(t.out('behind'));
    expect(await pausedFor(rateKey), 'still paused after the reads').to.be.greaterThan(0);
    expect(ranMeanwhile).to.equal(0);
    expect(queued[queued.length - 1].jid).to.equal(jid);
    expect(queued[queued.length - 1]).to.not.have.property('retry_count');
    expect(queued[queued.length - 1]).to.not.have.property('error_message');
    const [record] = await t.waitForRecords(key, 1, 10_000);
    expect(record).to.deep.equal({ jid, retryCount: 0 });
    await waitFor(async () => (await t.redis.llen(t.out('behind'))) === 3, 5000, 'the jobs behind it done');
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
    expect(await t.redis.get(t.keys.stat('failed'))).to.equal(null);
  });

  it('pauses only the class when it has a rate limit: the other classes of its queue run on', async () => {
    const node = await t.start({ concurrency: 5, classRateLimits: { Throttled: { limit: 100, per: 1 } } });
    const key = t.out('throttled');
    await node.enqueue('default', 'Throttled', [t.url, key, 3]);
    const rateKey = t.keys.classRate('Throttled', 'default');
    await waitFor(async () => (await pausedFor(rateKey)) > 2000, 5000, 'the class paused');
    await node.enqueueAll(
      Array.from({ length: 3 }, (_, i) => ({ queue: 'default', class: 'Record', args: [t.url, t.out('others'), i] })),
    );
    await t.waitForRecords(t.out('others'), 3, 5000);
    const ranMeanwhile = await t.redis.llen(key);
    expect(await pausedFor(rateKey), 'the others ran while the class was paused').to.be.greaterThan(0);
    expect(ranMeanwhile).to.equal(0);
    await t.waitForRecords(key, 1, 10_000);
  });

  it('sends a rateLimited job back next in line, unchanged; at most once, it is done', () => {
    const raw = JSON.stringify({ jid: 'j1', class: 'X', args: [], queue: 'default', retry_count: 2 });
    const fetched = { raw, job: JSON.parse(raw), queue: 'default' };
    const policy = { dialect: 'exq', maxRetries: 25, timestamps: 'seconds', backtrace: 20 } as const;
    const outcome = { kind: 'rateLimited', seconds: 3, durationMs: 1 } as const;
    expect(fateOf(outcome, fetched, policy, 0)).to.deep.equal({ to: 'queue', end: 'front', json: raw });
    const once = { ...fetched, job: { ...fetched.job, at_most_once: true } };
    expect(fateOf(outcome, once, policy, 0)).to.deep.equal({ to: 'done' });
  });

  it('rejects a bad rate limit with a ConfigError naming the field', async () => {
    const err = await t.start({ classRateLimits: { Mailer: { limit: 0, per: 1 } } }).catch((e: unknown) => e);
    expect((err as Error).message).to.contain('classRateLimits.Mailer.limit');
    const bad = await t.start({ queues: [{ name: 'q', rateLimit: { limit: 1, per: -1 } }] }).catch((e: unknown) => e);
    expect((bad as Error).message).to.contain('queues[0].rateLimit.per');
  });
});
