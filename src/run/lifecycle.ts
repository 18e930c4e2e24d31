// The node's two one-way steps, owned by the node so they outlive a restart of any actor: its
// backup lists were put back into their queues (once per boot, before the first fetch), and it
// went quiet (Sidekiq's TSTP: it runs what it has and fetches nothing more). Neither goes back.
export class NodeLifecycle {
  private rehydratedAt?: number;
  private quietAt?: number;

  /** This node's backup lists are back in their queues: a restarted manager must not do it again. */
  get rehydrated(): boolean {
    return this.rehydratedAt !== undefined;
  }

  get quiet(): boolean {
    return this.quietAt !== undefined;
  }

  rehydrationDone(): void {
    this.rehydratedAt ??= Date.now();
  }

  /** Goes quiet: the manager's next decision fetches nothing, and what a late fetch takes goes back. */
  goQuiet(): void {
    this.quietAt ??= Date.now();
  }
}
