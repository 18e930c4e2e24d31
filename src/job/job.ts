// The job as it travels through Redis: Sidekiq's / Exq's JSON. Decoding checks the fields nexq
// relies on and keeps the raw text, which is what goes back to Redis (LREM needs it byte-exact).
// One file: the wire format both ways, decoding and encoding the same fields under the same rules.
import { NexqError, type NexqErrorCode } from '../../config/nexq-error';
import { createHash } from 'node:crypto';
import { v4 as uuidv4 } from 'uuid';
import type { TimestampFormat } from '../../config/defaults';
import type { KeyRing } from './encryption';
import { jsonProblems } from './json-safety';
import { JOB_OPTION_NAMES, UNIQUE_OPTION_NAMES, unknownOption } from './option-names';
import { jsonSeconds, jsonTimestamp, nowSeconds } from './time';

/** The fields nexq reads; a payload may hold any others, and they are kept as they are. */
export interface JobPayload {
  class: string;
  args: unknown[];
  jid: string;
  queue: string;
  retry?: boolean | number;
  enqueued_at?: number;
  created_at?: number;
  retry_count?: number;
  error_message?: string;
  error_class?: string;
  failed_at?: number;
  retried_at?: number;
  /** ActiveJob: the job class wrapped by `class`. */
  wrapped?: string;
  /** nexq: epoch seconds after which the job is not started (ttl). */
  expires_at?: number;
  /** nexq: taken off the backup list before it runs. */
  at_most_once?: boolean;
  /** nexq: the unique lock this job holds, and when it lets go. */
  unique_key?: string;
  unique_until?: 'success' | 'start' | 'expiry';
  /** nexq: times a handler asked to run it again later (nack). */
  nacks?: number;
  /** nexq: seconds to keep the handler's return value as the job's result (`keepResult`). */
  keep_result?: number;
  /** The batch it belongs to (Sidekiq Pro's field). */
  bid?: string;
  /** nexq: the group (tenant) it belongs to; a fair queue serves its groups in turn (docs/fair-queues.md). */
  group?: string;
  [field: string]: unknown;
}

/** Past its ttl: a node files it in dead as expired instead of running it, and nexq/testing skips it. */
export function hasExpired(job: JobPayload, now = nowSeconds()): boolean {
  return job.expires_at !== undefined && now > job.expires_at;
}

/** A job fetched from Redis: the raw text and what it decodes to. */
export interface FetchedJob {
  raw: string;
  job: JobPayload;
  queue: string;
}

export class MalformedJobError extends NexqError {
  static override readonly code = 'JOB_MALFORMED';
  override readonly name = 'MalformedJobError';
}

