// What the admin reads and actions need of a node: its Redis, keys, config and actor registry.
// Both the CLI's admin commands (through a producer-mode node) and the web dashboard (inside the
// node that serves it) pass their node's context.
import type { NodeContext } from '../run/node-context';
import { jobSetKeys } from '../redis/known-queues';

export type AdminContext = Pick<NodeContext, 'redis' | 'keys' | 'config' | 'registry'> &
  Partial<Pick<NodeContext, 'clock' | 'encryption'>>;

/** The sorted sets an operator lists and acts on. */
export type JobSet = 'schedule' | 'retry' | 'dead';

export const JOB_SETS: JobSet[] = ['schedule', 'retry', 'dead'];

export function isJobSet(name: unknown): name is JobSet {
  return typeof name === 'string' && (JOB_SETS as string[]).includes(name);
}

/** Every key of `set`: one, or one per known queue in the per-queue key layout. */
export function setKeys(ctx: AdminContext, set: JobSet): Promise<Array<{ key: string; queue?: string }>> {
  return jobSetKeys(
    ctx.redis,
    ctx.keys,
    set,
    ctx.config.queues.map((q) => q.name),
  );
}
