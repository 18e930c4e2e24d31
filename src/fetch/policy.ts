// The fetch policy: given what the manager knows of each queue it serves, which queues to fetch
// from now and which to wait on, and which queues a decision needs to look at. Pure functions; the
// manager only does the I/O they decide.
//
// What a queue can be, as the last fetch from it said (fetch.lua's per-queue state):
//  - unknown: not fetched yet, or woken (a wake signal named it, or the idle poll found it holds
//             jobs): fetch it.
//  - more:    the fetch took every job it asked for; more may wait: fetch it whenever it has a free slot.
//  - short:   as more, but fewer than a backlog's worth wait: no jobs are fetched ahead of free slots.
//  - empty:   the fetch emptied it: idle. nexq's own pushes wake it at once (src/fetch/wake-signals.ts:
//             it becomes unknown), and so does any write to its key once it is armed: an idle queue
//             not armed yet is checked now, and the check arms it (src/fetch/push-tracking.ts).
//             Every `idlePollInterval` (ten times that while tracking is on) the node checks whether
//             its idle queues hold jobs all the same (one EXISTS, src/fetch/idle-poll.ts), for
//             signals lost, and for foreign producers where Redis does not track keys.
//  - limited: jobs wait but a limit across nodes (globalConcurrency, classConcurrency) holds them
//             back; a wait would return at once, so it is polled every pollTimeout. When its own
//             rate limit or pause (rateLimit, a handler's `rateLimited`) lets no job start, it is
//             polled when it lets one (`opensAt`), neither sooner nor later.
//  - paused:  paused for output; polled every pollTimeout (to see it resumed).
// A queue whose keys failed is left out until `brokenUntil`; one with a fetch call out is left out
// until the call answers (its free slots are spoken for by that fetch).
//
// The invariant (test/fetch/policy.test.ts checks it over random states): a queue with a free
// slot, not broken, on a node that is not quiet nor at its node-wide cap, is either fetched now,
// checked now, being fetched, or polled later: within pollTimeout when limited or paused (held by
// its own rate limit or pause: when it lets a job start), at the next idle check when empty. No
// queue's state ever holds back another's.

import type { QueueState } from '../redis/fetch-script';

export type { QueueState };

export interface QueueView {
  name: string;
  /** Free slots on this node. */
  free: number;
  state: QueueState;
  /** Limited by its own rate limit or pause: epoch ms when a job may start (0 or absent: not so held). */
  opensAt?: number;
  /** Epoch ms until which its keys are left alone after an error (0: not broken). */
  brokenUntil: number;
  /** A fetch call is out on it (its answer is late). */
  waiting: boolean;
  /** Key tracking is on and its key is not tracked: when idle, check it now (the check arms it). */
  unarmed?: boolean;
  /** Its weight, for the order under a node-wide cap (gocraft's priority sampler). */
  weight?: number;
}

export interface NodeView {
  now: number;
  /** Quiet (Sidekiq's TSTP): fetch nothing. */
  quiet: boolean;
  /** Slots left under `totalConcurrency`; undefined without a node-wide cap. */
  capLeft?: number;
  /** The regular poll is due: queues only polling finds work in are fetched too. */
  pollDue: boolean;
  pollTimeout: number;
  /** Epoch ms of the next check of the idle (empty) queues: due when not after `now`. */
  idleCheckAt: number;
}

export interface FetchDecision {
  /** Queues to fetch now, in the order the fetch takes them under a cap. */
  fetch: string[];
  /** Idle queues to check now for jobs no signal announced. */
  check: string[];
  /** Some queue is only found by polling: poll again in this many ms. */
  pollIn?: number;
}

export function decideFetch<Q extends QueueView>(
  queues: readonly Q[],
  node: NodeView,
  order: (queues: Q[]) => Q[] = (q) => q,
): FetchDecision {
  const decision: FetchDecision = { fetch: [], check: [] };
  if (node.quiet) return decision;
  const later = (ms: number) => (decision.pollIn = Math.min(decision.pollIn ?? Infinity, Math.max(0, ms)));
  const capFull = node.capLeft !== undefined && node.capLeft <= 0;
  const toFetch: Q[] = [];
  for (const q of queues) {
    if (q.brokenUntil > node.now) {
      later(q.brokenUntil - node.now);
      continue;
    }
    // At the node's cap or its own concurrency: a freed slot wakes the manager (slot_freed).
    if (q.waiting || q.free <= 0 || capFull) continue;
    const opensAt = q.state === 'limited' ? (q.opensAt ?? 0) : 0;
    if (q.state === 'unknown' || q.state === 'more' || q.state === 'short') toFetch.push(q);
    else if (opensAt > node.now) later(opensAt - node.now);
    else if (q.state === 'empty') {
      if (node.idleCheckAt <= node.now || q.unarmed) decision.check.push(q.name);
      else later(node.idleCheckAt - node.now);
    } else if (node.pollDue) toFetch.push(q);
    else later(node.pollTimeout);
  }
  decision.fetch = (node.capLeft === undefined ? toFetch : order(toFetch)).map((q) => q.name);
  return decision;
}

// What one decision looks at: a view of each served queue that may need a fetch or a check now.
// A node serving hundreds of queues with one busy made a view of every queue at every decision (a
// copy of each one's settings, its free slots read from the work table): a fifth of the main
// thread's time in bench W7. An idle queue whose key is tracked, with the idle check not due, can
// need nothing before that check (a push wakes it first, and the wake asks for a decision), so it
// is left out and the check's time is said instead (decideFetch would say that much of it, or nothing).

/** A served queue as a decision reads it (src/fetch/served-queues.ts). */
export interface QueueStatus {
  name: string;
  weight?: number;
  state: QueueState;
  opensAt: number;
  brokenUntil: number;
}

/** What the views read besides the queues themselves. */
export interface ViewSources {
  /** Free slots of `queue` on this node, with its room ahead of them (prefetch). */
  free(queue: string): number;
  /** A fetch call is out on `queue` (its answer is late). */
  waiting(queue: string): boolean;
  /** Key tracking is on and `queue`'s key is not tracked. */
  unarmed(queue: string): boolean;
  /** Epoch ms of the next idle check. */
  idleCheckAt: number;
}

export interface DecisionViews {
  views: QueueView[];
  /** Some idle queue was left out: decide again at the idle check, at the latest. */
  idleLeftOut: boolean;
}

export function decisionViews(queues: readonly QueueStatus[], now: number, sources: ViewSources): DecisionViews {
  const checkDue = sources.idleCheckAt <= now;
  const views: DecisionViews['views'] = [];
  let idleLeftOut = false;
  for (const q of queues) {
    const idle = q.state === 'empty' && q.brokenUntil <= now;
    const unarmed = idle && sources.unarmed(q.name);
    if (idle && !checkDue && !unarmed) {
      idleLeftOut = true;
      continue;
    }
    views.push({
      name: q.name,
      weight: q.weight,
      state: q.state,
      opensAt: q.opensAt,
      brokenUntil: q.brokenUntil,
      free: sources.free(q.name),
      waiting: sources.waiting(q.name),
      unarmed,
    });
  }
  return { views, idleLeftOut };
}
