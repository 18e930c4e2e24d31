// What an operator does to jobs in the schedule, retry and dead sets: move them to their queue now
// (retry), or remove them. Each job moves in one atomic script call, so none is lost or doubled.
import { rewriteMembers } from '../job/json-members';
import { jsonTimestamp, nowSeconds } from '../job/time';
import { clearSet, deleteJob as deleteIndexedJob, enqueueDue } from '../redis/move-scripts';
import { AdminContext, JobSet, setKeys } from './context';
import { findInQueue, findInSets, Found } from './find';
import { jidOf, jsonObject } from '../job/json-object';

/** Either the job moved (the set it left and the queue it went to) or why it was not moved. */
export type RetryResult =
  | { jid: string; from: JobSet; queue: string; error?: undefined }
  | { jid: string; from?: undefined; queue?: undefined; error: string };

export interface DeleteResult {
  jid: string;
  /** The sets it was removed from (empty when it moved meanwhile). */
  deletedFrom: JobSet[];
  /** The queue it was removed from (deleteFromQueue). */
  queue?: string;
  error?: string;
}

/** "schedule, retry or dead" */
function setsText(sets: JobSet[]): string {
  return sets.length < 2 ? sets.join('') : `${sets.slice(0, -1).join(', ')} or ${sets[sets.length - 1]}`;
}

/** Moves one set entry to its queue; the queue name, or undefined when it was gone. */
export async function moveToQueue(ctx: AdminContext, found: Found): Promise<string | undefined> {
  const queue = jsonObject(found.raw)?.queue;
  if (typeof queue !== 'string' || queue === '') throw new Error(`job in ${found.where} has no queue to go back to`);
  const now = ctx.clock?.now() ?? nowSeconds();
  const stamp = jsonTimestamp(now, ctx.config.timestamps);
  const { redis, keys } = ctx;
  const enqueued = rewriteMembers(found.raw, { enqueued_at: stamp });
  const jid = jidOf(found.raw);
  const move = { source: found.key, sourceQueue: found.queue ?? '', queue, raw: found.raw, enqueued, jid, now };
  return (await enqueueDue(redis, keys, move)) ? queue : undefined;
}

/** Moves the job `jid` from the first of `sets` holding it to its queue. */
export async function retryJob(ctx: AdminContext, jid: string, sets: JobSet[]): Promise<RetryResult> {
  const found = await findInSets(ctx, jid, sets);
  if (found.length === 0) return { jid, error: `no job ${jid} in the ${setsText(sets)} set` };
  const from = found[0].where as JobSet;
  try {
    const queue = await moveToQueue(ctx, found[0]);
    return queue ? { jid, from, queue } : { jid, error: `job ${jid} left the ${from} set before it could be moved` };
  } catch (err) {
    return { jid, error: (err as Error).message };
  }
}

/** Moves every entry of `set` to its queue; entries without a queue stay. */
export async function retryAll(ctx: AdminContext, set: JobSet): Promise<Array<{ jid: string | null; queue: string }>> {
  const moved: Array<{ jid: string | null; queue: string }> = [];
  for (const { key, queue: setQueue } of await setKeys(ctx, set)) {
    // Entries left behind stay at the front; read past them.
    let leftBehind = 0;
    for (;;) {
      const batch = await ctx.redis.zrange(key, leftBehind, leftBehind + 99);
      for (const raw of batch) {
        // An entry with no queue stays; the scheduler buries it in the dead set when it is due.
        const queue = await moveToQueue(ctx, { where: set, key, raw, queue: setQueue }).catch(() => undefined);
        if (queue) moved.push({ jid: (jsonObject(raw)?.jid as string | undefined) ?? null, queue });
        else leftBehind++;
      }
      if (batch.length < 100) break;
    }
  }
  return moved;
}

/**
 * Removes the job `jid` from every one of `sets` holding it, with its index entry and its unique
 * lock, each in one atomic step that first checks the job is still where it was found.
 */
export async function deleteJob(ctx: AdminContext, jid: string, sets: JobSet[]): Promise<DeleteResult> {
  const found = await findInSets(ctx, jid, sets);
  if (found.length === 0) return { jid, deletedFrom: [], error: `no job ${jid} in the ${setsText(sets)} set` };
  const { redis, keys } = ctx;
  const deletedFrom: JobSet[] = [];
  for (const f of found) {
    const queue = f.queue ?? '';
    const entry = f.indexEntry ?? (await redis.hget(keys.jobIndex(queue), jid)) ?? '';
    const fairQueue = f.member === undefined ? undefined : f.queue;
    if (await deleteIndexedJob(redis, keys, queue, f.key, f.member ?? f.raw, jid, entry, fairQueue))
      deletedFrom.push(f.where as JobSet);
  }
  return { jid, deletedFrom };
}

/** Removes the job `jid` waiting in `queue`, with its index entry and unique lock (one atomic step). */
export async function deleteFromQueue(ctx: AdminContext, queue: string, jid: string): Promise<DeleteResult> {
  const found = (await findInQueue(ctx, queue, jid)).at(0);
  if (!found) return { jid, deletedFrom: [], error: `no job ${jid} waits in queue ${queue} (it may have run)` };
  const { redis, keys } = ctx;
  const entry = found.indexEntry ?? (await redis.hget(keys.jobIndex(queue), jid)) ?? '';
  const fairQueue = found.member === undefined ? undefined : queue;
  const deleted = await deleteIndexedJob(
    redis,
    keys,
    queue,
    found.key,
    found.member ?? found.raw,
    jid,
    entry,
    fairQueue,
  );
  return deleted
    ? { jid, deletedFrom: [], queue }
    : { jid, deletedFrom: [], error: `job ${jid} left queue ${queue} before it could be deleted` };
}

/** Empties `set` and forgets its jobs; resolves to how many entries it held. */
export async function deleteAll(ctx: AdminContext, set: JobSet): Promise<number> {
  return clearSet(
    ctx.redis,
    ctx.keys,
    set,
    ctx.keys.perQueue ? (await setKeys(ctx, set)).flatMap((s) => (s.queue === undefined ? [] : [s.queue])) : [],
  );
}
