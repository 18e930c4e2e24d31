// An idle node's wait for work: BLMOVE from one queue into this node's backup list on a
// connection of its own, so a job enqueued into an idle queue starts at once instead of at the
// next poll. BLMOVE is as reliable as the fetch script (the job is in the queue or the backup
// list), but takes no notice of pausing or global limits: the manager checks those around it.
import type Redis from 'ioredis';

export class BlockingFetch {
  private connection?: Redis;

  constructor(private readonly redis: Redis) {}

  /** The job moved, or null when none came within `seconds`. */
  async wait(queueKey: string, backupKey: string, seconds: number): Promise<string | null> {
    if (!this.connection) {
      this.connection = this.redis.duplicate({ commandTimeout: undefined, enableAutoPipelining: false });
      this.connection.on('error', () => {}); // the shared connection's errors are logged already
    }
    return this.connection.blmove(queueKey, backupKey, 'RIGHT', 'LEFT', seconds);
  }

  /** Drops the connection; a wait in progress fails (what it moved stays in the backup list). */
  close(): void {
    this.connection?.disconnect();
    this.connection = undefined;
  }
}
