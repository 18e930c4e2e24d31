// nexq's typed options and their defaults. Every option is documented where it is declared.
// One file, one table: each option's type, JSDoc and default, which scripts/docs-config.ts reads as one.
import type { RedisTarget } from './redis-options';
import type { RateLimit } from './rate-limit';
import os from 'node:os';

/** How Redis keys are laid out: one namespace-wide layout, or each queue's keys in its own cluster slot. */
export type KeyLayout = 'shared' | 'per-queue';

export interface QueueSpec {
  name: string;
  /** Jobs of this queue that may run at once on this node. Defaults to `concurrency`. */
  concurrency?: number;
  /** Jobs of this queue that may run at once across all nodes (give every node the same value). */
  globalConcurrency?: number;
  /** Share of fetches when `totalConcurrency` caps the node: queues are sampled by weight (default 1). */
  weight?: number;
  /**
   * Jobs of this queue that may start per window across all nodes: `{ limit: 100, per: 60 }` is
   * never more than 100 in any 60 seconds (a sliding window, held by the fetch in Redis; see
   * docs/rate-limits.md); `burst: true` (or a number) trades that for an average rate with bursts.
   * Give every node the same value. A queue with a rate limit fetches no jobs ahead (`prefetch`):
   * a job counted in a window starts in it.
   */
  rateLimit?: RateLimit;
  /**
   * Store the `args` of every job enqueued into this queue (by this process) encrypted, as an
   * AES-256-GCM envelope under `encryptionKeys` (docs/encryption.md).
   */
  encrypt?: boolean;
  /**
   * Serve the jobs' groups in turn (each job's `group` option; none: the default group): each
   * fetch takes the next job of the next group with work, so one tenant's backlog never holds up
   * the others (docs/fair-queues.md). Give every node the same value. Jobs prefetched are taken in turn too.
   */
  fair?: boolean;
  /**
   * With `fair`: jobs of one group that may run at once across all nodes (give every node the same
   * value). A group at its limit is passed over; the other groups' jobs run (docs/fair-queues.md).
   */
  groupConcurrency?: number;
  /**
   * With `fair`: jobs of one group that may start per window across all nodes, `{ limit, per }`
   * with the same meaning as `rateLimit`. A group out of room is passed over; the others run.
   */
  groupRateLimit?: RateLimit;
}

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';
export type LogFormat = 'json' | 'pretty';
/** Whose conventions to write where Exq and Sidekiq differ (see docs/compatibility.md). */
export type Dialect = 'exq' | 'sidekiq';
export type TimestampFormat = 'seconds' | 'milliseconds';

/** A job enqueued at every tick of a cron expression (UTC), once per tick across all nodes. */
export interface PeriodicSpec {
  /**
   * 5 fields `minute hour day-of-month month day-of-week`, or 6 with `second` first; each `*`, `n`,
   * `a-b`, a step (`*` or `a-b`, then `/n`) or a comma list; `@daily` and friends (see config/cron.ts).
   */
  cron: string;
  queue: string;
  class: string;
  /** Default []. */
  args?: unknown[];
  /**
   * Names the schedule's state in Redis (`<ns>:nexq:periodic:<name>`) and its jids
   * (`periodic-<name>-<tick epoch seconds>`); letters, digits, `.`, `_`, `-`. Defaults to a hash of
   * cron, queue, class and args, so editing any of them starts a new schedule; a name keeps it.
   */
  name?: string;
  /**
   * IANA time zone whose wall clock the cron fields read (`Europe/Berlin`); default UTC. A time
   * skipped by daylight saving does not run that day; a time that happens twice runs once.
   */
  tz?: string;
}

/** The standalone Prometheus endpoint: GET /metrics on `host` (default 127.0.0.1) and `port` (0: any free one). */
export interface MetricsServerSpec {
  port: number;
  host?: string;
}

/** The web dashboard a node serves (off unless given). */
export interface WebOptions {
  /** TCP port (0: any free port; the node logs which). */
  port: number;
  /** Address to bind; default 127.0.0.1, so only this machine reaches it unless told otherwise. */
  host?: string;
  /** Basic auth: give both to require them on every request. */
  username?: string;
  password?: string;
}

