// The node's counts of processed and failed jobs since the last flush, kept in memory: the
// built-in stats middleware adds to them as each job settles, the Stats actor takes them every
// second and writes them to Redis (and puts them back when Redis fails). A plain object both get
// at construction, so counting costs the hot path neither a round trip nor a message. Jobs are
// counted per queue too, for each queue's recent rate (src/redis/queue-metrics.ts).
import type { ClassTimings } from './class-timings';
import type { Middleware } from './middleware';

export interface Counts {
  processed: number;
  failed: number;
  /** Queue -> its jobs processed (failures included). */
  perQueue: Map<string, number>;
}

export class JobCounters {
  processed = 0;
  failed = 0;
  private perQueue = new Map<string, number>();

  /** A job of `queue` settled. */
  count(failed: boolean, queue: string): void {
    this.processed++;
    if (failed) this.failed++;
    this.perQueue.set(queue, (this.perQueue.get(queue) ?? 0) + 1);
  }

  /** The counts so far, now reset; `restore` them if they could not be written. */
  take(): Counts {
    const counts = { processed: this.processed, failed: this.failed, perQueue: this.perQueue };
    this.processed = this.failed = 0;
    this.perQueue = new Map();
    return counts;
  }

  restore(counts: Counts): void {
    this.processed += counts.processed;
    this.failed += counts.failed;
    for (const [queue, n] of counts.perQueue) this.perQueue.set(queue, (this.perQueue.get(queue) ?? 0) + n);
  }
}

/**
 * The built-in stats middleware: a success or a failure counts as processed, a failure as failed
 * too; each is recorded with its class and run time for the per-class metrics.
 */
export function statsMiddleware(counters: JobCounters, timings: ClassTimings): Middleware {
  return {
    name: 'stats',
    afterSuccess: (e) => {
      counters.count(false, e.queue);
      timings.record(e.className, Date.now() - e.startedAt, false);
    },
    afterFailure: (e) => {
      counters.count(true, e.queue);
      timings.record(e.className, Date.now() - e.startedAt, true);
    },
  };
}
