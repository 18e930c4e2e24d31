// NodeLease: how long this node's claim on the jobs in its backup lists surely holds, read on the
// monotonic clock (docs/reliability.md, "A frozen or cut-off node").
//
// Responsibilities:
//  1. Remember when the last beat Redis acknowledged was sent (performance.now(), which keeps
//     counting while the process is stopped, unlike a timer), and say whether a job taken into
//     the backup list may start now: only while that beat is younger than `spanMs`.
//  2. Hear from the heartbeat that Redis had no beat of this node before the one just written,
//     after it had acknowledged one: a reaper declared the node dead and took its backup lists.
//     The jobs the node holds fetched ahead are the other nodes' now; the manager, told once,
//     forgets them (`takeForfeit`).
//  3. Tell the manager when the claim holds again, so the jobs it held back start without a wait.
//
// Why the span is safe: a reaper declares this node dead only once Redis' TIME has passed the
// score of its last beat by `nodeTimeout` (dead-nodes.lua, recover-node.lua), and beat.lua scored
// that beat after this node sent it. So the claim held at least `nodeTimeout` from the send, on
// Redis' clock. The node keeps a margin of one heartbeat interval, and never less than half the
// timeout, for what the two clocks do not share: a step of Redis' wall clock (TIME is wall time),
// their drift, and the moments between the check and the job's thread taking it up. In a healthy
// node a beat is acknowledged every `heartbeatInterval`, well inside the span. Before its first
// acknowledged beat the claim holds: no reaper lists a node that never beat (the heartbeat sends
// the first beat as the node starts, before the manager's first fetch).

/** The span of a claim, ms: `nodeTimeout` less one heartbeat, and at least half of `nodeTimeout`. */
export function leaseSpanMs(nodeTimeoutSeconds: number, heartbeatIntervalSeconds: number): number {
  return Math.max(nodeTimeoutSeconds - heartbeatIntervalSeconds, nodeTimeoutSeconds / 2) * 1000;
}

export class NodeLease {
  /** performance.now() when the last acknowledged beat was sent (undefined: none yet). */
  private sentAt?: number;
  private forfeit = false;
  /** Called when the claim holds again after it lapsed, or was lost (the manager starts or drops). */
  onRegained?: () => void;
  /** Told until when (performance.now()) the claim holds, at each acknowledged beat (the worker threads read it). */
  onRenewed?: (until: number) => void;
  /** Told at once when the node learns it was declared dead (the threads drop what they were handed). */
  onForfeit?: () => void;

  constructor(
    readonly spanMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The moment a beat is sent, to hand to `acknowledged` with Redis' answer. */
  mark(): number {
    return this.now();
  }

  /** True while a job this node took into its backup list may start: the claim surely holds. */
  holds(): boolean {
    return this.sentAt === undefined || this.now() - this.sentAt < this.spanMs;
  }

  /** Ms the claim surely holds from now (Infinity before the first acknowledged beat; ≤ 0: lapsed). */
  leftMs(): number {
    return this.sentAt === undefined ? Infinity : this.spanMs - (this.now() - this.sentAt);
  }

  /**
   * Redis acknowledged the beat sent at `sentAt` (from `mark`); `absent`: Redis held no beat of
   * this node before it. Returns how many ms the node had gone without an acknowledged beat when
   * that means it was declared dead (it had beaten before), undefined otherwise.
   */
  acknowledged(sentAt: number, absent: boolean): number | undefined {
    const before = this.sentAt;
    const held = this.holds();
    const lost = absent && before !== undefined;
    if (lost) {
      this.forfeit = true;
      this.onForfeit?.();
    }
    if (before === undefined || sentAt > before) {
      this.sentAt = sentAt;
      this.onRenewed?.(sentAt + this.spanMs);
    }
    if ((lost || !held) && this.holds()) this.onRegained?.();
    return lost ? this.now() - before : undefined;
  }

  /** True once after the node learned it was declared dead: what it held fetched ahead is not its own. */
  takeForfeit(): boolean {
    const forfeit = this.forfeit;
    this.forfeit = false;
    return forfeit;
  }
}
