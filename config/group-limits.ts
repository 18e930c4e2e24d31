// A fair queue's limits per group (`groupConcurrency`, `groupRateLimit`; docs/fair-queues.md) as
// the queues option sets them: what a node serving the queue fair holds each group to, what its
// process entry carries for the processes without that option (src/actors/heartbeat.ts, `info.fair`)
// and what `nexq groups` and the dashboard judge `limited` by (src/admin/group-limits.ts).
import type { RateLimit } from './rate-limit';
import type { ResolvedQueue } from './queue-options';

/** A fair queue's limits per group, only those set (`{}`: fair without limits). */
export interface GroupLimits {
  groupConcurrency?: number;
  groupRateLimit?: RateLimit;
}

/** The limits per group of `queue` in `config`, or undefined when `config` does not serve it fair. */
export function groupLimitsOf(
  config: { readonly queues: readonly ResolvedQueue[] },
  queue: string,
): GroupLimits | undefined {
  const spec = config.queues.find((q) => q.name === queue && q.fair);
  if (!spec) return undefined;
  return {
    ...(spec.groupConcurrency === undefined ? {} : { groupConcurrency: spec.groupConcurrency }),
    ...(spec.groupRateLimit === undefined ? {} : { groupRateLimit: spec.groupRateLimit }),
  };
}
