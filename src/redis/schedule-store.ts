// Schedules set at run time (`nexq.schedules`): one hash, <ns>:nexq:schedules, name -> JSON of
// { cron, queue, class, args, tz?, token }, which every node's Periodic actor reads each round. The
// token is new whenever a schedule changes, and names its state key (the last tick enqueued,
// enqueue-periodic.lua): a changed schedule starts afresh with its next tick on every node, as a new
// `periodic` entry does, and never catches up a tick of its old form. The old state key goes.
// The new version's state key is written before the schedule is: a node that first reads a
// schedule records the tick it sees as started, not run (ticks from before a schedule existed are
// not caught up), so a tick between the set and a node's first read (up to a second later) was
// lost, the run `list()` had just promised. With the state there, that tick is run.
// A state key written so is the schedule's life line: a node running this version finds it gone
// once the version was replaced or removed, and then writes nothing (enqueue-periodic.lua, 'kept'),
// so a node that read the schedule just before its removal neither runs it once more nor leaves
// its state key behind.
import { randomBytes } from 'node:crypto';
import type { PeriodicSpec } from '../../config/defaults';
import { cronIn } from '../../config/cron-zone';
import type { RedisClient } from './client';
import type { Keys } from './keys';

/** A schedule as stored: always named, its args explicit. */
export interface StoredSchedule extends PeriodicSpec {
  name: string;
  args: unknown[];
  token: string;
  /** The tick its state key started at: not run, unless `ran` (the replaced version's last run). */
  from?: number;
  ran?: boolean;
}

/** Its state key's id: the name, and the token of this version of it. */
export function stateId(schedule: StoredSchedule): string {
  return `${schedule.name}@${schedule.token}`;
}

function parse(name: string, json: string): StoredSchedule | undefined {
  try {
    const value = JSON.parse(json) as Partial<StoredSchedule>;
    if (typeof value.cron !== 'string' || typeof value.queue !== 'string' || typeof value.class !== 'string')
      return undefined;
    return {
      ...value,
      name,
      args: Array.isArray(value.args) ? value.args : [],
      token: String(value.token),
      ...(typeof value.from === 'number' ? { from: value.from } : {}),
      ...(value.ran === true ? { ran: true } : {}),
    } as StoredSchedule;
  } catch {
    return undefined;
  }
}

/** Every stored schedule, by name; an entry that cannot be read (written by hand) is left out. */
export async function readSchedules(redis: RedisClient, keys: Keys): Promise<StoredSchedule[]> {
  const all = await redis.hgetall(keys.schedules);
  return Object.entries(all)
    .map(([name, json]) => parse(name, json))
    .filter((s): s is StoredSchedule => s !== undefined)
    .sort((a, b) => a.name.localeCompare(b.name));
}

const same = (a: PeriodicSpec, b: PeriodicSpec) =>
  a.cron === b.cron &&
  a.queue === b.queue &&
  a.class === b.class &&
  a.tz === b.tz &&
  JSON.stringify(a.args ?? []) === JSON.stringify(b.args ?? []);

/**
 * Stores schedule `name` (a new version of it when it changed; checked by the caller; the same spec
 * again changes nothing), `now` (epoch seconds, by Redis' clock where known) the time of the set:
 * its first tick after `now` is run. A second is taken off `now` for the clocks of this process and
 * the nodes, which may differ by that much: a tick in the second before the set is run too, rather
 * than one after it lost. A replaced version's state key is taken first, in one step: from then on
 * no node runs that version, and the new one goes on from its last tick, so a tick the old version
 * ran in that second is not run again.
 */
export async function writeSchedule(
  redis: RedisClient,
  keys: Keys,
  name: string,
  spec: PeriodicSpec,
  now: number,
): Promise<void> {
  const old = await oldSchedule(redis, keys, name);
  if (old && same(old, spec)) return;
  const { cron, queue, class: className, args = [], tz } = spec;
  const token = randomBytes(4).toString('hex');
  const start = cronIn(cron, tz).previous(now - CLOCKS_APART_SECONDS);
  // Without an old version, the last tick of a `periodic` entry of this name (its state, keyed by
  // the name) that this schedule replaces: a tick it ran is not run again under the same jid.
  const oldLast = old
    ? await takeState(redis, keys.periodic(stateId(old), old.queue))
    : tickIn(await redis.get(keys.periodic(name, queue)));
  // The old version's state was run unless it is still the tick that version started from.
  const ran =
    oldLast !== undefined && oldLast >= start && (old === undefined || oldLast !== old.from || old.ran === true);
  const from = ran ? oldLast : start;
  const stored = { cron, queue, class: className, args, ...(tz === undefined ? {} : { tz }), token, from, ran };
  await redis.set(keys.periodic(stateId({ ...stored, name }), queue), String(from), 'NX');
  await redis.hset(keys.schedules, name, JSON.stringify(stored));
  // Once more: a node of an earlier version (no 'kept') may have written it since it was taken.
  if (old) await redis.del(keys.periodic(stateId(old), old.queue));
}

/** Reads and removes a state key in one step: its last tick, undefined when it had none. */
async function takeState(redis: RedisClient, key: string): Promise<number | undefined> {
  const replies = await redis.multi().get(key).del(key).exec();
  const [err, value] = replies?.[0] ?? [null, null];
  if (err) throw err;
  return tickIn(value as string | null);
}

/** The tick a state key holds, undefined when none (or not a number). */
function tickIn(value: string | null): number | undefined {
  const last = Number(value ?? NaN);
  return Number.isFinite(last) ? last : undefined;
}

/** How far the setter's clock and a node's may be apart (both read Redis' time where they can). */
const CLOCKS_APART_SECONDS = 1;

/** Removes schedule `name`; false when there was none. */
export async function deleteSchedule(redis: RedisClient, keys: Keys, name: string): Promise<boolean> {
  // Read and removed in one step, so the state key removed is that of the version taken away, even
  // when a set replaced it meanwhile.
  const replies = await redis.multi().hget(keys.schedules, name).hdel(keys.schedules, name).exec();
  for (const [err] of replies ?? []) if (err) throw err;
  const json = replies?.[0]?.[1];
  const old = typeof json === 'string' ? parse(name, json) : undefined;
  if (old) await redis.del(keys.periodic(stateId(old), old.queue));
  return replies?.[1]?.[1] === 1;
}

async function oldSchedule(redis: RedisClient, keys: Keys, name: string): Promise<StoredSchedule | undefined> {
  const json = await redis.hget(keys.schedules, name);
  return json === null ? undefined : parse(name, json);
}
