// A cron expression read in a time zone (an IANA name such as `Europe/Berlin`): its fields match the
// zone's wall clock, and its ticks are still epoch seconds. Daylight saving time goes the way cron
// users expect:
//   - spring forward: a wall-clock time that does not exist that day (02:30 when clocks jump from
//     02:00 to 03:00) does not run; the tick is skipped, not moved;
//   - fall back: a wall-clock time that happens twice (01:30 when clocks go from 02:00 back to
//     01:00) runs once, at its first occurrence.
// Without a zone (or with `UTC`) the plain CronSchedule of config/cron.ts runs, unchanged. The zone's
// offsets come from the runtime's own tz database (Intl), so no library is needed.
import { CronError, CronSchedule } from './cron';

/** What the Periodic actor needs of a schedule: epoch seconds in, epoch seconds out. */
export interface Ticks {
  /** The first tick strictly after `after`. */
  next(after: number): number;
  /** The last tick at or before `atOrBefore`. */
  previous(atOrBefore: number): number;
}

const DAY = 86_400;
/** Wall-clock ticks tried before giving up (a zone's gap or overlap skips at most an hour's worth). */
const MAX_SKIPS = 10_000;
const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new CronError(`unknown time zone ${JSON.stringify(zone)} (an IANA name such as "Europe/Berlin")`);
    }
    formats.set(zone, format);
  }
  return format;
}

/** Throws CronError unless `zone` is a time zone this runtime knows. */
export function checkTimeZone(zone: string): void {
  formatOf(zone);
}

/** Seconds the zone's wall clock is ahead of UTC at epoch second `t`. */
export function zoneOffset(zone: string, t: number): number {
  const parts: Record<string, number> = {};
  for (const { type, value } of formatOf(zone).formatToParts(new Date(t * 1000))) parts[type] = Number(value);
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) / 1000;
  return wall - Math.floor(t);
}

/** `date` on `zone`'s wall clock in ISO 8601 with its offset: `2026-12-05T02:00:00-05:00` (`Z` for UTC). */
export function isoInZone(date: Date, zone = 'UTC'): string {
  const t = Math.floor(date.getTime() / 1000);
  const offset = zoneOffset(zone, t);
  const wall = new Date((t + offset) * 1000).toISOString().slice(0, 19);
  if (offset === 0) return `${wall}Z`;
  const minutes = Math.abs(offset) / 60;
  const hhmm = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  return `${wall}${offset < 0 ? '-' : '+'}${hhmm}`;
}

export class ZonedCron implements Ticks {
  private readonly cron: CronSchedule;

  constructor(
    readonly source: string,
    readonly zone: string,
  ) {
    checkTimeZone(zone);
    this.cron = new CronSchedule(source);
  }

  /** The epoch seconds whose wall clock reads `wall` (as if UTC): none in a gap, two in an overlap. */
  private instantsOf(wall: number): number[] {
    const found = new Set<number>();
    for (const near of [wall - DAY, wall + DAY]) {
      const t = wall - zoneOffset(this.zone, near);
      if (t + zoneOffset(this.zone, t) === wall) found.add(t);
    }
    return [...found].sort((a, b) => a - b);
  }

  next(after: number): number {
    const from = Math.floor(after);
    let wall = from + zoneOffset(this.zone, from);
    for (let i = 0; i < MAX_SKIPS; i++) {
      wall = this.cron.next(wall);
      // The first occurrence only: a repeated wall time whose first is past runs no more.
      const first = this.instantsOf(wall)[0] as number | undefined;
      if (first !== undefined && first > from) return first;
    }
    throw new CronError(`${JSON.stringify(this.source)} in ${this.zone}: no tick found after ${from}`);
  }

  previous(atOrBefore: number): number {
    const at = Math.floor(atOrBefore);
    // From the latest wall clock of the day before: in a repeated hour, its first pass is the later.
    let wall = at + Math.max(zoneOffset(this.zone, at), zoneOffset(this.zone, at - DAY)) + 1;
    for (let i = 0; i < MAX_SKIPS; i++) {
      wall = this.cron.previous(wall - 1);
      const first = this.instantsOf(wall)[0] as number | undefined;
      if (first !== undefined && first <= at) return first;
    }
    throw new CronError(`${JSON.stringify(this.source)} in ${this.zone}: no tick found at or before ${at}`);
  }
}

/** The schedule of `cron` in `zone`; UTC (the plain CronSchedule) without one. */
export function cronIn(cron: string, zone?: string): Ticks {
  return zone === undefined || zone === 'UTC' ? new CronSchedule(cron) : new ZonedCron(cron, zone);
}
