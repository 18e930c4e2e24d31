// The idle waits of one node: one blocking connection per queue the fetch policy waits on
// (src/redis/blocking-fetch.ts: BLMOVE with the fetch sent right behind it), so a job pushed into
// any empty queue, by any producer, wakes the node at once. Each wait remembers the fetch it
// carries: until its answer is handled that queue's free slots are spoken for and its backup list
// may hold jobs not dispatched yet.
import { BlockingFetch } from '../redis/blocking-fetch';
import type { RedisClient } from '../redis/client';
import type { ConnectionEndedError } from '../redis/ended';
import type { Fetched, FetchQueue, ScriptedRedis } from '../redis/scripts';

export type WaitFetch = (connection: ScriptedRedis) => Promise<Fetched>;

export class IdleWaits {
  private readonly connections = new Map<string, BlockingFetch>();
  private readonly out = new Map<string, FetchQueue>();

  /**
   * `redis`: the node's main client, asked for at each new connection; `onEnded`: a connection
   * ioredis ended by itself (the owner crashes, and its restart starts afresh).
   */
  constructor(
    private readonly redis: () => RedisClient,
    private readonly onEnded: (err: ConnectionEndedError) => void,
  ) {}

  /** An idle wait is out on `queue`. */
  has(queue: string): boolean {
    return this.out.has(queue);
  }

  /**
   * Waits on `queue` for up to `seconds`, then runs `fetch` on the wait's connection (or, without
   * one, only wakes). Resolves to the fetch's result, undefined for a wake alone; rejects when the
   * wait failed (its fetch may have run).
   */
  start(queue: FetchQueue, seconds: number, fetch?: WaitFetch): Promise<Fetched | undefined> {
    let connection = this.connections.get(queue.name);
    if (!connection)
      this.connections.set(
        queue.name,
        (connection = new BlockingFetch(this.redis, this.onEnded, `the idle-wait connection of queue ${queue.name}`)),
      );
    this.out.set(queue.name, queue);
    return connection.waitThenFetch(queue.queueKey, seconds, fetch);
  }

  /** The wait on `queue` answered: what it was sent with, and it is no longer out. */
  answered(queue: string): FetchQueue | undefined {
    const waited = this.out.get(queue);
    this.out.delete(queue);
    return waited;
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
