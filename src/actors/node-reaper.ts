// NodeReaper: finds nodes that stopped beating and puts their unsettled jobs back in the queues.
//
// Responsibilities:
//  1. Every `nodeCheckInterval` seconds, list the nodes whose last beat is older than `nodeTimeout`
//     by Redis' clock (dead-nodes.lua reads TIME, as beat.lua scored the beats): this node's wall
//     clock, however far off, declares no one dead.
//  2. For each, run one atomic script that claims the node (only if it is still dead: of several
//     survivors exactly one wins) and moves its backup lists back into their queues, removing its
//     process entry. Its in-flight jobs run again elsewhere: at least once, never lost.
//  3. In the per-queue key layout (a cluster) a node's backup lists live in other slots than its
//     beat, so claiming and requeueing are separate steps: the claim, then one requeue per backup
//     list. A crash between leaves backup lists of a node no longer in the beat set; every round
//     therefore also sweeps the backup lists of nodes that are not there.
//  4. Every INDEX_SWEEP_MS (and on its first round) sweep a bounded slice of the job index: the
//     "queued" entries of jobs that Sidekiq or Exq took off their queue are forgotten
//     (src/redis/index-sweep.ts), so a mixed fleet's index does not grow without bound. Only a
//     fleet where another system's process was listed within FOREIGN_MEMORY_MS is swept after the
//     first round: nexq's own moves rewrite their entries, and a sweep reads whole queues.
//  5. Every round, in the shared key layout, recover the Exq nodes whose beats in Exq's
//     `<ns>:heartbeats` stopped `exqNodeTimeout` ago, when no Exq node beats any more (a live
//     one's monitor does it): src/redis/exq-recovery.ts, one atomic script per node.
//  6. Keep going through Redis errors: log, and try again next round.
import { TickingActor } from '../runtime';
import { allBackups, backupQueuesOf } from '../redis/backups';
import { deadNodes } from '../redis/redis-time';
import { recoverNode, requeueBackup } from '../redis/move-scripts';
import { allRunningKeys, dropGroupSlots, dropNodeSlots, groupSlotsHeld } from '../redis/limits';
import { IndexSweep } from '../redis/index-sweep';
import { recoverDeadExqNodes } from '../redis/exq-recovery';
import type { NodeContext } from '../run/node-context';
import { ActorNames } from '../run/node-context';

/** Dead nodes handled per round; the rest wait for the next round. */
export const NODES_PER_ROUND = 20;

/** Per-queue key layout: rounds between two sweeps for orphaned backup lists when nothing was claimed. */
export const SWEEP_EVERY = 6;

/**
 * Time between two sweeps of the job index. Its stale entries only cost memory, and each sweep
 * reads each queue with candidates once (index-sweep.ts): once a minute keeps both small.
 */
export const INDEX_SWEEP_MS = 60_000;

/** How long the index is swept after a process that is not a nexq node (Sidekiq, Exq) was last listed. */
export const FOREIGN_MEMORY_MS = 24 * 3600_000;