/** Decodes a job's JSON and checks its shape. Throws MalformedJobError saying what is wrong. */
export function decodeJob(raw: string): JobPayload {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new MalformedJobError(`job is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MalformedJobError(`job must be a JSON object, got ${Array.isArray(value) ? 'an array' : typeof value}`);
  }
  const job = value as Record<string, unknown>;
  if (typeof job.class !== 'string' || job.class === '') throw new MalformedJobError('job has no "class" string');
  if (!Array.isArray(job.args)) throw new MalformedJobError('job "args" must be an array');
  if (typeof job.jid !== 'string' || job.jid === '') throw new MalformedJobError('job has no "jid" string');
  if (job.queue !== undefined && typeof job.queue !== 'string')
    throw new MalformedJobError('job "queue" must be a string');
  if (job.retry !== undefined && typeof job.retry !== 'boolean' && !Number.isInteger(job.retry)) {
    throw new MalformedJobError('job "retry" must be true, false or an integer');
  }
  if (job.retry_count !== undefined && job.retry_count !== null && !Number.isInteger(job.retry_count)) {
    throw new MalformedJobError('job "retry_count" must be an integer');
  }
  return job as JobPayload;
}

export interface JobOptions {
  /** `true` (the default: up to maxRetries), `false`, or a number of retries. */
  retry?: boolean | number;
  /** Use this jid instead of a fresh UUID. */
  jid?: string;
  /** Run this many seconds from now (Disque's DELAY; the same as enqueueIn). */
  delay?: number;
  /**
   * Seconds the job may wait to start once it is due (now, or its `delay`/`in`/`at` time); past
   * that it goes to the dead set as expired (Disque's TTL, counted from when the job could run).
   */
  ttl?: number;
  /** Refuse the enqueue with QueueFullError when the queue already holds this many jobs (Disque's MAXLEN). */
  maxlen?: number;
  /** Run at most once: taken off the backup list before it runs, so never retried nor re-run after a crash. */
  atMostOnce?: boolean;
  /** At most one such job at a time: a second enqueue resolves to the first one's jid. */
  unique?: UniqueOptions;
  /**
   * Stack lines of a failure kept in `error_backtrace` (Sidekiq's `backtrace`): true all, a count,
   * false none; default the node's `backtrace`.
   */
  backtrace?: boolean | number;
  /** Keep the handler's return value as the job's result for this many seconds (`nexq.result`, `nexq.waitFor`). */
  keepResult?: number;
  /**
   * Store the job's `args` encrypted (AES-256-GCM under the node's `encryptionKeys`; docs/encryption.md).
   * A handler module's `encrypt` export or its queue's `encrypt` does the same for every job of it.
   */
  encrypt?: boolean;
  /**
   * The group (tenant) the job belongs to, written as its top-level `group` field: a queue
   * configured `fair: true` serves its groups in turn (docs/fair-queues.md). None: the default group.
   */
  group?: string;
}

/** Longest group name, in UTF-16 units: a group name is a key's suffix and a dashboard label, not data. */
export const MAX_GROUP_LENGTH = 200;

/**
 * Why `group` cannot name a job's group (undefined when it can): a non-empty string of at most
 * MAX_GROUP_LENGTH characters without control characters (a fair queue's keys hold it after a NUL).
 */
export function groupProblem(group: unknown): string | undefined {
  if (typeof group !== 'string' || group === '') return 'group must be a non-empty string';
  if (group.length > MAX_GROUP_LENGTH)
    return `group must be at most ${MAX_GROUP_LENGTH} characters (got ${group.length})`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(group)) return 'group must not hold control characters';
  // A lone surrogate (a name cut inside an emoji) is a group Redis' JSON decoder refuses, so the
  // fetch would count the job in the default group while its settle gave back the named one's slot.
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(group))
    return 'group must be well-formed Unicode (no lone surrogate)';
  return undefined;
}

export interface UniqueOptions {
  /** Seconds the lock lives at most. */
  for: number;
  /** When the lock is released: the job succeeded (default), started, or only when `for` runs out. */
  until?: 'success' | 'start' | 'expiry';
  /** What makes two jobs the same; default: queue, class and args. */
  key?: string;
}

/** The unique-lock name of a job: its `unique.key`, or a digest of queue, class and args. */
export function uniqueKeyOf(queue: string, className: string, argsJson: string, unique: UniqueOptions): string {
  return unique.key ?? createHash('sha1').update(`${queue}\0${className}\0${argsJson}`).digest('hex');
}

const positive = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value > 0;

function checkDisqueOptions(options: JobOptions): void {
  // JavaScript callers can pass anything: the checks read the options as unknown first.
  const given: unknown = options;
  if (typeof given !== 'object' || given === null) throw new InvalidJobError('job options must be an object');
  const unknown = unknownOption(options, JOB_OPTION_NAMES);
  if (unknown) throw new InvalidJobError(unknown);
  if (
    options.delay !== undefined &&
    !(typeof options.delay === 'number' && Number.isFinite(options.delay) && options.delay >= 0)
  ) {
    throw new InvalidJobError('delay must be a number of seconds >= 0');
  }
  // A ttl counts from when the job is due, so any ttl > 0 can be met; 0 or less would expire it unrun.
  if (options.ttl !== undefined && !positive(options.ttl))
    throw new InvalidJobError('ttl must be a number of seconds > 0 (it counts from when the job is due)');
  if (options.maxlen !== undefined && !(Number.isInteger(options.maxlen) && options.maxlen > 0))
    throw new InvalidJobError('maxlen must be an integer > 0');
  if (options.atMostOnce !== undefined && typeof options.atMostOnce !== 'boolean')
    throw new InvalidJobError('atMostOnce must be true or false');
  if (options.encrypt !== undefined && typeof options.encrypt !== 'boolean')
    throw new InvalidJobError('encrypt must be true or false');
  if (options.keepResult !== undefined && !positive(options.keepResult))
    throw new InvalidJobError('keepResult must be a number of seconds > 0 (how long the result is kept)');
  if (options.group !== undefined) {
    const problem = groupProblem(options.group);
    if (problem) throw new InvalidJobError(problem);
  }
  const u = options.unique;
  if (u !== undefined) {
    const givenUnique: unknown = u;
    if (typeof givenUnique !== 'object' || givenUnique === null || !Number.isInteger(u.for) || u.for <= 0)
      throw new InvalidJobError('unique.for must be a whole number of seconds > 0');
    const unknownUnique = unknownOption(u, UNIQUE_OPTION_NAMES, 'unique.');
    if (unknownUnique) throw new InvalidJobError(unknownUnique);
    if (u.until !== undefined && !['success', 'start', 'expiry'].includes(u.until))
      throw new InvalidJobError("unique.until must be 'success', 'start' or 'expiry'");
    if (u.key !== undefined && (typeof u.key !== 'string' || u.key === ''))
      throw new InvalidJobError('unique.key must be a non-empty string');
  }
}

export class InvalidJobError extends NexqError {
  static override readonly code: NexqErrorCode = 'JOB_INVALID';
  override readonly name: string = 'InvalidJobError';
}

/**
 * A payload above `maxPayloadBytes`: refused at enqueue (nothing written), or, pushed by a foreign
 * producer, sent to the dead set with this class when fetched. An InvalidJobError too.
 */
export class PayloadTooLargeError extends InvalidJobError {
  static override readonly code: NexqErrorCode = 'JOB_TOO_LARGE';
  override readonly name: string = 'PayloadTooLargeError';
}

/** The PayloadTooLargeError for `payload` (a job's JSON) when above `maxPayloadBytes` (0: no limit), else undefined. */
export function payloadTooLarge(payload: string, maxPayloadBytes: number): PayloadTooLargeError | undefined {
  // Each UTF-16 unit is 1 to 3 bytes of UTF-8: most payloads are decided without counting.
  if (maxPayloadBytes === 0 || payload.length * 3 <= maxPayloadBytes) return undefined;
  const bytes = Buffer.byteLength(payload);
  if (bytes <= maxPayloadBytes) return undefined;
  return new PayloadTooLargeError(
    `job payload is ${bytes} bytes, above maxPayloadBytes (${maxPayloadBytes}): pass a key to data stored elsewhere, or raise the option`,
  );
}

/**
 * The job fields that carry a trace's context (W3C Trace Context and Baggage), top level as Ruby's
 * OpenTelemetry instrumentation for Sidekiq writes them; Sidekiq and Exq keep fields they do not know.
 */
export const TRACE_FIELDS: readonly string[] = ['traceparent', 'tracestate', 'baggage'];

export interface EncodeOptions {
  /** Trace context to write into the job (only the TRACE_FIELDS, string values). */
  trace?: Record<string, unknown>;
  timestamps?: TimestampFormat;
  /**
   * When a scheduled job is due (epoch seconds); absent for a job that runs now. A scheduled job has
   * no `enqueued_at` until the scheduler moves it into its queue (as in Sidekiq), and its ttl runs from then.
   */
  runAt?: number;
  /** Now, epoch seconds (created_at, enqueued_at, the ttl's start): the node's Clock, Redis' time. */
  now?: number;
  /** The batch the job belongs to: Sidekiq Pro's `bid` field, which Sidekiq keeps as it is. */
  bid?: string;
  /** Encrypt the args under this ring's first key (src/job/encryption.ts). */
  seal?: KeyRing;
}

/** The JSON a producer writes, with fields in Sidekiq's order. Throws InvalidJobError on bad input. */
export function encodeNewJob(
  queue: string,
  className: string,
  args: unknown[],
  options: JobOptions = {},
  encoding: EncodeOptions = {},
): { jid: string; json: string } {
  if (typeof className !== 'string' || className === '')
    throw new InvalidJobError('class name must be a non-empty string');
  if (!Array.isArray(args)) throw new InvalidJobError(`args of ${className} must be an array`);
  const problems = jsonProblems(args, 'args');
  if (problems.length) throw new InvalidJobError(`args of ${className} are not JSON-safe: ${problems.join('; ')}`);
  checkDisqueOptions(options);
  const retry = options.retry ?? true;
  if (typeof retry !== 'boolean' && !(Number.isInteger(retry) && retry >= 0)) {
    throw new InvalidJobError('retry must be true, false or an integer >= 0');
  }
  const { backtrace } = options;
  if (backtrace !== undefined && typeof backtrace !== 'boolean' && !(Number.isInteger(backtrace) && backtrace >= 0)) {
    throw new InvalidJobError('backtrace must be true, false or a number of lines >= 0');
  }
  const jid = options.jid ?? uuidv4();
  if (typeof jid !== 'string' || jid === '') throw new InvalidJobError('jid must be a non-empty string');
  let argsJson: string;
  try {
    argsJson = JSON.stringify(args);
  } catch (err) {
    throw new InvalidJobError(`args of ${className} cannot be written as JSON: ${(err as Error).message}`);
  }
  const nowAt = encoding.now ?? nowSeconds();
  const now = jsonTimestamp(nowAt, encoding.timestamps ?? 'seconds');
  // nexq's own fields come only with the options that need them: without them the JSON is Sidekiq's.
  let extra = '';
  if (options.ttl !== undefined) extra += `,"expires_at":${jsonSeconds((encoding.runAt ?? nowAt) + options.ttl)}`;
  if (options.atMostOnce) extra += ',"at_most_once":true';
  if (encoding.trace)
    for (const field of TRACE_FIELDS) {
      const value = encoding.trace[field];
      if (typeof value === 'string') extra += `,"${field}":${JSON.stringify(value)}`;
    }
  if (options.keepResult !== undefined) extra += `,"keep_result":${Math.ceil(options.keepResult)}`;
  if (encoding.bid !== undefined) extra += `,"bid":${JSON.stringify(encoding.bid)}`;
  if (options.group !== undefined) extra += `,"group":${JSON.stringify(options.group)}`;
  const { seal } = encoding;
  if (options.unique) {
    extra += `,"unique_key":${JSON.stringify(uniqueKeyOf(queue, className, seal ? seal.digest(argsJson) : argsJson, options.unique))},"unique_until":${JSON.stringify(options.unique.until ?? 'success')}`;
  }
  const json =
    `{"retry":${JSON.stringify(retry)},"queue":${JSON.stringify(queue)},${backtrace === undefined ? '' : `"backtrace":${backtrace},`}"class":${JSON.stringify(className)},` +
    `"args":${seal ? seal.seal(argsJson, className, jid) : argsJson},"jid":${JSON.stringify(jid)},"created_at":${now}${encoding.runAt !== undefined ? '' : `,"enqueued_at":${now}`}${extra}}`;
  return { jid, json };
}
