// An idle node's wait for work, on a connection of its own: BLMOVE from a queue onto itself
// (right end to right end, a rotation that changes nothing) blocks until the queue has a job and
// then returns at once, so a job enqueued into an idle queue starts without waiting for the next
// poll. The job never leaves its queue here: the manager's fetch script takes it, with pausing,
// limits and the job index all honoured, and a wait cut off by a stop or a lost connection
// leaves nothing behind.
import { duplicateClient, RedisClient } from './client';

/** A wait not answered this long after its own timeout is given up (its connection went silent). */
const ANSWER_GRACE_MS = 3000;

export class BlockingFetch {
  private connection?: RedisClient;

  constructor(private readonly redis: RedisClient) {}

  /**
   * Resolves when `queueKey` holds a job, or after `seconds` (with null). Fails when its
   * connection closes or it has no answer well after `seconds`: a command in flight when a
   * connection drops is never answered (it is not sent again), and a wait that never settles
   * would keep the node from ever waiting again.
   */
  wait(queueKey: string, seconds: number): Promise<string | null> {
    if (!this.connection) {
      this.connection = duplicateClient(this.redis, { commandTimeout: undefined, enableAutoPipelining: false });
      this.connection.on('error', () => {}); // the shared connection's errors are logged already
    }
    const connection = this.connection;
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        connection.off('close', closed);
      };
      const closed = () => {
        done();
        reject(new Error('the blocking connection closed'));
      };
      const timer = setTimeout(() => {
        if (this.connection === connection) this.close();
        closed();
      }, seconds * 1000 + ANSWER_GRACE_MS);
      connection.once('close', closed);
      connection.blmove(queueKey, queueKey, 'RIGHT', 'RIGHT', seconds).then(
        (value) => (done(), resolve(value)),
        (err: Error) => (done(), reject(err)),
      );
    });
  }

  /** Drops the connection; a wait in progress fails. */
  close(): void {
    this.connection?.disconnect();
    this.connection = undefined;
  }
}
