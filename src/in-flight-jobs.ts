// The raw payloads this node has taken into its backup lists and handed to workers that have not
// exited yet, per queue. After a fetch whose outcome is unknown, whatever a backup list holds
// beyond these is work no one is doing, and the manager puts it back in its queue. Also, by jid,
// how to cancel each of them.
export interface Cancellable {
  cancel(): void;
}

export class InFlightJobs {
  private readonly byQueue = new Map<string, Map<string, number>>();
  private readonly byJid = new Map<string, Cancellable>();

  /** Remembers how to cancel the job `jid` while its worker lives. */
  track(jid: string, worker: Cancellable): void {
    this.byJid.set(jid, worker);
  }

  untrack(jid: string, worker: Cancellable): void {
    if (this.byJid.get(jid) === worker) this.byJid.delete(jid);
  }

  /** Cancels the job `jid` if it runs here; false when it does not. */
  cancel(jid: string): boolean {
    const worker = this.byJid.get(jid);
    worker?.cancel();
    return worker !== undefined;
  }

  add(queue: string, raw: string): void {
    let jobs = this.byQueue.get(queue);
    if (!jobs) this.byQueue.set(queue, (jobs = new Map()));
    jobs.set(raw, (jobs.get(raw) ?? 0) + 1);
  }

  remove(queue: string, raw: string): void {
    const jobs = this.byQueue.get(queue);
    const count = jobs?.get(raw);
    if (!jobs || count === undefined) return;
    if (count > 1) jobs.set(raw, count - 1);
    else jobs.delete(raw);
    if (jobs.size === 0) this.byQueue.delete(queue);
  }

  /** Of `backup` (a backup list's entries), those no worker of this node holds. */
  unclaimed(queue: string, backup: string[]): string[] {
    const held = new Map(this.byQueue.get(queue) ?? []);
    return backup.filter((raw) => {
      const count = held.get(raw) ?? 0;
      if (count > 0) held.set(raw, count - 1);
      return count === 0;
    });
  }
}
