// The cron parser: every syntax form, next and previous ticks, Vixie's day-of-month/day-of-week
// rule, and clear errors for bad expressions. All times UTC.
import { expect } from 'chai';
import { CronError, CronSchedule, parseCron } from '../../config/cron';

const at = (iso: string) => new Date(iso);
const next = (expr: string, from: string) => parseCron(expr).nextTick(at(from)).toISOString();
const prev = (expr: string, from: string) => parseCron(expr).previousTick(at(from)).toISOString();

/** The next `n` ticks after `from`. */
function ticks(expr: string, from: string, n: number): string[] {
  const cron = parseCron(expr);
  const out: string[] = [];
  let t = at(from);
  for (let i = 0; i < n; i++) {
    t = cron.nextTick(t);
    out.push(t.toISOString());
  }
  return out;
}

describe('cron expressions', () => {
  describe('fields', () => {
    it('* matches every minute, on second 0 when there are five fields', () => {
      expect(ticks('* * * * *', '2024-05-10T10:00:30Z', 3)).to.deep.equal([
        '2024-05-10T10:01:00.000Z',
        '2024-05-10T10:02:00.000Z',
        '2024-05-10T10:03:00.000Z',
      ]);
    });

    it('a number matches that value only', () => {
      expect(ticks('30 9 * * *', '2024-05-10T09:30:00Z', 2)).to.deep.equal([
        '2024-05-11T09:30:00.000Z',
        '2024-05-12T09:30:00.000Z',
      ]);
      expect(next('0 0 1 6 *', '2024-05-10T00:00:00Z')).to.equal('2024-06-01T00:00:00.000Z');
    });

    it('a range a-b matches a through b, then goes on to the next day', () => {
      expect(ticks('0 16-18 * * *', '2024-05-10T15:59:59Z', 4)).to.deep.equal([
        '2024-05-10T16:00:00.000Z',
        '2024-05-10T17:00:00.000Z',
        '2024-05-10T18:00:00.000Z',
        '2024-05-11T16:00:00.000Z',
      ]);
    });

    it('a list a,b matches each item, ranges and steps included', () => {
      expect(ticks('0,30 * * * *', '2024-05-10T10:00:00Z', 3)).to.deep.equal([
        '2024-05-10T10:30:00.000Z',
        '2024-05-10T11:00:00.000Z',
        '2024-05-10T11:30:00.000Z',
      ]);
      expect(ticks('5,10-11,*/30 0 * * *', '2024-05-10T00:00:00Z', 5)).to.deep.equal([
        '2024-05-10T00:05:00.000Z',
        '2024-05-10T00:10:00.000Z',
        '2024-05-10T00:11:00.000Z',
        '2024-05-10T00:30:00.000Z',
        '2024-05-11T00:00:00.000Z',
      ]);
    });

    it("a step */n counts from the field's first value", () => {
      expect(ticks('*/15 * * * *', '2024-05-10T10:07:00Z', 4)).to.deep.equal([
        '2024-05-10T10:15:00.000Z',
        '2024-05-10T10:30:00.000Z',
        '2024-05-10T10:45:00.000Z',
        '2024-05-10T11:00:00.000Z',
      ]);
      // Days of the month count from 1: the 1st, 11th, 21st and 31st.
      expect(ticks('0 0 */10 * *', '2024-05-01T00:00:00Z', 4)).to.deep.equal([
        '2024-05-11T00:00:00.000Z',
        '2024-05-21T00:00:00.000Z',
        '2024-05-31T00:00:00.000Z',
        '2024-06-01T00:00:00.000Z',
      ]);
    });

    it('a range step a-b/n counts from a and stops at b', () => {
      expect(ticks('10-50/20 * * * *', '2024-05-10T10:00:00Z', 4)).to.deep.equal([
        '2024-05-10T10:10:00.000Z',
        '2024-05-10T10:30:00.000Z',
        '2024-05-10T10:50:00.000Z',
        '2024-05-10T11:10:00.000Z',
      ]);
    });

    it('day-of-week 0 and 7 are both Sunday, in ranges too', () => {
      // 2024-05-12 is a Sunday.
      expect(next('0 0 * * 7', '2024-05-10T00:00:00Z')).to.equal('2024-05-12T00:00:00.000Z');
      expect(next('0 0 * * 0', '2024-05-10T00:00:00Z')).to.equal('2024-05-12T00:00:00.000Z');
      expect(ticks('0 0 * * 5-7', '2024-05-09T00:00:00Z', 4)).to.deep.equal([
        '2024-05-10T00:00:00.000Z',
        '2024-05-11T00:00:00.000Z',
        '2024-05-12T00:00:00.000Z',
        '2024-05-17T00:00:00.000Z',
      ]);
      // */2 on the weekday: Sunday, Tuesday, Thursday, Saturday (7 does not make Sunday twice).
      expect(ticks('0 0 * * */2', '2024-05-11T00:00:00Z', 4)).to.deep.equal([
        '2024-05-12T00:00:00.000Z',
        '2024-05-14T00:00:00.000Z',
        '2024-05-16T00:00:00.000Z',
        '2024-05-18T00:00:00.000Z',
      ]);
    });

    it('takes month and weekday names in any case, in ranges and lists', () => {
      expect(ticks('0 9 * * mon-FRI', '2024-05-10T10:00:00Z', 2)).to.deep.equal([
        '2024-05-13T09:00:00.000Z',
        '2024-05-14T09:00:00.000Z',
      ]);
      expect(ticks('0 0 1 JAN,jul *', '2024-05-10T00:00:00Z', 2)).to.deep.equal([
        '2024-07-01T00:00:00.000Z',
        '2025-01-01T00:00:00.000Z',
      ]);
    });

    it('a sixth, leading field is seconds', () => {
      expect(ticks('*/1 * * * * *', '2024-05-10T10:00:59.400Z', 3)).to.deep.equal([
        '2024-05-10T10:01:00.000Z',
        '2024-05-10T10:01:01.000Z',
        '2024-05-10T10:01:02.000Z',
      ]);
      expect(ticks('*/20 * * * * *', '2024-05-10T10:00:00Z', 3)).to.deep.equal([
        '2024-05-10T10:00:20.000Z',
        '2024-05-10T10:00:40.000Z',
        '2024-05-10T10:01:00.000Z',
      ]);
      expect(next('15 30 9 * * *', '2024-05-10T10:00:00Z')).to.equal('2024-05-11T09:30:15.000Z');
      expect(parseCron('* * * * * *').hasSeconds).to.equal(true);
      expect(parseCron('* * * * *').hasSeconds).to.equal(false);
    });

    it('takes the @ macros', () => {
      expect(next('@hourly', '2024-05-10T10:20:00Z')).to.equal('2024-05-10T11:00:00.000Z');
      expect(next('@daily', '2024-05-10T10:20:00Z')).to.equal('2024-05-11T00:00:00.000Z');
      expect(next('@midnight', '2024-05-10T10:20:00Z')).to.equal('2024-05-11T00:00:00.000Z');
      expect(next('@weekly', '2024-05-10T10:20:00Z')).to.equal('2024-05-12T00:00:00.000Z');
      expect(next('@monthly', '2024-05-10T10:20:00Z')).to.equal('2024-06-01T00:00:00.000Z');
      expect(next('@yearly', '2024-05-10T10:20:00Z')).to.equal('2025-01-01T00:00:00.000Z');
      expect(next('@annually', '2024-05-10T10:20:00Z')).to.equal('2025-01-01T00:00:00.000Z');
    });

    it('ignores extra whitespace', () => {
      expect(next('  0   9 * *\t*  ', '2024-05-10T10:00:00Z')).to.equal('2024-05-11T09:00:00.000Z');
    });
  });

  describe('next and previous ticks', () => {
    it('nextTick is strictly after, previousTick at or before', () => {
      expect(next('0 * * * *', '2024-05-10T10:00:00Z')).to.equal('2024-05-10T11:00:00.000Z');
      expect(prev('0 * * * *', '2024-05-10T10:00:00Z')).to.equal('2024-05-10T10:00:00.000Z');
      expect(prev('0 * * * *', '2024-05-10T10:59:59.999Z')).to.equal('2024-05-10T10:00:00.000Z');
      expect(next('0 * * * *', '2024-05-10T10:59:59.999Z')).to.equal('2024-05-10T11:00:00.000Z');
      expect(prev('* * * * * *', '2024-05-10T10:00:07.900Z')).to.equal('2024-05-10T10:00:07.000Z');
    });

    it('previousTick walks back over hours, days, months and years', () => {
      expect(prev('30 9 * * *', '2024-05-10T09:29:59Z')).to.equal('2024-05-09T09:30:00.000Z');
      expect(prev('0 0 31 * *', '2024-05-10T00:00:00Z')).to.equal('2024-03-31T00:00:00.000Z');
      expect(prev('15,45 10-12 * * *', '2024-05-10T10:14:00Z')).to.equal('2024-05-09T12:45:00.000Z');
      expect(prev('0 0 1 1 *', '2024-05-10T00:00:00Z')).to.equal('2024-01-01T00:00:00.000Z');
      expect(prev('0 0 1 1 *', '2024-01-01T00:00:00Z')).to.equal('2024-01-01T00:00:00.000Z');
      expect(prev('0 0 1 1 *', '2023-12-31T23:59:59Z')).to.equal('2023-01-01T00:00:00.000Z');
    });

    it('skips months without the day, and finds February 29 in leap years only', () => {
      expect(ticks('0 0 31 * *', '2024-01-31T00:00:00Z', 3)).to.deep.equal([
        '2024-03-31T00:00:00.000Z',
        '2024-05-31T00:00:00.000Z',
        '2024-07-31T00:00:00.000Z',
      ]);
      expect(next('0 0 29 2 *', '2024-03-01T00:00:00Z')).to.equal('2028-02-29T00:00:00.000Z');
      expect(prev('0 0 29 2 *', '2024-02-28T00:00:00Z')).to.equal('2020-02-29T00:00:00.000Z');
    });

    it('crosses year ends', () => {
      expect(next('*/1 * * * * *', '2024-12-31T23:59:59Z')).to.equal('2025-01-01T00:00:00.000Z');
      expect(prev('59 59 23 31 12 *', '2025-01-01T00:00:00Z')).to.equal('2024-12-31T23:59:59.000Z');
    });

    it('matches() tells whether a second is a tick', () => {
      const cron = parseCron('*/15 9 * * *');
      expect(cron.matches(at('2024-05-10T09:45:00Z'))).to.equal(true);
      expect(cron.matches(at('2024-05-10T09:45:00.700Z'))).to.equal(true);
      expect(cron.matches(at('2024-05-10T09:46:00Z'))).to.equal(false);
      expect(cron.matches(at('2024-05-10T10:45:00Z'))).to.equal(false);
    });

    it('refuses an invalid Date', () => {
      expect(() => parseCron('* * * * *').nextTick(new Date(NaN))).to.throw(TypeError, /valid Date/);
      expect(() => parseCron('* * * * *').previousTick('2024' as never)).to.throw(TypeError, /valid Date/);
    });
  });

  describe("Vixie's day rule", () => {
    // May 2024: the 1st is a Wednesday, the 3rd and 10th are Fridays, the 13th a Monday.
    it('with both day fields restricted, a day matches if either does', () => {
      expect(ticks('0 0 13 * 5', '2024-05-01T00:00:00Z', 4)).to.deep.equal([
        '2024-05-03T00:00:00.000Z',
        '2024-05-10T00:00:00.000Z',
        '2024-05-13T00:00:00.000Z',
        '2024-05-17T00:00:00.000Z',
      ]);
      expect(prev('0 0 1 * MON', '2024-05-12T00:00:00Z')).to.equal('2024-05-06T00:00:00.000Z');
      expect(prev('0 0 1 * MON', '2024-05-05T00:00:00Z')).to.equal('2024-05-01T00:00:00.000Z');
    });

    it('with day-of-week *, only the day of the month counts; and the other way round', () => {
      expect(ticks('0 0 13 * *', '2024-05-01T00:00:00Z', 2)).to.deep.equal([
        '2024-05-13T00:00:00.000Z',
        '2024-06-13T00:00:00.000Z',
      ]);
      expect(ticks('0 0 * * 5', '2024-05-01T00:00:00Z', 2)).to.deep.equal([
        '2024-05-03T00:00:00.000Z',
        '2024-05-10T00:00:00.000Z',
      ]);
    });

    it('a field starting with * (such as */2) counts as unrestricted, so both must match', () => {
      // Odd days that are Mondays: the 13th and the 27th of May 2024, then June 3rd (not the 6th, 10th...).
      expect(ticks('0 0 */2 * MON', '2024-05-01T00:00:00Z', 3)).to.deep.equal([
        '2024-05-13T00:00:00.000Z',
        '2024-05-27T00:00:00.000Z',
        '2024-06-03T00:00:00.000Z',
      ]);
      // */5 on the weekday is Sunday and Friday: a 13th that is a Sunday or a Friday.
      expect(ticks('0 0 13 * */5', '2024-01-01T00:00:00Z', 2)).to.deep.equal([
        '2024-09-13T00:00:00.000Z',
        '2024-10-13T00:00:00.000Z',
      ]);
    });
  });

  describe('against a brute-force search', () => {
    // Each expression with the values its fields allow, written out by hand, and whether days
    // match by "either" (both day fields restricted) or "both".
    const cases: Array<{
      expr: string;
      min: number[];
      hour: number[];
      dom: number[];
      month: number[];
      dow: number[];
      either: boolean;
    }> = [
      {
        expr: '*/7 3-5 * * *',
        min: [0, 7, 14, 21, 28, 35, 42, 49, 56],
        hour: [3, 4, 5],
        dom: [],
        month: [],
        dow: [],
        either: false,
      },
      { expr: '0 12 1,15 * 3', min: [0], hour: [12], dom: [1, 15], month: [], dow: [3], either: true },
      { expr: '30 0 * 2-3 6-7', min: [30], hour: [0], dom: [], month: [2, 3], dow: [6, 0], either: false },
      { expr: '0,45 23 28-31 * *', min: [0, 45], hour: [23], dom: [28, 29, 30, 31], month: [], dow: [], either: false },
    ];
    const all = (list: number[]) => list.length === 0;
    const matchesRef = (c: (typeof cases)[number], t: number): boolean => {
      const d = new Date(t * 1000);
      if (d.getUTCSeconds() !== 0) return false;
      const has = (list: number[], v: number) => all(list) || list.includes(v);
      if (!has(c.min, d.getUTCMinutes()) || !has(c.hour, d.getUTCHours()) || !has(c.month, d.getUTCMonth() + 1))
        return false;
      const dom = has(c.dom, d.getUTCDate());
      const dow = has(c.dow, d.getUTCDay());
      return c.either ? dom || dow : dom && dow;
    };

    for (const c of cases) {
      it(`agrees on ${c.expr}`, () => {
        const cron = new CronSchedule(c.expr);
        // Minute by minute over ~100 days from a few starting points; each tick found must be the
        // first the reference accepts after the start, and previous() must find the last one.
        let start = Date.UTC(2023, 11, 20, 7, 13, 27) / 1000;
        let expectedPrev: number | undefined;
        for (let m = Math.floor(start / 60) * 60; m <= start; m += 60) if (matchesRef(c, m)) expectedPrev = m;
        let found = 0;
        const end = start + 100 * 86400;
        for (let t = Math.floor(start / 60) * 60 + 60; t < end; t += 60) {
          if (!matchesRef(c, t)) continue;
          expect(cron.next(start), `next after ${new Date(start * 1000).toISOString()}`).to.equal(t);
          expect(cron.previous(t + 59), `previous at ${new Date((t + 59) * 1000).toISOString()}`).to.equal(t);
          if (expectedPrev !== undefined) expect(cron.previous(t - 1)).to.equal(expectedPrev);
          expectedPrev = t;
          start = t;
          found++;
        }
        expect(found).to.be.greaterThan(3);
      });
    }
  });

  describe('bad expressions', () => {
    const bad: Array<[string, RegExp]> = [
      ['', /expected 5 fields .* got 0/],
      ['* * * *', /expected 5 fields \(minute hour day-of-month month day-of-week\) or 6 \(second first\), got 4/],
      ['* * * * * * *', /got 7/],
      ['60 * * * *', /minute field "60": 60 is out of range 0-59/],
      ['* 24 * * *', /hour field "24": 24 is out of range 0-23/],
      ['* * 0 * *', /day-of-month field "0": 0 is out of range 1-31/],
      ['* * * 13 *', /month field "13": 13 is out of range 1-12/],
      ['* * * * 8', /day-of-week field "8": 8 is out of range 0-7/],
      ['60 * * * * *', /second field "60"/],
      ['5-1 * * * *', /minute field "5-1": range 5-1 runs backwards/],
      ['*/0 * * * *', /step "0" must be a whole number >= 1/],
      ['*/x * * * *', /step "x" must be a whole number >= 1/],
      ['5/15 * * * *', /a step needs a range or \*: write 5-59\/15 or \*\/15/],
      ['1,,2 * * * *', /empty item in a list/],
      ['1, * * * *', /empty item in a list/],
      ['x * * * *', /minute field "x": "x" is not a number/],
      ['* * * * FUNDAY', /"FUNDAY" is neither a number nor one of SUN, MON/],
      ['* * * MON *', /month field "MON": "MON" is neither a number nor one of JAN/],
      ['1.5 * * * *', /is not \*, a number, a range a-b, or one of those with \/step/],
      ['-1 * * * *', /is not \*, a number/],
      ['? * * * *', /is not \*, a number/],
      ['@reboot', /unknown macro "@reboot"/],
      ['0 0 30 2 *', /never matches: no month of "2" has a day 30 or later/],
      ['0 0 31 4,6,9,11 *', /never matches/],
    ];
    for (const [expr, message] of bad) {
      it(`rejects ${JSON.stringify(expr)}`, () => {
        expect(() => parseCron(expr)).to.throw(CronError, message);
      });
    }

    it('rejects what is not a string', () => {
      expect(() => parseCron(5 as never)).to.throw(CronError, /must be a string, got number/);
      expect(() => parseCron(undefined as never)).to.throw(CronError, /must be a string/);
    });

    it('accepts Feb 30 when the weekday can match instead (either rule)', () => {
      // February only: its Mondays.
      expect(next('0 0 30 2 MON', '2024-05-01T00:00:00Z')).to.equal('2025-02-03T00:00:00.000Z');
    });
  });
});
