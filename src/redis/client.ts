// A client of one Redis server (or a Sentinel-managed master) or of a Redis Cluster, and the few
// things that differ between the two: opening a second connection like it, and where a command
// without keys (SCAN, INFO) must run to see nexq's keys.
import Redis, { Cluster, RedisOptions } from 'ioredis';
import { hashTagOf } from '../../config/redis-options';
import { failUnansweredOnClose } from './unanswered';
import { handleIoredisOwnCommands } from './own-commands';

export type RedisClient = Redis | Cluster;

const SLOTS = 16384;

/** A new connection of the same kind and to the same place, with `overrides` on each server connection. */
export function duplicateClient(client: RedisClient, overrides: Partial<RedisOptions>): RedisClient {
  const copy =
    client instanceof Cluster
      ? client.duplicate([], { redisOptions: { ...client.options.redisOptions, ...overrides } })
      : client.duplicate(overrides);
  failUnansweredOnClose(copy);
  handleIoredisOwnCommands(copy);
  return copy;
}

/** CRC16-CCITT (XMODEM), the checksum Redis Cluster hashes keys with. */
function crc16(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The cluster slot of `key`: of its hash tag when it has one. */
export function keySlot(key: string): number {
  return crc16(Buffer.from(hashTagOf(key) ?? key, 'utf8')) % SLOTS;
}

/**
 * The connection a keyless command about `key` runs on: the client itself, or in a cluster the
 * master that owns `key`'s slot now (a random node would see none of nexq's keys). Fails while the
 * cluster has not told the client who owns that slot; callers retry as after any Redis error.
 */
export function serverOf(client: RedisClient, key: string): Redis {
  if (!(client instanceof Cluster)) return client;
  const slot = keySlot(key);
  const owner = client.slots.at(slot)?.[0];
  const master =
    owner === undefined
      ? undefined
      : client.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === owner);
  if (!master) throw new Error(`no connection to the cluster master of slot ${slot} (of ${JSON.stringify(key)}) yet`);
  return master;
}

/** Every server that holds keys: the client itself, or each master of a cluster. */
export function allMasters(client: RedisClient): Redis[] {
  if (!(client instanceof Cluster)) return [client];
  const masters = client.nodes('master');
  if (masters.length === 0) throw new Error('no connection to any cluster master yet');
  return masters;
}
