// Time as the wire format wants it: epoch seconds as a float that always shows a fraction,
// because Sidekiq 8 reads an integer timestamp as milliseconds.
import { performance } from 'node:perf_hooks';
import type { TimestampFormat } from '../../config/defaults';

/** Now, in epoch seconds with microsecond precision. */
export function nowSeconds(): number {
  return (performance.timeOrigin + performance.now()) / 1000;
}

export function dateToSeconds(date: Date): number {
  return date.getTime() / 1000;
}

/** The latest epoch second a JavaScript Date holds (year 275760): a later due time has no date. */
export const LATEST_DATE_SECONDS = 8.64e12;

/**
 * ISO 8601 text of epoch seconds, or null when no Date holds them (a score or timestamp another
 * producer wrote far out of range, or not a number): a view shows it as unknown rather than fail.
 */
export function isoOfSeconds(seconds: number | undefined): string | null {
  if (seconds === undefined || !Number.isFinite(seconds) || Math.abs(seconds) > LATEST_DATE_SECONDS) return null;
  return new Date(seconds * 1000).toISOString();
}

/** JSON text of a float timestamp, with a fraction even when it is whole. */
export function jsonSeconds(seconds: number): string {
  return Number.isInteger(seconds) ? seconds.toFixed(1) : String(seconds);
}

/** JSON text of a payload timestamp in the configured format. */
export function jsonTimestamp(seconds: number, format: TimestampFormat): string {
  return format === 'milliseconds' ? String(Math.round(seconds * 1000)) : jsonSeconds(seconds);
}

/** Reads a timestamp that may be float seconds (Sidekiq 6/7, Exq) or integer ms (Sidekiq 8). */
export function readSeconds(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  // Epoch milliseconds passed 1e12 in 2001; epoch seconds will not reach it for 30,000 years.
  return value > 1e12 ? value / 1000 : value;
}

/**
 * Now by one clock for the whole fleet: Redis' (docs/time.md). A sample of Redis' `TIME` anchors
 * it, and the monotonic clock carries it forward, so neither this machine's wall clock nor a step
 * of it (NTP, a VM resumed) moves a due time nexq computes. Before its first sample it reads the
 * wall clock (nexq/testing, which has no Redis).
 */
export class Clock {
  /** Redis' time at the sample, and this process's monotonic time then (ms), its round trip (ms). */
  private anchor?: { redis: number; monotonicMs: number; roundTripMs: number };
  /** Redis' time minus this machine's wall clock at the last sample, in seconds. */
  offsetSeconds = 0;

  /** Now in epoch seconds, by Redis' clock. */
  now(): number {
    const a = this.anchor;
    return a ? a.redis + (performance.now() - a.monotonicMs) / 1000 : nowSeconds();
  }

  get synced(): boolean {
    return this.anchor !== undefined;
  }

  /**
   * How far off `now()` may be, in seconds: half the round trip of the sample it is anchored on,
   * and what the monotonic clock may have drifted from Redis' since (MAX_DRIFT).
   */
  get uncertaintySeconds(): number {
    const a = this.anchor;
    return a ? (a.roundTripMs / 2 + (performance.now() - a.monotonicMs) * MAX_DRIFT) / 1000 : Infinity;
  }

  /**
   * Anchors the clock on Redis' `redisSeconds`, read between `sentMs` and `receivedMs` (monotonic,
   * performance.now()) while the wall clock read `wallSeconds` halfway, unless the anchor it has
   * is the surer one: a sample whose reply came late (a frozen process, a loaded machine, a Redis
   * busy with a long script) could be off by half its round trip, so it replaces the anchor only
   * when its uncertainty is no larger than the anchor's now. Returns Redis' time minus the wall
   * clock at the sample, by the anchor kept.
   */
  sample(redisSeconds: number, sentMs: number, receivedMs: number, wallSeconds: number): number {
    const monotonicMs = (sentMs + receivedMs) / 2;
    const roundTripMs = receivedMs - sentMs;
    const a = this.anchor;
    const kept =
      !a || roundTripMs / 2 <= a.roundTripMs / 2 + (monotonicMs - a.monotonicMs) * MAX_DRIFT
        ? (this.anchor = { redis: redisSeconds, monotonicMs, roundTripMs })
        : a;
    return (this.offsetSeconds = kept.redis + (monotonicMs - kept.monotonicMs) / 1000 - wallSeconds);
  }
}

/** How fast this machine's monotonic clock may run from Redis' (500 ppm: far past a real clock's drift). */
const MAX_DRIFT = 0.0005;
