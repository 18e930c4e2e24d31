// Finds a node's backup lists. Used at boot and in dead-node recovery, never on the hot path, so
// SCAN (which does not block Redis) is cheap enough and needs no bookkeeping that could drift.
import { RedisClient, serverOf } from './client';
import type { Keys } from './keys';

/** The queue names for which `nodeId` has a backup list. */
export async function backupQueuesOf(redis: RedisClient, keys: Keys, nodeId: string): Promise<string[]> {
  const prefix = keys.backup(nodeId, '');
  const queues = new Set<string>();
  const server = serverOf(redis, prefix); // SCAN has no key: in a cluster, the master of nexq's slot
  let cursor = '0';
  do {
    const [next, found] = await server.scan(cursor, 'MATCH', keys.backupPattern(nodeId), 'COUNT', 500);
    cursor = next;
    for (const key of found) if (key.startsWith(prefix)) queues.add(key.slice(prefix.length));
  } while (cursor !== '0');
  return [...queues];
}
