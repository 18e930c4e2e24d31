// Opens ioredis connections with nexq's policy: reconnect forever with capped backoff, and keep
// passwords out of every message that could reach a log. The same policy holds for a single
// server, a Sentinel-managed master and every node of a Redis Cluster.
import Redis, { Cluster, RedisOptions } from 'ioredis';
import { DEFAULT_WAIT_TIMEOUT_MS, HostPort, NexqRedisOptions, RedisTarget } from '../../config/redis-options';
import { redactRedisUrl } from '../runtime/logger';
import { defineScripts, Scripted, ScriptedRedis } from './scripts';
import { confirmWrites } from './wait-replicas';
import { failUnansweredOnClose } from './unanswered';
import { handleIoredisOwnCommands } from './own-commands';
import { keepCommandTimerList } from './command-timer-list';

export const RECONNECT_MAX_DELAY_MS = 2000;
export const COMMAND_TIMEOUT_MS = 10_000;

/**
 * A call on a Redis Cluster waits out what the cluster answers while its slot moves or fails over
 * (docs/cluster.md, "A slot in migration"): TRYAGAIN and ASK while the slot is open (every call
 * whose keys are not all on one side waits until the move ends), CLUSTERDOWN and closed
 * connections during a failover, MOVED while the nodes' views converge. It is sent again every
 * CLUSTER_RETRY_DELAY_MS until it runs or its command timeout ends it, which is longer than a single
 * server's so a call rides out a slot held open for 10 s with room to spare.
 */
export const CLUSTER_COMMAND_TIMEOUT_MS = 20_000;
const CLUSTER_RETRY_DELAY_MS = 100;
/**
 * ioredis counts redirections rather than timing them, so enough are allowed that the command
 * timeout is what ends a call: a retry after TRYAGAIN goes to a random master, which may answer
 * MOVED, then the source ASK and the target TRYAGAIN again, three in each wait at most.
 */
const CLUSTER_MAX_REDIRECTIONS = 3 * Math.ceil(CLUSTER_COMMAND_TIMEOUT_MS / CLUSTER_RETRY_DELAY_MS) + 16;

/** The time a command of `client` may take (with its redirections, on a cluster) before it fails. */
export function commandTimeoutOf(client: Redis | Cluster): number {
  return client instanceof Cluster ? CLUSTER_COMMAND_TIMEOUT_MS : COMMAND_TIMEOUT_MS;
}

const backoff = (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 10), RECONNECT_MAX_DELAY_MS);

/** What every connection to one Redis server gets, whatever found that server. */
const POLICY: RedisOptions = {
  // A command sent while disconnected waits for the reconnect rather than failing after 20 tries.
  maxRetriesPerRequest: null,
  // ...but a command Redis does not answer in time fails, so no actor waits forever on a
  // half-open connection; each actor retries or backs off in its own way.
  commandTimeout: COMMAND_TIMEOUT_MS,
  // A command in flight when the connection drops fails instead of being sent again: a fetch or
  // enqueue that already ran would run twice. The manager reclaims what a lost fetch moved.
  autoResendUnfulfilledCommands: false,
  // A master demoted by a failover answers writes with READONLY: reconnect, which asks the
  // sentinels (or the cluster) for the new master. The failed command is not sent again.
  reconnectOnError: (err) => (err.message.startsWith('READONLY') ? 1 : false),
};

/** The ioredis options of a target, without nexq's own fields. */
function ioredisOptions(target: NexqRedisOptions): RedisOptions {
  const { url: _url, cluster: _cluster, waitReplicas: _replicas, waitTimeout: _timeout, ...rest } = target;
  return rest;
}

