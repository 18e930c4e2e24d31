// At start: does the deployment keep the promise of `waitReplicas` (a confirmed write survives a
// failover)? Each warning names the setting that breaks it. Read on the master nexq reached (in a
// cluster: the one owning `key`'s slot); CONFIG GET may be refused (managed Redis), and then the
// server settings are not checked.
import type { RedisTarget } from '../../config/redis-options';
import { RedisClient, serverOf } from './client';
import { parseReplication } from './replica-mark';

/** With `waitReplicas`, a warning when the master has fewer replicas online: every write fails then. */
export async function missingReplicas(
  client: RedisClient,
  target: RedisTarget,
  key: string,
): Promise<string | undefined> {
  const wanted = waitReplicasOf(target);
  if (wanted === 0) return undefined;
  const { online } = parseReplication(await serverOf(client, key).info('replication'));
  if (online >= wanted) return undefined;
  return `redis.waitReplicas is ${wanted} but the master has ${online} replica(s) attached: every write fails until enough are`;
}

/** Every way the deployment breaks the promise, one line each (none: it keeps it). */
export async function replicationWarnings(client: RedisClient, target: RedisTarget, key: string): Promise<string[]> {
  const server = serverOf(client, key);
  const wanted = waitReplicasOf(target);
  const { role, online } = parseReplication(await server.info('replication'));
  if (role !== 'master') return [];
  const warnings: string[] = [];
  const missing = await missingReplicas(client, target, key);
  if (missing) warnings.push(missing);
  if (wanted === 0 && online > 0)
    warnings.push(
      `the master has ${online} replica(s) but redis.waitReplicas is not set: a write Redis answered can be lost in a failover (set redis.waitReplicas: 1; nexq then waits for every replica the master has online)`,
    );
  const config = await readConfig(server, ['appendonly', 'min-replicas-to-write']);
  if (config === undefined || wanted === 0) return warnings;
  if (config.appendonly !== 'yes')
    warnings.push(
      'appendonly is no on the master: restarted before the sentinels fail it over, it comes back without its latest writes (or empty) and its replicas copy that; set appendonly yes on every server',
    );
  const minReplicas = Number(config['min-replicas-to-write'] ?? 0);
  if (minReplicas > online)
    warnings.push(
      `min-replicas-to-write is ${minReplicas} on the master but ${online} replica(s) are attached: it refuses every write (NOREPLICAS)`,
    );
  return warnings;
}

function waitReplicasOf(target: RedisTarget): number {
  return typeof target === 'string' ? 0 : (target.waitReplicas ?? 0);
}

async function readConfig(
  server: ReturnType<typeof serverOf>,
  names: string[],
): Promise<Record<string, string> | undefined> {
  try {
    const flat = (await server.config('GET', ...names)) as string[];
    const out: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]] = flat[i + 1];
    return out;
  } catch {
    return undefined;
  }
}
