// The jobs running on this node: the one table of them. A job is in it from the moment the
// manager dispatches it (its slot taken) until its worker exits (its slot given back), however it
// exits. What each reader needs comes from here:
//  - free and busy slots per queue: the work table (src/run/work-table.ts), a SharedArrayBuffer the
//    worker threads can read too;
//  - which backup entries a live worker holds (the reclaim puts back the others);
//  - how to cancel a job by jid (the Canceller);
//  - what runs, since when (the heartbeat's process entry, Sidekiq's Busy page).
import { nowSeconds } from '../job/time';
import { WorkTable } from './work-table';

export interface RunningJob {
  readonly jid: string;
  readonly queue: string;
  /** The payload as fetched: its entry in the backup list. */
  readonly raw: string;
  /** Epoch seconds when its handler started (until then, when handed over), by the node's clock (docs/time.md). */
  readonly runAt: number;
  /** The latest `this.progress(value)` of its handler, if it reported any. */
  readonly progress?: unknown;
}

/** Stops a running job (its worker's cancel). */
export interface Cancellable {
  cancel(): void;
}

interface Entry extends RunningJob {
  runAt: number;
  progress?: unknown;
  /** Its handler started on a thread (it may first wait there for a slot). */
  started?: boolean;
  worker?: Cancellable;
  /** Its slot was given back when its thread finished, before its Redis step landed. */
  slotFree?: boolean;
}

export class RunningJobs {
  readonly slots = new WorkTable();
  private readonly entries = new Set<Entry>();
  /** Per queue, how many live job runners hold each raw payload (a payload fetched twice counts twice). */
  private readonly held = new Map<string, Map<string, number>>();

  /** Told when a job starts or ends (the heartbeat writes the work hash soon after). */
  onChange?: () => void;

  /** `now`: epoch seconds, the node's Clock's (the wall clock by default). */
  constructor(private readonly now: () => number = nowSeconds) {}

  /** Takes a slot of `queue` for the job and records it; the handle given back ends it. */
  start(jid: string, queue: string, raw: string): RunningJob {
    this.slots.take(queue);
    const entry: Entry = { jid, queue, raw, runAt: this.now() };
    this.entries.add(entry);
    let jobs = this.held.get(queue);
    if (!jobs) this.held.set(queue, (jobs = new Map<string, number>()));
    jobs.set(raw, (jobs.get(raw) ?? 0) + 1);
    return entry;
  }

  /** Its handler started on a thread: from now on it is listed as running (`list`). */
  started(job: RunningJob): void {
    const entry = job as Entry;
    if (!this.entries.has(entry) || entry.started) return;
    entry.started = true;
    entry.runAt = this.now();
    this.onChange?.();
  }

  /** How to cancel the job while its worker lives. */
  attach(job: RunningJob, worker: Cancellable): void {
    if (this.entries.has(job)) (job as Entry).worker = worker;
  }

  /**
   * The job's thread finished: its slot comes back now, while its settle is on its way to Redis;
   * it stays held (its backup entry is not reclaimed) until `finish`. True when its queue had no
   * free slot before, so the manager should start the next job.
   */
  freeSlot(job: RunningJob): boolean {
    const entry = job as Entry;
    if (!this.entries.has(entry) || entry.slotFree) return false;
    entry.slotFree = true;
    return this.slots.release(job.queue);
  }

  /**
   * The job's worker exited: its slot comes back (unless `freeSlot` gave it back already) and it
   * is forgotten (once; later calls do nothing). True when its queue had no free slot before, so
   * the manager should fetch again.
   */
  finish(job: RunningJob): boolean {
    if (!this.entries.delete(job)) return false;
    if ((job as Entry).started) this.onChange?.();
    const jobs = this.held.get(job.queue);
    const count = jobs?.get(job.raw);
    if (jobs && count !== undefined) {
      if (count > 1) jobs.set(job.raw, count - 1);
      else jobs.delete(job.raw);
      if (jobs.size === 0) this.held.delete(job.queue);
    }
    return (job as Entry).slotFree ? false : this.slots.release(job.queue);
  }

  /** Records the progress of every running copy of `jid`; those copies (none when it no longer runs here). */
  setProgress(jid: string, value: unknown): RunningJob[] {
    const copies: RunningJob[] = [];
    for (const entry of this.entries)
      if (entry.jid === jid) {
        entry.progress = value;
        copies.push(entry);
      }
    return copies;
  }

  /** Cancels every running copy of the job `jid`; false when none runs here. */
  cancel(jid: string): boolean {
    let found = false;
    for (const entry of this.entries) {
      if (entry.jid !== jid || !entry.worker) continue;
      entry.worker.cancel();
      found = true;
    }
    return found;
  }

  /** True while a live worker of this node holds a job of `queue` (running, waiting on a thread or settling). */
  holdsAny(queue: string): boolean {
    return this.held.has(queue);
  }

  /** Of `backup` (a backup list's entries), those no live worker of this node holds. */
  unclaimed(queue: string, backup: string[]): string[] {
    const held = new Map(this.held.get(queue) ?? []);
    return backup.filter((raw) => {
      const count = held.get(raw) ?? 0;
      if (count > 0) held.set(raw, count - 1);
      return count === 0;
    });
  }

  /** Jobs handed to threads, started or waiting there for a slot. */
  get size(): number {
    return this.entries.size;
  }

  /** The queues with jobs handed to threads that wait there for a slot. */
  waitingQueues(): string[] {
    const queues = new Set<string>();
    for (const entry of this.entries) if (!entry.started) queues.add(entry.queue);
    return [...queues];
  }

  /** The jobs whose handlers run now. */
  list(): RunningJob[] {
    return [...this.entries].filter((entry) => entry.started);
  }
}
