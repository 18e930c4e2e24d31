// An idle node's wait for work, on a connection of its own. BLMOVE from a queue onto itself
// (right end to right end, a rotation that changes nothing) blocks until the queue has a job, and
// the fetch script is sent right behind it on the same connection: Redis holds it while the
// connection is blocked and runs it the moment the wait returns, so the job that wakes an idle
// node reaches its backup list without another round trip to the node. The fetch is the regular
// one (pausing, limits and the job index all honoured).
//
// A wait cut off (a stop, a lost or silent connection) may have moved jobs whose reply never came:
// they sit in the node's backup list with no worker, and the caller must reclaim them. A connection
// that closed is dropped, never reconnected, so nothing queued on it can run after it was given up.
// One that ioredis ended without a close (src/redis/ended.ts) is dropped too, and `onEnded` tells
// the owner, whose restart starts afresh.
import { duplicateClient, RedisClient } from './client';
import { commandTimeoutOf } from './connection';
import { ConnectionEndedError, watchEnd } from './ended';
import { defineScriptsLike, ScriptedRedis } from './scripts';

export class BlockingFetch {
  private connection?: ScriptedRedis;
  private unwatch?: () => void;

  /**
   * `redis` (asked at each new connection) is the client to copy; `onEnded` hears of a connection
   * ioredis ended by itself.
   */
  constructor(
    private readonly redis: () => RedisClient,
    private readonly onEnded: (err: ConnectionEndedError) => void = () => {},
    private readonly what = 'an idle-wait connection',
  ) {}

  /**
   * Blocks until `queueKey` holds a job or `seconds` pass, then runs `fetch` on the same connection
   * (sent at once, run by Redis as the wait returns) and resolves to its result. Fails when the
   * connection closes or has no answer well after `seconds`; the fetch may then have run.
   * Without `fetch` it only waits, and resolves to undefined when the wait returns.
   */
  waitThenFetch<T>(
    queueKey: string,
    seconds: number,
    fetch?: (connection: ScriptedRedis) => Promise<T>,
  ): Promise<T | undefined> {
    const connection = this.open();
    // A wait not answered this long after its own timeout is given up (its connection went
    // silent): the silence every other command is allowed, so a Redis that stalls (or a cluster
    // slot that moves) for less than the command timeout costs no connection and logs nothing,
    // waiting or not (issue 24).
    const answerWithinMs = seconds * 1000 + commandTimeoutOf(connection);
    return new Promise<T | undefined>((resolve, reject) => {
      let settled = false;
      const settle = (finish: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        connection.off('close', closed);
        finish();
      };
      const closed = () => {
        this.drop(connection);
        settle(() => reject(new Error('the blocking connection closed')));
      };
      const timer = setTimeout(() => {
        this.drop(connection);
        settle(() => reject(new Error(`no answer to the idle wait ${answerWithinMs} ms after it was sent`)));
      }, answerWithinMs);
      connection.once('close', closed);
      const woken = connection.blmove(queueKey, queueKey, 'RIGHT', 'RIGHT', seconds);
      // With a fetch, the wait's outcome shows in the fetch's: a broken queue key or a closed
      // connection fails both.
      if (fetch) woken.catch(() => {});
      (fetch ? fetch(connection) : woken.then(() => undefined)).then(
        (value) => settle(() => resolve(value)),
        (err: unknown) => settle(() => reject(err instanceof Error ? err : new Error(String(err)))),
      );
    });
  }

  /** Drops the connection; a wait in progress fails. */
  close(): void {
    if (this.connection) this.drop(this.connection);
  }

  private open(): ScriptedRedis {
    if (!this.connection) {
      const main = this.redis();
      const connection = duplicateClient(main, { commandTimeout: undefined, enableAutoPipelining: false });
      connection.on('error', () => {}); // the shared connection's errors are logged already
      const scripted = defineScriptsLike(main, connection);
      this.connection = scripted;
      this.unwatch = watchEnd(connection, this.what, (err) => {
        this.drop(scripted);
        this.onEnded(err);
      });
    }
    return this.connection;
  }

  private drop(connection: ScriptedRedis): void {
    if (this.connection === connection) {
      this.connection = undefined;
      this.unwatch?.();
      this.unwatch = undefined;
    }
    connection.disconnect();
  }
}
