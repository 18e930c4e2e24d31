// Every error class a user of nexq can meet, in one place: `import { QueuePausedError } from 'nexq'`.
// Each extends NexqError and carries a stable `code` (docs/errors.md has the table). The classes
// live in their layer (config/, src/runtime/, src/job/, src/redis/, ...); this module only gathers
// them. nexq/testing exports its own two (JobFailedError, JobArgsError).
export { NexqError } from '../config/nexq-error';
export type { NexqErrorCode } from '../config/nexq-error';

// Options and input
export { ConfigError, UnknownOptionError } from '../config/config-error';
export { CronError } from '../config/cron';
export { ScheduleError } from './admin/schedules';
export { NotFairQueueError } from './admin/groups';
export { InvalidJobError, MalformedJobError, PayloadTooLargeError } from './job/job';
export { HandlerCheckError } from './handlers/check';
export { UnknownJobClassError } from './handlers/registry';
export { HandlerLoadError } from '../workers/handler-loader';
export { InvalidProgressError, ResultTooLargeError } from '../workers/job-result';
export { PerformManyResultError } from '../workers/perform-chunk';

// Redis: refusals, faults, and what the key layout cannot hold
export {
  CrossSlotError,
  JobRunningError,
  KeyLayoutError,
  PartialEnqueueError,
  QueueFullError,
  BatchNotFoundError,
  QueuePausedError,
  RedisOutOfMemoryError,
  RedisWrongTypeError,
  UnconfirmedWriteError,
} from './redis/errors';
export { ConnectionEndedError, RedisUnreachableError } from './redis/ended';
export { ResultTimeoutError } from './redis/results';

// A job's run that nexq ended (the `error` of job events, and the job's error_class)
export {
  JobCancelledError,
  JobExpiredError,
  JobInterruptedError,
  JobTimeoutError,
  WorkerOutOfMemory,
  WorkerThreadExited,
} from './job/run-errors';
export { EncryptedArgsError } from './job/encryption';

// The actor runtime and the supervision tree
export { ActorExitedError, CallTimeoutError } from './runtime/errors';
export { RestartIntensityError } from '../supervisors/restart-intensity';
