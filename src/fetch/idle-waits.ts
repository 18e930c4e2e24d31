// The idle waits of one node: one blocking connection per queue the fetch policy waits on
// (src/redis/blocking-fetch.ts: BLMOVE with the fetch sent right behind it), so a job pushed into
// any empty queue, by any producer, wakes the node at once. Each wait remembers the fetch it
// carries: until its answer is handled that queue's free slots are spoken for and its backup list
// may hold jobs not dispatched yet. After a failed wait the node only polls for a while.
import { BlockingFetch } from '../redis/blocking-fetch';
import type { RedisClient } from '../redis/client';
import type { ConnectionEndedError } from '../redis/ended';
import type { Fetched, FetchQueue, ScriptedRedis } from '../redis/scripts';

/** How long one blocking wait of an idle queue lasts before it is sent again. */
export const IDLE_WAIT_SECONDS = 2;

/** After a failed idle wait the node polls, and waits again no sooner than this. */
const WAIT_RETRY_MS = 1000;

/** The fetch a wait sends behind it, on the wait's connection. */
export type WaitFetch = (connection: ScriptedRedis, queue: FetchQueue) => Promise<Fetched>;

export class IdleWaits {
  private readonly connections = new Map<string, BlockingFetch>();
  private readonly out = new Map<string, FetchQueue>();
  private retryAt = 0;

  /**
   * `redis`: the node's main client, asked for at each new connection (the node replaces one
   * ioredis ended). `fetch` is what a wait sends behind it; `onlyWake` (with waitReplicas, where a
   * fetch counts once replicas confirm it) makes every wait only wake, and a poll fetch.
   * `onEnded`: a connection ioredis ended by itself (the owner crashes; its restart starts afresh).
   */
  constructor(
    private readonly redis: () => RedisClient,
    private readonly fetch: WaitFetch,
    private readonly onlyWake: boolean,
    private readonly onEnded: (err: ConnectionEndedError) => void,
  ) {}

  /** An idle wait is out on `queue`. */
  has(queue: string): boolean {
    return this.out.has(queue);
  }

  /** Until then (epoch ms) the node polls instead of waiting: a wait failed. */
  get noWaitUntil(): number {
    return this.retryAt;
  }

  /**
   * Waits on `queue` for up to IDLE_WAIT_SECONDS, then fetches on the wait's connection (only
   * wakes when `wakeOnly`, e.g. under a node-wide cap). Resolves to the fetch's result, undefined
   * for a wake alone; rejects when the wait failed (its fetch may have run).
   */
  start(queue: FetchQueue, wakeOnly: boolean): Promise<Fetched | undefined> {
    let connection = this.connections.get(queue.name);
    if (!connection)
      this.connections.set(
        queue.name,
        (connection = new BlockingFetch(this.redis, this.onEnded, `the idle-wait connection of queue ${queue.name}`)),
      );
    this.out.set(queue.name, queue);
    const fetch =
      wakeOnly || this.onlyWake ? undefined : (on: ScriptedRedis): Promise<Fetched> => this.fetch(on, queue);
    return connection.waitThenFetch(queue.queueKey, IDLE_WAIT_SECONDS, fetch);
  }

  /** The wait on `queue` answered: what it was sent with, and it is no longer out. */
  answered(queue: string): FetchQueue | undefined {
    const waited = this.out.get(queue);
    this.out.delete(queue);
    return waited;
  }

  /** A wait failed: poll only, for a while. */
  failed(): void {
    this.retryAt = Date.now() + WAIT_RETRY_MS;
  }

  /** Closes the connection of `queue` (a queue no longer served), or of every queue. */
  close(queue?: string): void {
    for (const [name, connection] of this.connections) {
      if (queue !== undefined && name !== queue) continue;
      connection.close();
      this.connections.delete(name);
    }
  }
}
