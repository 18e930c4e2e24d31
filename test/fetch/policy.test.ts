// The fetch policy on its own: which queues a node fetches now, checks, or polls later, for
// every mix of queue states — and, over random states, that no queue is ever left idle because of
// another queue's state.
import { expect } from 'chai';
import { decideFetch, decisionViews, NodeView, QueueState, QueueStatus, QueueView } from '../../src/fetch/policy';

const NOW = 1_000_000;
const STATES: QueueState[] = ['unknown', 'more', 'short', 'empty', 'limited', 'paused'];
/** A small deterministic generator, so a failure can be replayed from its seed. */
function generator(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
const node = (over: Partial<NodeView> = {}): NodeView => ({
  now: NOW,
  quiet: false,
  pollDue: false,
  pollTimeout: 1000,
  idleCheckAt: NOW + 700,
  ...over,
});
const queue = (name: string, over: Partial<QueueView> = {}): QueueView => ({
  name,
  free: 5,
  state: 'more',
  brokenUntil: 0,
  waiting: false,
  ...over,
});

describe('fetch policy', () => {
  it('fetches a busy queue whatever state its neighbours are in', () => {
    const others: QueueView[] = [
      queue('empty', { state: 'empty' }),
      queue('waited', { state: 'empty', waiting: true }),
      queue('limited', { state: 'limited' }),
      queue('paused', { state: 'paused' }),
      queue('broken', { brokenUntil: NOW + 5000 }),
      queue('full', { free: 0 }),
    ];
    for (let i = 0; i <= others.length; i++) {
      const queues = [...others.slice(0, i), queue('busy'), ...others.slice(i)];
      expect(decideFetch(queues, node()).fetch, `busy at position ${i}`).to.include('busy');
    }
  });

  it('checks every empty queue with a free slot when the idle check is due, not only the first', () => {
    const decision = decideFetch(
      [queue('a', { state: 'empty' }), queue('b', { state: 'empty' }), queue('c', { state: 'empty' })],
      node({ idleCheckAt: NOW }),
    );
    expect(decision.check).to.deep.equal(['a', 'b', 'c']);
    expect(decision.fetch).to.deep.equal([]);
    expect(decision.pollIn).to.equal(undefined);
  });

  it('leaves an empty queue to its wake signal until the idle check is due, and decides again then', () => {
    const decision = decideFetch([queue('a', { state: 'empty' })], node({ pollDue: true }));
    expect(decision).to.deep.equal({ fetch: [], check: [], pollIn: 700 });
  });

  it('fetches a queue not fetched yet, and one a wake signal or the idle check named', () => {
    expect(decideFetch([queue('a', { state: 'unknown' })], node()).fetch).to.deep.equal(['a']);
  });

  it('leaves out a queue with no free slot or with a fetch call out, and polls for neither', () => {
    const decision = decideFetch([queue('a', { free: 0 }), queue('b', { state: 'empty', waiting: true })], node());
    expect(decision).to.deep.equal({ fetch: [], check: [] });
  });

  it('polls limited and paused queues every pollTimeout, and fetches them when the poll is due', () => {
    const queues = [queue('l', { state: 'limited' }), queue('p', { state: 'paused' })];
    expect(decideFetch(queues, node())).to.deep.equal({ fetch: [], check: [], pollIn: 1000 });
    expect(decideFetch(queues, node({ pollDue: true })).fetch).to.deep.equal(['l', 'p']);
  });

  it('polls a queue held back by rate limits alone when they let a job start, not sooner nor later', () => {
    const held = [queue('r', { state: 'limited', opensAt: NOW + 5000 })];
    // Beyond pollTimeout (a long pause), and not even when the regular poll is due.
    expect(decideFetch(held, node())).to.deep.equal({ fetch: [], check: [], pollIn: 5000 });
    expect(decideFetch(held, node({ pollDue: true }))).to.deep.equal({ fetch: [], check: [], pollIn: 5000 });
    // Within pollTimeout: at the window's opening, before another limited queue's poll.
    const soon = [queue('l', { state: 'limited' }), queue('r', { state: 'limited', opensAt: NOW + 20 })];
    expect(decideFetch(soon, node()).pollIn).to.equal(20);
    // Once open it is fetched when the poll is due (the timer for its opening makes it due).
    const open = [queue('r', { state: 'limited', opensAt: NOW })];
    expect(decideFetch(open, node({ pollDue: true })).fetch).to.deep.equal(['r']);
  });

  it('leaves a broken queue out until it may be tried again, and polls then', () => {
    const decision = decideFetch([queue('x', { brokenUntil: NOW + 300 })], node());
    expect(decision).to.deep.equal({ fetch: [], check: [], pollIn: 300 });
    expect(decideFetch([queue('x', { brokenUntil: NOW - 1 })], node()).fetch).to.deep.equal(['x']);
  });

  it('does nothing on a quiet node', () => {
    expect(decideFetch([queue('a'), queue('b', { state: 'empty' })], node({ quiet: true }))).to.deep.equal({
      fetch: [],
      check: [],
    });
  });

  it('at the node-wide cap fetches and checks nothing; below it, takes the queues in the given order', () => {
    const queues = [queue('a'), queue('b'), queue('c', { state: 'empty' })];
    expect(decideFetch(queues, node({ capLeft: 0, idleCheckAt: NOW }))).to.deep.equal({ fetch: [], check: [] });
    const reversed = decideFetch(queues, node({ capLeft: 3, idleCheckAt: NOW }), (qs) => [...qs].reverse());
    expect(reversed.fetch).to.deep.equal(['b', 'a']);
    expect(reversed.check).to.deep.equal(['c']);
  });

  describe('over random queue states', () => {
    it('never leaves a queue that may hold work and has a free slot idle: it is fetched, checked, or polled for', () => {
      for (let seed = 1; seed <= 2000; seed++) {
        const random = generator(seed);
        const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)];
        const queues = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, i) =>
          queue(`q${i}`, {
            free: pick([0, 0, 1, 5]),
            state: pick(STATES),
            brokenUntil: pick([0, 0, 0, NOW - 10, NOW + 500]),
            waiting: random() < 0.2,
            opensAt: pick([0, 0, NOW - 5, NOW + 300, NOW + 5000]),
          }),
        );
        const view = node({
          quiet: random() < 0.1,
          capLeft: pick([undefined, undefined, 0, 2]),
          pollDue: random() < 0.3,
          idleCheckAt: pick([NOW, NOW - 50, NOW + 100]),
        });
        const decision = decideFetch(queues, view);
        const where = `seed ${seed}: ${JSON.stringify({ queues, view, decision })}`;
        for (const q of queues) {
          const fetched = decision.fetch.includes(q.name);
          const waited = decision.check.includes(q.name);
          // Never both, never a queue without a free slot, one being fetched, a broken one, or on a quiet
          // or capped node.
          expect(fetched && waited, where).to.equal(false);
          if (fetched || waited) {
            expect(
              q.free > 0 &&
                !q.waiting &&
                q.brokenUntil <= NOW &&
                !view.quiet &&
                !(view.capLeft !== undefined && view.capLeft <= 0),
              where,
            ).to.equal(true);
          }
          const eligible =
            q.free > 0 &&
            !q.waiting &&
            q.brokenUntil <= NOW &&
            !view.quiet &&
            !(view.capLeft !== undefined && view.capLeft <= 0);
          if (!eligible) continue;
          if (q.state === 'unknown' || q.state === 'more' || q.state === 'short') expect(fetched, where).to.equal(true);
          else if (q.state === 'empty') {
            // Checked when the idle check is due, and the node decides again when it is.
            if (view.idleCheckAt <= NOW) expect(waited, where).to.equal(true);
            else
              expect(decision.pollIn, where)
                .to.be.a('number')
                .and.at.most(view.idleCheckAt - NOW);
          } else if (q.state === 'limited' && q.opensAt! > NOW) {
            // Held by rate limits alone: not fetched before they open, and polled when they do.
            expect(fetched, where).to.equal(false);
            expect(decision.pollIn, where)
              .to.be.a('number')
              .and.at.most(q.opensAt! - NOW);
          } else if (view.pollDue) expect(fetched, where).to.equal(true);
          else expect(decision.pollIn, where).to.be.a('number').and.at.most(view.pollTimeout);
        }
        // A broken queue is looked at again once it may be.
        for (const q of queues)
          if (q.brokenUntil > NOW && !view.quiet) expect(decision.pollIn, where).to.be.at.most(q.brokenUntil - NOW);
      }
    });
  });
});

describe('decision views', () => {
  it('over random states, the policy fetches and checks the same queues, and polls no later', () => {
    const next = generator(42);
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
    const idle = { name: 'idle', state: 'empty', brokenUntil: 0, opensAt: 0 } as QueueStatus;
    const busy = { name: 'busy', state: 'more', brokenUntil: 0, opensAt: 0 } as QueueStatus;
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
