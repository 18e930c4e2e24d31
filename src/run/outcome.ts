// How one run of a job ended, and where that sends the job: a tagged union produced in one place
// (the JobRunner's run), and one pure table from it to the job's fate. The node settles the fate
// in Redis (src/run/settle.ts); nexq/testing's drain applies the same fates in memory, so tests
// and production agree on what a nack, an expiry or a failure does.
import type { ResolvedConfig } from '../../config/validate';
import { decideFailure, JobError } from '../job/failure';
import type { FetchedJob } from '../job/job';
import type { HandlerRetry } from '../job/retry-policy';
import { countOf } from '../job/json-object';
import { rewriteMembers } from '../job/json-members';
import { JobCancelledError, jobErrorOf, JobExpiredError, JobInterruptedError } from '../job/run-errors';
import { isoOfSeconds, jsonTimestamp } from '../job/time';
import type { JobOutcome } from '../../workers/protocol';
import type { KeptResult } from '../../workers/job-result';

export type Outcome =
  /** The handler returned; `result`: its return value, to keep before the ack (keepResult). */
  | { kind: 'success'; durationMs: number; result?: KeptResult }
  /** The handler returned after asking to run again later (Disque's NACK). */
  | { kind: 'nack'; durationMs: number }
  /** The handler returned saying the remote side throttles it for `seconds` (`this.rateLimited`). */
  | { kind: 'rateLimited'; seconds: number; durationMs: number }
  /** The handler threw or rejected, timed out, or its thread died; `retry`: its module's own policy. */
  | { kind: 'failure'; error: JobError; durationMs: number; retry?: HandlerRetry }
  /** Stopped on request (`cancel`). */
  | { kind: 'cancelled' }
  /** Its thread was stopped to cancel another job: not its fault. */
  | { kind: 'interrupted' }
  /** Taken back from its thread before it started (quiet, stop, unsubscribe, declared dead, its thread died). */
  | { kind: 'withdrawn' }
  /** Its ttl passed before it started. */
  | { kind: 'expired' }
  /** Its args are encrypted and no key of this node opens them, or the envelope was altered. */
  | { kind: 'unopened'; error: JobError }
  /** At most once, and no longer in this node's backup list when it was to start: another copy runs. */
  | { kind: 'superseded' }
  /** Cut off by the stop's shutdownTimeout: it stays where it is (its backup list) for the next run. */
  | { kind: 'abandoned' };

/** The Outcome of a run whose handler returned: a success, a nack or a rateLimited. */
export function okOutcome(result: Extract<JobOutcome, { ok: true }>, durationMs: number): Outcome {
  if (result.rateLimited !== undefined) return { kind: 'rateLimited', seconds: result.rateLimited, durationMs };
  if (result.nack) return { kind: 'nack', durationMs };
  return { kind: 'success', durationMs, result: result.result };
}

export type Fate =
  /** Finished: off the backup list, out of the index, its lock and slots released. */
  | { to: 'done' }
  /** Back into its queue: at the back (a nack, `nacks` raised) or the front (interrupted). */
  | { to: 'queue'; end: 'back' | 'front'; json: string }
  | { to: 'retry'; json: string; at: number; retryCount: number; description: string }
  | { to: 'dead'; json: string; retryCount: number; description: string }
  | { to: 'discard'; retryCount: number; description: string }
  /** Not this run's to move: it stays where it is. */
  | { to: 'stay' };

export type FatePolicy = Pick<ResolvedConfig, 'dialect' | 'maxRetries' | 'timestamps' | 'backtrace'>;

const CANCELLED: JobError = jobErrorOf(new JobCancelledError());
const INTERRUPTED: JobError = jobErrorOf(new JobInterruptedError());
/** The error an expired job is filed in dead with (and its job:dead event says). */
export const EXPIRED: JobError = jobErrorOf(new JobExpiredError());

/**
 * Where `outcome` sends the job. An at-most-once job left its backup list as it started: it is
 * never retried nor put back, so whatever did not succeed files it in the dead set (or drops it).
 */
export function fateOf(outcome: Outcome, fetched: FetchedJob, policy: FatePolicy, now: number): Fate {
  const { job, raw, queue } = fetched;
  const atMostOnce = job.at_most_once === true;
  const previousCount = Number.isInteger(job.retry_count) ? (job.retry_count as number) : 0;
  switch (outcome.kind) {
    case 'superseded':
    case 'abandoned':
      return { to: 'stay' };
    case 'success':
      return { to: 'done' };
    case 'nack':
      if (atMostOnce) return { to: 'done' };
      return {
        to: 'queue',
        end: 'back',
        json: rewriteMembers(raw, { nacks: String(countOf(job.nacks) + 1) }),
      };
    case 'rateLimited':
      // Next in line once the pause ends, its retry count unchanged; at most once it never goes back.
      return atMostOnce ? { to: 'done' } : { to: 'queue', end: 'front', json: raw };
    case 'withdrawn':
      // It never started: it stays in the backup list (settle puts back one taken off it), and the
      // reclaim that follows its runner's exit puts it back at the head of its queue, in fetch order.
      return { to: 'stay' };
    case 'interrupted':
      if (atMostOnce) return fateOf({ kind: 'failure', error: INTERRUPTED, durationMs: 0 }, fetched, policy, now);
      return { to: 'queue', end: 'front', json: raw };
    case 'expired':
      return {
        to: 'dead',
        json: buried(raw, EXPIRED.class, EXPIRED.message, now, policy),
        retryCount: previousCount,
        description: 'expired before it started; moved to dead',
      };
    case 'unopened':
      // Never retried: no run of this node could open it (a node with the key can, from dead).
      return {
        to: 'dead',
        json: buried(raw, outcome.error.class, outcome.error.message, now, policy),
        retryCount: previousCount,
        description: 'its encrypted args do not open; moved to dead',
      };
    case 'cancelled':
      if (atMostOnce) return fateOf({ kind: 'failure', error: CANCELLED, durationMs: 0 }, fetched, policy, now);
      return {
        to: 'dead',
        json: buried(raw, CANCELLED.class, CANCELLED.message, now, policy),
        retryCount: previousCount,
        description: 'cancelled; moved to dead',
      };
    case 'failure': {
      // A job without a `queue` field (other producers) learns it here, or its retry would have none.
      const named = typeof job.queue === 'string' ? raw : rewriteMembers(raw, { queue: JSON.stringify(queue) });
      const decision = atMostOnce
        ? decideFailure(named, { ...job, retry: 0 }, outcome.error, { ...policy, dialect: 'exq' }, now)
        : decideFailure(named, job, outcome.error, policy, now, outcome.retry);
      switch (decision.to) {
        case 'retry':
          return {
            ...decision,
            description: `retry #${decision.retryCount} at ${isoOfSeconds(decision.at) ?? `${decision.at} s after 1970`}`,
          };
        case 'dead':
          return {
            ...decision,
            description: atMostOnce ? 'at most once: moved to dead, not retried' : 'out of retries, moved to dead',
          };
        case 'discard':
          return {
            to: 'discard',
            retryCount: previousCount,
            description: atMostOnce ? 'at most once: dropped, not retried' : 'discarded (retry: false or dead: false)',
          };
      }
    }
  }
}

/** A dead-set entry for a job that ended without running to a failure: the reason, and when. */
function buried(raw: string, errorClass: string, reason: string, now: number, policy: FatePolicy): string {
  return rewriteMembers(raw, {
    error_class: JSON.stringify(errorClass),
    error_message: JSON.stringify(reason),
    failed_at: jsonTimestamp(now, policy.timestamps),
  });
}
