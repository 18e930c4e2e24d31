// Writing new jobs: enqueue.lua for jobs now and later, enqueue-periodic.lua for a periodic job's tick.
import { fromReply, PartialEnqueueError, QueuePausedError } from './errors';
import type { RedisClient } from './client';
import type { Keys } from './keys';
import { formatScore, queueSet, runScript } from './scripts';
import { groupIndexes } from './scripts';

// Their home is ./errors.ts; still exported here for the modules that import them from here.
export { PartialEnqueueError, QueueFullError, QueuePausedError } from './errors';

export interface NewJob {
  queue: string;
  queueKey: string;
  json: string;
  jid: string;
  /** Epoch seconds to run at; absent for now. */
  runAt?: number;
  maxlen?: number;
  unique?: { lockKey: string; ttl: number };
}

/**
 * Jobs one enqueue call writes at most: some 25 ms of Redis. 100,000 jobs in one call held Redis for
 * half a second, and their arguments overflowed the stack of the call that sends them.
 */
export const ENQUEUE_CALL_MOST = 5_000;

/**
 * Writes jobs all or none (all or none per queue in the per-queue key layout, where each queue's
 * jobs are one call); per job its jid (the holder's on a unique conflict) and whether it conflicted.
 * More than ENQUEUE_CALL_MOST jobs go in that many at a time, in order, each call all or none.
 */
export function enqueueJobs(
  client: RedisClient,
  keys: Keys,
  jobs: NewJob[],
): Promise<Array<{ jid: string; conflict: boolean }>> {
  if (jobs.length === 0) return Promise.resolve([]);
  if (jobs.length > ENQUEUE_CALL_MOST) return enqueueInParts(client, keys, jobs);
  // The shared key layout: one call, with the queue set among its keys (its promise as it is: each
  // async layer between the reply and the caller costs turns of the microtask queue).
  if (!keys.perQueue) return enqueueCall(client, keys, jobs, [keys.queues]);
  return enqueueByQueue(client, keys, jobs).catch((err: unknown) => Promise.reject(fromReply(err, 'enqueue')));
}

/**
 * A long list, ENQUEUE_CALL_MOST jobs a call, one call after another: a refusal after the first
 * (a queue full or paused meanwhile, Redis out of memory) leaves the jobs before it written, and
 * says which (PartialEnqueueError); one in the first call writes nothing, as for a short list.
 */
async function enqueueInParts(
  client: RedisClient,
  keys: Keys,
  jobs: NewJob[],
): Promise<Array<{ jid: string; conflict: boolean }>> {
  const written: Array<{ jid: string; conflict: boolean } | undefined> = [];
  for (let from = 0; from < jobs.length; from += ENQUEUE_CALL_MOST) {
    try {
      written.push(...(await enqueueJobs(client, keys, jobs.slice(from, from + ENQUEUE_CALL_MOST))));
    } catch (err) {
      const partly = err instanceof PartialEnqueueError;
      if (partly) written.push(...err.written);
      if (!written.some(Boolean)) throw err;
      written.length = jobs.length;
      throw new PartialEnqueueError(partly ? err.cause : (err as Error), Array.from(written));
    }
  }
  return written as Array<{ jid: string; conflict: boolean }>;
}

/** The per-queue key layout: one call per queue. */
async function enqueueByQueue(
  client: RedisClient,
  keys: Keys,
  jobs: NewJob[],
): Promise<Array<{ jid: string; conflict: boolean }>> {
  const groups = groupIndexes(jobs, (j) => keys.group(j.queue));
  const queues = [...new Set(jobs.map((j) => j.queue))];
  if (groups.size === 1) return enqueueCall(client, keys, jobs, await queueSet(client, keys, queues));
  // Several calls: a queue paused for input refuses them all before any is written, as one call
  // would (a pause that lands between this read and the calls refuses its own queue's jobs only).
  const paused = await Promise.all(queues.map((queue) => client.hget(keys.paused(queue), queue)));
  const refused = queues.find((_, i) => paused[i] === 'in' || paused[i] === 'all');
  if (refused !== undefined) throw new QueuePausedError(`enqueue refused: queue ${refused} is paused for input`);
  const tail = await queueSet(client, keys, queues);
  const results: Array<{ jid: string; conflict: boolean } | undefined> = jobs.map(() => undefined);
  const outcomes = await Promise.allSettled(
    [...groups.values()].map(async (members) => {
      const written = await enqueueCall(
        client,
        keys,
        members.map((i) => jobs[i]),
        tail,
      );
      written.forEach((result, k) => (results[members[k]] = result));
    }),
  );
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (!failed) return results as Array<{ jid: string; conflict: boolean }>;
  if (results.every((r) => r === undefined)) throw failed.reason;
  throw new PartialEnqueueError(failed.reason as Error, results);
}

async function enqueueCall(
  client: RedisClient,
  keys: Keys,
  jobs: NewJob[],
  tail: string[],
): Promise<Array<{ jid: string; conflict: boolean }>> {
  const first = jobs[0].queue;
  const scriptKeys = [keys.schedule(first), keys.paused(first), keys.jobIndex(first)];
  const argv: Array<string | number> = [jobs.length];
  for (const j of jobs) {
    scriptKeys.push(j.queueKey, j.unique?.lockKey ?? j.queueKey);
    argv.push(j.queue, j.json, j.runAt === undefined ? '' : formatScore(j.runAt), j.maxlen ?? '', j.unique?.ttl ?? '');
  }
  for (const key of tail) scriptKeys.push(key);
  for (const j of jobs) argv.push(j.jid);
  // A refusal (paused, full, out of memory) comes back as its NexqError (./errors.ts).
  const result = (await runScript(client, 'enqueue', scriptKeys, argv)) as Array<[string, number]>;
  return result.map(([jid, conflict]) => ({ jid, conflict: conflict === 1 }));
}

/** What one call of enqueue-periodic.lua did. */
export type PeriodicOutcome = 'enqueued' | 'already' | 'new-schedule' | 'gone';

/**
 * How a call treats a schedule without state: '' enqueues the tick; 'boot' (a node's first call)
 * records it only; 'kept' (state written and removed with the schedule) writes nothing: 'gone'.
 * 'start' records the tick whatever the state holds (a `periodic` entry coming back from under a
 * schedule of its name).
 */
export type PeriodicMode = '' | 'boot' | 'kept' | 'start';

/**
 * Enqueues tick `tick` (epoch seconds) of a periodic job unless it or a later tick was enqueued
 * already, in one atomic step; `mode` says what a schedule without state in Redis means.
 */
export async function enqueuePeriodic(
  client: RedisClient,
  keys: Keys,
  state: string,
  queueName: string,
  tick: number,
  json: string,
  jid: string,
  mode: PeriodicMode,
): Promise<PeriodicOutcome> {
  const scriptKeys = [
    state,
    keys.queue(queueName),
    keys.jobIndex(queueName),
    ...(await queueSet(client, keys, [queueName])),
  ];
  const result = (await runScript(client, 'enqueue-periodic', scriptKeys, [
    tick,
    json,
    queueName,
    mode,
    jid,
  ])) as number;
  return result === 1 ? 'enqueued' : result === 0 ? 'already' : result === -1 ? 'new-schedule' : 'gone';
}
