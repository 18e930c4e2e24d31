// The idle poll: every `idlePollInterval` the node asks Redis whether its idle (empty) queues hold
// jobs, the safety net under the wake signals (src/fetch/wake-signals.ts) for what they do not
// announce: a job LPUSHed by a foreign producer (Sidekiq's client, Exq), or a signal lost while
// the subscriber was reconnecting. A list that holds nothing does not exist in Redis, so one
// EXISTS over every idle queue's key answers for all of them in the shared key layout: one command
// per check whatever the number of queues. In the per-queue layout each key lives in a slot of its
// own and a multi-key EXISTS would be refused there, so each queue is asked apart (pipelined).
import type { RedisClient } from '../redis/client';
import type { Keys } from '../redis/keys';

export class IdlePoll {
  private nextAt = 0;

  constructor(
    private readonly keys: Keys,
    private readonly intervalMs: number,
  ) {}

  /** Epoch ms of the next check (due when not after now). */
  get dueAt(): number {
    return this.nextAt;
  }

  /** A decision at `now` has run: when the check was due, the next one is an interval later. */
  decided(now: number): void {
    if (now >= this.nextAt) this.nextAt = now + this.intervalMs;
  }

  /**
   * Which of `queues` (names) may hold jobs: all of them when the one EXISTS of the shared layout
   * found any (the fetch that follows sees which), those whose key exists in the per-queue layout.
   */
  async holdingJobs(redis: RedisClient, queues: readonly string[]): Promise<string[]> {
    if (queues.length === 0) return [];
    if (!this.keys.perQueue) {
      const found = await redis.exists(...queues.map((q) => this.keys.queue(q)));
      return found > 0 ? [...queues] : [];
    }
    const found = await Promise.all(queues.map((q) => redis.exists(this.keys.queue(q))));
    return queues.filter((_, i) => found[i] > 0);
  }
}
