// What every actor of one node shares: its config and the resources the node opened for it.
import type { NodeClaim } from '../redis/node-claim';
import type { ResolvedConfig } from '../../config/validate';
import type { ActorSnapshot, Registry } from '../runtime';
import type { JobEvents } from '../events/job-events';
import type { HandlerRegistry } from '../handlers/registry';
import type { Logger } from '../runtime/logger';
import type { Middleware } from './middleware';
import type { AckBatcher } from '../redis/settle-scripts';
import type { Keys } from '../redis/keys';
import type { ScriptedRedis } from '../redis/scripts';
import type { ThreadPool } from '../pool/thread-pool';
import type { JobCounters } from './job-counters';
import type { ClassTimings } from './class-timings';
import type { RunningJobs } from './running-jobs';
import type { Clock } from '../job/time';
import type { Encryption } from '../job/encryption';
import type { NodeLifecycle } from './lifecycle';
import type { NodeLease } from './lease';

export interface NodeContext {
  config: ResolvedConfig;
  /** The main client; replaced by the redis-connection actor when ioredis ends it: read it at each use. */
  redis: ScriptedRedis;
  /** Opens a fresh main client with the node's target and policy (not connected yet). */
  openRedis: () => ScriptedRedis;
  keys: Keys;
  logger: Logger;
  registry: Registry;
  /** This process in Redis' process list: hostname:pid:random, as Sidekiq names processes. */
  identity: string;
  /** The claim on the default node id (src/redis/node-claim.ts), renewed each beat; none with a fixed `nodeId`. */
  nodeClaim?: NodeClaim;
  startedAt: number;
  /** Now by Redis' clock (docs/time.md): every due time and timestamp the node computes. */
  clock: Clock;
  /** Absent in enqueuer mode. */
  jobs?: NodeJobs;
  /** Rehydrated (backup lists back in their queues) and quiet (Sidekiq's TSTP): one-way steps. */
  readonly lifecycle: NodeLifecycle;
  /** Whether this node's claim on its backup lists surely holds (src/run/lease.ts): renewed by each beat. */
  readonly lease: NodeLease;
  /** Typed job events for users' hooks and the metrics. */
  events: JobEvents;
  /** The keys of encrypted args, and which queues and classes ask for them (src/job/encryption.ts). */
  encryption: Encryption;
  /** Asks the node to stop gracefully (Sidekiq's TERM through Redis). */
  requestStop: () => void;
  /** The supervision tree's states and restarts, once the tree is up (the heartbeat publishes it). */
  supervisionTree?: () => ActorSnapshot;
}

/** What a node that runs jobs has besides: the parts of the job's path. */
export interface NodeJobs {
  /** The jobs running here, with the shared table of slots. */
  running: RunningJobs;
  pool: ThreadPool;
  handlers: HandlerRegistry;
  middleware: Middleware[];
  /** Acks of plain jobs, sent together once per turn of the event loop. */
  acks: AckBatcher;
  /** Processed and failed counts since the Stats actor's last flush. */
  counters: JobCounters;
  /** Per-class counts and run times since that flush (the Metrics page). */
  timings: ClassTimings;
}

/** The context of a node that runs jobs: what the manager, the dispatcher and the job runners get. */
export type JobsContext = NodeContext & { readonly jobs: NodeJobs };

export function runsJobs(ctx: NodeContext): ctx is JobsContext {
  return ctx.jobs !== undefined;
}

/** Registered names of the node's actors. */
export const ActorNames = {
  redis: 'redis',
  redisConnection: 'redis-connection',
  clockWatch: 'clock-watch',
  stats: 'stats',
  heartbeat: 'heartbeat',
  enqueuer: 'enqueuer',
  scheduler: 'scheduler',
  periodic: 'periodic',
  nodeReaper: 'node-reaper',
  canceller: 'canceller',
  jobRunners: 'job-runners',
  manager: 'manager',
} as const;
