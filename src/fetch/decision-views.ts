// What one decision of the fetch policy looks at: a view of each served queue that may need a
// fetch or a check now. A node serving hundreds of queues with one busy made a view of every
// queue at every decision (a copy of each one's settings, its free slots read from the work
// table): a fifth of the main thread's time in bench W7. An idle queue whose key is tracked, with
// the idle check not due, can need nothing before that check (a push wakes it first, and the wake
// asks for a decision), so it is left out and the check's time is said instead: the policy would
// have said no more of it.
import type { QueueView } from './policy';
import type { ServedQueue } from './served-queues';

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
  views: Array<QueueView & { weight?: number }>;
  /** Some idle queue was left out: decide again at the idle check, at the latest. */
  idleLeftOut: boolean;
}

export function decisionViews(queues: readonly ServedQueue[], now: number, sources: ViewSources): DecisionViews {
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
