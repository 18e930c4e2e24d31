// The queues this node serves, each with what the last fetch from it said (the fetch policy's
// input), after Redis refused its keys until when it is left alone, and how many jobs it may hand
// to the threads ahead of a free slot (`prefetch`: they wait in a thread's run queue, and in the
// backup list). The manager's state for runtime subscribe and unsubscribe; the slots themselves,
// and the count of jobs handed over, are in the work table.
//
// The room ahead is `prefetch` × concurrency, and more while a queue's jobs run shorter than a
// refill takes. The jobs ahead hide the refill (a fetch's round trip, then the hand-over to the
// threads, about REFILL_MS here) only if they outlast it: ten slots of no-op jobs used up ten jobs
// ahead long before the next ten arrived, and the slots waited. So the room is what the queue's
// slots finish in one refill at their recent pace (how long its jobs ran on the threads, kept in
// the work table: workers/work-table-layout.ts), at most SHORT_JOBS_AHEAD, never less than
// `prefetch` gives. Jobs of a millisecond or more never get more than `prefetch`.
// The cap bounds memory: in bench W2 (no-op jobs) 32 took c10 from ~11,000 to ~15,000 jobs/s,
// 64 to ~18,000, 128 to ~19,000 with 20 MB more peak RSS at c30 and c50 (bench/README.md).
import type { ResolvedQueue } from '../../config/queue-options';
import type { Keys } from '../redis/keys';
import type { FetchQueue } from '../redis/fetch-script';
import type { QueueState } from './policy';

/** About how long a refill takes, from a fetch sent to its jobs on the threads, ms. */
const REFILL_MS = 1;
/** The most jobs kept ahead of a queue's slots for its short jobs' sake. */
export const SHORT_JOBS_AHEAD = 64;

/** A served queue with what the last fetch from it said. */
export interface ServedQueue extends ResolvedQueue {
  state: QueueState;
  /** Its own rate limit or pause lets no job start: epoch ms when it lets one (0: not so held). */
  opensAt: number;
  /** Epoch ms until which its keys are left alone after Redis refused them (e.g. WRONGTYPE). */
  brokenUntil: number;
  /** How many jobs may be handed over ahead of a free slot (0: none, e.g. under a limit across nodes). */
  prefetch: number;
  /**
   * The room ahead at its last refill point (reserveRoom): the jobs a fetch asked for then are
   * handed over even if the room shrank while it was out (its jobs' pace rose), not put back.
   */
  roomAsked: number;
  /** The node's count of fetches sent when its last fetch was sent (0: none yet). */
  fetchSent: number;
  /**
   * A signal came while a fetch of it was out late (per-queue layout: a call still out after a
   * moment answers as a message, and the manager handles other messages meanwhile; or the waiting
   * fetch of an idle queue). That fetch may have run before the push: if it answers empty, it is
   * fetched again.
   */
  heardMeanwhile: boolean;
}

export class ServedQueues {
  private queues: ServedQueue[] = [];
  /** The same queues by name: a decision looks each one up, and a node may serve hundreds. */
  private byName = new Map<string, ServedQueue>();
  /** Queue key -> name: what a wake signal names. */
  private byKey = new Map<string, string>();
  /** Fetches sent so far: the clock `heard` and `answeredSince` read. */
  private fetchesSent = 0;

  /**
   * `prefetchOf` says how many jobs a queue may hand over ahead of its free slots; `ahead` how many
   * it has handed over beyond its concurrency now (the work table's count); `runMs` how long its
   * jobs lately ran, if any ended here.
   */
  constructor(
    configured: ResolvedQueue[],
    private readonly keys: Keys,
    private readonly nodeId: string,
    private readonly prefetchOf: (q: ResolvedQueue) => number,
    private readonly ahead: (queue: string) => number = () => 0,
    private readonly runMs: (queue: string) => number | undefined = () => undefined,
  ) {
    this.serve(configured.map((q) => this.toServed(q)));
  }

  private serve(queues: ServedQueue[]): void {
    this.queues = queues;
    this.byName = new Map(queues.map((q) => [q.name, q]));
    this.byKey = new Map(queues.map((q) => [this.keys.queue(q.name), q.name]));
  }

