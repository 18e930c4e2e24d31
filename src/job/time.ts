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
