// Cron in a time zone (config/cron-zone.ts): ticks on the zone's wall clock, and daylight saving
// time the way cron users expect: a skipped hour skips, a repeated hour runs once.
import { expect } from 'chai';
import { CronError } from '../../config/cron';
import { cronIn, isoInZone, ZonedCron } from '../../config/cron-zone';

const at = (iso: string) => Date.parse(iso) / 1000;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000', '');

/** The first `n` ticks after `from`. */
function ticks(cron: string, zone: string, from: string, n: number): string[] {
  const schedule = new ZonedCron(cron, zone);
  const out: string[] = [];
  for (let t = at(from); out.length < n;) out.push(iso((t = schedule.next(t))));
  return out;
}

describe('cron in a time zone', () => {
  it("ticks on the zone's wall clock on both sides of a change: 09:00 in Berlin is 08:00Z, then 07:00Z", () => {
    expect(ticks('0 9 * * *', 'Europe/Berlin', '2026-03-27T12:00:00Z', 3)).to.deep.equal([
      '2026-03-28T08:00:00Z',
      '2026-03-29T07:00:00Z',
      '2026-03-30T07:00:00Z',
    ]);
  });

  it('spring forward: a time that does not exist that day is skipped, not moved', () => {
    // New York, 2026-03-08: 02:00 EST becomes 03:00 EDT; 02:30 never happens that day.
    expect(ticks('30 2 * * *', 'America/New_York', '2026-03-07T12:00:00Z', 2)).to.deep.equal([
      '2026-03-09T06:30:00Z',
      '2026-03-10T06:30:00Z',
    ]);
    // Every 30 minutes: 01:30 EST, then 03:00 EDT, 30 minutes of real time apart.
    expect(ticks('*/30 * * * *', 'America/New_York', '2026-03-08T06:00:00Z', 3)).to.deep.equal([
      '2026-03-08T06:30:00Z',
      '2026-03-08T07:00:00Z',
      '2026-03-08T07:30:00Z',
    ]);
  });

  it('fall back: a time that happens twice runs once, at its first occurrence', () => {
    // New York, 2026-11-01: 02:00 EDT becomes 01:00 EST; 01:30 happens at 05:30Z and 06:30Z.
    expect(ticks('30 1 * * *', 'America/New_York', '2026-10-31T16:00:00Z', 2)).to.deep.equal([
      '2026-11-01T05:30:00Z',
      '2026-11-02T06:30:00Z',
    ]);
    // Hourly: 01:00 EDT, then 02:00 EST; the repeated 01:00 EST does not run again.
    expect(ticks('0 * * * *', 'America/New_York', '2026-11-01T04:30:00Z', 3)).to.deep.equal([
      '2026-11-01T05:00:00Z',
      '2026-11-01T07:00:00Z',
      '2026-11-01T08:00:00Z',
    ]);
  });

  it('previous: in the repeated hour the last tick is its first occurrence, so it is not run twice', () => {
    const daily = new ZonedCron('30 1 * * *', 'America/New_York');
    expect(iso(daily.previous(at('2026-11-01T06:45:00Z')))).to.equal('2026-11-01T05:30:00Z');
    expect(iso(daily.previous(at('2026-11-01T05:30:00Z')))).to.equal('2026-11-01T05:30:00Z');
    expect(iso(daily.previous(at('2026-11-01T05:29:59Z')))).to.equal('2026-10-31T05:30:00Z');
    // Quarter-hourly, during the second 01:xx: the latest tick is 01:45 EDT of the first pass.
    const quarterly = new ZonedCron('*/15 * * * *', 'America/New_York');
    expect(iso(quarterly.previous(at('2026-11-01T06:40:00Z')))).to.equal('2026-11-01T05:45:00Z');
    // Spring forward: the day without 02:30 has no tick; the last one is the day before's.
    expect(iso(new ZonedCron('30 2 * * *', 'America/New_York').previous(at('2026-03-08T12:00:00Z')))).to.equal(
      '2026-03-07T07:30:00Z',
    );
  });

  it('runs UTC (and no zone) as the plain schedule, and names an unknown zone', () => {
    expect(iso(cronIn('0 9 * * *', 'UTC').next(at('2026-03-29T00:00:00Z')))).to.equal('2026-03-29T09:00:00Z');
    expect(iso(cronIn('0 9 * * *').next(at('2026-03-29T00:00:00Z')))).to.equal('2026-03-29T09:00:00Z');
    expect(() => cronIn('0 9 * * *', 'Mars/Olympus')).to.throw(
      CronError,
      'unknown time zone "Mars/Olympus" (an IANA name such as "Europe/Berlin")',
    );
  });
});

describe('a time on the wall clock of a zone', () => {
  it('writes ISO 8601 with the offset the zone has then, and Z for UTC', () => {
    const winter = new Date('2026-01-15T07:00:00Z');
    const summer = new Date('2026-07-15T06:00:00Z');
    expect(isoInZone(winter, 'America/New_York')).to.equal('2026-01-15T02:00:00-05:00');
    expect(isoInZone(summer, 'America/New_York')).to.equal('2026-07-15T02:00:00-04:00');
    expect(isoInZone(winter, 'Asia/Kolkata')).to.equal('2026-01-15T12:30:00+05:30');
    expect(isoInZone(winter)).to.equal('2026-01-15T07:00:00Z');
  });
});
