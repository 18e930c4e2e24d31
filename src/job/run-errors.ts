// The errors of a job's run that nexq ends itself, not the handler's throw: a timeout, a cancel,
// an interruption, an expiry, a thread that died. They are data, not throws: each becomes the
// JobError a failed job records (`error_class` and `error_message` in its payload, as before) and
// the `error` of the job events, where it carries its `code` too (the payload keeps Sidekiq's
// fields only).
import { NexqError } from '../../config/nexq-error';
import type { JobError } from './failure';

/** The job ran longer than `jobTimeout`: its thread was terminated. */
export class JobTimeoutError extends NexqError {
  static override readonly code = 'JOB_TIMEOUT';
  override readonly name = 'JobTimeoutError';
  constructor(readonly timeoutMs: number) {
    super(`job ran longer than ${timeoutMs} ms; its thread was terminated`);
  }
}

/** The job was stopped on request (`Nexq#cancel`). */
export class JobCancelledError extends NexqError {
  static override readonly code = 'JOB_CANCELLED';
  override readonly name = 'JobCancelledError';
  constructor() {
    super('cancelled');
  }
}

/** Its thread was stopped to cancel another job: not its fault (put back, or dead at most once). */
export class JobInterruptedError extends NexqError {
  static override readonly code = 'JOB_INTERRUPTED';
  override readonly name = 'JobInterruptedError';
  constructor() {
    super('its thread was stopped to cancel another job');
  }
}

/** Its `ttl` passed before it started: moved to dead without running. */
export class JobExpiredError extends NexqError {
  static override readonly code = 'JOB_EXPIRED';
  override readonly name = 'JobExpiredError';
  constructor() {
    super('expired');
  }
}

/** The job's thread ran out of heap (`maxHeapMb`). The name is the `error_class` nexq has always written. */
export class WorkerOutOfMemory extends NexqError {
  static override readonly code = 'THREAD_OUT_OF_MEMORY';
  override readonly name = 'WorkerOutOfMemory';
  constructor(detail: string) {
    super(`the job's thread ran out of memory: ${detail}`);
  }
}

/** The job's thread died under it (`process.exit`, a crash). The name is the `error_class` nexq has always written. */
export class WorkerThreadExited extends NexqError {
  static override readonly code = 'THREAD_EXITED';
  override readonly name = 'WorkerThreadExited';
  constructor(detail: string) {
    super(`the job's thread died: ${detail}`);
  }
}

/** The record a failed run keeps of `err`: its class and message, and its code when it is nexq's. */
export function jobErrorOf(err: unknown): JobError {
  if (err instanceof NexqError) return { class: err.name, message: err.message, code: err.code };
  const e = err as Error | undefined;
  return { class: e?.name ?? 'Error', message: e?.message ?? String(err) };
}
