// The queues this node serves, each with what the last fetch from it said (the fetch policy's
// input), after Redis refused its keys until when it is left alone, and the jobs fetched ahead of
// a free slot (`prefetch`: they wait in the backup list, this is the order they start in). The
// manager's state for runtime subscribe and unsubscribe; the slots themselves are in the work table.
import type { ResolvedQueue } from '../../config/validate';
import type { Keys } from '../redis/keys';
import { gcra } from '../redis/limits';
import type { FetchQueue } from '../redis/scripts';
import type { QueueState } from './policy';

/** A served queue with what the last fetch from it said. */
export interface ServedQueue extends ResolvedQueue {
  state: QueueState;
  /** Its own rate limit or pause lets no job start: epoch ms when it lets one (0: not so held). */
  opensAt: number;
  /** Epoch ms until which its keys are left alone after Redis refused them (e.g. WRONGTYPE). */
  brokenUntil: number;
  /** How many jobs may be fetched ahead of a free slot (0: none, e.g. under a limit across nodes). */
  prefetch: number;
  /** Jobs fetched ahead, oldest first: in the backup list, not started, not shown as busy. */
  reserved: string[];
}

export class ServedQueues {
  private queues: ServedQueue[] = [];
  /** The same queues by name: a decision looks each one up, and a node may serve hundreds. */
  private byName = new Map<string, ServedQueue>();

  /** `prefetchOf` says how many jobs a queue may hold fetched ahead of its free slots. */
  constructor(
    configured: ResolvedQueue[],
    private readonly keys: Keys,
    private readonly nodeId: string,
    private readonly prefetchOf: (q: ResolvedQueue) => number,
    /** Told each queue's count of jobs fetched ahead whenever it changes (the work table shows it). */
    private readonly reservedChanged: (queue: string, count: number) => void = () => undefined,
  ) {
    this.serve(configured.map((q) => this.toServed(q)));
  }

  private serve(queues: ServedQueue[]): void {
    this.queues = queues;
    this.byName = new Map(queues.map((q) => [q.name, q]));
  }

  /** The queues served, with their concurrency (what `subscriptions` answers). */
  list(): ResolvedQueue[] {
    return this.queues.map(({ state: _s, opensAt: _o, brokenUntil: _b, prefetch: _p, reserved: _r, ...q }) => q);
  }

  names(): string[] {
    return this.queues.map((q) => q.name);
  }

  all(): readonly ServedQueue[] {
    return this.queues;
  }

  get(name: string): ServedQueue | undefined {
    return this.byName.get(name);
  }

  /** Serves `spec` (again, with its new settings and the jobs it holds fetched ahead, when it was served already). */
  add(spec: ResolvedQueue): void {
    const reserved = this.get(spec.name)?.reserved ?? [];
    this.serve([...this.queues.filter((q) => q.name !== spec.name), { ...this.toServed(spec), reserved }]);
  }

  /** Stops serving `name`; returns how many jobs it held fetched ahead (they must go back to the queue). */
  remove(name: string): number {
    const reserved = this.get(name)?.reserved.length ?? 0;
    if (reserved > 0) this.reservedChanged(name, 0);
    this.serve(this.queues.filter((q) => q.name !== name));
    return reserved;
  }

  /**
   * How many more jobs `name` may take ahead of its free slots now: none unless its last fetch left
   * jobs behind and half its reserve is used.
   */
  reserveRoom(name: string): number {
    const q = this.get(name);
    if (!q || q.prefetch === 0 || q.state !== 'more') return 0;
    // Refilled once half is used, so one fetch brings several jobs rather than one per freed slot.
    if (q.reserved.length > Math.floor(q.prefetch / 2)) return 0;
    return q.prefetch - q.reserved.length;
  }

  /** Keeps `raw` fetched ahead, if `name` has room for it; false when it must go back to the queue. */
  reserve(name: string, raw: string): boolean {
    const q = this.get(name);
    if (!q || q.reserved.length >= q.prefetch) return false;
    q.reserved.push(raw);
    this.reservedChanged(name, q.reserved.length);
    return true;
  }

  /** The oldest job `name` holds fetched ahead, taken out of the reserve. */
  takeReserved(name: string): string | undefined {
    const q = this.get(name);
    const raw = q?.reserved.shift();
    if (q && raw !== undefined) this.reservedChanged(name, q.reserved.length);
    return raw;
  }

  /**
   * Forgets every job held fetched ahead, or those of `name` (they go back to their queues); the
   * queues that held any.
   */
  dropReserves(name?: string): string[] {
    const held = this.queues.filter((q) => q.reserved.length > 0 && (name === undefined || q.name === name));
    for (const q of held) {
      q.reserved = [];
      this.reservedChanged(q.name, 0);
    }
    return held.map((q) => q.name);
  }

  /** The jobs `name` holds fetched ahead: in its backup list, held by no runner yet. */
  reservedOf(name: string): readonly string[] {
    return this.get(name)?.reserved ?? [];
  }

  /** What the last fetch or wait said of `name`; `opensAt` as in ServedQueue (0: none). */
  record(name: string, state: QueueState, opensAt = 0): void {
    const q = this.get(name);
    if (!q) return;
    q.state = state;
    q.opensAt = state === 'limited' ? opensAt : 0;
  }

  /** Redis refused the keys of `name`: leave it alone until `until`, then try it as new. */
  broken(name: string, until: number): void {
    const q = this.get(name);
    if (!q) return;
    q.brokenUntil = until;
    q.state = 'unknown';
  }

  /** What the fetch script needs of `name`, asking for up to `count` jobs and `ahead` more from a backlog. */
  fetchQueue(name: string, count: number, ahead = 0): FetchQueue {
    const q = this.get(name);
    if (!q) throw new Error(`queue ${name} is not served by this node`);
    return {
      name,
      queueKey: this.keys.queue(name),
      backupKey: this.keys.backup(this.nodeId, name),
      runningKey: this.keys.running(name),
      rateKey: this.keys.rate(name),
      count,
      ahead,
      globalLimit: q.globalConcurrency,
      rate: q.rateLimit && gcra(q.rateLimit),
    };
  }

  private toServed(q: ResolvedQueue): ServedQueue {
    return { ...q, state: 'unknown', opensAt: 0, brokenUntil: 0, prefetch: this.prefetchOf(q), reserved: [] };
  }
}
