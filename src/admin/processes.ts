// The live processes from `<ns>:processes`, each `<ns>:<identity>` hash (Sidekiq's process entry)
// and the jobs each runs now (`<ns>:<identity>:workers`, written WORK_FLUSH_MS after a job starts or
// ends), and the supervision tree a nexq node publishes with its beat. A member whose entry expired
// (a process stopped without removing itself, as Exq never does) is not live and is left out. Exq
// 0.23 writes the entry in Sidekiq's shape with its own `info` (Exq.Support.Node): its pid a string,
// a concurrency of 0 it never fills in, its identity the bare host name.
import type { ActorSnapshot } from '../runtime';
import type { RedisClient } from '../redis/client';
import type { Keys } from '../redis/keys';
import type { AdminContext } from './context';
import { jsonObject } from '../job/json-object';
import { isoOf, jobView, JobView } from './job-view';

export interface ProcessView {
  identity: string;
  hostname: string | null;
  pid: number | null;
  queues: unknown;
  concurrency: number | null;
  busy: number;
  /** Jobs fetched ahead of a free slot (prefetch): taken from the queue, not started. */
  reserved: number;
  beat: string | null;
  quiet: boolean;
  started_at: string | null;
  /** Resident memory (KB) at the last write of the entry. */
  rss_kb: number | null;
  /** Worker threads that run handlers. */
  threads: number | null;
  /** nexq's version (Sidekiq's own for a Sidekiq process). */
  version: string | null;
  info: Record<string, unknown> | null;
}

/** The members of the processes set whose entry is still there, each with its entry's fields. */
export async function liveProcessEntries({
  redis,
  keys,
}: {
  redis: RedisClient;
  keys: Keys;
}): Promise<Array<{ identity: string; hash: Partial<Record<string, string>> }>> {
  const identities = (await redis.smembers(keys.processes)).sort();
  const hashes = await Promise.all(identities.map((identity) => redis.hgetall(keys.process(identity))));
  // An expired entry reads as an empty hash.
  return identities
    .map((identity, i) => ({ identity, hash: hashes[i] }))
    .filter(({ hash }) => Object.keys(hash).length > 0);
}

const num = (v: unknown) => (typeof v === 'number' ? v : null);

/** Exq writes its pid as a string of digits (`:os.getpid()`). */
function pidOf(v: unknown): number | null {
  return typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : num(v);
}

export async function readProcesses(ctx: AdminContext): Promise<ProcessView[]> {
  const views: ProcessView[] = [];
  for (const { identity, hash } of await liveProcessEntries(ctx)) {
    // A process entry written by another version may lack any field.
    const info = hash.info ? (jsonObject(hash.info) ?? null) : null;
    // Exq's concurrency is always 0: unknown, rather than a process that runs nothing.
    const exq = typeof info?.pid === 'string';
    views.push({
      identity,
      hostname: typeof info?.hostname === 'string' ? info.hostname : null,
      pid: pidOf(info?.pid),
      queues: info?.queues ?? null,
      concurrency: exq && info.concurrency === 0 ? null : num(info?.concurrency),
      busy: Number(hash.busy ?? 0),
      reserved: Number(hash.reserved ?? 0),
      beat: hash.beat ? isoOf(Number(hash.beat)) : null,
      quiet: hash.quiet === 'true',
      started_at: isoOf(num(info?.started_at) ?? undefined),
      rss_kb: hash.rss === undefined || !Number.isFinite(Number(hash.rss)) ? null : Number(hash.rss),
      threads: num(info?.threads),
      version: typeof info?.version === 'string' ? info.version : null,
      info,
    });
  }
  return views;
}

export interface RunningJobView extends JobView {
  /** The process running it. */
  identity: string;
  run_at: string | null;
  /** The latest progress its handler reported (as of the process's last beat), if any. */
  progress?: unknown;
}

/** The jobs `identity` ran at its last beat (Sidekiq's workers hash: jid -> { queue, payload, run_at }). */
export async function readRunningJobs(
  { redis, keys, encryption }: AdminContext,
  identity: string,
): Promise<RunningJobView[]> {
  const hash = await redis.hgetall(keys.processWorkers(identity));
  return Object.entries(hash)
    .map(([jid, text]) => {
      const work = jsonObject(text);
      const payload = typeof work?.payload === 'string' ? work.payload : JSON.stringify(work?.payload ?? null);
      const view = jobView(payload, undefined, encryption?.ring);
      return {
        ...view,
        jid: view.jid ?? jid,
        queue: view.queue ?? (typeof work?.queue === 'string' ? work.queue : null),
        identity,
        run_at: typeof work?.run_at === 'number' ? isoOf(work.run_at) : null,
        ...(work?.progress === undefined ? {} : { progress: work.progress }),
      };
    })
    .sort((a, b) => (a.run_at ?? '').localeCompare(b.run_at ?? ''));
}

/** The supervision tree `identity` published with its last periodic beat; null when none (not nexq, or gone). */
export async function readProcessTree({ redis, keys }: AdminContext, identity: string): Promise<ActorSnapshot | null> {
  const text = await redis.get(keys.processTree(identity));
  return text === null ? null : ((jsonObject(text) as ActorSnapshot | undefined) ?? null);
}
