// What happens to a job that failed: retried later, buried in the dead set, or dropped, and the
// fields written on it. Sidekiq's rules, with Exq's retry_count convention in the 'exq' dialect.
import { deflateSync, inflateSync } from 'node:zlib';
import type { Dialect, TimestampFormat } from '../../config/defaults';
import type { NexqErrorCode } from '../../config/nexq-error';
import type { JobPayload } from './job';
import { rewriteMembers } from './json-members';
import { HandlerRetry, retryVerdict } from './retry-policy';
import { jsonSeconds, jsonTimestamp } from './time';

export interface JobError {
  class: string;
  message: string;
  backtrace?: string[];
  /** Set when nexq ended the run (JOB_TIMEOUT, HANDLER_MISSING, ...; docs/errors.md). Not written to Redis. */
  code?: NexqErrorCode;
}

export interface FailurePolicy {
  dialect: Dialect;
  maxRetries: number;
  /** Default 'seconds'. */
  timestamps?: TimestampFormat;
  /** Stack lines kept when the job has no `backtrace` field (the node's `backtrace` option); default none. */
  backtrace?: boolean | number;
}

export type FailureOutcome =
  | { to: 'retry'; json: string; at: number; retryCount: number }
  | { to: 'dead'; json: string; retryCount: number }
  | { to: 'discard' };

const MAX_ERROR_MESSAGE = 10_000;

/** Sidekiq's backoff: count^4 + 15 + rand(30) * (count + 1) seconds. */
export function retryDelaySeconds(count: number, random: () => number = Math.random): number {
  return count ** 4 + 15 + Math.floor(random() * 30) * (count + 1);
}

/** Retries the job may have: its own numeric `retry`, none for `retry: false`, else `fallback`. */
export function maxRetriesOf(job: JobPayload, fallback: number): number {
  if (typeof job.retry === 'number') return job.retry;
  return job.retry === false ? 0 : fallback;
}

/**
 * The retry_count this failure writes (Sidekiq writes 0 on the first failure, Exq writes 1), and
 * the failures before this one (0 on the first, in both dialects; Sidekiq's `count`).
 */
export function failureCount(job: JobPayload, dialect: Dialect): { count: number; attemptsSoFar: number } {
  const previous = Number.isInteger(job.retry_count) ? (job.retry_count as number) : undefined;
  const count = dialect === 'sidekiq' ? (previous === undefined ? 0 : previous + 1) : (previous ?? 0) + 1;
  return { count, attemptsSoFar: dialect === 'sidekiq' ? count : count - 1 };
}

/** `handler`: the handler module's own retry policy (src/job/retry-policy.ts), if it has one. */
export function decideFailure(
  raw: string,
  job: JobPayload,
  error: JobError,
  policy: FailurePolicy,
  now: number,
  handler?: HandlerRetry,
): FailureOutcome {
  const previous = Number.isInteger(job.retry_count) ? (job.retry_count as number) : undefined;
  const { count, attemptsSoFar } = failureCount(job, policy.dialect);

  if (job.retry === false && policy.dialect === 'sidekiq') return { to: 'discard' };

  const stamp = jsonTimestamp(now, policy.timestamps ?? 'seconds');
  const updates: Record<string, string> = {
    retry_count: String(count),
    error_message: JSON.stringify(error.message.slice(0, MAX_ERROR_MESSAGE)),
    error_class: JSON.stringify(error.class),
    ...(previous === undefined ? { failed_at: stamp } : { retried_at: stamp }),
  };
  const keep = backtraceLines(job.backtrace ?? policy.backtrace);
  if (keep > 0 && error.backtrace?.length)
    updates.error_backtrace = JSON.stringify(compressBacktrace(error.backtrace.slice(0, keep)));
  // Sidekiq asks its `sidekiq_retry_in` only while retries are left; its `:kill` buries the job now.
  const verdict =
    attemptsSoFar < maxRetriesOf(job, handler?.policy?.max ?? policy.maxRetries)
      ? (retryVerdict(handler, attemptsSoFar) ?? retryDelaySeconds(count))
      : 'kill';
  if (verdict === 'discard') return { to: 'discard' };
  if (verdict !== 'kill') {
    // Sidekiq's `retry_queue` sends retries to another queue.
    if (typeof job.retry_queue === 'string' && job.retry_queue !== '') updates.queue = JSON.stringify(job.retry_queue);
    return { to: 'retry', json: rewriteMembers(raw, updates), at: now + verdict, retryCount: count };
  }
  // Sidekiq's `dead: false`: out of retries, the job is dropped instead of kept in the dead set.
  if (job.dead === false) return { to: 'discard' };
  return { to: 'dead', json: rewriteMembers(raw, updates), retryCount: count };
}

/** Lines to keep for Sidekiq's `backtrace` value: `true` all, a count, anything else none. */
function backtraceLines(option: unknown): number {
  if (option === true) return Infinity;
  return typeof option === 'number' && Number.isInteger(option) && option > 0 ? option : 0;
}

/**
 * Sidekiq's error_backtrace: the JSON array of lines, deflated (zlib), base64. Sidekiq 6.0.1 and
 * later write it so (6.4's `JobRetry#compress_backtrace`) and read it back, as they also read a
 * plain array (`Job#uncompress_backtrace`).
 */
export function compressBacktrace(lines: string[]): string {
  return deflateSync(Buffer.from(JSON.stringify(lines))).toString('base64');
}

/** The lines of an error_backtrace as stored, compressed or a plain array; undefined when unreadable. */
export function readBacktrace(stored: unknown): string[] | undefined {
  let lines: unknown = stored;
  if (typeof stored === 'string') {
    try {
      lines = JSON.parse(inflateSync(Buffer.from(stored, 'base64')).toString());
    } catch {
      return undefined;
    }
  }
  return Array.isArray(lines) ? lines.map(String) : undefined;
}

/** A dead-set entry for a payload nexq cannot read (or will not run), keeping the payload and saying why. */
export function malformedEntry(
  raw: string,
  reason: string,
  queue: string,
  jid: string,
  now: number,
  errorClass = 'MalformedJobError',
): string {
  const fields = {
    error_class: JSON.stringify(errorClass),
    error_message: JSON.stringify(reason),
    failed_at: jsonSeconds(now),
    retry: 'false',
  };
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const hasJid = 'jid' in value && typeof value.jid === 'string';
      return rewriteMembers(raw, { ...fields, ...(hasJid ? {} : { jid: JSON.stringify(jid) }) });
    }
  } catch {
    // Not JSON: wrapped below.
  }
  return (
    `{"class":"Nexq::MalformedJob","args":[${JSON.stringify(raw)}],"queue":${JSON.stringify(queue)},` +
    `"jid":${JSON.stringify(jid)},"retry":false,"error_class":${JSON.stringify(errorClass)},` +
    `"error_message":${JSON.stringify(reason)},"failed_at":${jsonSeconds(now)}}`
  );
}
