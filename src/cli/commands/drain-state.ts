// What `nexq drain` watches, each read from where it is true at that instant: jobs waiting in the
// queues; jobs nexq nodes hold in their backup lists (from fetch until settled); at-most-once jobs
// running off their backup list (their job index entry says `taken` until they end); and, for
// processes that are not nexq nodes (Sidekiq), the jobs their entry reports running. A nexq node's
// own report (`<identity>:workers`) is written with each beat and lags up to one heartbeat, so it is
// not read: the backup lists and the index say the same at once. Each queue's processed count is
// added to by the very script that takes a job off its backup list, and a queue's length, its backup
// lists and its count are read in one MULTI (all in the queue's slot): a job is waiting, running or
// counted, never two of them or none, so what drain reports processed is exact.
import type { Session } from './common';
import { jsonObject } from '../../job/json-object';

export interface DrainState {
  queues: string[];
  /** Waiting jobs per queue. */
  queued: Record<string, number>;
  /** Jobs of these queues in the nexq nodes' backup lists, or taken (at most once): running now. */
  inBackup: number;
  /** Jobs of these queues that processes other than nexq nodes (Sidekiq) report running. */
  busy: number;
  /** `<ns>:nexq:processed:<q>`: queue -> jobs of it processed so far. */
  processedByQueue: Record<string, number>;
  /** Queues with waiting jobs that no live, unquiet process serves, or paused for output. */
  unserved: Array<{ queue: string; why: string }>;
}

/** Waiting plus running. */
export function remainingOf(state: DrainState): number {
  return totalQueued(state) + state.inBackup + state.busy;
}

export function totalQueued(state: DrainState): number {
  return Object.values(state.queued).reduce((a, b) => a + b, 0);
}

/** Jobs of `state`'s queues processed since `first` was read. */
export function processedSince(first: DrainState, state: DrainState): number {
  const of = (s: DrainState, q: string) => s.processedByQueue[q] ?? 0;
  return state.queues.reduce((sum, q) => sum + Math.max(0, of(state, q) - of(first, q)), 0);
}

export function isDrained(state: DrainState): boolean {
  return remainingOf(state) === 0;
}

/** The replies of a pipeline or transaction; the first error is thrown. */
function valuesOf(results: Array<[Error | null, unknown]> | null): unknown[] {
  return (results ?? []).map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

/** At-most-once jobs of `queues` running now: index entries `<n>\ttaken\t<queue>\t<node>`. */
async function takenJobs({ redis, keys }: Session, queues: string[]): Promise<number> {
  const wanted = new Set(queues);
  const indexes = keys.perQueue ? queues.map((q) => keys.jobIndex(q)) : [keys.jobIndex('')];
  let taken = 0;
  for (const index of indexes) {
    let cursor = '0';
    do {
      const [next, flat] = await redis.hscan(index, cursor, 'COUNT', 1000);
      for (let i = 1; i < flat.length; i += 2) {
        const [, state, queue] = flat[i].split('\t');
        if (state === 'taken' && wanted.has(queue)) taken++;
      }
      cursor = next;
    } while (cursor !== '0');
  }
  return taken;
}

/** `queue`'s waiting jobs, its jobs in the backup lists of nodes `ids`, and its processed count, at one instant. */
async function queueCounts(
  { redis, keys }: Session,
  queue: string,
  ids: string[],
): Promise<{ waiting: number; inBackup: number; processed: number }> {
  // A fair queue's jobs wait in its groups too (src/redis/fair-queue.ts).
  const tx = redis.multi().llen(keys.queue(queue)).get(keys.processed(queue)).zcard(keys.fair(queue).jobs);
  for (const id of ids) tx.llen(keys.backup(id, queue));
  const [waiting, processed, inGroups, ...backups] = valuesOf(await tx.exec());
  return {
    waiting: (waiting as number) + (inGroups as number),
    processed: Number(processed ?? 0),
    inBackup: (backups as number[]).reduce((sum, n) => sum + n, 0),
  };
}

/** Why no process will take the waiting jobs of `queue`, or undefined when one will. */
function unservedWhy(queue: string, serving: Array<Set<string>>, paused: string | null): string | undefined {
  if (paused === 'out' || paused === 'all') return `it is paused (${paused}; nexq resume ${queue})`;
  if (!serving.some((queues) => queues.has(queue))) return 'no live process serves it';
  return undefined;
}

/** Reads the state of `only` (or every queue of the queues set when empty). */
export async function readDrainState(session: Session, only: string[]): Promise<DrainState> {
  const { redis, keys } = session;
  const [known, nodeIds, identities, nexqIdentities] = valuesOf(
    await redis
      .multi()
      .smembers(keys.queues)
      .zrange(keys.nodes, 0, -1)
      .smembers(keys.processes)
      .hvals(keys.nodeIdentities)
      .exec(),
  );
  const queues = only.length > 0 ? only : [...(known as string[])].sort();
  const ids = nodeIds as string[];
  const processes = identities as string[];
  const nexq = new Set(nexqIdentities as string[]);
  const others = processes.filter((identity) => !nexq.has(identity));

  // One MULTI per queue, sent together: in the per-queue key layout the queues' keys are on several
  // cluster masters, each queue's in one slot.
  const [perQueue, entries, works, pauses] = await Promise.all([
    Promise.all(queues.map((q) => queueCounts(session, q, ids))),
    Promise.all(processes.map((identity) => redis.hmget(keys.process(identity), 'info', 'quiet'))),
    Promise.all(others.map((identity) => redis.hvals(keys.processWorkers(identity)))),
    Promise.all(queues.map((q) => redis.hget(keys.paused(q), q))),
  ]);

  const queued: Record<string, number> = {};
  const counts: Record<string, number> = {};
  queues.forEach((q, i) => ([queued[q], counts[q]] = [perQueue[i].waiting, perQueue[i].processed]));
  const lengths = perQueue.map((c) => c.waiting);
  let inBackup = perQueue.reduce((sum, c) => sum + c.inBackup, 0);
  const wanted = new Set(queues);
  let busy = 0;
  // Sidekiq's shape: each running job a JSON { queue, payload, run_at }.
  for (const workers of works) for (const entry of workers) if (wanted.has(String(jsonObject(entry)?.queue))) busy++;
  // Only once nothing waits or sits in a backup list: the index is read whole.
  if (inBackup === 0 && busy === 0 && lengths.every((n) => n === 0)) inBackup = await takenJobs(session, queues);

  // A live process serves the queues its info lists, unless it is quiet.
  const serving = entries.flatMap(([info, quiet]) => {
    const listed = jsonObject(info ?? '')?.queues;
    return info === null || quiet === 'true' || !Array.isArray(listed) ? [] : [new Set(listed.map(String))];
  });
  const unserved = queues.flatMap((queue, i) => {
    const why = queued[queue] > 0 ? unservedWhy(queue, serving, pauses[i]) : undefined;
    return why === undefined ? [] : [{ queue, why }];
  });
  return { queues, queued, inBackup, busy, processedByQueue: counts, unserved };
}
