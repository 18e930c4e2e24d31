// Cron expressions, in UTC: Vixie cron's five fields, optionally preceded by a sixth for seconds.
//
//   [second] minute hour day-of-month month day-of-week
//    0-59    0-59   0-23 1-31         1-12  0-7 (0 and 7 are Sunday)
//
// Each field is `*`, a number, a range `a-b`, a step `*/n` or `a-b/n`, or a comma list of those.
// Months take JAN-DEC and days of the week SUN-SAT (any case), in ranges too. `@yearly`
// (`@annually`), `@monthly`, `@weekly`, `@daily` (`@midnight`) and `@hourly` stand for their usual
// five fields. With five fields a tick falls on second 0.
//
// Days follow Vixie cron: when both day-of-month and day-of-week are restricted (neither starts with
// `*`), a day matches if EITHER does (`0 0 1 * MON` is the 1st and every Monday); when one of them
// starts with `*`, a day must match both.
//
// No dependencies: it is the syntax of the `periodic` option's cron field, which
// config/periodic-options.ts checks with it at start; src/periodic/ runs the schedules.
import { NexqError } from './nexq-error';

export class CronError extends NexqError {
  static override readonly code = 'CRON_INVALID';
  override readonly name = 'CronError';
}

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  /** Value of `*` at the top end (day-of-week: 6, although 7 is accepted as Sunday). */
  starMax?: number;
  /** Names the field takes, and the value the first one stands for. */
  names?: { list: readonly string[]; from: number };
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

const SECOND: FieldSpec = { name: 'second', min: 0, max: 59 };
const MINUTE: FieldSpec = { name: 'minute', min: 0, max: 59 };
const HOUR: FieldSpec = { name: 'hour', min: 0, max: 23 };
const DAY_OF_MONTH: FieldSpec = { name: 'day-of-month', min: 1, max: 31 };
const MONTH: FieldSpec = { name: 'month', min: 1, max: 12, names: { list: MONTHS, from: 1 } };
const DAY_OF_WEEK: FieldSpec = { name: 'day-of-week', min: 0, max: 7, starMax: 6, names: { list: DAYS, from: 0 } };

const MACROS: Partial<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Days in each month of a leap year: the most a month can have. */
const MAX_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** How far a search goes: the Gregorian calendar repeats every 400 years, weekdays included. */
const HORIZON_SECONDS = 401 * 366 * 86_400;

/** A parsed field: the values it allows, sorted. */
function parseField(text: string, spec: FieldSpec): number[] {
  const values = new Set<number>();
  // Typed on the name, so the checker knows a call to it does not return.
  const fail: (why: string) => never = (why) => {
    throw new CronError(`${spec.name} field ${JSON.stringify(text)}: ${why}`);
  };
  for (const part of text.split(',')) {
    if (part === '') fail('empty item in a list');
    const match = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(.*))?$/.exec(part);
    if (!match) fail(`${JSON.stringify(part)} is not *, a number, a range a-b, or one of those with /step`);
    const range = match[1];
    const stepText = match.at(2); // undefined when there is no /step (lib.d.ts types every group as string)
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) < 1)
        fail(`step ${JSON.stringify(stepText)} must be a whole number >= 1`);
      step = Number(stepText);
    }
    let from: number;
    let to: number;
    if (range === '*') {
      from = spec.min;
      to = spec.starMax ?? spec.max;
    } else if (range.includes('-')) {
      const [a, b] = range.split('-');
      from = value(a, spec, fail);
      to = value(b, spec, fail);
      if (from > to) fail(`range ${range} runs backwards (write it as a list of two ranges)`);
    } else {
      from = to = value(range, spec, fail);
      if (stepText !== undefined)
        fail(`a step needs a range or *: write ${range}-${spec.starMax ?? spec.max}/${stepText} or */${stepText}`);
    }
    for (let v = from; v <= to; v += step) values.add(spec === DAY_OF_WEEK && v === 7 ? 0 : v);
  }
  return [...values].sort((a, b) => a - b);
}

