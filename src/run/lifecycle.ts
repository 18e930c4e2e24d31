// The node's one-way steps, owned by the node so they outlive a restart of any actor: its backup
// lists were put back into their queues (once per boot, before the first fetch), it went quiet
// (Sidekiq's TSTP: it runs what it has and fetches nothing more), and it is stopping (its main
// client may be closed on purpose: src/node/stop-deadline.ts). None goes back.
export class NodeLifecycle {
  private rehydratedAt?: number;
  private quietAt?: number;
  private stoppingAt?: number;
  /** Hears the node go quiet (the manager: it ends its waiting fetch at once). */
  onQuiet?: () => void;

  /** This node's backup lists are back in their queues: a restarted manager must not do it again. */
  get rehydrated(): boolean {
    return this.rehydratedAt !== undefined;
  }

  get quiet(): boolean {
    return this.quietAt !== undefined;
  }

  /** The node is stopping: a main client that ends now was closed by the stop, not lost. */
  get stopping(): boolean {
    return this.stoppingAt !== undefined;
  }

  rehydrationDone(): void {
    this.rehydratedAt ??= Date.now();
  }

  /** Goes quiet: the manager's next decision fetches nothing, and what a late fetch takes goes back. */
  goQuiet(): void {
    if (this.quietAt !== undefined) return;
    this.quietAt = Date.now();
    this.onQuiet?.();
  }

  stopBegan(): void {
    this.stoppingAt ??= Date.now();
  }
}
