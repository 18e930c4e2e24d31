// Quiet and Stop of one process, through Redis as Sidekiq's API sends them (Process#quiet! and
// #stop!): the signal is pushed on `<ns>:<identity>-signals`, which the process takes with its next
// heartbeat. TSTP: it fetches no more jobs, those running finish. TERM: it stops gracefully.
import type { AdminContext } from './context';

export type ProcessSignal = 'TSTP' | 'TERM';

/** Sidekiq's expiry of a signal nobody took (its process died meanwhile). */
const SIGNAL_TTL_SECONDS = 60;

/** Leaves `signal` for the process `identity`; false when no live process has that identity. */
export async function signalProcess(ctx: AdminContext, identity: string, signal: ProcessSignal): Promise<boolean> {
  const { redis, keys } = ctx;
  // Live: in the process set, and its entry not expired (a process killed -9 stays a member until reaped).
  const [member, alive] = await Promise.all([
    redis.sismember(keys.processes, identity),
    redis.exists(keys.process(identity)),
  ]);
  if (member === 0 || alive === 0) return false;
  const key = keys.processSignals(identity);
  await redis.multi().lpush(key, signal).expire(key, SIGNAL_TTL_SECONDS).exec();
  return true;
}

/** Quiets the process `identity` (TSTP): no more fetching. False when it is not live. */
export function quietProcess(ctx: AdminContext, identity: string): Promise<boolean> {
  return signalProcess(ctx, identity, 'TSTP');
}

/** Stops the process `identity` gracefully (TERM). False when it is not live. */
export function stopProcess(ctx: AdminContext, identity: string): Promise<boolean> {
  return signalProcess(ctx, identity, 'TERM');
}
