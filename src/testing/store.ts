// Fake mode's memory: the jobs enqueued, per queue, each as the exact JSON the enqueuer would
// have written to Redis. Scheduled jobs keep their time, as in the `schedule` sorted set.
import { decodeJob, JobPayload } from '../job/job';
import type { PreparedJob } from '../job/new-jobs';
import { nowSeconds } from '../job/time';

/** A job as fake mode recorded it. Fresh objects on every read: changing them changes nothing. */
export interface RecordedJob {
  queue: string;
  class: string;
  args: unknown[];
  jid: string;
  /** Epoch seconds it is scheduled for (its score in `schedule`); absent when enqueued to run now. */
  at?: number;
  /** The payload decoded. */
  payload: JobPayload;
  /** The payload exactly as it would be in Redis. */
  raw: string;
}

interface Entry {
  seq: number;
  queue: string;
  raw: string;
  at?: number;
  /** When a node would run it: `at`, or the time it was enqueued. */
  due: number;
}

export class JobStore {
  private entries: Entry[] = [];
  private seq = 0;

  add(job: PreparedJob): void {
    this.entries.push({
      seq: this.seq++,
      queue: job.queue,
      raw: job.json,
      at: job.runAt,
      due: job.runAt ?? nowSeconds(),
    });
  }

  /** A job a drain puts back into `queue` (a nack: behind the others; interrupted: next). */
  putBack(queue: string, raw: string, end: 'back' | 'front'): void {
    this.entries.push({ seq: this.seq++, queue, raw, due: end === 'front' ? -Infinity : nowSeconds() });
  }

  /** Recorded jobs of `queue` (or of every queue) in the order they were enqueued. */
  list(queue?: string): RecordedJob[] {
    return this.select(queue).map(toRecorded);
  }

  clear(queue?: string): void {
    this.entries = queue === undefined ? [] : this.entries.filter((e) => e.queue !== queue);
  }

  /** Removes and returns the job a node would run next: earliest due, then first enqueued. */
  takeNext(queue?: string): RecordedJob | undefined {
    let next: Entry | undefined;
    for (const e of this.select(queue)) if (!next || e.due < next.due) next = e;
    if (!next) return undefined;
    this.entries.splice(this.entries.indexOf(next), 1);
    return toRecorded(next);
  }

  size(queue?: string): number {
    return this.select(queue).length;
  }

  private select(queue?: string): Entry[] {
    return queue === undefined ? this.entries : this.entries.filter((e) => e.queue === queue);
  }
}

function toRecorded(entry: Entry): RecordedJob {
  const payload = decodeJob(entry.raw);
  const job: RecordedJob = {
    queue: entry.queue,
    class: payload.class,
    args: payload.args,
    jid: payload.jid,
    payload,
    raw: entry.raw,
  };
  if (entry.at !== undefined) job.at = entry.at;
  return job;
}
