// NodeReaper: finds nodes that stopped beating and puts their unsettled jobs back in the queues.
//
// Responsibilities:
//  1. Every `nodeCheckInterval` seconds, list the nodes whose last beat is older than `nodeTimeout`.
//  2. For each, run one atomic script that claims the node (only if it is still dead: of several
//     survivors exactly one wins) and moves its backup lists back into their queues, removing its
//     process entry. Its in-flight jobs run again elsewhere: at least once, never lost.
//  3. Keep going through Redis errors: log, and try again next round.
import { TickingActor } from '../actor';
import { nowSeconds } from '../job/time';
import { backupQueuesOf } from '../redis/backups';
import { formatScore, recoverNode } from '../redis/scripts';
import { allRunningKeys } from '../job/limits';
import type { NodeContext } from '../node-context';
import { ActorNames } from '../node-context';

/** Dead nodes handled per round; the rest wait for the next round. */
export const NODES_PER_ROUND = 20;

export class NodeReaper extends TickingActor {
  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.nodeReaper, registry: ctx.registry, logger: ctx.logger, what: 'dead-node check' });
  }

  protected override firstTickMs(): number {
    return this.ctx.config.nodeCheckInterval * 1000;
  }

  protected override async tick(): Promise<void> {
    await this.recoverDeadNodes();
  }

  protected override nextTickMs(): number {
    return this.ctx.config.nodeCheckInterval * 1000;
  }

  /** Recovers every node dead by now; returns how many jobs went back to their queues. */
  async recoverDeadNodes(): Promise<number> {
    const { keys, redis, config, logger } = this.ctx;
    const cutoff = nowSeconds() - config.nodeTimeout;
    const dead = await redis.zrangebyscore(keys.nodes, '-inf', formatScore(cutoff), 'LIMIT', 0, NODES_PER_ROUND);
    let total = 0;
    for (const nodeId of dead) {
      if (nodeId === config.nodeId) continue; // this node is alive: its own beat is merely late
      const [found, identity] = await Promise.all([backupQueuesOf(redis, keys, nodeId), redis.hget(keys.nodeIdentities, nodeId)]);
      // A key that is not a list holds no job; leaving it out keeps it from blocking the others.
      const types = await Promise.all(found.map((q) => redis.type(keys.backup(nodeId, q))));
      const queues = found.filter((_, i) => types[i] === 'list');
      const moved = await recoverNode(redis, {
        nodes: keys.nodes,
        identities: keys.nodeIdentities,
        processes: keys.processes,
        queuesSet: keys.queues,
        processKey: keys.process(identity ?? ''),
        processWorkersKey: keys.processWorkers(identity ?? ''),
        nodeId,
        identity: identity ?? '',
        cutoff,
        jobIndex: keys.jobIndex,
        backups: queues.map((name) => ({ backup: keys.backup(nodeId, name), queue: keys.queue(name), running: keys.running(name), name })),
        runningKeys: allRunningKeys(config, keys),
      });
      if (moved < 0) continue;
      total += moved;
      logger.warn(`node ${nodeId} stopped beating; re-enqueued its ${moved} unfinished job(s)`, { actor: this.name });
    }
    return total;
  }
}
