// What an operator reads of batches: one batch's counts and failures, and the list of batches
// (`nexq batches`, `Batch#status`). Read-only; a batch whose data expired is dropped from the list.
import type { AdminContext } from './context';
import { batchKeys } from '../redis/batch-scripts';

export interface BatchStatus {
  bid: string;
  description: string;
  /** Epoch seconds. */
  createdAt: number;
  /** Jobs added to it (child batches not counted: see `children`). */
  total: number;
  children: number;
  /** Members (jobs, and child batches as `batch:<bid>`) that have not succeeded yet. */
  pending: number;
  /** Members that failed and have not succeeded since (waiting for a retry, or dead). */
  failed: number;
  dead: number;
  /** The jids of the failed members (`batch:<bid>` for a child batch). */
  failures: string[];
  /** Epoch seconds when it completed / succeeded / first saw a death; undefined until then. */
  completeAt?: number;
  successAt?: number;
  deathAt?: number;
  parent?: string;
  /** True while a producer still adds jobs to it. */
  open: boolean;
}

const seconds = (value: string | undefined) => (value ? Number(value) : undefined);

/** Batch `bid`'s status, or undefined when it does not exist (expired). */
export async function batchStatus(
  ctx: Pick<AdminContext, 'redis' | 'keys'>,
  bid: string,
): Promise<BatchStatus | undefined> {
  const keys = batchKeys(ctx.keys, bid);
  if (!keys) return undefined;
  const [hash, pending, failed, dead] = keys;
  const replies = (await ctx.redis.multi().hgetall(hash).scard(pending).smembers(failed).scard(dead).exec()) ?? [];
  for (const [err] of replies) if (err) throw err;
  const h = replies[0][1] as Partial<Record<string, string>>;
  if (Object.keys(h).length === 0) return undefined;
  const failures = replies[2][1] as string[];
  return {
    bid,
    description: h.description ?? '',
    createdAt: Number(h.created_at),
    total: Number(h.total ?? 0),
    children: Number(h.children ?? 0),
    pending: replies[1][1] as number,
    failed: failures.length,
    dead: replies[3][1] as number,
    failures,
    completeAt: seconds(h.complete_at),
    successAt: seconds(h.success_at),
    deathAt: seconds(h.death_at),
    parent: h.parent || undefined,
    open: Number(h.open ?? 0) > 0,
  };
}

/** The newest `limit` batches, newest first; those whose data expired leave the list. */
export async function listBatches(ctx: Pick<AdminContext, 'redis' | 'keys'>, limit = 50): Promise<BatchStatus[]> {
  const bids = await ctx.redis.zrevrange(ctx.keys.batches, 0, limit - 1);
  const found = await Promise.all(bids.map((bid) => batchStatus(ctx, bid)));
  const gone = bids.filter((_, i) => !found[i]);
  if (gone.length > 0) await ctx.redis.zrem(ctx.keys.batches, ...gone);
  return found.filter((s): s is BatchStatus => s !== undefined);
}
