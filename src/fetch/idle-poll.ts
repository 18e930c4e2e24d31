// The idle poll: the node asks Redis whether its idle (empty) queues hold jobs, the safety net
// under the wake signals (src/fetch/wake-signals.ts) for what they do not announce. A list that
// holds nothing does not exist in Redis, so one EXISTS over every idle queue's key answers for all
// of them in the shared key layout: one command per check whatever the number of queues. In the
// per-queue layout each key lives in a slot of its own and a multi-key EXISTS would be refused
// there, so each queue is asked apart (pipelined).
//
// While key tracking is on (src/fetch/push-tracking.ts) each check is also what arms a queue: the
// read goes out as `CLIENT CACHING yes` + EXISTS, so Redis tells the node of the next write to
// those keys, whoever makes it. A queue is checked the moment it turns idle (it is not armed yet),
// and then only every 10 × `idlePollInterval`, for what nothing could announce. Without tracking
// (Redis Cluster, a server that refuses it) every `idlePollInterval`: a job LPUSHed by a foreign
// producer (Sidekiq's client, Exq) starts within that.
import type { RedisClient } from '../redis/client';
import type { Keys } from '../redis/keys';
import type { PushTracking } from './push-tracking';

/** While tracking arms the idle queues, the periodic check only covers what nothing announces. */
const TRACKED_CHECK_FACTOR = 10;

export class IdlePoll {
  private nextAt = 0;

  constructor(
    private readonly keys: Keys,
    private readonly intervalMs: number,
    private readonly tracking?: PushTracking,
  ) {}

  /** Epoch ms of the next periodic check (due when not after now). */
  get dueAt(): number {
    return this.nextAt;
  }

  /** A decision at `now` has run: when the check was due, the next one is an interval later. */
  decided(now: number): void {
    const tracked = this.tracking?.active === true;
    // Tracking went off since the check was set 10 intervals away: polling takes over now.
    if (!tracked) this.nextAt = Math.min(this.nextAt, now + this.intervalMs);
    if (now < this.nextAt) return;
    this.nextAt = now + (tracked ? this.intervalMs * TRACKED_CHECK_FACTOR : this.intervalMs);
  }

  /**
   * Which of `queues` (names) may hold jobs: all of them when the one EXISTS of the shared layout
   * found any (the fetch that follows sees which), those whose key exists in the per-queue layout.
   * With tracking on, the read arms them.
   */
  async holdingJobs(redis: RedisClient, queues: readonly string[]): Promise<string[]> {
    if (queues.length === 0) return [];
    const tracking = this.tracking?.active ? this.tracking : undefined;
    const tracked = tracking !== undefined;
    tracking?.arming(queues.map((q) => this.keys.queue(q)));
    if (!this.keys.perQueue) {
      const keys = queues.map((q) => this.keys.queue(q));
      const found = tracked ? await this.existsTracked(redis, [queues]) : [await redis.exists(...keys)];
      return found[0] > 0 ? [...queues] : [];
    }
    const found = tracked
      ? await this.existsTracked(
          redis,
          queues.map((q) => [q]),
        )
      : await Promise.all(queues.map((q) => redis.exists(this.keys.queue(q))));
    return queues.filter((_, i) => found[i] > 0);
  }

  /**
   * One EXISTS per group of queues' keys, each read tracked (OPTIN: `CLIENT CACHING yes` right
   * before it), in one pipeline. A group whose CACHING was refused (tracking went off meanwhile)
   * is not armed.
   */
  private async existsTracked(redis: RedisClient, groups: readonly (readonly string[])[]): Promise<number[]> {
    const pipeline = redis.pipeline();
    for (const queues of groups)
      pipeline.call('CLIENT', 'CACHING', 'YES').exists(...queues.map((q) => this.keys.queue(q)));
    const replies = (await pipeline.exec()) ?? [];
    return groups.map((queues, i) => {
      if (replies[2 * i]?.[0]) for (const q of queues) this.tracking?.invalidated(this.keys.queue(q));
      const [err, count] = replies[2 * i + 1] ?? [new Error('no reply to EXISTS')];
      if (err) throw err;
      return Number(count);
    });
  }
}
