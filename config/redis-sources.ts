// Builds the `redis` option from the text of flags or environment variables (a URL, a Sentinel
// list and master name, cluster seeds, WAIT replicas, passwords), laid over what a weaker source
// (the config file, the environment) gave. Passwords come from the environment only.
import { ConfigError } from './config-error';
import { credentialsOf, NexqRedisOptions, parseHostPortList, RedisTarget } from './redis-options';

export interface RedisParts {
  url?: string;
  /** host:port,host:port */
  sentinels?: string;
  sentinelName?: string;
  /** host:port or redis:// URLs, comma-separated */
  cluster?: string;
  waitReplicas?: string;
  password?: string;
  sentinelPassword?: string;
}

/** What each part is called where it came from, for error messages. */
export type RedisPartNames = Record<keyof RedisParts, string>;

export const REDIS_ENV: RedisPartNames = {
  url: 'NEXQ_REDIS_URL',
  sentinels: 'NEXQ_REDIS_SENTINELS',
  sentinelName: 'NEXQ_REDIS_SENTINEL_NAME',
  cluster: 'NEXQ_REDIS_CLUSTER',
  waitReplicas: 'NEXQ_REDIS_WAIT_REPLICAS',
  password: 'NEXQ_REDIS_PASSWORD',
  sentinelPassword: 'NEXQ_REDIS_SENTINEL_PASSWORD',
};

export const REDIS_FLAGS: Omit<RedisPartNames, 'password' | 'sentinelPassword'> = {
  url: '--redis',
  sentinels: '--redis-sentinels',
  sentinelName: '--redis-sentinel-name',
  cluster: '--redis-cluster',
  waitReplicas: '--redis-wait-replicas',
};

/** The `redis` option after laying `parts` over `base`; `base` itself when no part is given. */
export function layRedisParts(
  base: RedisTarget | undefined,
  parts: RedisParts,
  names: Partial<RedisPartNames>,
): RedisTarget | undefined {
  const name = (key: keyof RedisParts) => names[key] ?? key;
  const given = (['url', 'sentinels', 'cluster'] as const).filter((k) => parts[k] !== undefined);
  if (given.length > 1)
    throw new ConfigError(given.map(name).join(' + '), `only one of ${given.map(name).join(', ')}`, '<hidden>');
  if ((parts.sentinels === undefined) !== (parts.sentinelName === undefined)) {
    throw new ConfigError(
      name(parts.sentinels === undefined ? 'sentinels' : 'sentinelName'),
      `given with ${name(parts.sentinels === undefined ? 'sentinelName' : 'sentinels')}`,
      'nothing',
    );
  }
  // A new place (URL, sentinels or cluster) replaces the old one and keeps the rest: passwords, WAIT, TLS.
  const kept = typeof base === 'object' ? withoutPlace(base) : {};
  const at = (place: NexqRedisOptions): RedisTarget => ({ ...kept, ...place });
  let target: RedisTarget | undefined = base;
  if (parts.url !== undefined) target = Object.keys(kept).length ? at({ url: parts.url }) : parts.url;
  if (parts.sentinels !== undefined)
    target = at({ sentinels: parseHostPortList(parts.sentinels, name('sentinels')), name: parts.sentinelName });
  if (parts.cluster !== undefined) {
    const urls = parts.cluster.split(',').map((u) => u.trim());
    const withCredentials = urls.map(credentialsOf).find((c) => c.password !== undefined || c.username !== undefined);
    target = at({ cluster: parseHostPortList(parts.cluster, name('cluster')), ...withCredentials });
  }
  const overlay: NexqRedisOptions = {};
  if (parts.waitReplicas !== undefined) {
    if (!/^\d+$/.test(parts.waitReplicas))
      throw new ConfigError(name('waitReplicas'), 'a whole number', parts.waitReplicas);
    overlay.waitReplicas = Number(parts.waitReplicas);
  }
  if (parts.password !== undefined) overlay.password = parts.password;
  if (parts.sentinelPassword !== undefined) overlay.sentinelPassword = parts.sentinelPassword;
  if (Object.keys(overlay).length === 0) return target;
  const options: NexqRedisOptions = typeof target === 'string' ? { url: target } : { ...(target ?? {}) };
  return { ...options, ...overlay };
}

function withoutPlace(options: NexqRedisOptions): NexqRedisOptions {
  const {
    url: _url,
    sentinels: _sentinels,
    name: _name,
    cluster: _cluster,
    host: _host,
    port: _port,
    path: _path,
    ...rest
  } = options;
  return rest;
}
