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
// closes or goes silent fails its fetch's answer unsure (the fetcher then reclaims the queue) and
// is dropped, never reconnected (src/redis/wait-connection.ts). A wait lasts at most WAIT_SECONDS,
// half a heartbeat interval and what is left of the node's claim, so the fetch of a node that froze
// has run before any other node may declare it dead and recover its backup lists. Redis refusing
// BLMOVE or CLIENT UNBLOCK turns it off for the node; a wait that failed, was lost or came back at
// once with nothing is not sent again for a second.
// Not on Redis Cluster (a blocking client per slot owner), nor for a fair queue (a group's jobs
// can be ready without a push into its list).
import { Cluster, ReplyError } from 'ioredis';
import { NexqError } from '../../config/nexq-error';
import type { RedisClient } from '../redis/client';
import { commandTimeoutOf } from '../redis/connection';
import { UnconfirmedWriteError } from '../redis/errors';
import type { ClassLimit, Fetched, FetchQueue } from '../redis/fetch-script';
import { fetchCalls, lostFetch } from '../redis/fetch-script';
import type { Keys } from '../redis/keys';
import type { ScriptedRedis } from '../redis/scripts';
import { WaitConnection } from '../redis/wait-connection';
import type { WorkTable } from '../run/work-table';
import type { LateFetches } from './late-fetches';
import type { ServedQueues } from './served-queues';

/** The longest one wait blocks, seconds: its fetch then runs, finds nothing, and the node waits again. */
export const WAIT_SECONDS = 5;
/** A wait shorter than this is not worth sending, seconds (the claim is about to lapse). */
const SHORTEST_WAIT_SECONDS = 0.1;
/** After a wait that failed, was lost, or came back at once with nothing, the node waits on signals this long, ms. */
export const BACK_OFF_MS = 1000;
/** A wait answered this soon without a job counts as back at once, ms. */
const AT_ONCE_MS = 10;

/**
 * How long one wait may block, seconds. A wait is sent only while the node's claim holds: its last
 * beat acknowledged was sent less than `nodeTimeout` − `heartbeatInterval` ago (src/run/lease.ts).
 * A survivor may declare it dead `nodeTimeout` after that beat at the soonest, so more than
 * `heartbeatInterval` after the wait was sent: a wait shorter than that (half, for the time it
 * takes to reach Redis) has run its fetch by then, whether or not the node froze meanwhile. Each
 * wait is also cut to what is left of the claim (`sendIfIdle`).
 */
export function waitSeconds(nodeTimeout: number, heartbeatInterval: number): number {
  return Math.max(
    SHORTEST_WAIT_SECONDS,
    Math.min(WAIT_SECONDS, heartbeatInterval / 2, (nodeTimeout - heartbeatInterval) / 2),
  );
}

/** Replies that say the server, not the queue, is in a changing state: a failover, a load, a slot move. */
const SERVER_CHANGING = /^(READONLY|UNBLOCKED|LOADING|MASTERDOWN|TRYAGAIN|CLUSTERDOWN)\b/;

/**
 * An error Redis replied about the queue (as nexq's error for it, or ioredis' ReplyError), not one
 * of the connection, of replicas that did not confirm in time, or of a server changing role under it.
 */
function isRefusal(err: unknown): boolean {
  if (err instanceof UnconfirmedWriteError) return false;
  return (err instanceof ReplyError || err instanceof NexqError) && !SERVER_CHANGING.test((err as Error).message);
}

/** Redis will never run BLMOVE for this client: an ACL, or a proxy without blocking commands (not OOM, BUSY...). */
function neverBlocks(err: unknown): boolean {
  return (
    err instanceof ReplyError && /^NOPERM|unknown (sub)?command|unsupported|not supported/i.test((err as Error).message)
  );
}

interface Out {
  queue: string;
  answered: Promise<void>;
}

/** What a decision tells the waiting fetch of the node. */
export interface NodeNow {
  now: number;
  quiet: boolean;
  /** Under a node-wide cap (`totalConcurrency`). */
  capped: boolean;
  /** Ms left of the node's claim on its backup lists (src/run/lease.ts). */
  leftMs: number;
}

export class WaitingFetch {
  private readonly connection: WaitConnection;
  private out?: Out;
  /** Redis refused BLMOVE or CLIENT UNBLOCK: this node waits on wake signals only. */
  private off = false;
  /** Epoch ms before which no wait is sent. */
  private backOffUntil = 0;

  /**
   * `client` gives the node's main client (read at each use); `late` hears the answers; `ready`
   * hears a new connection ready for a wait; `seconds` is how long one wait may block (waitSeconds).
   */
  constructor(
    private readonly client: () => RedisClient,
    private readonly keys: Keys,
    private readonly nodeId: string,
    private readonly classes: ClassLimit[],
    private readonly late: LateFetches,
    private readonly warn: (message: string) => void,
    private readonly seconds: number,
    ready: () => void,
  ) {
    this.connection = new WaitConnection(client, { ready, refused: (why) => this.turnOff(why) });
  }

