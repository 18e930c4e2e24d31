// The `redis` option: a URL, or ioredis options with nexq's additions (Sentinel, Cluster, WAIT),
// and its validation. Error messages never show a password.
import type { RedisOptions } from 'ioredis';
import { ConfigError } from './config-error';

export interface HostPort {
  host: string;
  port: number;
}

/** ioredis options plus what nexq adds. Sentinel: `sentinels` and `name` (ioredis' own options). */
export interface NexqRedisOptions extends RedisOptions {
  /** A redis:// or rediss:// URL; the other fields are laid over it. Not with `sentinels` or `cluster`. */
  url?: string;
  /** Seed nodes of a Redis Cluster. The other fields (password, tls, ...) apply to every node. */
  cluster?: HostPort[];
  /**
   * After each write, `WAIT` on the same connection: a write that fewer than `waitReplicas`
   * replicas, or not every replica its master has had online, acknowledged within `waitTimeout`
   * fails with UnconfirmedWriteError instead of succeeding, so a failover (forced or a crash)
   * cannot drop a write nexq counted as done (docs/reliability.md). Default 0 (off).
   */
  waitReplicas?: number;
  /** Milliseconds WAIT blocks before a write counts as unconfirmed (default 1000). */
  waitTimeout?: number;
}

export type RedisTarget = string | NexqRedisOptions;

export const DEFAULT_WAIT_TIMEOUT_MS = 1000;
/** Must stay below the connection's command timeout, or the write times out first. */
export const MAX_WAIT_TIMEOUT_MS = 9000;

/**
 * The hash tag Redis Cluster hashes a key by, as Redis finds it: the text between the first `{` and
 * the first `}` after it, if not empty. Every nexq key starts with the namespace, so a namespace
 * with a tag (`{exq}`) puts every key in one slot, and the scripts, which touch keys of several
 * queues and shared sets at once, never meet CROSSSLOT.
 */
export function hashTagOf(text: string): string | undefined {
  const open = text.indexOf('{');
  if (open < 0) return undefined;
  const close = text.indexOf('}', open + 1);
  return close > open + 1 ? text.slice(open + 1, close) : undefined;
}

const HIDDEN = '<hidden>';
const URL_PATTERN = /^rediss?:\/\//;

function hostPorts(value: unknown, key: string): HostPort[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new ConfigError(key, 'a non-empty array of { host, port }', value);
  return value.map((entry: unknown, i) => {
    const where = `${key}[${i}]`;
    if (typeof entry !== 'object' || entry === null) throw new ConfigError(where, 'an object { host, port }', entry);
    const { host, port } = entry as { host?: unknown; port?: unknown };
    if (typeof host !== 'string' || host === '') throw new ConfigError(`${where}.host`, 'a host name or address', host);
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
      throw new ConfigError(`${where}.port`, 'a port number (1-65535)', port);
    return { host, port };
  });
}

function optionalInteger(
  options: NexqRedisOptions,
  key: 'waitReplicas' | 'waitTimeout',
  min: number,
  max = Infinity,
): void {
  const value = options[key];
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(
      `redis.${key}`,
      max === Infinity ? `an integer >= ${min}` : `an integer from ${min} to ${max}`,
      value,
    );
  }
}

/** Checks the `redis` option; throws ConfigError naming the first bad field. */
export function checkRedisTarget(redis: unknown): void {
  if (typeof redis === 'string') {
    if (!URL_PATTERN.test(redis)) throw new ConfigError('redis', 'a URL starting with redis:// or rediss://', HIDDEN);
    return;
  }
  if (typeof redis !== 'object' || redis === null || Array.isArray(redis)) {
    throw new ConfigError('redis', 'a redis:// or rediss:// URL or ioredis options', HIDDEN);
  }
  const options = redis as NexqRedisOptions;
  if (options.url !== undefined && (typeof options.url !== 'string' || !URL_PATTERN.test(options.url))) {
    throw new ConfigError('redis.url', 'a URL starting with redis:// or rediss://', HIDDEN);
  }
  for (const field of ['password', 'sentinelPassword', 'username', 'sentinelUsername'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'string')
      throw new ConfigError(`redis.${field}`, 'a string', HIDDEN);
  }
  const modes = (['url', 'sentinels', 'cluster'] as const).filter((k) => options[k] !== undefined);
  if (modes.length > 1) throw new ConfigError('redis', 'at most one of url, sentinels and cluster', modes.join(' + '));
  if (options.sentinels !== undefined) {
    hostPorts(options.sentinels, 'redis.sentinels');
    if (typeof options.name !== 'string' || options.name === '') {
      throw new ConfigError(
        'redis.name',
        'the master group name the sentinels monitor (sentinel monitor <name> ...)',
        options.name,
      );
    }
  } else if (options.name !== undefined) {
    throw new ConfigError(
      'redis.name',
      'absent without redis.sentinels (it names a Sentinel master group)',
      options.name,
    );
  }
  if (options.cluster !== undefined) {
    hostPorts(options.cluster, 'redis.cluster');
    if (options.db !== undefined && options.db !== 0)
      throw new ConfigError('redis.db', '0 with redis.cluster (a cluster has one database)', options.db);
  }
  optionalInteger(options, 'waitReplicas', 0);
  optionalInteger(options, 'waitTimeout', 1, MAX_WAIT_TIMEOUT_MS);
}

/** "h1:26379,h2:26379" (or redis:// URLs) -> [{ host, port }]. */
export function parseHostPortList(text: string, key: string): HostPort[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new ConfigError(key, 'a list like host:port,host:port', text);
  return parts.map((part) => {
    const url = URL_PATTERN.test(part) ? safeUrl(part) : undefined;
    const match = url ? [part, url.hostname.replace(/^\[|\]$/g, ''), url.port || '6379'] : /^(.+):(\d+)$/.exec(part);
    const port = match ? Number(match[2]) : NaN;
    if (!match || !match[1] || port < 1 || port > 65535)
      throw new ConfigError(key, 'a list like host:port,host:port', URL_PATTERN.test(part) ? HIDDEN : text);
    return { host: match[1], port };
  });
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** The user name and password of a redis:// URL, for a list of cluster URLs. */
export function credentialsOf(text: string): Pick<RedisOptions, 'username' | 'password'> {
  const url = safeUrl(text);
  const credentials: Pick<RedisOptions, 'username' | 'password'> = {};
  if (url?.username) credentials.username = decodeURIComponent(url.username);
  if (url?.password) credentials.password = decodeURIComponent(url.password);
  return credentials;
}
