// A job as operators see it (CLI listings, the web dashboard): its fields decoded from the raw
// entry, times as ISO strings. An entry that is not a JSON object keeps its raw text.
import { readBacktrace } from '../job/failure';
import { jsonObject } from '../job/json-object';
import { isoOfSeconds, readSeconds } from '../job/time';
import { KeyRing, readableArgs } from '../job/encryption';

export interface JobView {
  jid: string | null;
  class: string | null;
  queue: string | null;
  args: unknown;
  enqueued_at: string | null;
  at?: string | null;
  retry_count?: number | null;
  error_class?: string | null;
  error_message?: string | null;
  failed_at?: string | null;
  /** The stack of the last failure (error_backtrace decoded), when kept. */
  error_backtrace?: string[] | null;
  raw?: string;
}

/** ISO 8601 text of epoch seconds; null when unknown or out of any Date's range (another producer's). */
export function isoOf(seconds: number | undefined): string | null {
  return isoOfSeconds(seconds);
}

/** The stack of a job's last failure, decoded from its error_backtrace; null when none is kept. */
export function backtraceOf(raw: string): string[] | null {
  return readBacktrace(jsonObject(raw)?.error_backtrace) ?? null;
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);

/**
 * `score` (epoch seconds) is given for sorted-set entries, which also show their retry fields.
 * Encrypted args show opened when `ring` opens them, as "encrypted" otherwise.
 */
export function jobView(raw: string, score?: number, ring?: KeyRing): JobView {
  const job = jsonObject(raw);
  if (!job) return { jid: null, class: null, queue: null, args: null, enqueued_at: null, raw };
  const view: JobView = {
    jid: str(job.jid),
    class: str(job.class),
    queue: str(job.queue),
    args: readableArgs({ args: job.args ?? null, class: str(job.class) ?? '', jid: str(job.jid) ?? '' }, ring),
    enqueued_at: isoOf(readSeconds(job.enqueued_at)),
  };
  if (score !== undefined) {
    view.at = isoOf(score);
    view.retry_count = typeof job.retry_count === 'number' ? job.retry_count : null;
    view.error_class = str(job.error_class);
    view.error_message = str(job.error_message);
    view.failed_at = isoOf(readSeconds(job.failed_at));
    view.error_backtrace = readBacktrace(job.error_backtrace) ?? null;
  }
  return view;
}
