// The errors of nexq's Redis layer, and the one place where a Redis error reply becomes one of
// them (`fromReply`). nexq's Lua scripts refuse with `NEXQ_<CODE> <message>` (redis.error_reply),
// CODE being the NexqError code of the class it maps to; Redis' own OOM and WRONGTYPE replies are
// mapped too, so a caller sees "Redis is out of memory", not a generic script error.
import { NexqError } from '../../config/nexq-error';

/** Enqueue refused: the queue is paused for input (`pause(queue, 'in' | 'all')`). */
export class QueuePausedError extends NexqError {
  static override readonly code = 'QUEUE_PAUSED';
  override readonly name = 'QueuePausedError';
}

/** Enqueue refused: the queue already holds its `maxlen` jobs. */
export class QueueFullError extends NexqError {
  static override readonly code = 'QUEUE_FULL';
  override readonly name = 'QueueFullError';
}

/** A batch that does not exist: it expired (30 days after its last step by default), or the bid is wrong. */
export class BatchNotFoundError extends NexqError {
  static override readonly code = 'BATCH_NOT_FOUND';
  override readonly name = 'BatchNotFoundError';
}

/**
 * Some jobs of one enqueueAll were written and others were not: in the per-queue key layout one
 * queue's call failed after another's landed (one call per queue), or a list of more than 5,000
 * jobs (enqueue-scripts.ts, ENQUEUE_CALL_MOST) was refused after its first calls. `written` holds,
 * per job, its result or undefined when it was not written, so a caller can retry the rest without
 * writing the others twice.
 */
export class PartialEnqueueError extends NexqError {
  static override readonly code = 'ENQUEUE_PARTIAL';
  override readonly name = 'PartialEnqueueError';

  constructor(
    override readonly cause: Error,
    readonly written: Array<{ jid: string; conflict: boolean } | undefined>,
  ) {
    super(
      `enqueue partly written: ${written.filter(Boolean).length} of ${written.length} job(s); the others failed: ${cause.message}`,
    );
  }
}

/**
 * Redis refused a write because it reached `maxmemory` (under `maxmemory-policy noeviction`).
 * Nothing was written by the refused command or script; it succeeds again once memory frees.
 */
export class RedisOutOfMemoryError extends NexqError {
  static override readonly code = 'REDIS_OOM';
  override readonly name = 'RedisOutOfMemoryError';
}

/** A key nexq uses holds another type than nexq expects (written by something else). */
export class RedisWrongTypeError extends NexqError {
  static override readonly code = 'REDIS_WRONG_TYPE';
  override readonly name = 'RedisWrongTypeError';
}

/** Per-queue key layout: a script's keys are in different cluster slots (a key built for the wrong queue). */
export class CrossSlotError extends NexqError {
  static override readonly code = 'CROSS_SLOT';
  override readonly name = 'CrossSlotError';
}

/** `waitReplicas`: fewer replicas than asked acknowledged a write in time (its outcome is unknown). */
export class UnconfirmedWriteError extends NexqError {
  static override readonly code = 'WRITE_UNCONFIRMED';
  override readonly name = 'UnconfirmedWriteError';
}

/** A job asked to be deleted is running: cancel it instead. */
export class JobRunningError extends NexqError {
  static override readonly code = 'JOB_RUNNING';
  override readonly name = 'JobRunningError';
}

/** A name or namespace the key layout cannot hold (per-queue layout: braces, class limits). */
export class KeyLayoutError extends NexqError {
  static override readonly code = 'KEY_LAYOUT';
  override readonly name = 'KeyLayoutError';
}

/** What nexq's scripts may refuse with, after `NEXQ_`: each code's class, and what the refusal was. */
const SCRIPT_CODES: Record<string, (message: string) => NexqError> = {
  QUEUE_PAUSED: (message) => new QueuePausedError(`enqueue refused: ${message}`),
  QUEUE_FULL: (message) => new QueueFullError(`enqueue refused: ${message}`),
};

/** Redis 7 appends where a script raised its error: `... script: <sha>, on @user_script:12.` */
const SCRIPT_PLACE = / script: [0-9a-f]{40}, on @user_script:\d+\.$/;

/**
 * The NexqError an error from Redis stands for, or the error itself when it is none of them.
 * `doing` says what was refused, for the out-of-memory message (e.g. "enqueue").
 */
export function fromReply(err: unknown, doing = 'the write'): Error {
  if (!(err instanceof Error)) return new Error(String(err));
  if (err instanceof NexqError) return err;
  const message = err.message;
  const coded = /^NEXQ_([A-Z_]+) /.exec(message);
  const make = coded && SCRIPT_CODES[coded[1]];
  if (coded && make) return make(message.slice(coded[0].length).replace(SCRIPT_PLACE, ''));
  if (message.startsWith('OOM ')) return outOfMemory(doing, err);
  // A MULTI whose commands Redis refused as they were queued: EXECABORT, with the refusals in
  // ioredis' previousErrors.
  const queued = (err as Error & { previousErrors?: unknown[] }).previousErrors ?? [];
  const oom = queued.find((e): e is Error => e instanceof Error && e.message.startsWith('OOM '));
  if (message.startsWith('EXECABORT ') && oom) return outOfMemory(doing, oom);
  if (message.startsWith('WRONGTYPE ')) return new RedisWrongTypeError(message, { cause: err });
  return err;
}

function outOfMemory(doing: string, cause: Error): RedisOutOfMemoryError {
  return new RedisOutOfMemoryError(
    `Redis is out of memory: ${doing} was refused, nothing written, because Redis uses more than its ` +
      `maxmemory and its maxmemory-policy evicts nothing (noeviction). Raise maxmemory or free memory (e.g. trim the dead set); ` +
      `running jobs still settle, and nexq carries on once memory frees`,
    { cause },
  );
}
