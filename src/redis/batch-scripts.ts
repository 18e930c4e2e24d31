// A batch's steps in Redis (Sidekiq Pro's Batch). A batch's keys live in one slot, its own, which
// in the per-queue key layout is not its jobs' nor its callbacks' queues': no script can count a
// job and move it, or settle a batch and push its callback, in one step. So each is its own
// idempotent step, and the caller orders them so a crash between any two is repaired by re-running:
//   1. batch-add.lua registers members (jids, child batches) before they are enqueued;
//   2. batch-settle.lua counts a member that ran — a set member is removed or added once however
//      often the job runs — and puts the callbacks due in the batch's outbox, each event once ever;
//   3. batch-deliver.lua pushes each outbox callback into its queue unless its marker (in the
//      queue's slot) says it was pushed already; then the outbox entry is dropped.
// A job's settle runs 2 and 3 before its own ack or fail (src/run/batch-step.ts): until they land
// it stays in its backup list, and a copy re-run after a crash runs them again, to no double count.
import { BatchNotFoundError } from './errors';
import type { RedisClient } from './client';
import type { Keys } from './keys';
import { queueSet, runScript } from './scripts';

export { BatchNotFoundError };

/** Batch data lives this long after its last step by default (Sidekiq Pro's 30 days). */
export const BATCH_TTL_SECONDS = 30 * 24 * 3600;

/** The member a child batch is in its parent's sets. */
export const childMember = (bid: string): string => `batch:${bid}`;

export type BatchEvent = 'complete' | 'success' | 'death';

/** How a member ran, for its batch: see batch-settle.lua. */
export type MemberKind = 'success' | 'failure' | 'dead' | 'release' | 'forget';

/** The batch's four keys (hash, pending, failed, dead), or undefined for a bid the layout cannot hold. */
export function batchKeys(keys: Keys, bid: string): string[] | undefined {
  const hash = keys.batch(bid);
  if (hash === undefined) return undefined;
  return [hash, keys.batch(bid, 'pending'), keys.batch(bid, 'failed'), keys.batch(bid, 'dead')] as string[];
}

function keysOf(keys: Keys, bid: string): string[] {
  const found = batchKeys(keys, bid);
  if (!found) throw new BatchNotFoundError(`batch id ${JSON.stringify(bid)} cannot be a hash tag (no braces)`);
  return found;
}

export interface BatchAdd {
  /** Holds the batch open until released ('' for none). */
  hold?: string;
  /** Fields set at creation (absent on a batch that exists already). */
  fields?: Record<string, string>;
  members?: string[];
}

/** Registers members and/or a hold; throws BatchNotFoundError when the batch is gone and no fields create it. */
export async function addToBatch(client: RedisClient, keys: Keys, bid: string, add: BatchAdd): Promise<void> {
  const fields = Object.entries(add.fields ?? {});
  const argv: string[] = [add.hold ?? '', String(fields.length)];
  for (const [name, value] of fields) argv.push(name, value);
  for (const member of add.members ?? []) argv.push(member);
  if ((await runScript(client, 'batch-add', keysOf(keys, bid), argv)) !== 1)
    throw new BatchNotFoundError(`batch ${bid} does not exist (it expired, or was never created)`);
}

export interface BatchSettled {
  complete: boolean;
  success: boolean;
  died: boolean;
  /** The parent batch's bid ('' for none). */
  parent: string;
  /** Seconds its data lives after its last step. */
  ttl: number;
  /** Callbacks due and not delivered yet (each once, however often this is returned). */
  outbox: Array<{ event: BatchEvent; json: string }>;
}

/** Counts `member` as `kind` in batch `bid`; undefined when the batch does not exist (expired). */
export async function settleMember(
  client: RedisClient,
  keys: Keys,
  bid: string,
  member: string,
  kind: MemberKind,
  now: number,
): Promise<BatchSettled | undefined> {
  const found = batchKeys(keys, bid);
  if (!found) return undefined;
  const reply = (await runScript(client, 'batch-settle', found, [member, kind, String(now)])) as Array<number | string>;
  if (reply.length === 0) return undefined;
  const outbox: BatchSettled['outbox'] = [];
  for (let i = 5; i < reply.length; i += 2) outbox.push({ event: reply[i] as BatchEvent, json: String(reply[i + 1]) });
  return {
    complete: reply[0] === 1,
    success: reply[1] === 1,
    died: reply[2] === 1,
    parent: String(reply[3]),
    ttl: Number(reply[4]),
    outbox,
  };
}

export interface Delivery {
  bid: string;
  event: BatchEvent;
  queue: string;
  jid: string;
  /** The callback job as it goes into its queue. */
  json: string;
  /** The marker's life: the batch's own ttl. */
  ttl: number;
}

/** Pushes a callback job unless it was pushed already, then drops it from the batch's outbox. */
export async function deliverCallback(client: RedisClient, keys: Keys, d: Delivery): Promise<boolean> {
  const scriptKeys = [
    keys.batchFired(d.queue, d.bid, d.event),
    keys.queue(d.queue),
    keys.jobIndex(d.queue),
    ...(await queueSet(client, keys, [d.queue])),
  ];
  const pushed = (await runScript(client, 'batch-deliver', scriptKeys, [d.json, d.queue, d.jid, d.ttl])) === 1;
  await client.hdel(keys.batch(d.bid) as string, `out:${d.event}`);
  return pushed;
}
