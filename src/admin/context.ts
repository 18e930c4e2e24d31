// What the admin reads and actions need of a node: its Redis, keys, config and actor registry.
// Both the CLI's admin commands (through a producer-mode node) and the web dashboard (inside the
// node that serves it) pass their node's context.
import type { NodeContext } from '../node-context';

export type AdminContext = Pick<NodeContext, 'redis' | 'keys' | 'config' | 'registry'>;

/** The sorted sets an operator lists and acts on. */
export type JobSet = 'schedule' | 'retry' | 'dead';

export const JOB_SETS: JobSet[] = ['schedule', 'retry', 'dead'];

export function isJobSet(name: unknown): name is JobSet {
  return typeof name === 'string' && (JOB_SETS as string[]).includes(name);
}

export function setKey(ctx: AdminContext, set: JobSet): string {
  return ctx.keys[set];
}
