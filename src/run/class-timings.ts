// Per-class counts and run times since the Stats actor's last flush, kept in memory like the
// processed/failed counters (./job-counters.ts): the stats middleware records each settled job, the
// Stats actor takes them every second and adds them to the current minute's metrics in Redis
// (src/redis/class-metrics.ts) in the same MULTI as the counters. A job whose class has no handler
// counts under UNKNOWN_CLASS, so payloads cannot grow the hash with made-up names.
import { bucketOf, ClassSample, emptySample, addSample } from '../redis/class-metrics';

export const UNKNOWN_CLASS = '(unknown)';

export class ClassTimings {
  private samples = new Map<string, ClassSample>();

  constructor(private readonly isKnown: (className: string) => boolean) {}

  record(className: string, ms: number, failed: boolean): void {
    const name = this.isKnown(className) ? className : UNKNOWN_CLASS;
    let s = this.samples.get(name);
    if (!s) this.samples.set(name, (s = emptySample()));
    s.processed++;
    if (failed) s.failed++;
    s.ms += ms;
    s.buckets[bucketOf(ms)]++;
  }

  /** The samples so far, now reset; `restore` them if they could not be written. */
  take(): Map<string, ClassSample> {
    const taken = this.samples;
    this.samples = new Map();
    return taken;
  }

  restore(taken: Map<string, ClassSample>): void {
    for (const [name, s] of taken) {
      const current = this.samples.get(name);
      if (current) addSample(current, s);
      else this.samples.set(name, s);
    }
  }
}
