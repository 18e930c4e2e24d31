// nexq/testing: fake and inline modes, performJob and assertions for the tests of nexq's users.
// Nothing here opens a Redis connection or a worker thread.
export { createTestNexq, currentTestNexq, TestNexq } from './test-nexq';
export type { DrainOptions, NexqEnqueuer, TestMode, TestNexqOptions } from './test-nexq';
export type { RecordedJob } from './store';
export type { JobMatch } from './assertions';
export type { PerformJobOptions, PerformOutcome } from './perform-job';
export { JobArgsError, JobFailedError } from './errors';
export { InvalidJobError } from '../job/job';
export type { JobPayload } from '../job/job';
export { UnknownJobClassError } from '../handlers/registry';
export { ConfigError } from '../../config/validate';
export type { JobContext } from '../../workers/handler-loader';
export type { JobOutcome, ThrownError } from '../../workers/protocol';
