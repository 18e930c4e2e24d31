// A limit over time, `{ limit, per }`: at most `limit` jobs start per `per` seconds across all
// nodes (a queue's `rateLimit`, a class's entry in `classRateLimits`). Checked here; held in Redis
// by the fetch script (src/redis/lua/fetch.lua, GCRA: docs/rate-limits.md).
import { ConfigError } from './config-error';

export interface RateLimit {
  /** Jobs that may start per window, across all nodes (an integer >= 1). */
  limit: number;
  /** The window, in seconds (> 0; fractions allowed, at least 0.001). */
  per: number;
}

const FIELDS = ['limit', 'per'];

/** `value` as a RateLimit, or a ConfigError naming `key` and the field that is wrong. */
export function checkRateLimit(value: unknown, key: string): RateLimit {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigError(key, 'an object { limit, per } (jobs per seconds)', value);
  for (const field of Object.keys(value))
    if (!FIELDS.includes(field)) throw new ConfigError(`${key}.${field}`, 'one of limit, per', field);
  const { limit, per } = value as Partial<RateLimit>;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)
    throw new ConfigError(`${key}.limit`, 'an integer >= 1 (jobs per window)', limit);
  if (typeof per !== 'number' || !Number.isFinite(per) || per < 0.001)
    throw new ConfigError(`${key}.per`, 'a number of seconds >= 0.001', per);
  return { limit, per };
}

/** `classRateLimits`: an object of class name -> `{ limit, per }`. */
export function checkClassRateLimits(value: unknown): Record<string, RateLimit> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigError('classRateLimits', 'an object of class name -> { limit, per }', value);
  const checked: Record<string, RateLimit> = {};
  for (const [name, limit] of Object.entries(value)) checked[name] = checkRateLimit(limit, `classRateLimits.${name}`);
  return checked;
}
