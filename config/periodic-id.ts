// The identity of a `periodic` entry, checked at start (config/periodic-options.ts) and used by the
// Periodic actor (src/periodic/schedule.ts): every node with the same config computes the same id.
import { createHash } from 'node:crypto';
import type { PeriodicSpec } from './defaults';

/** What a periodic entry's `name` may hold: it becomes part of a Redis key and of every jid. */
export const PERIODIC_NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * The entry's id: its `name`, or the first 12 hex digits of a SHA-1 of cron, queue, class and args
 * (and tz when it has one: entries without a zone keep the ids they had before zones existed).
 */
export function periodicId(spec: PeriodicSpec): string {
  if (spec.name !== undefined) return spec.name;
  const cron = spec.cron.trim().split(/\s+/).join(' ');
  return createHash('sha1')
    .update(
      JSON.stringify([cron, spec.queue, spec.class, spec.args ?? [], ...(spec.tz === undefined ? [] : [spec.tz])]),
    )
    .digest('hex')
    .slice(0, 12);
}
