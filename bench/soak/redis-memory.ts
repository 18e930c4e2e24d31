// What the soak reads of Redis' memory: INFO's used_memory, and every key of the namespace with
// its type, its length and MEMORY USAGE, to say which keys are left after the run and how big.
import type Redis from 'ioredis';

/**
 * INFO memory's used_memory, after emptying the slow log: Redis keeps the last 128 commands slower
 * than 10 ms with their arguments (an enqueueAll of 1,000 jobs is one), up to ~1.5 KB each.
 */
export async function usedMemory(redis: Redis): Promise<number> {
  await redis.slowlog('RESET');
  return Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1] ?? NaN);
}

/** INFO memory's parts of used_memory that say where it went: data, clients' buffers, scripts. */
const PARTS = ['used_memory_dataset', 'used_memory_overhead', 'mem_clients_normal', 'used_memory_scripts_eval'];

export async function memoryParts(redis: Redis): Promise<string> {
  const info = await redis.info('memory');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);
  return PARTS.map((name) => `${name.replace(/^(used_)?mem(ory)?_/, '')} ${(field(name) / 1024).toFixed(0)} KB`).join(
    ', ',
  );
}

export interface KeyReading {
  type: string;
  /** Elements (list, set, zset, hash) or bytes (string). */
  length: number;
  /** MEMORY USAGE, bytes. */
  bytes: number;
}

const LENGTH: Partial<Record<string, (redis: Redis, key: string) => Promise<number>>> = {
  list: (r, k) => r.llen(k),
  set: (r, k) => r.scard(k),
  zset: (r, k) => r.zcard(k),
  hash: (r, k) => r.hlen(k),
  string: (r, k) => r.strlen(k),
};

export async function readKeys(redis: Redis, pattern: string): Promise<Map<string, KeyReading>> {
  const keys = new Set<string>();
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    for (const key of batch) keys.add(key);
    cursor = next;
  } while (cursor !== '0');
  const readings = new Map<string, KeyReading>();
  for (const key of [...keys].sort()) {
    const type = await redis.type(key);
    if (type === 'none') continue;
    const read = LENGTH[type];
    const length = read ? await read(redis, key) : NaN;
    const bytes = Number(await redis.memory('USAGE', key));
    readings.set(key, { type, length, bytes });
  }
  return readings;
}

/** One line per key: name, type, length, bytes, and what it was at `before` when it differs. */
export function describeKeys(now: Map<string, KeyReading>, before?: Map<string, KeyReading>): string[] {
  return [...now].map(([key, r]) => {
    const was = before?.get(key);
    const change = !before ? '' : !was ? '  (new)' : was.length !== r.length ? `  (was ${was.length})` : '';
    return `  ${key}  ${r.type} ${r.length}  ${r.bytes} B${change}`;
  });
}
