// The errors nexq/testing throws besides the real enqueuer's (InvalidJobError, ConfigError).
import { NexqError } from '../../config/nexq-error';
import { InvalidJobError, JobPayload } from '../job/job';
import type { ThrownError } from '../../workers/protocol';

/** A job run by `drain` or by an inline enqueue failed; `error` is the outcome a node would record. */
export class JobFailedError extends NexqError {
  static override readonly code = 'JOB_FAILED';
  override readonly name = 'JobFailedError';

  constructor(
    readonly job: JobPayload,
    readonly error: ThrownError,
    cause?: unknown,
  ) {
    super(
      `job ${job.class} (jid ${job.jid}, queue ${JSON.stringify(job.queue)}) failed: ${error.class}: ${error.message}`,
      cause === undefined ? undefined : { cause },
    );
  }
}

/**
 * `performJob` was given args that a JSON round trip would change or refuse: an InvalidJobError
 * (as enqueue throws for them) listing every problem on its own line.
 */
export class JobArgsError extends InvalidJobError {
  static override readonly code = 'JOB_ARGS_NOT_JSON';
  override readonly name = 'JobArgsError';

  constructor(
    className: string,
    readonly problems: string[],
  ) {
    super(
      `args of ${className} are not JSON-safe: a job's args travel as JSON, so its handler would get other values than these:\n` +
        problems.map((p) => `  - ${p}`).join('\n'),
    );
  }
}
