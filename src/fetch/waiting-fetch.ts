// The waiting fetch: how a node serving one plain queue, left idle, gets the next job in Redis'
// reply to the push, without a wake signal and a fetch of its own after it. On a connection of its
// own it sends a blocking BLMOVE of the queue onto itself (right end to right end: a rotation that
// changes nothing, the job stays in its queue) and the regular fetch right behind it. Redis holds
// the fetch while the connection blocks and runs it the moment a job arrives (or the wait times
// out), so the job reaches this node's backup list in the same turn of Redis as its push, and the
// fetch's answer comes back as a late fetch's does (./late-fetches.ts): handed over, or its jobs
// put back when the node went quiet, left the queue or lost its claim meanwhile. The fetch is the
// regular one: pauses, limits, prefetch and the job index all honoured.
//
// It ends early by CLIENT UNBLOCK, never by closing its connection: the wait returns, the fetch
// runs and answers as usual, so no fetch can run after its answer was given up (a closed
// connection's held fetch could run while Redis has not yet seen the close). A connection that
// closes or goes silent fails its fetch's answer (the fetcher then reclaims the queue) and is
// dropped, never reconnected. A wait lasts at most WAIT_SECONDS, and at most half of what a
// node's claim on its backup lists outlives its last beat, so the fetch of a node that froze has
// run before any other node may declare it dead and recover its backup lists.
// Not on Redis Cluster (a blocking client per slot owner), nor for a fair queue (a group's jobs
// can be ready without a push into its list).
import Redis, { Cluster, ReplyError } from 'ioredis';
import { NexqError } from '../../config/nexq-error';
import { duplicateClient, RedisClient } from '../redis/client';
import { commandTimeoutOf } from '../redis/connection';
import { watchEnd } from '../redis/ended';
import type { ClassLimit, FetchQueue } from '../redis/fetch-script';
import { fetchCalls, lostFetch } from '../redis/fetch-script';
import type { Keys } from '../redis/keys';
import { defineScriptsLike, ScriptedRedis } from '../redis/scripts';
import { confirmWritesLike } from '../redis/wait-replicas';
import type { WorkTable } from '../run/work-table';
import type { LateFetches } from './late-fetches';
import type { ServedQueues } from './served-queues';

/** The longest one wait blocks, seconds: its fetch then runs, finds nothing, and the node waits again. */
export const WAIT_SECONDS = 5;

/** How long a wait may block on a node whose claim outlives its last beat by `nodeTimeout` − `heartbeatInterval` s. */
export function waitSeconds(nodeTimeout: number, heartbeatInterval: number): number {
  return Math.min(WAIT_SECONDS, Math.max(0.1, (nodeTimeout - heartbeatInterval) / 2));
}

/** After a wait that failed at once or took nothing at once, the node waits on signals this long, ms. */
export const QUICK_RETURN_BACKOFF_MS = 1000;
/** A wait answered this soon without a job counts as quick, ms. */
const QUICK_MS = 10;

