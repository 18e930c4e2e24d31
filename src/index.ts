// nexq's library entry: `import { Nexq } from 'nexq'`.
export { Nexq } from './nexq';
export type { WaitForOptions } from './nexq';
export type { Batch, BatchOptions, BatchStatus, BulkJob, NexqStartOptions, PauseMode } from './nexq';
export type { BatchCallback, BatchJob } from './admin/batch';
export type { GroupInfo } from './admin/groups';
export type { ElsewherePosition, JobPosition, QueuedPosition } from './admin/position';
export type { ScheduleInfo, ScheduleSpec, Schedules } from './admin/schedules';
export type { BackoffFunction, RetryPolicy, RetryVerdict } from './job/retry-policy';
export type { EnqueueResult } from './actors/enqueuer';
// Every error class, each with its stable `code` (docs/errors.md).
export * from './errors';
export type { MetricsServerSpec, NexqConfig, NexqOptions, QueueSpec } from '../config/defaults';
export type { HostPort, NexqRedisOptions, RedisTarget } from '../config/redis-options';
export type { JobOptions, JobPayload, UniqueOptions } from './job/job';
export type { Middleware, JobEvent } from './run/middleware';
export type { ChunkContext, JobContext } from '../workers/handler-loader';
export type { ChunkSettings } from '../workers/chunk-settings';
export { JobEvents } from './events/job-events';
export type { JobEventBase, JobEventListener, JobEventMap, JobEventName, JobErrorInfo } from './events/job-events';
export { NodeMetrics } from './metrics/prometheus';
export type { MetricsHandler } from './metrics/prometheus';
export { defineJob } from './define-job';
export type {
  BatchCallbackArg,
  CallbackArgs,
  ClassNameFor,
  EnqueueTarget,
  JobDefinition,
  JobDefinitionOptions,
  JsonSafe,
  TypedJob,
  TypedPerform,
  TypedPerformMany,
} from './define-job';
export { nexqDashboard } from './web/mount';
export type { DashboardMountOptions, NexqDashboard } from './web/mount';
export { nexqFastify } from './web/fastify';