export class NodeReaper extends TickingActor {
  /** Per-queue key layout: nodes with backup lists that were not in the beat set at the last sweep. */
  private absentBefore = new Set<string>();
  private roundsSinceSweep = 0;
  private readonly indexSweep: IndexSweep;
  /** performance.now() of the last index sweep (none yet: the first round sweeps). */
  private lastIndexSweep = -Infinity;
  /** performance.now() when a process that is not a nexq node was last listed (none yet). */
  private lastForeignSeen = -Infinity;

  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.nodeReaper, registry: ctx.registry, logger: ctx.logger, what: 'dead-node check' });
    this.indexSweep = new IndexSweep(ctx.redis, ctx.keys);
  }

  protected override firstTickMs(): number {
    return this.ctx.config.nodeCheckInterval * 1000;
  }

  protected override async tick(): Promise<void> {
    await this.recoverDeadNodes();
    await this.recoverDeadExqNodes();
    const now = performance.now();
    if (now - this.lastIndexSweep >= INDEX_SWEEP_MS) {
      const first = this.lastIndexSweep === -Infinity;
      this.lastIndexSweep = now;
      if (await this.foreignProcessListed()) this.lastForeignSeen = now;
      if (!first && now - this.lastForeignSeen > FOREIGN_MEMORY_MS) return;
      const { forgotten } = await this.indexSweep.round();
      if (forgotten > 0)
        this.ctx.logger.debug(`forgot ${forgotten} index entries of jobs another system took`, { actor: this.name });
    }
  }

  /** True when `<ns>:processes` lists a process that no nexq node's beat names: Sidekiq or Exq. */
  private async foreignProcessListed(): Promise<boolean> {
    const { redis, keys } = this.ctx;
    const [listed, ours] = await Promise.all([redis.smembers(keys.processes), redis.hvals(keys.nodeIdentities)]);
    const nexq = new Set(ours);
    return listed.some((identity) => !nexq.has(identity));
  }

  protected override nextTickMs(): number {
    return this.ctx.config.nodeCheckInterval * 1000;
  }

  /** Recovers every node dead by now; returns how many jobs went back to their queues. */
  async recoverDeadNodes(): Promise<number> {
    const { keys, redis, config, logger } = this.ctx;
    const dead = await deadNodes(redis, keys, config.nodeTimeout, NODES_PER_ROUND);
    let total = 0;
    const claimed = new Set<string>();
    for (const nodeId of dead) {
      if (nodeId === config.nodeId) continue; // this node is alive: its own beat is merely late
      const moved = await this.recover(nodeId);
      if (moved < 0) continue;
      claimed.add(nodeId);
      // Per-queue layout: the claim dropped none of its limit slots (other slots), including those
      // of at-most-once jobs it ran off its backup lists.
      if (keys.perQueue) await dropNodeSlots(redis, config, keys, nodeId);
      total += moved;
      logger.warn(
        `node ${nodeId} stopped beating; ${keys.perQueue ? 'claimed it' : `re-enqueued its ${moved} unfinished job(s)`}`,
        { actor: this.name },
      );
    }
    // The sweep SCANs every master: after a claim, and every SWEEP_EVERY rounds otherwise.
    if (keys.perQueue && (claimed.size > 0 || ++this.roundsSinceSweep >= SWEEP_EVERY)) {
      this.roundsSinceSweep = 0;
      total += await this.sweepOrphans(claimed);
    }
    return total;
  }

  /** Recovers the Exq nodes dead by now when no Exq node is alive; returns how many jobs went back to their queues. */
  async recoverDeadExqNodes(): Promise<number> {
    const { keys, redis, config, logger } = this.ctx;
    let total = 0;
    for (const result of await recoverDeadExqNodes(redis, keys, config.exqNodeTimeout)) {
      if (!('moved' in result)) continue;
      total += result.moved;
      logger.warn(
        `Exq node ${result.nodeId} stopped beating and no Exq node is left; re-enqueued its ${result.moved} unfinished job(s)`,
        { actor: this.name },
      );
    }
    return total;
  }

  /** Claims `nodeId` and requeues its backup lists; the jobs moved, or -1 when it was not dead. */
  private async recover(nodeId: string): Promise<number> {
    const { keys, redis, config } = this.ctx;
    const perQueue = keys.perQueue;
    const [found, identity] = await Promise.all([
      perQueue ? [] : backupQueuesOf(redis, keys, nodeId),
      redis.hget(keys.nodeIdentities, nodeId),
    ]);
    // A key that is not a list holds no job; leaving it out keeps it from blocking the others.
    const types = await Promise.all(found.map((q) => redis.type(keys.backup(nodeId, q))));
    const queues = found.filter((_, i) => types[i] === 'list');
    return recoverNode(redis, {
      nodes: keys.nodes,
      identities: keys.nodeIdentities,
      processes: keys.processes,
      queuesSet: keys.queues,
      processKey: keys.process(identity ?? ''),
      processWorkersKey: keys.processWorkers(identity ?? ''),
      nodeId,
      identity: identity ?? '',
      timeout: config.nodeTimeout,
      backups: queues.map((name) => ({
        backup: keys.backup(nodeId, name),
        queue: keys.queue(name),
        running: keys.running(name),
        jobIndex: keys.jobIndex(name),
        name,
      })),
      // Per-queue layout: the running hashes are in other slots; the sweep drops the slots.
      runningKeys: perQueue
        ? []
        : [...allRunningKeys(config, keys), ...(await groupSlotsHeld(redis, config, keys, nodeId, queues))],
    });
  }

  /**
   * Per-queue key layout: requeues the backup lists of nodes gone from the beat set, and drops
   * their limit slots: of the nodes this round claimed, and of nodes found missing in two sweeps
   * running (one claimed by a survivor that crashed before requeueing, or a stopped node). The beat
   * set is read after the lists are found, and a node must be missing twice: a node that just
   * started may fetch before its first beat lands.
   */
  async sweepOrphans(claimed: Set<string> = new Set()): Promise<number> {
    const { keys, redis, config, logger } = this.ctx;
    const lists = await allBackups(redis, keys);
    const alive = new Set(await redis.zrange(keys.nodes, 0, -1));
    const absent = new Set(lists.map((b) => b.nodeId).filter((id) => id !== config.nodeId && !alive.has(id)));
    const before = this.absentBefore;
    const orphaned = (id: string) => absent.has(id) && (claimed.has(id) || before.has(id));
    this.absentBefore = absent;
    let total = 0;
    const swept = new Set<string>();
    for (const { nodeId, queue } of lists) {
      if (!orphaned(nodeId)) continue;
      if ((await redis.type(keys.backup(nodeId, queue))) !== 'list') continue;
      // Its group slots first, read from the jobs about to leave its backup list (each hash in the queue's slot).
      await dropGroupSlots(redis, config, keys, nodeId, queue);
      const moved = await requeueBackup(redis, keys, nodeId, queue);
      total += moved;
      swept.add(nodeId);
      if (moved > 0)
        logger.warn(`node ${nodeId} is gone; re-enqueued its ${moved} unfinished job(s) of queue ${queue}`, {
          actor: this.name,
        });
    }
    for (const nodeId of swept) await dropNodeSlots(redis, config, keys, nodeId);
    return total;
  }
}
