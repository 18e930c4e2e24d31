// Per-class metrics of the last minutes, as Sidekiq 7's Metrics page shows them: each class's jobs
// processed (failures included) and failed, its total and average run time and its p50/p95 run
// time (estimated from the stored histogram), and its counts per minute for a graph.
import { nowSeconds } from '../job/time';
import { addSample, ClassSample, emptySample, percentileMs, readClassMetrics } from '../redis/class-metrics';
import type { AdminContext } from './context';

export { RETENTION_MINUTES } from '../redis/class-metrics';

export interface ClassMetricsRow {
  class: string;
  processed: number;
  failed: number;
  totalMs: number;
  avgMs: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
  /** Per minute, oldest first, aligned with `minutes`. */
  perMinute: { processed: number[]; failed: number[] };
}

export interface ClassMetricsView {
  /** The UTC minutes covered, `YYYY-MM-DDTHH:MM`, oldest first. */
  minutes: string[];
  /** Classes by total run time, the largest first (where the time goes). */
  classes: ClassMetricsRow[];
}

export async function classMetrics(ctx: AdminContext, minutes: number): Promise<ClassMetricsView> {
  const now = ctx.clock?.now() ?? nowSeconds();
  const read = await readClassMetrics(ctx.redis, ctx.keys, minutes, now);
  const classes = [...read.classes].map(([name, series]): ClassMetricsRow => {
    const total = series.reduce((sum: ClassSample, s) => (addSample(sum, s), sum), emptySample());
    return {
      class: name,
      processed: total.processed,
      failed: total.failed,
      totalMs: total.ms,
      avgMs: total.processed ? Math.round(total.ms / total.processed) : null,
      p50Ms: percentileMs(total.buckets, 0.5) ?? null,
      p95Ms: percentileMs(total.buckets, 0.95) ?? null,
      perMinute: { processed: series.map((s) => s.processed), failed: series.map((s) => s.failed) },
    };
  });
  classes.sort((a, b) => b.totalMs - a.totalMs || a.class.localeCompare(b.class));
  return { minutes: read.minutes, classes };
}
