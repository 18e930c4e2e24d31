// The process entry's running-jobs hashes (<identity>:workers and Sidekiq 6.5+'s <identity>:work,
// one field per running jid) as this node last wrote them, and what its next beat must change:
// a job's entry, payload included, is sent once when it starts (again only if its progress
// changes) and removed when it ends; a beat with nothing changed only renews the expiry. Until a
// write is known to have landed as sent (the first beat, a failed write, or beat.lua finding the
// hash not as written: Redis restarted or failed over empty, or the hash expired while the node
// was frozen) the next write rewrites the hashes whole.
import type { RunningJobsWrite } from '../redis/redis-time';
import type { RunningJob } from '../run/running-jobs';

interface Written {
  job: RunningJob;
  /** Its progress as written (JSON), to tell a change. */
  progress: string | undefined;
}

export class RunningJobsHash {
  constructor(private readonly identity: string) {}

  private written = new Map<string, Written>();
  private whole = true;

  /** What the next beat writes for `running`; `landed` or `lost` tells how it went. */
  next(running: readonly RunningJob[]): { write: RunningJobsWrite; landed: () => void } {
    // One field per jid: a payload fetched twice and running twice shows once (the later copy).
    const now = new Map<string, Written>();
    for (const job of running)
      now.set(job.jid, { job, progress: job.progress === undefined ? undefined : JSON.stringify(job.progress) });
    const set: Record<string, string> = {};
    for (const [jid, entry] of now) {
      const before = this.written.get(jid);
      if (this.whole || before?.job !== entry.job || before.progress !== entry.progress)
        set[jid] = value(entry.job, this.identity);
    }
    const removed = this.whole ? [] : [...this.written.keys()].filter((jid) => !now.has(jid));
    const write = { written: this.whole ? -1 : this.written.size, removed, set };
    return {
      write,
      landed: () => {
        this.written = now;
        this.whole = false;
      },
    };
  }

  /** The hashes are not known to hold what was last written: the next write rewrites them whole. */
  lost(): void {
    this.whole = true;
  }
}

/**
 * Sidekiq 6.4's shape: the payload as a JSON string, run_at in whole epoch seconds; and the `host`
 * and `pid` of Exq's (Exq.Support.Process, which its API lists).
 */
function value(job: RunningJob, identity: string): string {
  return JSON.stringify({
    host: identity,
    pid: String(process.pid),
    queue: job.queue,
    payload: job.raw,
    run_at: Math.floor(job.runAt),
    ...(job.progress === undefined ? {} : { progress: job.progress }),
  });
}
