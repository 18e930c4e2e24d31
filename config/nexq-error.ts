// The base of every error nexq throws: a class to catch (`instanceof`) and a stable `code` to
// compare (`err.code === 'QUEUE_PAUSED'`), which survives a rename of the class and a rewording of
// the message. It lives in config/, the bottom layer, so every layer can extend it; which class
// has which code is listed in docs/errors.md, and `import { ... } from 'nexq'` (src/errors.ts)
// exports the classes a user can meet.

/** Every code a NexqError can carry; one per class (docs/errors.md says what each means). */
export type NexqErrorCode =
  // Options and input
  | 'CONFIG_INVALID'
  | 'CONFIG_UNKNOWN_OPTION'
  | 'CRON_INVALID'
  | 'SCHEDULE_INVALID'
  | 'KEY_LAYOUT'
  | 'JOB_INVALID'
  | 'JOB_TOO_LARGE'
  | 'JOB_ARGS_NOT_JSON'
  | 'JOB_MALFORMED'
  | 'HANDLER_MISSING'
  | 'HANDLER_LOAD'
  | 'HANDLER_CHECK'
  // Enqueue and admin against Redis
  | 'QUEUE_PAUSED'
  | 'QUEUE_FULL'
  | 'ENQUEUE_PARTIAL'
  | 'BATCH_NOT_FOUND'
  | 'QUEUE_NOT_FAIR'
  | 'JOB_RUNNING'
  | 'REDIS_OOM'
  | 'REDIS_WRONG_TYPE'
  | 'REDIS_CONNECTION_ENDED'
  | 'RUNNING_COUNT_INVALID'
  | 'CROSS_SLOT'
  | 'WRITE_UNCONFIRMED'
  | 'RESULT_TIMEOUT'
  // A job's run that did not end by its handler's own throw
  | 'JOB_TIMEOUT'
  | 'JOB_CANCELLED'
  | 'JOB_INTERRUPTED'
  | 'JOB_EXPIRED'
  | 'JOB_ENCRYPTED'
  | 'THREAD_OUT_OF_MEMORY'
  | 'THREAD_EXITED'
  | 'JOB_FAILED'
  | 'RESULT_TOO_LARGE'
  | 'PERFORM_MANY_RESULT'
  | 'PROGRESS_INVALID'
  // The actor runtime and the supervision tree
  | 'CALL_TIMEOUT'
  | 'ACTOR_EXITED'
  | 'ACTOR_NAME_TAKEN'
  | 'RESTART_INTENSITY'
  // The CLI and the dashboard
  | 'CLI_USAGE'
  | 'DRAIN_TIMEOUT'
  | 'JOB_NOT_FOUND'
  | 'QUEUE_UNKNOWN'
  | 'QUEUE_UNSERVED'
  | 'PROCESS_UNKNOWN'
  | 'REDIS_UNREACHABLE'
  | 'API_REQUEST';

/**
 * A nexq error. Each subclass names its code once, as `static readonly code`; every instance then
 * carries it as `code`. Subclasses keep their own `name` (what logs and a job's `error_class` show).
 */
export abstract class NexqError extends Error {
  /** The code of this class's errors. */
  declare static readonly code: NexqErrorCode;
  /** Stable across releases: compare this, not the message. */
  readonly code: NexqErrorCode;

  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.code = (new.target as unknown as { code: NexqErrorCode }).code;
  }
}
