// The flags that say which Redis to use, shared by `nexq start` and the admin commands.
import type { NexqConfig } from '../../config/defaults';
import type { LayeredConfig } from '../../config/load';
import { layRedisParts, REDIS_FLAGS } from '../../config/redis-sources';

export const REDIS_FLAG_NAMES = [
  'redis',
  'redis-sentinels',
  'redis-sentinel-name',
  'redis-cluster',
  'redis-wait-replicas',
];

export const REDIS_FLAGS_HELP = `  --redis URL                 Redis to use (default: $REDIS_URL or redis://127.0.0.1:6379)
  --redis-sentinels LIST      Sentinel instead: host:port,host:port (password: $NEXQ_REDIS_PASSWORD,
                              the sentinels' own: $NEXQ_REDIS_SENTINEL_PASSWORD)
  --redis-sentinel-name NAME  the master group the sentinels monitor
  --redis-cluster LIST        Redis Cluster seed nodes: host:port or redis:// URLs, comma-separated
                              (the namespace picks the key layout: see docs/cluster.md)
  --redis-wait-replicas N     a write counts once N replicas, and every replica its master has had
                              online, hold it (WAIT; see docs/reliability.md)`;

/** Lays the Redis flags over `config.redis` (a URL flag replaces, WAIT completes). */
export function layRedisFlags(config: NexqConfig, flag: (name: string) => string | undefined): void {
  const redis = layRedisParts(
    config.redis,
    {
      url: flag('redis'),
      sentinels: flag('redis-sentinels'),
      sentinelName: flag('redis-sentinel-name'),
      cluster: flag('redis-cluster'),
      waitReplicas: flag('redis-wait-replicas'),
    },
    REDIS_FLAGS,
  );
  if (redis !== undefined) config.redis = redis;
}

/** The same over layered options, remembering that the flags set `redis` (for error messages). */
export function layRedisFlagsOver(layers: LayeredConfig, flag: (name: string) => string | undefined): void {
  const before = layers.config.redis;
  layRedisFlags(layers.config, flag);
  if (layers.config.redis !== before) layers.sources.redis = 'the --redis flags';
}
