// Finds backup lists. Used at boot and in dead-node recovery, never on the hot path, so SCAN
// (which does not block Redis) is cheap enough and needs no bookkeeping that could drift. In a
// cluster every master is scanned: in the per-queue key layout a node's backup lists are spread
// over all of them.
import { allMasters, RedisClient } from './client';
import type { Keys } from './keys';

/** Every backup list matching `pattern`, as node and queue. */
async function scanBackups(
  redis: RedisClient,
  keys: Keys,
  pattern: string,
  nodeId?: string,
): Promise<Array<{ nodeId: string; queue: string }>> {
  const found = new Map<string, { nodeId: string; queue: string }>();
  for (const server of allMasters(redis)) {
    let cursor = '0';
    do {
      const [next, names] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      for (const name of names) {
        const parsed = keys.parseBackup(name, nodeId);
        if (parsed) found.set(name, parsed);
      }
    } while (cursor !== '0');
  }
  return [...found.values()];
}

/** The queue names for which `nodeId` has a backup list. */
export async function backupQueuesOf(redis: RedisClient, keys: Keys, nodeId: string): Promise<string[]> {
  const lists = await scanBackups(redis, keys, keys.backupPattern(nodeId), nodeId);
  return [...new Set(lists.map((b) => b.queue))];
}

/** Every backup list of every node. */
export function allBackups(redis: RedisClient, keys: Keys): Promise<Array<{ nodeId: string; queue: string }>> {
  return scanBackups(redis, keys, keys.anyBackupPattern);
}
