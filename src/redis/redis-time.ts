// Redis' clock, the one nexq keeps time by (docs/time.md): liveness is decided inside the scripts
// with TIME (beat.lua, dead-nodes.lua, recover-node.lua), and due times a node computes come from
// a Clock (src/job/time.ts) anchored here on the master of the node-wide keys, the same master.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../job/time';
import type { RedisClient } from './client';
import type { Keys } from './keys';
import { runScript } from './scripts';

/** Reads Redis' TIME into `clock`; returns Redis' time minus this machine's wall clock, in seconds. */
export async function sampleRedisClock(client: RedisClient, keys: Keys, clock: Clock): Promise<number> {
  const wallBefore = Date.now();
  const sent = performance.now();
  const [seconds, micros] = (await runScript(client, 'redis-time', [keys.nodes], [])) as [string, string];
  const received = performance.now();
  const wall = (wallBefore + Date.now()) / 2000;
  return clock.sample(Number(seconds) + Number(micros) / 1e6, sent, received, wall);
}

/**
 * The nodes silent for `timeoutSeconds` by Redis' clock, at most `limit`: nexq's (`<ns>:nexq:nodes`),
 * or those of another set of beats scored in epoch seconds (Exq's `<ns>:heartbeats`).
 */
export async function deadNodes(
  client: RedisClient,
  keys: Keys,
  timeoutSeconds: number,
  limit: number,
  beats: string = keys.nodes,
): Promise<string[]> {
  return (await runScript(client, 'dead-nodes', [beats], [timeoutSeconds, limit])) as string[];
}

/** One write of the running-jobs hashes (beat.lua's ARGV[10..]; src/actors/running-jobs-hash.ts). */
export interface RunningJobsWrite {
  /** How many fields the hashes hold as last written; -1 for a whole rewrite. */
  written: number;
  /** Fields to remove (jobs that ended). */
  removed: string[];
  /** Fields to set, jid -> value (jobs that started or whose progress changed; all on a rewrite). */
  set: Record<string, string>;
}

/** One heartbeat's fields (beat.lua): the process entry's and the running-jobs hash's. */
export interface Beat {
  nodeId: string;
  identity: string;
  ttlSeconds: number;
  info: string;
  busy: number;
  quiet: boolean;
  rssKb: number;
  /** Jobs fetched ahead of a free slot (prefetch), shown beside busy. */
  reserved: number;
  /** Slots across the queues served (also in `info`; Sidekiq 8.1 reads it as its own field). */
  concurrency: number;
  /** The running-jobs hashes' change. */
  work: RunningJobsWrite;
}

/** What Redis answered a beat. */
export interface BeatAnswer {
  /** The signal Sidekiq's API left for the process, if any. */
  signal: string | undefined;
  /** The running-jobs hashes were not as last written (nothing of them was written then). */
  workLost: boolean;
  /** The node list held no beat of this node before this one: a first beat, or it was declared dead. */
  absent: boolean;
}

/** Writes one beat scored by Redis' clock. */
export async function writeBeat(client: RedisClient, keys: Keys, beat: Beat): Promise<BeatAnswer> {
  const argv: Array<string | number> = [
    beat.nodeId,
    beat.identity,
    beat.ttlSeconds,
    beat.info,
    beat.busy,
    String(beat.quiet),
    beat.rssKb,
    beat.reserved,
    beat.concurrency,
    beat.work.written,
    beat.work.removed.length,
    ...beat.work.removed,
  ];
  for (const [field, value] of Object.entries(beat.work.set)) argv.push(field, value);
  const scriptKeys = [
    keys.processWorkers(beat.identity),
    keys.nodes,
    keys.nodeIdentities,
    keys.processes,
    keys.process(beat.identity),
    keys.processSignals(beat.identity),
    keys.processWork(beat.identity),
  ];
  const [signal, , lost, absent] = (await runScript(client, 'beat', scriptKeys, argv)) as [
    string | null,
    string,
    number,
    number,
  ];
  return { signal: signal ?? undefined, workLost: lost === 1, absent: absent === 1 };
}
