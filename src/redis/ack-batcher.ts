// Acks of plain jobs (no unique lock, no running slot) collected for one turn of the event loop
// and sent as one ack-batch.lua call: one command and one reply for many acks instead of one each.
// Each ack still resolves on its own, true when its job was taken off its backup list. In the
// per-queue key layout each queue's acks are a call of their own and resolve with it: a queue
// whose cluster slot is moving (its call waits for the move to end) holds back no other's.
import type { RedisClient } from './client';
import type { Keys } from './keys';
import { ackBatch } from './settle-scripts';
import { groupIndexes } from './scripts';

/** Most acks in one script call (bounds the call's size and how long it holds Redis). */
const MAX_BATCH = 500;

interface PendingAck {
  queue: string;
  backup: string;
  raw: string;
  jid: string;
  resolve: (acked: boolean) => void;
  reject: (err: Error) => void;
}

export class AckBatcher {
  private pending: PendingAck[] = [];
  private flushScheduled = false;

  /** `redis` is asked at each call: the node replaces a client ioredis ended (src/redis/ended.ts). */
  constructor(
    private readonly redis: () => RedisClient,
    private readonly keys: Keys,
  ) {}

  ack(queue: string, backup: string, raw: string, jid: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.pending.push({ queue, backup, raw, jid, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const acks = this.pending;
    this.pending = [];
    for (const members of groupIndexes(acks, (ack) => this.keys.group(ack.queue)).values()) {
      const group = members.length === acks.length ? acks : members.map((i) => acks[i]);
      for (let i = 0; i < group.length; i += MAX_BATCH) this.send(group.slice(i, i + MAX_BATCH));
    }
  }

  private send(batch: PendingAck[]): void {
    Promise.resolve()
      .then(() => ackBatch(this.redis(), this.keys, batch))
      .then(
        (results) =>
          batch.forEach((ack, i) => {
            const result = results[i];
            if (typeof result === 'number') ack.resolve(result === 1);
            else ack.reject(new Error(result));
          }),
        // The call itself failed (Redis away, a timeout): each JobRunner retries its own ack.
        (err: unknown) => {
          for (const ack of batch) ack.reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
  }
}
