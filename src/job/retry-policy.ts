// A handler's own retry policy (Sidekiq's `sidekiq_options retry:` with `sidekiq_retry_in`,
// BullMQ's backoff strategies): what a handler module may export as `retry`, checked when the
// module loads, and the delays of the named backoffs. A backoff function runs on the worker thread
// that ran the job (workers/perform-task.ts); its verdict comes back with the failure and
// src/job/failure.ts applies it. Without a policy every failure follows Sidekiq's rules unchanged.
import { inspect } from 'node:util';

/** What a backoff function may answer: seconds until the retry, or Sidekiq's `:kill` / `:discard`. */
export type RetryVerdict = number | 'kill' | 'discard';

/**
 * `(retryCount, error)`: retryCount is Sidekiq's count, 0 on the first failure; error is what
 * `perform` threw. Returning nothing (undefined, null) keeps Sidekiq's backoff for this retry.
 */
export type BackoffFunction = (
  retryCount: number,
  error: unknown,
) => RetryVerdict | null | undefined | Promise<RetryVerdict | null | undefined>;

export const NAMED_BACKOFFS = ['sidekiq', 'exponential', 'fixed'] as const;
export type NamedBackoff = (typeof NAMED_BACKOFFS)[number];

/** A handler module's `retry` export. */
export interface RetryPolicy {
  /** Retries before the job goes to dead; a job's own numeric `retry` field still wins. */
  max?: number;
  backoff?: NamedBackoff | BackoffFunction;
  /** Seconds: the fixed delay, the first exponential delay, or Sidekiq's constant 15. */
  base?: number;
}

/** A handler's policy and, when its backoff is a function, the verdict its thread gave for this failure. */
export interface HandlerRetry {
  policy?: RetryPolicy;
  verdict?: RetryVerdict;
}

export const DEFAULT_BACKOFF_BASE = 15;

/** The module's `retry` export, checked; a string saying what is wrong with it otherwise. */
export function readRetryPolicy(value: unknown): RetryPolicy | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `retry must be an object { max?, backoff?, base? }, not ${inspect(value)}`;
  const { max, backoff, base, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length) return `retry has an unknown field ${JSON.stringify(unknown[0])} (max, backoff, base)`;
  if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 0))
    return `retry.max must be a whole number >= 0, not ${JSON.stringify(max)}`;
  if (backoff !== undefined && typeof backoff !== 'function' && !NAMED_BACKOFFS.includes(backoff as NamedBackoff))
    return `retry.backoff must be ${NAMED_BACKOFFS.map((b) => `'${b}'`).join(', ')} or a function, not ${JSON.stringify(backoff)}`;
  if (base !== undefined && !(typeof base === 'number' && Number.isFinite(base) && base >= 0))
    return `retry.base must be a number of seconds >= 0, not ${JSON.stringify(base)}`;
  return value;
}

/** A backoff function's answer, checked: a verdict, undefined for "Sidekiq's default", or what is wrong. */
export function readVerdict(value: unknown): RetryVerdict | undefined | { problem: string } {
  if (value === undefined || value === null) return undefined;
  if (value === 'kill' || value === 'discard') return value;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  return { problem: `the retry backoff returned ${inspect(value)}, not seconds >= 0, 'kill' or 'discard'` };
}

/** Seconds until retry `count` (0 for the first) by a named backoff. */
export function namedDelay(
  backoff: NamedBackoff,
  base: number,
  count: number,
  random: () => number = Math.random,
): number {
  switch (backoff) {
    case 'fixed':
      return base;
    case 'exponential':
      return base * 2 ** count;
    case 'sidekiq':
      return count ** 4 + base + Math.floor(random() * 30) * (count + 1);
  }
}

/**
 * Where a failure with retries left goes by the handler's policy: seconds until its retry,
 * 'kill' (straight to dead) or 'discard'. A function's verdict was given on the thread; undefined
 * when there is none (no backoff, or the thread timed out, died, or the function said nothing):
 * the default backoff applies then.
 */
export function retryVerdict(handler: HandlerRetry | undefined, count: number): RetryVerdict | undefined {
  const backoff = handler?.policy?.backoff;
  if (typeof backoff === 'string') return namedDelay(backoff, handler?.policy?.base ?? DEFAULT_BACKOFF_BASE, count);
  return typeof backoff === 'function' ? handler?.verdict : undefined;
}
