// Opens ioredis connections with nexq's policy: reconnect forever with capped backoff, and keep
// passwords out of every message that could reach a log.
import Redis, { RedisOptions } from 'ioredis';
import { redactRedisUrl } from '../logger';
import { defineScripts, ScriptedRedis } from './scripts';

export const RECONNECT_MAX_DELAY_MS = 2000;
export const COMMAND_TIMEOUT_MS = 10_000;

export function connect(target: string | RedisOptions, overrides: RedisOptions = {}): ScriptedRedis {
  const base: RedisOptions = {
    // Reconnect with growing delay, capped so a restarted Redis is found again quickly.
    retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 10), RECONNECT_MAX_DELAY_MS),
    // A command sent while disconnected waits for the reconnect rather than failing after 20 tries.
    maxRetriesPerRequest: null,
    // ...but a command Redis does not answer in time fails, so no actor waits forever on a
    // half-open connection; each actor retries or backs off in its own way.
    commandTimeout: COMMAND_TIMEOUT_MS,
    // A command in flight when the connection drops fails instead of being sent again: a fetch or
    // enqueue that already ran would run twice. The manager reclaims what a lost fetch moved.
    autoResendUnfulfilledCommands: false,
    enableAutoPipelining: true,
    lazyConnect: true,
    ...overrides,
  };
  const client = typeof target === 'string' ? new Redis(target, base) : new Redis({ ...target, ...base });
  return defineScripts(client);
}

/** Where a client points, without credentials. */
export function describeTarget(target: string | RedisOptions): string {
  if (typeof target === 'string') return redactRedisUrl(target);
  const host = target.host ?? '127.0.0.1';
  const port = target.port ?? 6379;
  return `redis://${host}:${port}/${target.db ?? 0}`;
}
