// Recovering dead Exq nodes (issue #31, 6d). Exq with `heartbeat_enable: true` scores each node's
// beats in `<ns>:heartbeats` and re-enqueues a silent node's backup lists from any live Exq node
// (Exq.Heartbeat.Monitor). In a mixed fleet whose Exq nodes are all gone, nobody would: nexq nodes
// then do it, with the same care as for their own dead nodes (recover-exq-node.lua): one atomic
// step per node, only while the node is still silent and no Exq node beats (a live Exq monitor
// keeps the job), each job back at its queue's consumer end once. Exq nodes without heartbeats
// leave no trace of liveness and are never recovered: Exq re-hydrates them when they start again.
// Exq's keys exist only in the shared key layout (one slot on a cluster, with a tagged namespace).
import type { RedisClient } from './client';
import type { Keys } from './keys';
import { backupQueuesOf } from './backups';
import { deadNodes } from './redis-time';
import { runScript } from './scripts';

/** Dead Exq nodes handled per round; the rest wait for the next round. */
export const EXQ_NODES_PER_ROUND = 20;

/** What recovering one Exq node did. */
export type ExqRecovery =
  | { nodeId: string; moved: number }
  /** Not dead any more, or the id is a nexq node's. */
  | { nodeId: string; skipped: 'alive' }
  /** Another Exq node beats: its monitor recovers this one. */
  | { nodeId: string; skipped: 'exq-alive' };

/**
 * Recovers the Exq nodes silent for `timeoutSeconds` by Redis' clock, when no Exq node beats; one
 * entry per node tried. Nothing in the per-queue key layout, where no Exq node can run.
 */
export async function recoverDeadExqNodes(
  redis: RedisClient,
  keys: Keys,
  timeoutSeconds: number,
): Promise<ExqRecovery[]> {
  if (keys.perQueue || timeoutSeconds <= 0) return [];
  const dead = await deadNodes(redis, keys, timeoutSeconds, EXQ_NODES_PER_ROUND, keys.exqHeartbeats);
  if (dead.length === 0) return [];
  // Some Exq node still beats: its monitor recovers the others (the script checks it again, atomically).
  if (dead.length < EXQ_NODES_PER_ROUND && dead.length < (await redis.zcard(keys.exqHeartbeats))) return [];
  const done: ExqRecovery[] = [];
  for (const nodeId of dead) {
    const result = await recoverExqNode(redis, keys, nodeId, timeoutSeconds);
    done.push(result);
    if ('skipped' in result && result.skipped === 'exq-alive') break; // so are the rest
  }
  return done;
}

/** Moves one dead Exq node's backup lists back into their queues and drops its beat (recover-exq-node.lua). */
export async function recoverExqNode(
  redis: RedisClient,
  keys: Keys,
  nodeId: string,
  timeoutSeconds: number,
): Promise<ExqRecovery> {
  const found = await backupQueuesOf(redis, keys, nodeId);
  // A key that is not a list holds no job; leaving it out keeps it from blocking the others.
  const types = await Promise.all(found.map((q) => redis.type(keys.backup(nodeId, q))));
  const queues = found.filter((_, i) => types[i] === 'list');
  const scriptKeys = [
    keys.exqHeartbeats,
    keys.nodes,
    keys.queues,
    keys.processWorkers(nodeId),
    keys.process(nodeId),
    keys.processes,
    ...queues.flatMap((q) => [keys.backup(nodeId, q), keys.queue(q), keys.jobIndex(q)]),
  ];
  const moved = (await runScript(redis, 'recover-exq-node', scriptKeys, [
    nodeId,
    timeoutSeconds,
    queues.length,
    ...queues,
  ])) as number;
  if (moved === -1) return { nodeId, skipped: 'alive' };
  if (moved === -2) return { nodeId, skipped: 'exq-alive' };
  return { nodeId, moved };
}