export interface NexqOptions {
  /**
   * A redis:// or rediss:// URL, or ioredis options: `{ sentinels: [{ host, port }], name }` for
   * Sentinel, `{ cluster: [{ host, port }] }` for Redis Cluster, `waitReplicas` to confirm writes on
   * replicas (see config/redis-options.ts, docs/reliability.md and docs/cluster.md).
   */
  redis: RedisTarget;
  /** Prefix of every key, joined with ':'. '' means no prefix (Sidekiq's layout). */
  namespace: string;
  /** The queues this node serves: names, or `{ name, concurrency, globalConcurrency, weight, rateLimit }`. */
  queues: Array<string | QueueSpec>;
  /** Default per-queue concurrency on this node. */
  concurrency: number;
  /**
   * Jobs that may run at once on this node, all queues together (0: no cap beyond each queue's).
   * With a cap, each poll hands the free slots to queues in order (strict, the default) or, when any
   * queue has a `weight`, by a weighted random sample, so no queue starves (gocraft's sampler).
   */
  totalConcurrency: number;
  /**
   * Jobs of a class that may run at once across all nodes, by class name (the job's `class` field):
   * `{ ReportJob: 2 }`. Held by the fetch; a job whose class is at its limit keeps its place in the
   * queue while the jobs behind it go first. Give every node the same value.
   */
  classConcurrency: Record<string, number>;
  /**
   * Jobs of a class that may start per window across all nodes, by class name:
   * `{ ChargeCard: { limit: 10, per: 1 } }` is never more than 10 in any second (a sliding window,
   * held by the fetch in Redis; `burst` as for a queue's `rateLimit`; see docs/rate-limits.md). A
   * job whose class is over its limit keeps its place in the queue while the jobs behind it go
   * first. In the per-queue key layout each queue counts a class apart. Give every node the same
   * value.
   */
  classRateLimits: Record<string, RateLimit>;
  /**
   * Jobs a node keeps fetched ahead per queue, beyond its free slots, as a share of the queue's
   * concurrency (1: as many as it runs at once; 0: none), so a freed slot starts the next job on
   * its worker thread without a round trip to the main thread or Redis. While a queue's jobs run
   * shorter than a refill takes (about 1 ms, timed on the threads), it keeps as many as its slots
   * finish in one refill, up to 64, so sub-millisecond jobs do not wait on the refill; a queue
   * whose jobs run 1 ms or more keeps exactly this share. They wait in a thread's run queue and in
   * the node's backup list (recovered like running jobs after a crash), are shown as reserved, not
   * busy, go back to the head of their queue when the node goes quiet, stops or leaves the queue,
   * or at the next refill after a pause for output (until then, those held may still start: half
   * of them, or most where the queue's jobs slowed down meanwhile), and only as many are taken as
   * leave 100 more waiting, so a short queue is shared. Not for queues with `globalConcurrency` or
   * a `rateLimit` (a job counted in a window starts in it), on a node with `classConcurrency`,
   * `classRateLimits` or a `totalConcurrency` cap; not for a queue of concurrency 1, whose jobs so
   * start in their queue's order. Set 0 for long jobs, and for a queue that mixes sub-millisecond
   * jobs with long ones: a job fetched ahead waits for a slot of its node even when another node
   * is free.
   */
  prefetch: number;
  /** Handlers by class name: `{ HardWorker: './jobs/hard-worker.js' }`. */
  jobs: Record<string, string>;
  /**
   * A folder whose `Foo.js` / `Foo.mjs` / `Foo.cjs` (or `Foo.ts` / `.mts` / `.cts`, run through tsx or Node's type
   * stripping: docs/jobs.md) handles class `Foo`, and `Foo/Bar.js` class `Foo::Bar`.
   */
  jobsDir?: string;
  /**
   * A module each worker thread imports once, before its first job: set up what a thread needs of
   * its own, such as an OpenTelemetry tracer provider (docs/jobs.md, "Tracing").
   */
  threadSetup?: string;
  /**
   * Names this node's backup lists. By default `<hostname>-<n>`, the lowest n no live process on
   * this host holds (a claim in Redis): a process restarted on the host gets its predecessor's id
   * back and re-runs its unfinished jobs at boot; a stopped node puts them back in their queues,
   * and one whose predecessor cannot be proven dead (another container) takes the next n, leaving
   * them to a survivor. A fixed id (Exq's way) leaves them in backup for the node's next boot.
   */
  nodeId?: string;
  /** 'enqueuer' starts no manager, scheduler or threads: a producer only. */
  mode: 'default' | 'enqueuer';
  /**
   * Milliseconds: how often queues held back by a limit or paused are looked at. Empty queues are
   * not polled at this pace: nexq's own pushes wake idle nodes at once (see `idlePollInterval`).
   */
  pollTimeout: number;
  /**
   * Milliseconds: how often a node checks whether its empty queues hold jobs no wake signal
   * announced. Where Redis tracks keys for the node (CLIENT TRACKING: a single server or Sentinel),
   * a job LPUSHed by a foreign producer (Sidekiq's client, Exq) starts at once and this check runs
   * every 10 × this only; in Redis Cluster such a job starts within this. One EXISTS per check over
   * every empty queue (one per queue in the per-queue key layout), so an idle node's traffic does
   * not grow with its queues (docs/reliability.md, "Waking idle nodes").
   */
  idlePollInterval: number;
  /** Milliseconds between moves of due jobs out of `schedule` and `retry`. */
  schedulerPollTimeout: number;
  /**
   * Milliseconds `stop()` waits for running jobs; the node puts the jobs it cuts off back in their
   * queues (with a fixed `nodeId`, they stay in backup for its next boot). The stop's Redis steps
   * end 3 s after it, whether Redis answers or not.
   */
  shutdownTimeout: number;
  /**
   * Milliseconds `Nexq.start` (and `nexq start`) waits for Redis to answer before it fails, naming the
   * address, where it came from and why (0: keep trying for ever). Until then it says after 2 s which
   * address does not answer, and keeps trying.
   */
  redisStartTimeout: number;
  /** Retries of a failed job whose `retry` field is `true`. */
  maxRetries: number;
  /**
   * Stack lines of a failure kept in the job's `error_backtrace` (Sidekiq's field) when the job does
   * not say (Sidekiq's per-job `backtrace: true | n`): a count, `false`/0 none, `true` all (at most 100).
   */
  backtrace: boolean | number;
  /**
   * Largest job payload (its JSON, in bytes) enqueue accepts; 0: no limit. A bigger one is refused
   * with PayloadTooLargeError, and one a foreign producer pushed goes to the dead set when fetched.
   * Each payload crosses to Redis and back, is held in memory by Redis (queue, backup list, process
   * entry) and by the node, and is copied into a worker thread; the scripts that move it hold Redis
   * while they copy or compare it (a 20 MB argument took a node to 345 MB). 1 MB leaves room for
   * documents of some hundred KB (SQS and Cloud Tasks cap messages there too; BullMQ's per-job
   * `sizeLimit` has no default; Sidekiq has no limit). Pass a key to bigger data instead.
   */
  maxPayloadBytes: number;
  /** Cap of the dead set by count: the oldest dead jobs go first. */
  deadMaxJobs: number;
  /** Cap of the dead set by age, in seconds. */
  deadTimeoutSeconds: number;
  /**
   * Hard limit of one job's run, in milliseconds (0: none); past it the thread is terminated. With
   * a timeout each job gets a thread of its own.
   */
  jobTimeout: number;
  /** Worker threads that run handlers. */
  threads: number;
  /** Memory limit of each worker thread, in MB (0: Node's default). */
  threadMaxHeapMb: number;
  /**
   * Most MB of the main thread's young generation while the node runs handlers (0: V8's own, up
   * to 32 MB); V8 doubles it from 2 MB, so other values round up to the next power of two. See
   * src/pool/young-generation-cap.ts. Process-wide: the smallest of the running nodes'.
   */
  maxYoungGenerationMb: number;
  /**
   * MB of young generation each worker thread starts with (0: V8's 2 MB). While the main thread's
   * is at its cap no thread's grows (V8's growth setting is process-wide), so this is its size
   * then: raise it for handlers that keep many objects alive across awaits.
   */
  threadYoungGenerationMb: number;
  /** Seconds between heartbeats of this node's process entry. */
  heartbeatInterval: number;
  /** Seconds without a beat after which a node is dead and its unfinished jobs are re-enqueued. */
  nodeTimeout: number;
  /** Seconds between this node's checks for dead nodes. */
  nodeCheckInterval: number;
  /**
   * Seconds without a beat in Exq's `<ns>:heartbeats` after which an Exq node is dead and, when no
   * Exq node beats any more, a nexq node re-enqueues its backup lists (0: never). Set it to at
   * least Exq's `heartbeat_interval` x (`missed_heartbeats_allowed` + 1); the default is Exq's
   * documented 60 s x 6. Shared key layout only (docs/compatibility.md).
   */
  exqNodeTimeout: number;
  /**
   * Whose `retry_count` convention to write, `exq` or `sidekiq`; `sidekiq` when the namespace is
   * `''` (see docs/compatibility.md).
   */
  dialect: Dialect;
  /**
   * How keys are laid out (src/redis/keys.ts). 'shared': Exq's and Sidekiq's names. 'per-queue': each
   * queue's keys carry the queue's hash tag, so queues spread over a Redis Cluster's masters (nexq's
   * own layout: Sidekiq and Exq cannot read it). 'auto' (the default): per-queue with `redis.cluster`
   * and a namespace without a hash tag, shared otherwise.
   */
  keyLayout: 'auto' | KeyLayout;
  /**
   * How job timestamps are written: float epoch seconds (Sidekiq 6/7, Exq) or integer epoch ms
   * (Sidekiq 8). Both are read.
   */
  timestamps: TimestampFormat;
  /** The least severe log lines written. */
  logLevel: LogLevel;
  /** `pretty` lines for a terminal, or `json`: one object per line, a job's fields as fields. */
  logFormat: LogFormat;
  /** Jobs enqueued on cron schedules (UTC) by the nodes in 'default' mode; default none. */
  periodic: PeriodicSpec[];
  /**
   * Prometheus metrics (src/metrics/): `true` counts from start for `nexq.metrics.handler`, an object
   * also serves them on its own HTTP port. Default false: `nexq.metrics` counts from first use.
   */
  metrics: boolean | MetricsServerSpec;
  /** Serve the web dashboard on this node (see src/web); default off. */
  web?: WebOptions;
  /**
   * Secret. Keys for encrypted job arguments (`encrypt: true` on a handler module, a `defineJob`
   * definition, a job's options or a queue): a comma-separated list of base64 32-byte keys
   * (`openssl rand -base64 32`). The first encrypts; every one decrypts, so a new key goes first
   * and an old one stays until no job needs it (docs/encryption.md). Never logged nor shown.
   */
  encryptionKeys?: string;
}

