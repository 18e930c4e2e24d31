// A fetched payload the manager cannot read (or will not run: above maxPayloadBytes) goes from its
// backup list to the dead set, rewritten as a job that says why (never a crash loop, never lost).
import { v4 as uuidv4 } from 'uuid';
import type { NodeContext } from './node-context';
import { malformedEntry } from '../job/failure';
import { jidOf, jsonObject } from '../job/json-object';
import { heldSlots } from '../redis/limits';
import { failJob } from '../redis/settle-scripts';

export async function buryUnreadable(
  ctx: NodeContext,
  backup: string,
  raw: string,
  queue: string,
  reason: string,
  actor: string,
  errorClass = 'MalformedJobError',
): Promise<void> {
  const { keys, config, redis } = ctx;
  const now = ctx.clock.now();
  ctx.logger.error(`unreadable job in queue ${queue} moved to dead: ${reason}`, { actor });
  const entry = malformedEntry(raw, reason, queue, uuidv4(), now, errorClass);
  // JSON the decoder refused (a wrong field type, say) may still name a jid and a class: the
  // fetch indexed that jid and took that class's slot, so both are used here as it read them.
  const loose = jsonObject(raw) ?? {};
  await failJob(redis, keys.jobIndex(queue), {
    backup,
    target: keys.dead(queue),
    place: 'dead',
    raw,
    rewritten: entry,
    jid: jidOf(entry),
    score: now,
    trimBelow: now - config.deadTimeoutSeconds,
    maxEntries: config.deadMaxJobs,
    held: { slots: heldSlots(config, keys, queue, loose), nodeId: config.nodeId },
  });
}
