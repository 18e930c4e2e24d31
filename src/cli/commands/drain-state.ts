// What `nexq drain` watches, read from Redis as any process sees it: jobs waiting in the queues,
// jobs nexq nodes hold in their backup lists (from fetch until settled, so exact at every moment),
// and the busy jobs every process entry reports (Sidekiq's and nexq's, as of its last beat).
import type { Session } from './common';
import { jsonObject } from '../../job/json-object';

export interface DrainState {
  queues: string[];
  /** Waiting jobs per queue. */
  queued: Record<string, number>;
  /** Jobs of these queues in the nexq nodes' backup lists: fetched and not settled yet. */
  inBackup: number;
  /** Jobs of these queues that the process entries report running. */
  busy: number;
  /** `<ns>:stat:processed`, for the rate. */
  processed: number;
}

/** Waiting plus running; a running job may be counted by both its backup list and its process. */
export function remainingOf(state: DrainState): number {
  return totalQueued(state) + Math.max(state.inBackup, state.busy);
}

export function totalQueued(state: DrainState): number {
  return Object.values(state.queued).reduce((a, b) => a + b, 0);
}

export function isDrained(state: DrainState): boolean {
  return totalQueued(state) === 0 && state.inBackup === 0 && state.busy === 0;
}

/** Reads the state of `only` (or every queue of the queues set when empty) in two rounds. */
export async function readDrainState({ redis, keys }: Session, only: string[]): Promise<DrainState> {
  const [known, nodeIds, identities, processed] = valuesOf(
    await redis
      .multi()
      .smembers(keys.queues)
      .zrange(keys.nodes, 0, -1)
      .smembers(keys.processes)
      .get(keys.stat('processed'))
      .exec(),
  );
  const queues = only.length > 0 ? only : [...(known as string[])].sort();
  const ids = nodeIds as string[];
  const processes = identities as string[];

  // Sent together rather than as one pipeline: in the per-queue key layout the queues' keys are on
  // several cluster masters.
  const replies: unknown[] = await Promise.all([
    ...queues.map((q) => redis.llen(keys.queue(q))),
    ...ids.flatMap((id) => queues.map((q) => redis.llen(keys.backup(id, q)))),
    ...processes.map((identity) => redis.hvals(keys.processWorkers(identity))),
  ]);

  const queued: Record<string, number> = {};
  queues.forEach((q, i) => (queued[q] = Number(replies[i])));
  const backupReplies = replies.slice(queues.length, queues.length + ids.length * queues.length);
  const inBackup = backupReplies.reduce<number>((sum, n) => sum + Number(n), 0);
  const wanted = new Set(queues);
  let busy = 0;
  for (const workers of replies.slice(queues.length + backupReplies.length) as string[][]) {
    // Sidekiq's shape: each running job a JSON { queue, payload, run_at }.
    for (const entry of workers) if (wanted.has(String(jsonObject(entry)?.queue))) busy++;
  }
  return { queues, queued, inBackup, busy, processed: Number(processed ?? 0) };
}

/** The replies of a pipeline or transaction; the first error is thrown. */
function valuesOf(results: Array<[Error | null, unknown]> | null): unknown[] {
  return (results ?? []).map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}
