// The errors of the admin commands, each with a code of its own (docs/errors.md).
import { NexqError } from '../../config/nexq-error';

/** The jid named is not where the command looks (it may have finished or moved). */
export class JobNotFoundError extends NexqError {
  static override readonly code = 'JOB_NOT_FOUND';
  override readonly name = 'JobNotFoundError';
}

/** The queue named is not in `<ns>:queues`: no job was ever enqueued to it. */
export class UnknownQueueError extends NexqError {
  static override readonly code = 'QUEUE_UNKNOWN';
  override readonly name = 'UnknownQueueError';
}

/** `nexq drain` on a queue with work that no live process serves (or that is paused for output). */
export class QueueUnservedError extends NexqError {
  static override readonly code = 'QUEUE_UNSERVED';
  override readonly name = 'QueueUnservedError';
}

/** A live process with that identity is not in `<ns>:processes`. */
export class UnknownProcessError extends NexqError {
  static override readonly code = 'PROCESS_UNKNOWN';
  override readonly name = 'UnknownProcessError';
}
