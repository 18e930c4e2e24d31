// When the manager puts back the backup entries no live worker holds (src/fetch/own-backups.ts):
// the queues asked for (after a failed fetch, a killed worker), and every queue with a
// SCAN for the lists of queues no longer served, every RECLAIM_INTERVAL_MS anyway (a fetch a
// cluster client re-sent after a lost reply ran twice and reported once). Never a queue whose
// fetch call is still out (a late one, src/fetch/late-fetches.ts): it may have moved jobs not
// dispatched yet; it stays due until that call has answered.
import type { JobsContext } from '../run/node-context';
import { queuesWithBackups, reclaimUnworked } from './own-backups';

/** The longest a backup entry no worker holds waits before it goes back to its queue. */
export const RECLAIM_INTERVAL_MS = 10_000;

export class Reclaimer {
  private due = new Set<string>();
  private all = false;
  private lastAllAt = Date.now();

  constructor(
    private readonly ctx: JobsContext,
    private readonly actor: string,
  ) {}

  /** Reclaims `queue` before the next fetch. */
  queue(queue: string): void {
    this.due.add(queue);
  }

  /** Reclaims every queue (with a SCAN) before the next fetch: a restarted manager, a failed poll. */
  everything(): void {
    this.all = true;
  }

  /** Puts back what is due, leaving out the queues `waited` says have a wait out (they stay due). */
  async runIfDue(served: string[], waited: (queue: string) => boolean): Promise<void> {
    const all = this.all || Date.now() - this.lastAllAt >= RECLAIM_INTERVAL_MS;
    if (!all && this.due.size === 0) return;
    const due = all ? await this.withBackupLists(await queuesWithBackups(this.ctx, served)) : this.due;
    const now = [...due].filter((q) => !waited(q));
    this.due = new Set([...due].filter(waited));
    await reclaimUnworked(this.ctx, now, this.actor);
    if (all) {
      this.all = false;
      this.lastAllAt = Date.now();
    }
  }

  /**
   * `queues`, or none when none of their backup lists exists: in the shared key layout one EXISTS
   * over them all, so an idle node's periodic reclaim costs one command however many queues it
   * serves (each queue's TYPE and LRANGE were 20 commands a second at 200 queues). The per-queue
   * layout cannot name keys of several slots in one command: each list is read.
   */
  private async withBackupLists(queues: Set<string>): Promise<Set<string>> {
    const { keys, config, redis } = this.ctx;
    if (keys.perQueue || queues.size === 0) return queues;
    const found = await redis.exists(...[...queues].map((q) => keys.backup(config.nodeId, q)));
    return found > 0 ? queues : new Set();
  }
}