export function connect(target: RedisTarget, overrides: RedisOptions = {}): Scripted<Redis> {
  const options: NexqRedisOptions = typeof target === 'string' ? { url: target } : target;
  if (options.cluster)
    throw new Error('connect() opens one server or a Sentinel master; use connectCluster() for redis.cluster');
  const base: RedisOptions = {
    // Reconnect with growing delay, capped so a restarted Redis (or a new master) is found again quickly.
    retryStrategy: backoff,
    ...POLICY,
    // Off: nexq batches where it pays (one fetch script per poll, acks per turn of the event
    // loop), and ioredis' auto-pipelining wraps every other command in a pipeline of its own.
    // npm run bench, same machine, off vs on: W1 one at a time 10,260-11,411 vs 6,223-7,870 jobs/s,
    // W2 c50 13,281-13,624 vs 9,581-10,183. On with waitReplicas, whose write confirmation
    // (./wait-replicas.ts) was built and tested with it: off, a write sent while the connection
    // was down could wait for a confirmation that never came (its test failed half the time).
    enableAutoPipelining: options.waitReplicas !== undefined && options.waitReplicas > 0,
    lazyConnect: true,
    // Sentinel: learn of a failover from the sentinels' +switch-master at once, and keep
    // asking them (with the same backoff) when none answers.
    ...(options.sentinels ? { failoverDetector: true, sentinelRetryStrategy: backoff } : {}),
    ...overrides,
  };
  const fields = { ...ioredisOptions(options), ...base };
  if (fields.commandTimeout !== undefined) keepCommandTimerList(fields.commandTimeout);
  const client = options.url ? new Redis(options.url, fields) : new Redis(fields);
  failUnansweredOnClose(client);
  handleIoredisOwnCommands(client);
  if (options.waitReplicas) confirmWrites(client, options.waitReplicas, options.waitTimeout ?? DEFAULT_WAIT_TIMEOUT_MS);
  return defineScripts(client);
}

/**
 * A Redis Cluster client with the same policy on every node, and nexq's scripts. They run
 * unchanged as long as every key is in one slot: the namespace carries a hash tag (`{exq}`), which
 * the config requires with `redis.cluster` (see docs/internals.md).
 */
export function connectCluster(
  target: NexqRedisOptions & { cluster: HostPort[] },
  overrides: RedisOptions = {},
): Scripted<Cluster> {
  const { lazyConnect = true, ...nodeOptions } = { ...ioredisOptions(target), ...overrides };
  keepCommandTimerList(CLUSTER_COMMAND_TIMEOUT_MS);
  const cluster = new Cluster(target.cluster, {
    redisOptions: { ...nodeOptions, ...POLICY, commandTimeout: CLUSTER_COMMAND_TIMEOUT_MS },
    clusterRetryStrategy: backoff,
    // Wait out a moving or failing-over slot (see CLUSTER_COMMAND_TIMEOUT_MS), where ioredis'
    // defaults give up after 16 redirections (1.6 s of TRYAGAIN) and follow a MOVED at once, which
    // can bounce between two nodes whose views of the slot differ for a moment.
    maxRedirections: CLUSTER_MAX_REDIRECTIONS,
    retryDelayOnTryAgain: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnMoved: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnClusterDown: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnFailover: CLUSTER_RETRY_DELAY_MS,
    // Off: ioredis' auto-pipelines group commands by node and fail the commands of a slot that
    // moved (a failover) with MOVED instead of following it (redis/ioredis#2075).
    enableAutoPipelining: false,
    lazyConnect,
    // Reads from masters only: a replica may not have the latest write yet.
    scaleReads: 'master',
  });
  failUnansweredOnClose(cluster);
  handleIoredisOwnCommands(cluster);
  if (target.waitReplicas) {
    const replicas = target.waitReplicas;
    const timeout = target.waitTimeout ?? DEFAULT_WAIT_TIMEOUT_MS;
    // Each node's connection WAITs for its own replicas.
    cluster.on('+node', (node: Redis) => confirmWrites(node, replicas, timeout));
  }
  return defineScripts(cluster);
}

/** A client of whatever `target` names: one server, a Sentinel master, or a cluster. */
export function connectTarget(target: RedisTarget): ScriptedRedis {
  if (typeof target !== 'string' && target.cluster) return connectCluster({ ...target, cluster: target.cluster });
  return connect(target);
}

/** Where a client points, without credentials. */
export function describeTarget(target: RedisTarget): string {
  if (typeof target === 'string') return redactRedisUrl(target);
  const list = (nodes: Array<Partial<HostPort>>) =>
    nodes.map((n) => `${n.host ?? '127.0.0.1'}:${n.port ?? 26379}`).join(',');
  if (target.url) return redactRedisUrl(target.url);
  if (target.sentinels) return `sentinel master "${target.name}" via ${list(target.sentinels)}, db ${target.db ?? 0}`;
  if (target.cluster) return `cluster via ${list(target.cluster)}`;
  return `redis://${target.host ?? '127.0.0.1'}:${target.port ?? 6379}/${target.db ?? 0}`;
}
