// Feed a queue garbage: every payload ends somewhere (run, retry or dead), the node keeps running.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { useNodes, waitFor } from '../support/node';

function mutations(good: string, count: number, seed: number): string[] {
  let s = seed;
  const rand = (n: number) => ((s = (s * 1103515245 + 12345) % 2 ** 31), s % n);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const chars = good.split('');
    for (let k = 0; k < 1 + rand(4); k++) chars.splice(rand(chars.length), rand(3), String.fromCharCode(rand(128)));
    out.push(chars.join(''));
  }
  return out;
}

describe('fuzzing a queue with malformed payloads', () => {
  const t = useNodes();

  it('accounts for every payload as run, retried or dead, and runs the good ones around it', async function () {
    this.timeout(30_000);
    const out = t.out('fuzz');
    const good = (n: number) =>
      JSON.stringify({ class: 'Tally', args: [t.url, out], jid: `good-${n}`, queue: 'default' });
    const garbage = [
      // Mutations of a job whose class has no handler: readable ones fail as unknown and die (maxRetries 0).
      ...mutations(
        JSON.stringify({ class: 'Nope', args: [1, 'two', { three: [3] }], jid: 'mutant', queue: 'default' }),
        150,
        7,
      ),
      randomBytes(64).toString('latin1'),
      Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22]).toString('latin1'),
      JSON.stringify({ class: 42, args: [], jid: 'num-class', queue: 'default' }),
      JSON.stringify({ class: 'Tally', args: [t.url, out, 'x'.repeat(2_000_000)], jid: 'huge', queue: 'default' }),
      JSON.stringify({ class: 'Tally', args: { 0: 1 }, jid: 'obj-args', queue: 'default' }),
      'null',
      '42',
      '"string"',
      '{}',
      '',
    ];
    const payloads = [...garbage, ...Array.from({ length: 20 }, (_, i) => good(i + 1))].sort(() => Math.random() - 0.5);
    const node = await t.start({ queues: [{ name: 'default', concurrency: 5 }], maxRetries: 0 });
    for (let i = 0; i < payloads.length; i += 50)
      await t.redis.lpush(t.keys.queue('default'), ...payloads.slice(i, i + 50));
    const settled = async () => {
      const [runs, retry, dead, queued, backup] = await Promise.all([
        t.redis.llen(out),
        t.redis.zcard(t.keys.retry('default')),
        t.redis.zcard(t.keys.dead('default')),
        t.redis.llen(t.keys.queue('default')),
        t.redis.llen(t.keys.backup(node.node.ctx.config.nodeId, 'default')),
      ]);
      return queued === 0 && backup === 0 && runs + retry + dead === payloads.length && { runs, retry, dead };
    };
    const counts = await waitFor(settled, 25_000, 'every payload to be accounted for');
    const ran = new Set(await t.redis.lrange(out, 0, -1));
    for (let i = 1; i <= 20; i++) expect(ran.has(`good-${i}`), `good-${i} ran`).to.equal(true);
    expect(counts.dead).to.be.at.least(garbage.length - 60); // most mutations are unreadable
    for (const entry of await t.redis.zrange(t.keys.dead('default'), 0, -1)) {
      const parsed = JSON.parse(entry);
      expect(parsed.error_class, entry.slice(0, 200)).to.be.a('string');
      expect(parsed.error_message, entry.slice(0, 200)).to.be.a('string').that.is.not.empty;
    }
    expect(node.node.running).to.equal(true);
  });
});
