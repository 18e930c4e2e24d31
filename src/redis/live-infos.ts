// The `info` of each live process entry (Sidekiq's `<ns>:<identity>` hash; its `info` is JSON),
// read in one go: what the live processes serve (live-serving.ts) and the limits per group of the
// fair queues they serve (src/admin/group-limits.ts) both come from it, so a request that needs
// both reads the entries once and derives each answer from that read. An entry expires a minute
// after its last beat, so one that is there is live.
import { jsonObject } from '../job/json-object';
import type { Keys } from './keys';
import type { RedisClient } from './client';

/** The live process entries' infos, parsed, by identity. */
export type LiveInfos = Array<Record<string, unknown>>;

/**
 * The infos of the live process entries (one SMEMBERS, one HGET each), in the order of their
 * identities: an expired entry (its member left behind), or one whose info is missing or not a
 * JSON object (written by another version), is left out.
 */
export async function readLiveInfos(redis: RedisClient, keys: Keys): Promise<LiveInfos> {
  const identities = (await redis.smembers(keys.processes)).sort();
  const texts = await Promise.all(identities.map((identity) => redis.hget(keys.process(identity), 'info')));
  return texts.flatMap((text) => {
    const info = text ? jsonObject(text) : undefined;
    return info ? [info] : [];
  });
}
