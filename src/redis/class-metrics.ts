// Per-class metrics over time, as Sidekiq 7's Metrics page shows them: for each UTC minute one hash
// (`keys.classMetrics(minute)`) with, per job class, the jobs finished (`<class>|p`, failures
// included), failed (`<class>|f`), their run time summed in ms (`<class>|ms`) and a coarse
// histogram of run times (`<class>|h<i>`: jobs that ran up to BUCKETS_MS[i] ms, the last bucket
// those that ran longer), from which the percentiles are estimated. Nodes add to it once per stats
// flush (the Stats actor) and each hash expires RETENTION_SECONDS after its last write. A node-wide
// key, so in the per-queue layout it shares the stat counters' slot and joins their MULTI.
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './client';
import type { Keys } from './keys';

/** Upper bounds of the run-time buckets, in ms; a last bucket holds the longer runs. */
export const BUCKETS_MS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 300_000];
/** How long a minute's metrics are kept: 8 hours of minutes, as Sidekiq 7 keeps them. */
export const RETENTION_MINUTES = 8 * 60;
export const RETENTION_SECONDS = RETENTION_MINUTES * 60;

/** One class's figures over some minutes. */
export interface ClassSample {
  processed: number;
  failed: number;
  /** Run time of every job summed, ms. */
  ms: number;
  /** Jobs per run-time bucket: BUCKETS_MS.length + 1 entries. */
  buckets: number[];
}

export function emptySample(): ClassSample {
  return { processed: 0, failed: 0, ms: 0, buckets: new Array<number>(BUCKETS_MS.length + 1).fill(0) };
}

/** The bucket a run of `ms` falls in. */
export function bucketOf(ms: number): number {
  let i = 0;
  while (i < BUCKETS_MS.length && ms > BUCKETS_MS[i]) i++;
  return i;
}

/** Adds `from` into `into`. */
export function addSample(into: ClassSample, from: ClassSample): void {
  into.processed += from.processed;
  into.failed += from.failed;
  into.ms += from.ms;
  from.buckets.forEach((n, i) => (into.buckets[i] += n));
}

/** The UTC minute of an epoch-seconds time, as the keys name it: `YYYY-MM-DDTHH:MM`. */
export function minuteOf(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 16);
}

/** Queues on `tx` the increments of `samples` (class -> sample) to `minute`'s hash, and its expiry. */
export function addClassMetrics(
  tx: ChainableCommander,
  keys: Keys,
  minute: string,
  samples: Map<string, ClassSample>,
): void {
  if (samples.size === 0) return;
  const key = keys.classMetrics(minute);
  for (const [name, s] of samples) {
    tx.hincrby(key, `${name}|p`, s.processed);
    if (s.failed) tx.hincrby(key, `${name}|f`, s.failed);
    tx.hincrby(key, `${name}|ms`, Math.round(s.ms));
    s.buckets.forEach((n, i) => n && tx.hincrby(key, `${name}|h${i}`, n));
  }
  tx.expire(key, RETENTION_SECONDS);
}

/** Reads the last `minutes` minutes up to `now` (epoch s): class -> its sample in each minute, oldest first. */
export async function readClassMetrics(
  redis: RedisClient,
  keys: Keys,
  minutes: number,
  now: number,
): Promise<{ minutes: string[]; classes: Map<string, ClassSample[]> }> {
  const names = Array.from({ length: minutes }, (_, i) => minuteOf(now - (minutes - 1 - i) * 60));
  const hashes = await Promise.all(names.map((m) => redis.hgetall(keys.classMetrics(m))));
  const classes = new Map<string, ClassSample[]>();
  hashes.forEach((hash, m) => {
    for (const [field, value] of Object.entries(hash)) {
      const bar = field.lastIndexOf('|');
      const name = field.slice(0, bar);
      let series = classes.get(name);
      if (!series) classes.set(name, (series = names.map(() => emptySample())));
      const sample = series[m];
      const kind = field.slice(bar + 1);
      const n = Number(value);
      if (kind === 'p') sample.processed = n;
      else if (kind === 'f') sample.failed = n;
      else if (kind === 'ms') sample.ms = n;
      else if (/^h\d+$/.test(kind) && Number(kind.slice(1)) < sample.buckets.length)
        sample.buckets[Number(kind.slice(1))] = n;
    }
  });
  return { minutes: names, classes };
}

/**
 * The run time below which a share `q` (0.5, 0.95) of the jobs fell, in ms, interpolated inside
 * its bucket as Prometheus' histogram_quantile does; the last bucket answers its lower bound.
 * Undefined without jobs.
 */
export function percentileMs(buckets: number[], q: number): number | undefined {
  const total = buckets.reduce((a, b) => a + b, 0);
  if (total === 0) return undefined;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < buckets.length; i++) {
    if (below + buckets[i] >= rank && buckets[i] > 0) {
      const lower = i === 0 ? 0 : BUCKETS_MS[i - 1];
      if (i === BUCKETS_MS.length) return lower;
      return Math.round(lower + ((BUCKETS_MS[i] - lower) * (rank - below)) / buckets[i]);
    }
    below += buckets[i];
  }
  return BUCKETS_MS[BUCKETS_MS.length - 1];
}
