// The views a decision looks at (src/fetch/decision-views.ts): leaving out the idle queues whose
// key is tracked changes nothing the policy decides, over random states, and the idle check
// still comes on time.
import { expect } from 'chai';
import { decisionViews } from '../../src/fetch/decision-views';
import { decideFetch, NodeView, QueueState } from '../../src/fetch/policy';
import type { ServedQueue } from '../../src/fetch/served-queues';

const NOW = 1_000_000;
const STATES: QueueState[] = ['unknown', 'more', 'short', 'empty', 'limited', 'paused'];

/** A small deterministic generator, so a failure can be run again. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe('decision views', () => {
  it('over random states, the policy fetches and checks the same queues, and polls no later', () => {
    const next = random(42);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
    for (let round = 0; round < 2000; round++) {
      const queues = Array.from({ length: 1 + Math.floor(next() * 12) }, (_, i) => ({
        name: `q${i}`,
        concurrency: 5,
        state: pick(STATES),
        opensAt: pick([0, NOW - 10, NOW + 300]),
        brokenUntil: pick([0, 0, 0, NOW - 5, NOW + 900]),
        prefetch: 0,
        fetchSent: 0,
        free: pick([0, 1, 5]),
        waiting: next() < 0.15,
        unarmed: next() < 0.4,
      }));
      const node: NodeView = {
        now: NOW,
        quiet: next() < 0.1,
        capLeft: pick([undefined, undefined, 0, 3]),
        pollDue: next() < 0.3,
        pollTimeout: 1000,
        idleCheckAt: pick([NOW - 1, NOW, NOW + 700]),
      };
      const byName = new Map(queues.map((q) => [q.name, q]));
      const sources = {
        free: (name: string) => byName.get(name)!.free,
        waiting: (name: string) => byName.get(name)!.waiting,
        unarmed: (name: string) => byName.get(name)!.unarmed,
        idleCheckAt: node.idleCheckAt,
      };
      // Every queue, as each decision saw them before.
      const all = queues.map((q) => ({ ...q, unarmed: q.state === 'empty' && q.unarmed }));
      const full = decideFetch(all, node);
      const { views, idleLeftOut } = decisionViews(queues, NOW, sources);
      const some = decideFetch(views, node);
      const state = JSON.stringify({ queues, node });
      expect(some.fetch, state).to.deep.equal(full.fetch);
      expect(some.check, state).to.deep.equal(full.check);
      const pollIn = Math.min(some.pollIn ?? Infinity, idleLeftOut && !node.quiet ? node.idleCheckAt - NOW : Infinity);
      expect(pollIn, state).to.be.at.most(full.pollIn ?? Infinity);
    }
  });

  it('leaves out an idle queue whose key is tracked, until the idle check is due', () => {
    const idle = { name: 'idle', state: 'empty', brokenUntil: 0, opensAt: 0 } as ServedQueue;
    const busy = { name: 'busy', state: 'more', brokenUntil: 0, opensAt: 0 } as ServedQueue;
    const sources = (idleCheckAt: number, unarmed: boolean) => ({
      free: () => 5,
      waiting: () => false,
      unarmed: () => unarmed,
      idleCheckAt,
    });
    const names = (at: number, unarmed: boolean) => {
      const { views, idleLeftOut } = decisionViews([idle, busy], NOW, sources(at, unarmed));
      return { names: views.map((v) => v.name), idleLeftOut };
    };
    expect(names(NOW + 700, false)).to.deep.equal({ names: ['busy'], idleLeftOut: true });
    expect(names(NOW + 700, true)).to.deep.equal({ names: ['idle', 'busy'], idleLeftOut: false });
    expect(names(NOW, false)).to.deep.equal({ names: ['idle', 'busy'], idleLeftOut: false });
  });
});
