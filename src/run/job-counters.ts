// The node's counts of processed and failed jobs since the last flush, kept in memory: the
// built-in stats middleware adds to them as each job settles, the Stats actor takes them every
// second and writes them to Redis (and puts them back when Redis fails). A plain object both get
// at construction, so counting costs the hot path neither a round trip nor a message.
import type { ClassTimings } from './class-timings';
import type { Middleware } from './middleware';

export interface Counts {
  processed: number;
  failed: number;
}

export class JobCounters {
  processed = 0;
  failed = 0;

  /** A job settled. */
  count(failed: boolean): void {
    this.processed++;
    if (failed) this.failed++;
  }

  /** The counts so far, now reset; `restore` them if they could not be written. */
  take(): Counts {
    const counts = { processed: this.processed, failed: this.failed };
    this.processed = this.failed = 0;
    return counts;
  }

  restore(counts: Counts): void {
    this.processed += counts.processed;
    this.failed += counts.failed;
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
      counters.count(false);
      timings.record(e.className, Date.now() - e.startedAt, false);
    },
    afterFailure: (e) => {
      counters.count(true);
      timings.record(e.className, Date.now() - e.startedAt, true);
    },
  };
}
