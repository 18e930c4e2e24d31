// Which queues and job classes the live processes serve, from their process entries (Sidekiq's
// `<ns>:<identity>` hash, whose `info` lists `queues`; a nexq node adds `classes`, its handlers'
// names; read by live-infos.ts), and why a job of a queue and class would wait or fail: no live
// node serves the queue, or none of those serving it has a handler for the class. A process
// without `classes` (a Sidekiq or an older nexq) is taken to run any class.
import { closestName } from '../../config/closest-name';
import type { Keys } from './keys';
import type { RedisClient } from './client';
import { readLiveInfos, type LiveInfos } from './live-infos';

/** Queue -> the classes its live processes have handlers for (undefined: one of them runs any class). */
export type Serving = Map<string, Set<string> | undefined>;

/** Sidekiq's ActiveJob wrapper names no handler of its own: its `wrapped` class does. */
const ACTIVE_JOB_WRAPPER = 'ActiveJob::QueueAdapters::SidekiqAdapter::JobWrapper';

/** What the live process entries say they serve. */
export async function readServing(redis: RedisClient, keys: Keys): Promise<Serving> {
  return servingOf(await readLiveInfos(redis, keys));
}

/** What the live process entries whose infos were read (readLiveInfos) say they serve. */
export function servingOf(infos: LiveInfos): Serving {
  const serving: Serving = new Map();
  for (const info of infos) {
    if (!Array.isArray(info.queues)) continue;
    const classes = Array.isArray(info.classes) ? info.classes.filter((c) => typeof c === 'string') : undefined;
    for (const queue of info.queues) if (typeof queue === 'string') addServed(serving, queue, classes);
  }
  return serving;
}

/** `serving` with what this process serves itself added (its own entry may not say it yet). */
export function withOwn(serving: Serving, own: Serving): Serving {
  if (own.size === 0) return serving;
  const merged: Serving = new Map(serving);
  for (const [queue, classes] of own) addServed(merged, queue, classes && [...classes]);
  return merged;
}

/** Adds to `serving` a process that serves `queue` with handlers for `classes` (undefined: any class). */
function addServed(serving: Serving, queue: string, classes: string[] | undefined): void {
  const known = serving.get(queue);
  if (serving.has(queue) && known === undefined) return; // some process runs any class
  serving.set(queue, classes === undefined ? undefined : new Set([...(known ?? []), ...classes]));
}

/** Why a job of `className` enqueued on `queue` would not run now, with the closest name; none when one would. */
export function unservedReasons(serving: Serving, queue: string, className: string): string[] {
  const reason = unservedQueue(serving, queue) ?? unhandledClass(serving, queue, className);
  return reason === undefined ? [] : [reason];
}

/** Why no job of `queue` would run now (no live node serves it), with the closest served name. */
export function unservedQueue(serving: Serving, queue: string): string | undefined {
  if (serving.has(queue)) return undefined;
  const guess = closestName(queue, [...serving.keys()]);
  return (
    `no live node serves queue ${JSON.stringify(queue)}: its jobs wait until one does` +
    (guess ? `; did you mean ${JSON.stringify(guess)}?` : '')
  );
}

/** Why a job of `className` on `queue` would fail now (no live node serving the queue has its handler). */
export function unhandledClass(serving: Serving, queue: string, className: string): string | undefined {
  const classes = serving.get(queue);
  const name = className.startsWith('Elixir.') ? className.slice('Elixir.'.length) : className;
  if (!serving.has(queue) || !classes || name === ACTIVE_JOB_WRAPPER || classes.has(name)) return undefined;
  const guess = closestName(name, [...classes]);
  return (
    `no live node has a handler for class ${JSON.stringify(name)} (of those serving queue ${JSON.stringify(queue)}): ` +
    `its jobs fail and are retried` +
    (guess ? `; did you mean ${JSON.stringify(guess)}?` : '')
  );
}
