// Stats: the node's counters.
//
// Responsibilities:
//  1. Count processed and failed jobs in memory and flush them to Redis every second (total and
//     per-day keys), so counting costs the hot path no round trip. Sidekiq counts the same way;
//     a node killed with -9 loses at most the last second of counts, never a job.
//  2. In the same MULTI, add each class's counts and run times to the current minute's metrics
//     (src/redis/class-metrics.ts, the dashboard's Metrics page), and each queue's count to the
//     minute's per-queue hash (src/redis/queue-metrics.ts, `nexq.position`'s rate), by Redis' clock.
// The counts themselves are in src/run/job-counters.ts, fed by the built-in stats middleware; the
// jobs running on this node are in src/run/running-jobs.ts. Each queue's own count, which `nexq drain`
// reads, is not flushed from here: the script that takes a job off its backup list adds it
// (keys.processed), so it never lags the backup lists.

import { TickingActor } from '../runtime';
import { statDay } from '../redis/keys';
import { addClassMetrics, minuteOf } from '../redis/class-metrics';
import { addQueueMetrics } from '../redis/queue-metrics';
import { fromReply } from '../redis/errors';
import type { JobsContext } from '../run/node-context';
import { ActorNames } from '../run/node-context';

export const STATS_FLUSH_MS = 1000;
/** Per-day counters expire after five years, as Sidekiq's do. */
export const STATS_DAY_TTL_SECONDS = 5 * 365 * 24 * 3600;

export class Stats extends TickingActor {
  constructor(private readonly ctx: JobsContext) {
    // A failed flush keeps its counts in memory for the next one.
    super({ name: ActorNames.stats, registry: ctx.registry, logger: ctx.logger, what: 'stats flush' });
  }

  protected override firstTickMs(): number {
    return STATS_FLUSH_MS;
  }

  protected override tick(): Promise<void> {
    return this.flush();
  }

  protected override nextTickMs(): number {
    return STATS_FLUSH_MS;
  }

  protected override async terminate(): Promise<void> {
    await super.terminate();
    await this.flush().catch((err: unknown) =>
      this.ctx.logger.warn(`stats not flushed at stop: ${fromReply(err).message}`, { actor: this.name }),
    );
  }

  /** Writes the counts gathered since the last flush. Counts stay in memory if Redis fails. */
  async flush(): Promise<void> {
    const { counters, timings } = this.ctx.jobs;
    const counts = counters.take();
    const samples = timings.take();
    const { processed, failed } = counts;
    if (processed === 0 && failed === 0 && samples.size === 0) return;
    const { keys } = this.ctx;
    const now = this.ctx.clock.now(); // by Redis' clock, as every node counts
    const day = statDay(new Date(now * 1000));
    try {
      const tx = this.ctx.redis.multi();
      if (processed)
        tx.incrby(keys.stat('processed'), processed)
          .incrby(keys.stat('processed', day), processed)
          .expire(keys.stat('processed', day), STATS_DAY_TTL_SECONDS);
      if (failed)
        tx.incrby(keys.stat('failed'), failed)
          .incrby(keys.stat('failed', day), failed)
          .expire(keys.stat('failed', day), STATS_DAY_TTL_SECONDS);
      addClassMetrics(tx, keys, minuteOf(now), samples);
      addQueueMetrics(tx, keys, minuteOf(now), counts.perQueue);
      await tx.exec();
    } catch (err) {
      counters.restore(counts);
      timings.restore(samples);
      throw fromReply(err, 'the stats flush');
    }
  }
}
