// The queues this node serves, each with what the last fetch from it said (the fetch policy's
// input) and, after Redis refused its keys, until when it is left alone. The manager's state for
// runtime subscribe and unsubscribe; the slots themselves are in the work table.
import type { ResolvedQueue } from '../../config/validate';
import type { Keys } from '../redis/keys';
import type { FetchQueue } from '../redis/scripts';
import type { QueueState } from './policy';

/** A served queue with what the last fetch from it said. */
export interface ServedQueue extends ResolvedQueue {
  state: QueueState;
  /** Epoch ms until which its keys are left alone after Redis refused them (e.g. WRONGTYPE). */
  brokenUntil: number;
}

export class ServedQueues {
  private queues: ServedQueue[];

  constructor(
    configured: ResolvedQueue[],
    private readonly keys: Keys,
    private readonly nodeId: string,
  ) {
    this.queues = configured.map(toServed);
  }

  /** The queues served, with their concurrency (what `subscriptions` answers). */
  list(): ResolvedQueue[] {
    return this.queues.map(({ state: _s, brokenUntil: _b, ...q }) => q);
  }

  names(): string[] {
    return this.queues.map((q) => q.name);
  }

  all(): readonly ServedQueue[] {
    return this.queues;
  }

  get(name: string): ServedQueue | undefined {
    return this.queues.find((q) => q.name === name);
  }

  /** Serves `spec` (again, with its new settings when it was served already). */
  add(spec: ResolvedQueue): void {
    this.queues = [...this.queues.filter((q) => q.name !== spec.name), toServed(spec)];
  }

  remove(name: string): void {
    this.queues = this.queues.filter((q) => q.name !== name);
  }

  /** What the last fetch or wait said of `name`. */
  record(name: string, state: QueueState): void {
    const q = this.get(name);
    if (q) q.state = state;
  }

  /** Redis refused the keys of `name`: leave it alone until `until`, then try it as new. */
  broken(name: string, until: number): void {
    const q = this.get(name);
    if (!q) return;
    q.brokenUntil = until;
    q.state = 'unknown';
  }

  /** What the fetch script needs of `name`, asking for up to `count` jobs. */
  fetchQueue(name: string, count: number): FetchQueue {
    const q = this.get(name);
    if (!q) throw new Error(`queue ${name} is not served by this node`);
    return {
      name,
      queueKey: this.keys.queue(name),
      backupKey: this.keys.backup(this.nodeId, name),
      runningKey: this.keys.running(name),
      count,
      globalLimit: q.globalConcurrency,
    };
  }
}

function toServed(q: ResolvedQueue): ServedQueue {
  return { ...q, state: 'unknown', brokenUntil: 0 };
}
