// The job index's sweep: in a mixed fleet Sidekiq or Exq take nexq-enqueued jobs off their queue
// without telling the index, which would keep saying "queued" for each of them forever (issue #31,
// 6a). A round reads a bounded slice of each index (HSCAN, resumed where the last round stopped)
// and hands each queue's "queued" entries to sweep-index.lua, which forgets those whose job is in
// neither the queue nor the schedule, retry and dead sets, in one atomic step. The check reads the
// whole queue and sets once per queue and round (no index of jobs by jid exists inside Redis), so a
// queue whose keys hold more than SWEEP_MAX_JOBS jobs is left for a later round, when it is shorter.
import type { RedisClient } from './client';
import type { Keys } from './keys';
import { knownQueues } from './known-queues';
import { runScript } from './scripts';

/** Entries asked of each HSCAN call: a hint to Redis, which answers about that many. */
export const SWEEP_SCAN_COUNT = 500;

/** Entries of each index read per round: a round's cost stays bounded however large the index. */
export const SWEEP_ENTRIES_PER_ROUND = 5000;

/**
 * The most jobs (a queue and its sets together) one check reads, once per queue and round: Redis
 * is blocked meanwhile. Measured with 20,000 jobs of ~250 bytes: 60-300 ms on a 2-core machine
 * under a load average of 10, so a quarter of that stays within tens of ms. A longer queue's
 * entries wait for a round where it is shorter; an entry of a job still waiting is not stale anyway.
 */
export const SWEEP_MAX_JOBS = 5000;

/** Candidates sent in one script call (jid and entry each). */
const PER_CALL = 1000;

export interface SweepResult {
  /** Entries forgotten this round. */
  forgotten: number;
  /** Queues whose keys held more than SWEEP_MAX_JOBS jobs, left for a later round. */
  skipped: string[];
}

/** Sweeps the job index round by round, each index from where the last round stopped. */
export class IndexSweep {
  private readonly cursors = new Map<string, string>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly maxJobs = SWEEP_MAX_JOBS,
  ) {}

  async round(): Promise<SweepResult> {
    const { redis, keys } = this;
    const indexes = keys.jobIndexes(keys.perQueue ? await knownQueues(redis, keys) : []);
    const result: SweepResult = { forgotten: 0, skipped: [] };
    for (const { key, queue: home } of indexes) {
      const byQueue = await this.queuedEntries(key, home);
      for (const [queue, pairs] of byQueue) {
        for (let first = 0; first < pairs.length; first += 2 * PER_CALL) {
          const forgotten = await this.check(key, queue, pairs.slice(first, first + 2 * PER_CALL));
          if (forgotten < 0) {
            result.skipped.push(queue);
            break;
          }
          result.forgotten += forgotten;
        }
      }
    }
    return result;
  }

  /** The next slice of `index`: its "queued" entries, as jid, entry pairs per queue. */
  private async queuedEntries(index: string, home: string | undefined): Promise<Map<string, string[]>> {
    const byQueue = new Map<string, string[]>();
    let cursor = this.cursors.get(index) ?? '0';
    let read = 0;
    do {
      const [next, flat] = await this.redis.hscan(index, cursor, 'COUNT', SWEEP_SCAN_COUNT);
      cursor = next;
      read += flat.length / 2;
      for (let i = 0; i < flat.length; i += 2) {
        const [, state, queue] = flat[i + 1].split('\t');
        // Per-queue layout: an index holds its own queue's jobs; anything else is not this check's.
        if (state !== 'queued' || !queue || (home !== undefined && queue !== home)) continue;
        const pairs = byQueue.get(queue) ?? [];
        pairs.push(flat[i], flat[i + 1]);
        byQueue.set(queue, pairs);
      }
    } while (cursor !== '0' && read < SWEEP_ENTRIES_PER_ROUND);
    this.cursors.set(index, cursor);
    return byQueue;
  }

  private async check(index: string, queue: string, pairs: string[]): Promise<number> {
    const { keys } = this;
    const sets = (['schedule', 'retry', 'dead'] as const).map((set) => keys.jobSet(set, queue));
    return (await runScript(
      this.redis,
      'sweep-index',
      [index, keys.queue(queue), ...sets],
      [this.maxJobs, ...pairs],
    )) as number;
  }
}