  /** The longest a wait out may take to answer once ended (its own length, if CLIENT UNBLOCK could not end it), ms. */
  get longestMs(): number {
    return this.seconds * 1000 + 1000;
  }

  /**
   * Sends the wait when the node serves one plain queue, idle or maybe idle (`unknown`: a signal
   * came, or it was never fetched), with a free slot, not quiet, not under a node-wide cap: it
   * returns at once if the queue holds jobs, else when one comes. Its answer comes as a late
   * fetch's; the decision after it waits again, so a signal heard meanwhile needs no fetch of its
   * own (the next wait returns at once for its job). True when it sent the wait.
   */
  sendIfIdle(queues: ServedQueues, table: WorkTable, node: NodeNow): boolean {
    const served = queues.all();
    if (served.length !== 1 || this.out || this.off || node.quiet || node.capped) return false;
    if (Date.now() < this.backOffUntil || this.client() instanceof Cluster) return false;
    const [q] = served;
    if ((q.state !== 'empty' && q.state !== 'unknown') || q.fair || q.brokenUntil > node.now || this.late.has(q.name))
      return false;
    const free = table.free(q.name);
    const seconds = Math.min(this.seconds, node.leftMs / 1000);
    if (free <= 0 || !table.isActive(q.name) || seconds < SHORTEST_WAIT_SECONDS) return false;
    const connection = this.connection.ready();
    if (!connection) return false;
    queues.sending([q.name]);
    this.send(connection, queues.fetchQueue(q.name, free, queues.reserveRoom(q.name)), seconds);
    return true;
  }

  /**
   * Ends the wait out now (CLIENT UNBLOCK): its fetch runs at once and answers as usual. Resolves
   * once it answered, or after `withinMs`. With `close`, the connection closes once the wait
   * answered (the node will not wait again soon: quiet, or more than one queue).
   */
  async end(withinMs: number, close = false): Promise<void> {
    const out = this.out;
    if (!out) {
      if (close) this.connection.close();
      return;
    }
    // Closed once answered, unless a newer wait went out meanwhile (the node waits again).
    if (close)
      out.answered.then(
        () => this.out === undefined && this.connection.close(),
        () => undefined,
      );
    let timer: NodeJS.Timeout | undefined;
    const unblocked = this.connection.unblock().then((how) => {
      if (how === 'refused') this.turnOff('Redis refused CLIENT UNBLOCK');
      return out.answered;
    });
    // Bounded as a whole: the UNBLOCK itself may wait on a Redis that does not answer.
    await Promise.race([unblocked, new Promise((resolve) => (timer = setTimeout(resolve, withinMs)))]);
    clearTimeout(timer);
  }

  /** Closes the connection for good (the node stops): a wait still out is answered as lost (its queue is reclaimed). */
  shut(): void {
    this.connection.shut();
  }

  private turnOff(why: string): void {
    if (this.off) return;
    this.off = true;
    this.warn(`an idle queue is woken by signals only on this node: ${why}`);
  }

  private send(connection: ScriptedRedis, queue: FetchQueue, seconds: number): void {
    const sentAt = Date.now();
    const backOff = () => {
      this.backOffUntil = Date.now() + BACK_OFF_MS;
    };
    connection.blmove(queue.queueKey, queue.queueKey, 'RIGHT', 'RIGHT', seconds).catch((err: unknown) => {
      backOff();
      if (neverBlocks(err)) this.turnOff(`Redis refused BLMOVE (${(err as Error).message})`);
    });
    const [sent] = fetchCalls(connection, this.keys, this.nodeId, [queue], this.classes);
    // A connection closed, dropped or silent answers the fetch unsure, not as its queue's error:
    // the queue is reclaimed and fetched again on the main connection, which says what is wrong
    // with Redis, if anything.
    const lost = (): Fetched => lostFetch(1);
    const call = {
      queues: sent.queues,
      answer: this.connection.orLost(sent.answer, lost).catch((err: unknown) => {
        if (isRefusal(err)) throw err;
        this.connection.drop(connection); // a new wait finds the server anew
        return lost();
      }),
    };
    // No answer this long after the wait's own end: the connection went silent, and is dropped.
    const timer = setTimeout(() => this.connection.drop(connection), seconds * 1000 + commandTimeoutOf(this.client()));
    const answered = call.answer.then((fetched) => {
      const none = fetched.jobs.every((jobs) => jobs.length === 0);
      if (fetched.unsure || (none && Date.now() - sentAt < AT_ONCE_MS)) backOff();
    }, backOff);
    const out: Out = { queue: queue.name, answered };
    this.out = out;
    out.answered.then(
      () => {
        clearTimeout(timer);
        if (this.out === out) this.out = undefined;
      },
      () => undefined,
    );
    this.late.expect(call);
  }
}