function value(text: string, spec: FieldSpec, fail: (why: string) => never): number {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    if (n < spec.min || n > spec.max) fail(`${text} is out of range ${spec.min}-${spec.max}`);
    return n;
  }
  const { names } = spec;
  const index = names ? names.list.indexOf(text.toUpperCase()) : -1;
  if (!names) return fail(`${JSON.stringify(text)} is not a number`);
  if (index < 0) fail(`${JSON.stringify(text)} is neither a number nor one of ${names.list.join(', ')}`);
  return index + names.from;
}

function lookup(values: number[]): boolean[] {
  const table: boolean[] = [];
  for (const v of values) table[v] = true;
  return table;
}

/** The smallest value >= v, or undefined. */
function firstAtOrAfter(values: number[], v: number): number | undefined {
  for (const x of values) if (x >= v) return x;
  return undefined;
}

/** The largest value <= v, or undefined. */
function lastAtOrBefore(values: number[], v: number): number | undefined {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] <= v) return values[i];
  return undefined;
}

/** Epoch seconds of a UTC date; out-of-range parts roll over (day 32 is the next month's 1st). */
function utc(year: number, month0: number, day = 1, hour = 0, minute = 0, second = 0): number {
  return Date.UTC(year, month0, day, hour, minute, second) / 1000;
}

function seconds(date: Date, what: string): number {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw new TypeError(`${what} needs a valid Date`);
  return Math.floor(date.getTime() / 1000);
}

/** A parsed cron expression. Ticks are whole UTC seconds. */
export class CronSchedule {
  /** True when the expression has the leading seconds field. */
  readonly hasSeconds: boolean;
  private readonly seconds: number[];
  private readonly minutes: number[];
  private readonly hours: number[];
  private readonly daysOfMonth: boolean[];
  private readonly months: boolean[];
  private readonly daysOfWeek: boolean[];
  /** Vixie's rule: both day fields restricted -> either matches; otherwise both must. */
  private readonly eitherDay: boolean;

  constructor(readonly source: string) {
    if (typeof source !== 'string') throw new CronError(`a cron expression must be a string, got ${typeof source}`);
    const trimmed = source.trim();
    const expanded = trimmed.startsWith('@') ? MACROS[trimmed.toLowerCase()] : trimmed;
    if (expanded === undefined)
      throw new CronError(`unknown macro ${JSON.stringify(trimmed)} (known: ${Object.keys(MACROS).join(', ')})`);
    const fields = expanded.split(/\s+/).filter(Boolean);
    if (fields.length !== 5 && fields.length !== 6) {
      throw new CronError(
        `expected 5 fields (minute hour day-of-month month day-of-week) or 6 (second first), got ${fields.length}`,
      );
    }
    this.hasSeconds = fields.length === 6;
    const [sec, min, hour, dom, month, dow] = this.hasSeconds ? fields : ['0', ...fields];
    this.seconds = parseField(sec, SECOND);
    this.minutes = parseField(min, MINUTE);
    this.hours = parseField(hour, HOUR);
    const domValues = parseField(dom, DAY_OF_MONTH);
    const monthValues = parseField(month, MONTH);
    this.daysOfMonth = lookup(domValues);
    this.months = lookup(monthValues);
    this.daysOfWeek = lookup(parseField(dow, DAY_OF_WEEK));
    this.eitherDay = !dom.startsWith('*') && !dow.startsWith('*');
    // With "both must match", a day-of-month no chosen month has (Feb 30) would never tick.
    // (Any weekday falls on any date of any month within the 400-year cycle.)
    if (!this.eitherDay && !monthValues.some((m) => domValues[0] <= MAX_DAYS[m - 1])) {
      throw new CronError(`never matches: no month of ${JSON.stringify(month)} has a day ${domValues[0]} or later`);
    }
  }

  /** True when `date` (to the second) is a tick. */
  matches(date: Date): boolean {
    const t = seconds(date, 'matches');
    return this.previous(t) === t;
  }

