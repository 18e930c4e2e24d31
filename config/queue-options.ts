// The `queues` option's entries (also a queue subscribed at run time): a name, its concurrency and
// its own limits, checked and resolved; and what a queue name may be, wherever one comes in.
import { ConfigError } from './config-error';
import type { QueueSpec } from './defaults';
import { checkRateLimit } from './rate-limit';

/** A `queues` entry resolved: its concurrency always set. */
export interface ResolvedQueue extends QueueSpec {
  concurrency: number;
}

const QUEUE_NAME = /^[^\s:]{1,200}$/;

export function isQueueName(name: unknown): name is string {
  return typeof name === 'string' && QUEUE_NAME.test(name);
}

// An entry can come from a file, the environment or a JavaScript caller: whatever the types say,
// any value can stand where an object is expected.
function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

export function resolveQueue(entry: string | QueueSpec, fallbackConcurrency: number, key: string): ResolvedQueue {
  const spec = typeof entry === 'string' ? { name: entry } : entry;
  if (!isObject(spec) || !isQueueName(spec.name)) {
    throw new ConfigError(key, 'a queue name (no spaces or colons) or { name, concurrency }', entry);
  }
  const concurrency = spec.concurrency ?? fallbackConcurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ConfigError(`${key}.concurrency`, 'an integer >= 1', concurrency);
  }
  const resolved: ResolvedQueue = { name: spec.name, concurrency };
  if (spec.globalConcurrency !== undefined) {
    if (!Number.isInteger(spec.globalConcurrency) || spec.globalConcurrency < 1)
      throw new ConfigError(`${key}.globalConcurrency`, 'an integer >= 1', spec.globalConcurrency);
    resolved.globalConcurrency = spec.globalConcurrency;
  }
  if (spec.weight !== undefined) {
    if (typeof spec.weight !== 'number' || !Number.isFinite(spec.weight) || spec.weight <= 0)
      throw new ConfigError(`${key}.weight`, 'a number > 0', spec.weight);
    resolved.weight = spec.weight;
  }
  if (spec.rateLimit !== undefined) resolved.rateLimit = checkRateLimit(spec.rateLimit, `${key}.rateLimit`);
  if (spec.encrypt !== undefined) {
    if (typeof spec.encrypt !== 'boolean') throw new ConfigError(`${key}.encrypt`, 'true or false', spec.encrypt);
    if (spec.encrypt) resolved.encrypt = true;
  }
  if (spec.fair !== undefined) {
    if (typeof spec.fair !== 'boolean') throw new ConfigError(`${key}.fair`, 'true or false', spec.fair);
    if (spec.fair) resolved.fair = true;
  }
  if (spec.groupConcurrency !== undefined) {
    if (!Number.isInteger(spec.groupConcurrency) || spec.groupConcurrency < 1)
      throw new ConfigError(`${key}.groupConcurrency`, 'an integer >= 1', spec.groupConcurrency);
    if (!resolved.fair)
      throw new ConfigError(`${key}.groupConcurrency`, 'set only on a queue with fair: true', spec.groupConcurrency);
    resolved.groupConcurrency = spec.groupConcurrency;
  }
  if (spec.groupRateLimit !== undefined) {
    if (!resolved.fair)
      throw new ConfigError(`${key}.groupRateLimit`, 'set only on a queue with fair: true', spec.groupRateLimit);
    resolved.groupRateLimit = checkRateLimit(spec.groupRateLimit, `${key}.groupRateLimit`);
  }
  return resolved;
}