  /** The queues served, with their concurrency (what `subscriptions` answers). */
  list(): ResolvedQueue[] {
    return this.queues.map(
      ({
        state: _s,
        opensAt: _o,
        brokenUntil: _b,
        prefetch: _p,
        roomAsked: _r,
        fetchSent: _f,
        heardMeanwhile: _h,
        ...q
      }) => q,
    );
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

  /** The served queue whose key is `queueKey` (a wake signal names keys), if any. */
  byQueueKey(queueKey: string): ServedQueue | undefined {
    const name = this.byKey.get(queueKey);
    return name === undefined ? undefined : this.byName.get(name);
  }

  /** Serves `spec` (again, with its new settings, when it was served already). */
  add(spec: ResolvedQueue): void {
    this.serve([...this.queues.filter((q) => q.name !== spec.name), this.toServed(spec)]);
  }

  /** Stops serving `name`. */
  remove(name: string): void {
    this.serve(this.queues.filter((q) => q.name !== name));
  }

  /**
   * How many more jobs `name` may take ahead of its free slots now: none unless its last fetch left
   * jobs behind and half its room ahead is used.
   */
  reserveRoom(name: string): number {
    const q = this.get(name);
    if (!q || q.prefetch === 0 || q.state !== 'more') return 0;
    // Refilled once half is used, so one fetch brings several jobs rather than one per freed slot.
    const room = this.room(q);
    const ahead = this.ahead(name);
    if (ahead > Math.floor(room / 2)) return 0;
    q.roomAsked = room;
    return room - ahead;
  }

  /** True while `name` may hand one more job to the threads ahead of a free slot. */
  mayHandAhead(name: string): boolean {
    const q = this.get(name);
    return q !== undefined && this.ahead(name) < Math.max(this.room(q), q.roomAsked);
  }

  /** How many jobs `q` may hold ahead of its free slots now (the header says why). */
  private room(q: ServedQueue): number {
    const ms = q.prefetch === 0 ? undefined : this.runMs(q.name);
    if (ms === undefined || ms >= REFILL_MS) return q.prefetch;
    const finishedInARefill = ms <= 0 ? Infinity : Math.ceil((q.concurrency * REFILL_MS) / ms);
    return Math.max(q.prefetch, Math.min(finishedInARefill, SHORT_JOBS_AHEAD));
  }

  /**
   * What the last fetch or wait said of `name`; `opensAt` as in ServedQueue (0: none). A fetch
   * that emptied it while a signal was heard leaves it to be fetched again (`heardMeanwhile`).
   */
  record(name: string, state: QueueState, opensAt = 0): void {
    const q = this.get(name);
    if (!q) return;
    q.state = state === 'empty' && q.heardMeanwhile ? 'unknown' : state;
    q.heardMeanwhile = false;
    q.opensAt = state === 'limited' ? opensAt : 0;
  }

  /** A fetch of `names` is being sent now. */
  sending(names: readonly string[]): void {
    this.fetchesSent++;
    for (const name of names) {
      const q = this.get(name);
      if (q) q.fetchSent = this.fetchesSent;
    }
  }

  /** The moment a signal is heard, to ask later whether a fetch answered it (`answeredSince`). */
  heard(): number {
    return this.fetchesSent;
  }

  /**
   * True when a fetch of `name` was sent after the moment `heard` returned. A signal says a job
   * was pushed before it was heard, and Redis runs a command sent after that after the push: that
   * fetch saw the job (or another node took it), so the signal needs no fetch of its own. Each job
   * nexq pushes into an armed idle queue sends two signals (its script's PUBLISH and the tracked
   * key's invalidation), and the second used to reach the manager after the fetch it woke had
   * emptied the queue, for a second fetch that found nothing.
   */
  answeredSince(name: string, heard: number): boolean {
    return (this.get(name)?.fetchSent ?? 0) > heard;
  }

  /**
   * A queue key woke (a wake signal, or a write to a tracked key; null: every key), `heard` as the
   * signal came: a served queue left idle is to be fetched (true: decide again), unless a fetch
   * sent since answered it. A busy one is fetched anyway, and one whose fetch is out late
   * (`fetchingLate`: a late call, or the waiting fetch) again if that fetch answers empty; a key of
   * a queue not served here is ignored.
   */
  woken(queueKey: string | null, heard: number, fetchingLate: (queue: string) => boolean): boolean {
    const woken = queueKey === null ? this.queues : [this.byQueueKey(queueKey)];
    let any = false;
    for (const queue of woken) {
      if (!queue || this.answeredSince(queue.name, heard)) continue;
      // Its fetch out may have run before the push: fetched again if it answers empty.
      if (fetchingLate(queue.name)) {
        queue.heardMeanwhile = true;
        continue;
      }
      if (queue.state !== 'empty') continue;
      queue.state = 'unknown';
      any = true;
    }
    return any;
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
      rate: q.rateLimit,
      ...(q.fair ? { fair: this.keys.fair(name), groupLimit: q.groupConcurrency, groupRate: q.groupRateLimit } : {}),
    };
  }

  private toServed(q: ResolvedQueue): ServedQueue {
    return {
      ...q,
      state: 'unknown',
      opensAt: 0,
      brokenUntil: 0,
      prefetch: this.prefetchOf(q),
      roomAsked: 0,
      fetchSent: 0,
      heardMeanwhile: false,
    };
  }
}