  /** The first tick strictly after `after`. */
  nextTick(after: Date): Date {
    return new Date(this.next(seconds(after, 'nextTick')) * 1000);
  }

  /** The last tick at or before `atOrBefore`. */
  previousTick(atOrBefore: Date): Date {
    return new Date(this.previous(seconds(atOrBefore, 'previousTick')) * 1000);
  }

  /** Epoch seconds of the first tick strictly after epoch second `after` (fractions are dropped). */
  next(after: number): number {
    let t = Math.floor(after) + 1;
    const limit = t + HORIZON_SECONDS;
    while (t <= limit) {
      const d = new Date(t * 1000);
      const [Y, M, D, h, m, s] = [
        d.getUTCFullYear(),
        d.getUTCMonth(),
        d.getUTCDate(),
        d.getUTCHours(),
        d.getUTCMinutes(),
        d.getUTCSeconds(),
      ];
      if (!this.months[M + 1]) {
        t = utc(Y, M + 1);
        continue;
      }
      if (!this.dayMatches(d)) {
        t = utc(Y, M, D + 1);
        continue;
      }
      const nh = firstAtOrAfter(this.hours, h);
      if (nh !== h) {
        t = nh === undefined ? utc(Y, M, D + 1) : utc(Y, M, D, nh);
        continue;
      }
      const nm = firstAtOrAfter(this.minutes, m);
      if (nm !== m) {
        t = nm === undefined ? utc(Y, M, D, h + 1) : utc(Y, M, D, h, nm);
        continue;
      }
      const ns = firstAtOrAfter(this.seconds, s);
      if (ns !== s) {
        t = ns === undefined ? utc(Y, M, D, h, m + 1) : utc(Y, M, D, h, m, ns);
        continue;
      }
      return t;
    }
    throw new CronError(
      `${JSON.stringify(this.source)} has no tick within 400 years after ${new Date(after * 1000).toISOString()}`,
    );
  }

  /** Epoch seconds of the last tick at or before epoch second `atOrBefore` (fractions are dropped). */
  previous(atOrBefore: number): number {
    let t = Math.floor(atOrBefore);
    const limit = t - HORIZON_SECONDS;
    while (t >= limit) {
      const d = new Date(t * 1000);
      const [Y, M, D, h, m, s] = [
        d.getUTCFullYear(),
        d.getUTCMonth(),
        d.getUTCDate(),
        d.getUTCHours(),
        d.getUTCMinutes(),
        d.getUTCSeconds(),
      ];
      if (!this.months[M + 1]) {
        t = utc(Y, M) - 1;
        continue;
      }
      if (!this.dayMatches(d)) {
        t = utc(Y, M, D) - 1;
        continue;
      }
      const ph = lastAtOrBefore(this.hours, h);
      if (ph !== h) {
        t = ph === undefined ? utc(Y, M, D) - 1 : utc(Y, M, D, ph, 59, 59);
        continue;
      }
      const pm = lastAtOrBefore(this.minutes, m);
      if (pm !== m) {
        t = pm === undefined ? utc(Y, M, D, h) - 1 : utc(Y, M, D, h, pm, 59);
        continue;
      }
      const ps = lastAtOrBefore(this.seconds, s);
      if (ps !== s) {
        t = ps === undefined ? utc(Y, M, D, h, m) - 1 : utc(Y, M, D, h, m, ps);
        continue;
      }
      return t;
    }
    throw new CronError(
      `${JSON.stringify(this.source)} has no tick within 400 years before ${new Date(atOrBefore * 1000).toISOString()}`,
    );
  }

  private dayMatches(d: Date): boolean {
    const dom = this.daysOfMonth[d.getUTCDate()];
    const dow = this.daysOfWeek[d.getUTCDay()];
    return this.eitherDay ? dom || dow : dom && dow;
  }
}

/** Parses a cron expression; throws CronError saying which field is wrong and why. */
export function parseCron(expression: string): CronSchedule {
  return new CronSchedule(expression);
}