/** Replies that say the server, not the queue, is in a changing state: a failover, a load, a slot move. */
const SERVER_CHANGING = /^(READONLY|UNBLOCKED|LOADING|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;

/**
 * An error Redis replied about the queue (as nexq's error for it, or ioredis' ReplyError), not one
 * of the connection or of a server changing role under it (its queue is not to blame for those).
 */
function isRefusal(err: unknown): boolean {
  return (err instanceof ReplyError || err instanceof NexqError) && !SERVER_CHANGING.test((err as Error).message);
}

/** Redis will never run BLMOVE for this client: an ACL, or a proxy that has no blocking commands. */
function neverBlocks(err: unknown): boolean {
  return err instanceof ReplyError && /^NOPERM|unknown command/i.test((err as Error).message);
}

interface Out {
  queue: string;
  answered: Promise<void>;
}

export class WaitingFetch {
  private connection?: ScriptedRedis;
  /** The connection's client id, asked before its first wait (for CLIENT UNBLOCK). */
  private clientId?: Promise<number | undefined>;
  private unwatch?: () => void;
  private out?: Out;
  /** Redis refused the blocking wait itself (an ACL, a proxy): this node waits on wake signals only. */
  private refused = false;
  /** Epoch ms before which no wait is sent (the last one returned at once: see QUICK_MS). */
  private backOffUntil = 0;

  /** `client` gives the node's main client (read at each use); `late` hears the answers. */
  constructor(
    private readonly client: () => RedisClient,
    private readonly keys: Keys,
    private readonly nodeId: string,
    private readonly classes: ClassLimit[],
    private readonly late: LateFetches,
    private readonly warn: (message: string) => void,
    /** How long one wait may block (waitSeconds). */
    private readonly seconds: number,
  ) {}

  /** Whether a wait may be sent now: none out, Redis did not refuse one, not a Cluster, not backing off. */
  get ready(): boolean {
    return !this.out && !this.refused && Date.now() >= this.backOffUntil && !(this.client() instanceof Cluster);
  }

  /** The queue whose wait is out, if any. */
  get queue(): string | undefined {
    return this.out?.queue;
  }

  /**
   * Sends the wait when the node serves one plain queue, idle or maybe idle (`unknown`: a signal
   * came, or it was never fetched), with a free slot, not quiet, not under a node-wide cap: it
   * returns at once if the queue holds jobs, else when one comes. Its answer comes as a late
   * fetch's; the decision after it waits again, so a signal heard meanwhile needs no fetch of its
   * own (the next wait returns at once for its job). True when it sent the wait.
   */
  sendIfIdle(queues: ServedQueues, table: WorkTable, node: { now: number; quiet: boolean; capped: boolean }): boolean {
    const served = queues.all();
    if (served.length !== 1 || !this.ready || node.quiet || node.capped) return false;
    const [q] = served;
    if ((q.state !== 'empty' && q.state !== 'unknown') || q.fair || q.brokenUntil > node.now || this.late.has(q.name))
      return false;
    const free = table.free(q.name);
    if (free <= 0 || !table.isActive(q.name)) return false;
    queues.sending([q.name]);
    this.send(queues.fetchQueue(q.name, free, queues.reserveRoom(q.name)), this.seconds);
    return true;
  }

  /**
   * Sends the wait on `queue` for up to `seconds`, and its fetch behind it; the answer goes to the
   * late fetches (the queue counts as fetched meanwhile). `queue.fair` is never set here.
   */
  send(queue: FetchQueue, seconds: number): void {
    const connection = this.open();
    this.clientId ??= connection.client('ID').then(
      (id) => id,
      () => undefined,
    );
    const wait = connection.blmove(queue.queueKey, queue.queueKey, 'RIGHT', 'RIGHT', seconds);
    const [sent] = fetchCalls(connection, this.keys, this.nodeId, [queue], this.classes);
    // A connection closed or given up fails the fetch unsure, not its queue: it is reclaimed and
    // fetched again on the main connection, which says what is wrong with Redis, if anything.
    const call = {
      queues: sent.queues,
      answer: sent.answer.catch((err: unknown) => {
        if (isRefusal(err)) throw err;
        this.drop(connection); // a new wait finds the server anew
        return lostFetch(1);
      }),
    };
    const sentAt = Date.now();
    wait.catch((err: unknown) => {
      // Cut off with its connection, it is not refused; the fetch behind it says the rest (a
      // queue key of the wrong type, a replica after a failover: the queue's trouble, not the wait's).
      if (!neverBlocks(err) || this.connection !== connection) return;
      this.refused = true;
      this.warn(
        `an idle queue is woken by signals only on this node: Redis refused BLMOVE (${(err as Error).message})`,
      );
    });
    // No answer this long after the wait's own end: the connection went silent, and is dropped.
    const timer = setTimeout(() => this.drop(connection), seconds * 1000 + commandTimeoutOf(this.client()));
    // A wait that came back at once with nothing (it failed, or its queue is unusable) is not sent
    // again at once: a loop of them would keep Redis and the node busy.
    const quick = () => {
      if (Date.now() - sentAt < QUICK_MS) this.backOffUntil = Date.now() + QUICK_RETURN_BACKOFF_MS;
    };
    const answered = call.answer.then((fetched) => {
      if (fetched.jobs.every((jobs) => jobs.length === 0)) quick();
    }, quick);
    const out: Out = { queue: queue.name, answered };
    this.out = out;
    answered.then(
      () => {
        clearTimeout(timer);
        if (this.out === out) this.out = undefined;
      },
      () => undefined,
    );
    this.late.expect(call);
  }

  /**
   * Ends the wait out now (CLIENT UNBLOCK): its fetch runs at once and answers as usual. Resolves
   * once it answered, or after `withinMs`.
   */
  async end(withinMs: number): Promise<void> {
    const out = this.out;
    if (!out) return;
    const id = await this.clientId;
    if (id !== undefined)
      await this.client()
        .client('UNBLOCK', id)
        .catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([out.answered, new Promise((resolve) => (timer = setTimeout(resolve, withinMs)))]);
    clearTimeout(timer);
  }

  /** Closes the connection: a wait still out fails (its queue is reclaimed by whoever hears that). */
  close(): void {
    if (this.connection) this.drop(this.connection);
  }

  private open(): ScriptedRedis {
    if (!this.connection) {
      const main = this.client();
      const connection = duplicateClient(main, { commandTimeout: undefined, enableAutoPipelining: false });
      // With redis.waitReplicas its fetch counts once replicas hold it, as the main connection's.
      if (main instanceof Redis && connection instanceof Redis) confirmWritesLike(main, connection);
      connection.on('error', () => {}); // the shared connection's errors are logged already
      const scripted = defineScriptsLike(main, connection);
      connection.once('close', () => this.drop(scripted));
      this.connection = scripted;
      this.unwatch = watchEnd(connection, 'the waiting fetch connection', () => this.drop(scripted));
    }
    return this.connection;
  }

  private drop(connection: ScriptedRedis): void {
    if (this.connection === connection) {
      this.connection = undefined;
      this.clientId = undefined;
      this.unwatch?.();
      this.unwatch = undefined;
    }
    connection.disconnect();
  }
}
