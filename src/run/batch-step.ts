// The batch step of a job's settle: a job whose payload names a batch (`bid`, Sidekiq Pro's field)
// is counted in it before its own ack or fail lands (src/run/settle.ts), so until the count, the
// callbacks it makes due and its parent's count have all landed, the job stays in its backup list.
// Each step is idempotent (src/redis/batch-scripts.ts): a job re-run after a crash counts once, and
// its settle re-delivers what the first run's may have left in the outbox, pushed once across nodes.
// A child batch that completes is a member of its parent and is settled there the same way, so a
// parent never completes before its children.
import type { NodeContext } from './node-context';
import { childMember, deliverCallback, MemberKind, settleMember } from '../redis/batch-scripts';
import { jsonObject } from '../job/json-object';
import { rewriteMembers } from '../job/json-members';
import { jsonTimestamp } from '../job/time';
import type { FetchedJob } from '../job/job';
import type { Fate } from './outcome';

/** What a fate means for the job's batch; undefined when the job is not done running (queue, stay). */
export function memberKindOf(fate: Fate): MemberKind | undefined {
  switch (fate.to) {
    case 'done':
      return 'success';
    case 'retry':
      return 'failure';
    case 'dead':
    case 'discard':
      return 'dead';
    default:
      return undefined;
  }
}

/** The job's batch id: Sidekiq Pro's `bid` field, when it is a non-empty string. */
export function batchOf(fetched: FetchedJob): string | undefined {
  const bid = fetched.job.bid;
  return typeof bid === 'string' && bid !== '' ? bid : undefined;
}

export type BatchContext = Pick<NodeContext, 'redis' | 'keys' | 'clock' | 'config'> &
  Partial<Pick<NodeContext, 'encryption'>>;

/**
 * Counts `member` as `kind` in batch `bid`, pushes the callbacks due (once across nodes), and, when
 * the batch is complete and has a parent, settles it in its parent likewise. Safe to repeat.
 */
export async function settleInBatch(ctx: BatchContext, bid: string, member: string, kind: MemberKind): Promise<void> {
  const { redis, keys, clock } = ctx;
  const settled = await settleMember(redis, keys, bid, member, kind, clock.now());
  if (!settled) return; // expired, or a batch nexq does not know (another Sidekiq's bid)
  for (const { event, json } of settled.outbox) {
    const job = jsonObject(json);
    await deliverCallback(redis, keys, {
      bid,
      event,
      queue: String(job?.queue),
      jid: String(job?.jid),
      json: rewriteMembers(json, { enqueued_at: jsonTimestamp(clock.now(), ctx.config.timestamps) }),
      ttl: settled.ttl,
    });
  }
  if (settled.parent && settled.complete) {
    const parentKind: MemberKind = settled.success ? 'success' : settled.died ? 'dead' : 'failure';
    await settleInBatch(ctx, settled.parent, childMember(bid), parentKind);
  }
}