export type NexqConfig = Partial<NexqOptions>;

export function defaults(): NexqOptions {
  return {
    redis: 'redis://127.0.0.1:6379',
    namespace: 'exq',
    queues: ['default'],
    concurrency: 10,
    totalConcurrency: 0,
    classConcurrency: {},
    classRateLimits: {},
    prefetch: 1,
    jobs: {},
    jobsDir: undefined,
    threadSetup: undefined,
    nodeId: undefined,
    mode: 'default',
    pollTimeout: 100,
    idlePollInterval: 1000,
    schedulerPollTimeout: 1000,
    shutdownTimeout: 5000,
    redisStartTimeout: 30_000,
    maxRetries: 25,
    backtrace: 20,
    maxPayloadBytes: 1024 * 1024,
    deadMaxJobs: 10_000,
    deadTimeoutSeconds: 180 * 24 * 3600,
    jobTimeout: 0,
    threads: Math.max(1, os.availableParallelism()),
    threadMaxHeapMb: 0,
    maxYoungGenerationMb: 16,
    threadYoungGenerationMb: 4,
    heartbeatInterval: 5,
    nodeTimeout: 30,
    nodeCheckInterval: 5,
    exqNodeTimeout: 360,
    dialect: 'exq',
    keyLayout: 'auto',
    timestamps: 'seconds',
    logLevel: 'info',
    logFormat: 'pretty',
    periodic: [],
    metrics: false,
    web: undefined,
    encryptionKeys: undefined,
  };
}
