// New jobs as a producer writes them: checks each request and encodes it, without touching Redis.
// The Enqueuer writes the result to Redis; nexq/testing records it in memory. Both share this, so
// a test sees the same JSON, jids, timestamps and errors as production.
import { defaults, type TimestampFormat } from '../../config/defaults';
import { isQueueName } from '../../config/queue-options';
import { encodeNewJob, InvalidJobError, JobOptions, payloadTooLarge, uniqueKeyOf } from './job';
import { Encryption, KeyRing, wantsEncryption } from './encryption';
import { dateToSeconds, LATEST_DATE_SECONDS, nowSeconds } from './time';

export interface EnqueueRequest {
  queue: string;
  class: string;
  args: unknown[];
  /** Run at this time instead of now. */
  at?: Date;
  /** Run this many seconds from now instead of now. */
  in?: number;
  options?: JobOptions;
  /** Trace context for the job's `traceparent`, `tracestate`, `baggage` fields (nexq's producer span sets it). */
  trace?: Record<string, string>;
  /** The batch the job belongs to (written as Sidekiq Pro's `bid`); set by a Batch, not by callers. */
  bid?: string;
}

/** One checked, encoded job: `runAt` (epoch seconds) is set when it goes to `schedule`. */
export interface PreparedJob {
  queue: string;
  jid: string;
  json: string;
  runAt?: number;
  maxlen?: number;
  /** The unique lock to take, and for how long. */
  unique?: { key: string; ttl: number };
}

/**
 * Checks and encodes every request, or throws InvalidJobError for the first bad one
 * (PayloadTooLargeError for one above `maxPayloadBytes`, counted as stored: encrypted if it is).
 * `now`: epoch seconds by the node's clock (Redis' time, docs/time.md), the start of `in`, `delay`
 * and ttl. `encryption`: which jobs to store with encrypted args, and the keys (src/job/encryption.ts).
 */
export function prepareJobs(
  requests: EnqueueRequest[],
  timestamps?: TimestampFormat,
  now: number = nowSeconds(),
  maxPayloadBytes: number = defaults().maxPayloadBytes,
  encryption?: Encryption,
): PreparedJob[] {
  if (!Array.isArray(requests)) throw new InvalidJobError('enqueueAll takes an array of jobs');
  return requests.map((request) => {
    const given: unknown = request; // JavaScript callers can pass anything
    if (typeof given !== 'object' || given === null)
      throw new InvalidJobError('each job must be an object { queue, class, args }');
    const { queue } = request;
    if (!isQueueName(queue))
      throw new InvalidJobError(`queue name ${JSON.stringify(queue)} is not valid (no spaces or colons)`);
    const runAt = scheduledAt(request, now);
    const seal = sealOf(encryption, request);
    const { jid, json } = encodeNewJob(queue, request.class, request.args, request.options, {
      timestamps,
      runAt,
      now,
      trace: request.trace,
      bid: request.bid,
      seal,
    });
    const tooLarge = payloadTooLarge(json, maxPayloadBytes);
    if (tooLarge) throw tooLarge;
    const unique = request.options?.unique;
    const argsJson = unique && JSON.stringify(request.args);
    return {
      queue,
      jid,
      json,
      runAt,
      maxlen: request.options?.maxlen,
      unique: unique && {
        key: uniqueKeyOf(queue, request.class, seal ? seal.digest(argsJson as string) : (argsJson as string), unique),
        ttl: unique.for,
      },
    };
  });
}

/**
 * The ring to encrypt the request's args with, when its options, queue or class ask for it; a job
 * that asks with no keys configured is refused, never stored in the clear.
 */
function sealOf(encryption: Encryption | undefined, request: EnqueueRequest): KeyRing | undefined {
  if (encryption?.inMemory || !wantsEncryption(encryption, request.queue, request.class, request.options))
    return undefined;
  if (!encryption?.ring)
    throw new InvalidJobError(
      `${request.class} asks for encrypted args, but no encryptionKeys are configured (NEXQ_ENCRYPTION_KEYS)`,
    );
  return encryption.ring;
}

/** When the job is due, from `at`, `in` or the `delay` option (at most one); undefined for now. */
function scheduledAt(request: EnqueueRequest, now: number): number | undefined {
  if (request.at !== undefined && request.in !== undefined)
    throw new InvalidJobError('a job takes at most one of "at" and "in"');
  const delay = (request.options as { delay?: unknown } | undefined)?.delay;
  if (delay !== undefined && (request.at !== undefined || request.in !== undefined)) {
    throw new InvalidJobError(
      'a job takes at most one of "at", "in" and the delay option (enqueueAt and enqueueIn give "at" and "in")',
    );
  }
  if (request.at !== undefined) {
    if (!(request.at instanceof Date) || Number.isNaN(request.at.getTime()))
      throw new InvalidJobError('enqueueAt needs a valid Date');
    const at = dateToSeconds(request.at);
    // As Sidekiq's client does: a time already past means now. The caller's absolute time is kept.
    return at > now ? at : undefined;
  }
  if (request.in !== undefined) {
    if (typeof request.in !== 'number' || !Number.isFinite(request.in))
      throw new InvalidJobError('enqueueIn needs a number of seconds');
    return request.in > 0 ? dueWithinDates(now + request.in, `enqueueIn(${request.in})`) : undefined;
  }
  // A bad delay is refused by encodeNewJob's option checks.
  return typeof delay === 'number' && Number.isFinite(delay) && delay > 0
    ? dueWithinDates(now + delay, `the delay option (${delay})`)
    : undefined;
}

/** A due time a Date can hold (every view of the schedule shows it as one), or a clear refusal. */
function dueWithinDates(at: number, what: string): number {
  if (at > LATEST_DATE_SECONDS)
    throw new InvalidJobError(`${what} is due past the latest time a date can hold (year 275760): no job is written`);
  return at;
}
