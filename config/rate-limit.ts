// A limit over time, `{ limit, per, burst? }`: at most `limit` jobs start in any window of `per`
// seconds across all nodes (a queue's `rateLimit`, a class's entry in `classRateLimits`), or with
// a `burst`, `limit` per `per` on average with up to `burst` at once. Checked here; held in Redis
// by the fetch script (src/redis/lua/_prelude.lua: a sliding log, or GCRA under a burst;
// docs/rate-limits.md).
import { ConfigError } from './config-error';

export interface RateLimit {
  /** Jobs that may start per window, across all nodes (an integer >= 1). */
  limit: number;
  /** The window, in seconds (> 0; fractions allowed, at least 0.001). */
  per: number;
  /**
   * Absent or false (the default): strict, never more than `limit` starts in any window of `per`
   * seconds. A number B (an integer >= 1): one start every per/limit seconds on average, with up to
   * B at once after a lull, so a window of `per` may see up to limit + B - 1. `true`: B = limit.
   */
  burst?: number | boolean;
}

const FIELDS = ['limit', 'per', 'burst'];

/**
 * `value` as a RateLimit (`burst` a number, or absent when strict), or a ConfigError naming `key`
 * and the field that is wrong.
 */
export function checkRateLimit(value: unknown, key: string): RateLimit {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigError(key, 'an object { limit, per, burst? } (jobs per seconds)', value);
  for (const field of Object.keys(value))
    if (!FIELDS.includes(field)) throw new ConfigError(`${key}.${field}`, 'one of limit, per, burst', field);
  const { limit, per, burst } = value as Partial<RateLimit>;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)
    throw new ConfigError(`${key}.limit`, 'an integer >= 1 (jobs per window)', limit);
  if (typeof per !== 'number' || !Number.isFinite(per) || per < 0.001)
    throw new ConfigError(`${key}.per`, 'a number of seconds >= 0.001', per);
  if (burst === undefined || burst === false) return { limit, per };
  if (burst === true) return { limit, per, burst: limit };
  if (typeof burst !== 'number' || !Number.isInteger(burst) || burst < 1)
    throw new ConfigError(`${key}.burst`, 'true, false or an integer >= 1 (jobs at once)', burst);
  return { limit, per, burst };
}

/** `classRateLimits`: an object of class name -> `{ limit, per, burst? }`. */
export function checkClassRateLimits(value: unknown): Record<string, RateLimit> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigError('classRateLimits', 'an object of class name -> { limit, per, burst? }', value);
  const checked: Record<string, RateLimit> = {};
  for (const [name, limit] of Object.entries(value)) checked[name] = checkRateLimit(limit, `classRateLimits.${name}`);
  return checked;
}
