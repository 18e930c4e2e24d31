// What the concurrency stress test (test/run/concurrency-stress.test.ts) throws at its nodes, through
// the public API only: bursts of short jobs, jobs cancelled while queued or running, jobs that
// outlive jobTimeout, jobs that end their own thread, and queues left and subscribed again. It
// remembers every job it enqueued and how each cancel answered, for the accounting at the end.
import type Redis from 'ioredis';
import type { Nexq } from '../../src/nexq';
import { sleep, waitFor } from './node';

/** A small seeded generator (mulberry32), so a failing run can be replayed with its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export type JobKind = 'short' | 'long' | 'exit';

export interface SentJob {
  kind: JobKind;
  /** What `cancel` answered, when the driver cancelled it; 'threw' when it gave up. */
  cancelled?: boolean | 'threw';
}

export interface StressTarget {
  /** The nodes that serve the queue now; a subscription toggle picks one of them. */
  nodes: () => Nexq[];
  /** How long to keep throwing things, in ms. */
  ms: number;
  /** Whether the nodes have a jobTimeout shorter than a long job: long jobs are sent for it to cut. */
  timeouts?: boolean;
}

/** Longer than any jobTimeout the test sets: a long job runs past it, or is cancelled, or cut by a stop. */
export const LONG_JOB_MS = 1200;
/** Jobs waiting in the queue above which no burst is sent (above 100 the nodes prefetch). */
const BACKLOG_CAP = 120;
/** Long jobs sent per stage, cancelled or to time out. */
const MAX_LONG_JOBS = 10;

export class StressDriver {
  readonly jobs = new Map<string, SentJob>();
  private readonly cancels: Array<Promise<void>> = [];
  private readonly jids: string[] = [];

  constructor(
    private readonly producer: Nexq,
    private readonly redis: Redis,
    private readonly spec: { url: string; log: string; queue: string; queueKey: string; concurrency: number },
    readonly random: () => number,
  ) {}

  /** Throws a random mix at the queue for `target.ms`. */
  async run(target: StressTarget): Promise<void> {
    const until = Date.now() + target.ms;
    // Long jobs hold a slot for long: a few per stage, or the drain at the end waits for a pile of them.
    let long = 0;
    while (Date.now() < until) {
      const roll = this.random();
      const longLeft = long < MAX_LONG_JOBS;
      if (roll < 0.45) await this.burst();
      else if (roll < 0.55) {
        if (longLeft) {
          long++;
          this.cancelWhenRunning(await this.send('long', LONG_JOB_MS));
        }
      } else if (roll < 0.63) this.cancelAny();
      else if (roll < 0.69) await this.send('exit', this.between(0, 20), { retry: false });
      else if (roll < 0.77) await this.toggleSubscription(target.nodes());
      else if (roll < 0.85) {
        if (target.timeouts && longLeft) {
          long++;
          await this.send('long', LONG_JOB_MS);
        }
      }
      await sleep(this.between(5, 40));
    }
  }

  /** Sends a long job nothing cancels and resolves once its handler started: a stop now cuts it off. */
  async longJobStarted(): Promise<void> {
    const jid = await this.send('long', LONG_JOB_MS);
    await waitFor(() => this.redis.sismember(`${this.spec.log}:started`, jid), 20_000, `long job ${jid} to start`);
  }

  /** Waits for every cancel sent to answer. */
  async cancelsAnswered(): Promise<void> {
    await Promise.all(this.cancels);
  }

  /** A handful of short jobs in one enqueue, unless the queue already has a backlog. */
  private async burst(): Promise<void> {
    if ((await this.redis.llen(this.spec.queueKey)) >= BACKLOG_CAP) return;
    const count = this.between(3, 20);
    const runs = Array.from({ length: count }, () => this.between(2, 30));
    const jids = await this.producer.enqueueAll(
      runs.map((ms) => ({
        queue: this.spec.queue,
        class: 'StressRun',
        args: [this.spec.url, this.spec.log, 'run', ms],
      })),
    );
    for (const jid of jids) this.remember(jid, 'short');
  }

  private async send(kind: JobKind, ms: number, options?: { retry: boolean }): Promise<string> {
    const mode = kind === 'exit' ? 'exit' : 'run';
    const jid = await this.producer.enqueue(this.spec.queue, 'StressRun', [this.spec.url, this.spec.log, mode, ms], {
      // Long jobs are not retried: one cut by a dying thread or a timeout goes to dead.
      ...(kind === 'long' ? { retry: false } : {}),
      ...options,
    });
    this.remember(jid, kind);
    return jid;
  }

  /** Cancels `jid` once a node holds it (running, or fetched ahead), in the background. */
  private cancelWhenRunning(jid: string): void {
    this.track(
      jid,
      (async () => {
        const giveUp = Date.now() + 60_000;
        while (Date.now() < giveUp) {
          const info = await this.producer.show(jid);
          // Ended otherwise (timed out, thread died, or ran to its end on a node without jobTimeout).
          if (!info || info.state === 'dead' || info.state === 'retry') return false;
          if (info.state === 'running') return this.producer.cancel(jid, 15_000);
          await sleep(25);
        }
        return this.producer.cancel(jid, 15_000);
      })(),
    );
  }

  /** Cancels one of the jobs sent so far, wherever it is (a job not running stays as it is). */
  private cancelAny(): void {
    if (this.jids.length === 0) return;
    const recent = this.jids.slice(-60);
    const jid = recent[Math.floor(this.random() * recent.length)];
    if (this.jobs.get(jid)?.cancelled === undefined) this.track(jid, this.producer.cancel(jid, 15_000));
  }

  /** Leaves the queue on one node for a moment, while its jobs run on, and subscribes again. */
  private async toggleSubscription(nodes: Nexq[]): Promise<void> {
    if (nodes.length === 0) return;
    const node = nodes[Math.floor(this.random() * nodes.length)];
    await node.unsubscribe(this.spec.queue);
    await sleep(this.between(10, 150));
    await node.subscribe(this.spec.queue, this.spec.concurrency);
  }

  private track(jid: string, answer: Promise<boolean>): void {
    const job = this.jobs.get(jid);
    if (!job) return;
    job.cancelled = false; // taken: no second cancel of the same job
    this.cancels.push(
      answer.then(
        (cancelled) => void (job.cancelled = cancelled),
        () => void (job.cancelled = 'threw'),
      ),
    );
  }

  private remember(jid: string, kind: JobKind): void {
    this.jobs.set(jid, { kind });
    this.jids.push(jid);
  }

  private between(low: number, high: number): number {
    return low + Math.floor(this.random() * (high - low + 1));
  }
}
