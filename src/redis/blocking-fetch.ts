// An idle node's wait for work, on a connection of its own: BLMOVE from a queue onto itself
// (right end to right end, a rotation that changes nothing) blocks until the queue has a job and
// then returns at once, so a job enqueued into an idle queue starts without waiting for the next
// poll. The job never leaves its queue here: the manager's fetch script takes it, with pausing,
// limits and the job index all honoured, and a wait cut off by a stop or a lost connection
// leaves nothing behind.
import { duplicateClient, RedisClient } from './client';

export class BlockingFetch {
  private connection?: RedisClient;

  constructor(private readonly redis: RedisClient) {}

  /** Resolves when `queueKey` holds a job, or after `seconds` (with null). */
  async wait(queueKey: string, seconds: number): Promise<string | null> {
    if (!this.connection) {
      this.connection = duplicateClient(this.redis, { commandTimeout: undefined, enableAutoPipelining: false });
      this.connection.on('error', () => {}); // the shared connection's errors are logged already
    }
    return this.connection.blmove(queueKey, queueKey, 'RIGHT', 'RIGHT', seconds);
  }

  /** Drops the connection; a wait in progress fails. */
  close(): void {
    this.connection?.disconnect();
    this.connection = undefined;
  }
}
