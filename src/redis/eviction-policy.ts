// Whether Redis may evict nexq's keys. Under any `maxmemory-policy` but `noeviction`, a Redis that
// reaches `maxmemory` drops keys to make room: a queue, a backup list, the retry or dead set, and
// the jobs in them, silently. Sidekiq warns at start for the same reason; so does a node. (Under
// `noeviction` a full Redis refuses writes instead: RedisOutOfMemoryError, see ./errors.ts.)
import { Cluster } from 'ioredis';
import type { RedisClient } from './client';

/** What INFO memory says about eviction on one server. */
export interface EvictionPolicy {
  /** host:port, or '' for a single server. */
  server: string;
  policy: string;
  /** Bytes; 0 when no limit is set. */
  maxmemory: number;
}

/** The policy of every server that holds nexq's keys (each master of a cluster). */
export async function evictionPolicies(redis: RedisClient): Promise<EvictionPolicy[]> {
  const servers = redis instanceof Cluster ? redis.nodes('master') : [redis];
  return Promise.all(
    servers.map(async (server) => {
      const info = await server.info('memory');
      const field = (name: string) => new RegExp(`^${name}:(.*?)\\r?$`, 'm').exec(info)?.[1] ?? '';
      const where = redis instanceof Cluster ? `${server.options.host ?? ''}:${server.options.port ?? ''}` : '';
      return { server: where, policy: field('maxmemory_policy'), maxmemory: Number(field('maxmemory')) || 0 };
    }),
  );
}

/** One warning per server whose policy may evict jobs (an unknown policy, say INFO hid it, is none). */
export function evictionWarnings(policies: EvictionPolicy[]): string[] {
  return policies
    .filter(({ policy }) => policy !== '' && policy !== 'noeviction')
    .map(
      ({ server, policy, maxmemory }) =>
        `WARNING: Redis${server ? ` at ${server}` : ''} has maxmemory-policy ${policy}` +
        ` (maxmemory ${maxmemory === 0 ? 'not set yet' : `${maxmemory} bytes`}): when it fills up it evicts keys,` +
        ` and with them queued, scheduled, retrying and running jobs, without a trace.` +
        ` Set maxmemory-policy noeviction on a Redis that holds jobs (a full Redis then refuses enqueues instead).`,
    );
}
