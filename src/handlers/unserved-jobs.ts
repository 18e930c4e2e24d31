// A producer's warning, once per queue or class, for jobs no live node can run: a queue no node
// serves (a misspelt name, a node not deployed), or a class no node serving its queue has a
// handler for (a misspelt class), with "did you mean". Judged from the process entries
// (src/redis/live-serving.ts), read at most every REFRESH_MS and only when an enqueue brings a
// queue and class not judged before, with what this node serves itself added (a queue it
// subscribed to a moment ago is not in its entry until its next beat); the enqueue itself never
// waits for it.
import type { Logger } from '../runtime/logger';
import { readServing, Serving, unservedReasons, withOwn } from '../redis/live-serving';
import type { Keys } from '../redis/keys';
import type { ScriptedRedis } from '../redis/scripts';

/** How old the view of the process entries may be: a heartbeat's interval. */
const REFRESH_MS = 5000;

export class UnservedJobs {
  /** `queue\0class` pairs judged already (fine, or warned of). */
  private readonly judged = new Set<string>();
  /** Each warning once. */
  private readonly warned = new Set<string>();
  private view?: { at: number; serving: Promise<Serving> };

  constructor(
    private readonly redis: () => ScriptedRedis,
    private readonly keys: Keys,
    private readonly logger: Logger,
    /** What this node serves now: its queues, each with its handlers' classes (none in enqueuer mode). */
    private readonly own: () => Serving = () => new Map(),
  ) {}

  /** Looks at the jobs just enqueued, in the background; warns of those no live node would run. */
  note(jobs: ReadonlyArray<{ queue: string; class: string }>): void {
    let fresh: Array<{ queue: string; class: string }> | undefined;
    for (const job of jobs) {
      const pair = `${job.queue}\0${job.class}`;
      if (this.judged.has(pair)) continue;
      this.judged.add(pair);
      (fresh ??= []).push(job);
    }
    if (fresh) this.judge(fresh).catch(() => undefined); // judge catches its own failures
  }

  private async judge(jobs: Array<{ queue: string; class: string }>): Promise<void> {
    try {
      const serving = withOwn(await this.serving(), this.own());
      for (const job of jobs)
        for (const reason of unservedReasons(serving, job.queue, job.class)) {
          if (this.warned.has(reason)) continue;
          this.warned.add(reason);
          this.logger.warn(reason, { actor: 'enqueuer' });
        }
    } catch (err) {
      // Advice only: a failed read judges these jobs again at their next enqueue.
      for (const job of jobs) this.judged.delete(`${job.queue}\0${job.class}`);
      this.logger.debug(`could not read the process entries: ${(err as Error).message}`, { actor: 'enqueuer' });
    }
  }

  private serving(): Promise<Serving> {
    const now = Date.now();
    if (!this.view || now - this.view.at > REFRESH_MS) {
      const serving = readServing(this.redis(), this.keys);
      this.view = { at: now, serving };
      serving.catch(() => (this.view = undefined));
    }
    return this.view.serving;
  }
}
