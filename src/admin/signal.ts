// Quieting and stopping a process from afar, as Sidekiq's Process#quiet! and #stop!: the signal is
// pushed on `<ns>:<identity>-signals`, which the process takes with its next beat (nexq's and
// Sidekiq's alike), so it acts within one heartbeat interval.
import type { AdminContext } from './context';

export type ProcessSignal = 'TSTP' | 'TERM';

/** Leaves `signal` for the process `identity`; false when no live process has that identity. */
export async function signalProcess(ctx: AdminContext, identity: string, signal: ProcessSignal): Promise<boolean> {
  const { redis, keys } = ctx;
  const [member, alive] = await Promise.all([
    redis.sismember(keys.processes, identity),
    redis.exists(keys.process(identity)),
  ]);
  if (member === 0 || alive === 0) return false;
  const key = keys.processSignals(identity);
  // Sidekiq's own: the signal waits a minute for the process's next beat.
  await redis.multi().lpush(key, signal).expire(key, 60).exec();
  return true;
}
