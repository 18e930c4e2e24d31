// The parts of a node that runs jobs (src/run/node-context.ts, NodeJobs): the table of running
// jobs with its shared slots, the thread pool that reads that table, the middleware, the acks
// batched per turn, the counters the Stats actor flushes; and what the node encrypts. Built once
// at start, after Redis answered and before the supervision tree starts.
import { ConfigError } from '../../config/config-error';
import type { ResolvedConfig } from '../../config/validate';
import type { HandlerRegistry } from '../handlers/registry';
import { loggingMiddleware } from '../run/logging-middleware';
import type { Middleware } from '../run/middleware';
import { AckBatcher } from '../redis/settle-scripts';
import type { NodeContext, NodeJobs } from '../run/node-context';
import { ThreadPool } from '../pool/thread-pool';
import { BatchJob, joinBatch } from '../admin/batch';
import { JobCounters, statsMiddleware } from '../run/job-counters';
import { ClassTimings } from '../run/class-timings';
import { Encryption, KeyRing } from '../job/encryption';
import { RunningJobs } from '../run/running-jobs';
import { reportProgress } from '../run/progress';

/** The job path's parts. The node's lease tells the threads, through the pool's claims, how long they may start. */
export function openJobParts(ctx: NodeContext, handlers: HandlerRegistry, middleware: Middleware[]): NodeJobs {
  const { config, logger } = ctx;
  const running = new RunningJobs(() => ctx.clock.now());
  const counters = new JobCounters();
  const timings = new ClassTimings((name) => handlers.has(name));
  // The configured queues are subscribed from the start, so every reader of the table sees them.
  for (const q of config.queues) running.slots.add(q.name, q.concurrency);
  const pool = new ThreadPool({
    threads: config.threads,
    maxHeapMb: config.threadMaxHeapMb,
    mainYoungGenerationMb: config.maxYoungGenerationMb,
    threadYoungGenerationMb: config.threadYoungGenerationMb,
    data: {
      workTable: running.slots.buffer,
      retry: { dialect: config.dialect, maxRetries: config.maxRetries },
      setup: config.threadSetup,
    },
    onProgress: (jid, value) => reportProgress(ctx, running, jid, value),
    enqueueInBatch: (bid, jobs) => joinBatch(ctx, bid).enqueueAll(jobs as BatchJob[]),
  });
  ctx.lease.onRenewed = (until) => pool.claims.leaseUntil(until);
  ctx.lease.onForfeit = () => pool.claims.newGeneration();
  return {
    running,
    handlers,
    pool,
    middleware: [statsMiddleware(counters, timings), loggingMiddleware(logger), ...middleware],
    counters,
    timings,
    acks: new AckBatcher(() => ctx.redis, ctx.keys),
  };
}

/**
 * What this node encrypts (queues and handler modules that ask) and with which keys. A queue or
 * module that asks with no keys configured stops the start: its jobs would otherwise be refused one
 * by one at enqueue.
 */
export function encryptionOf(config: ResolvedConfig, handlers: HandlerRegistry | undefined): Encryption {
  const encryption = {
    ring: KeyRing.parse(config.encryptionKeys),
    queues: new Set(config.queues.filter((q) => q.encrypt).map((q) => q.name)),
    classes: new Set(handlers?.encryptedClasses),
  };
  const asking = [...encryption.queues].map((q) => `queue ${q}`).concat([...encryption.classes]);
  if (!encryption.ring && asking.length > 0)
    throw new ConfigError('encryptionKeys', `set: ${asking.join(', ')} ask for encrypted args`, undefined);
  return encryption;
}
