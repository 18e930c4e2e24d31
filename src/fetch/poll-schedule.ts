// When the manager decides again: at once (at most one decision queued in its mailbox), when the
// poll timer fires (the only time limited and paused queues are fetched), and never before a
// Redis error's back-off ends. The manager's timers, kept out of its fetch logic.

/** The poll message, as the manager's mailbox receives it. */
export interface PollInfo {
  type: 'poll';
  /** Sent by the poll timer. */
  due?: true;
}

/** The actor's own mailbox and timers. */
export interface PollTimers {
  send(msg: PollInfo): void;
  sendAfter(msg: PollInfo, ms: number): NodeJS.Timeout;
  cancel(timer: NodeJS.Timeout | undefined): void;
}

export class PollSchedule {
  private queued = false;
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;
  /** The timer fired since the last decision (true at start: the first decision polls everything). */
  private due = true;
  /** After a Redis error nothing is fetched until then (the poll timer ends the back-off). */
  private backoffUntil = 0;

  constructor(private readonly timers: PollTimers) {}

  /** Decide again on the mailbox's next turn. */
  now(): void {
    if (this.queued) return;
    this.queued = true;
    this.timers.send({ type: 'poll' });
  }

  /** Arms the poll timer for epoch ms `at`, unless it is armed for sooner already. */
  at(at: number): void {
    if (at >= this.timerAt) return;
    this.timers.cancel(this.timer);
    this.timerAt = at;
    this.timer = this.timers.sendAfter({ type: 'poll', due: true }, Math.max(0, at - Date.now()));
  }

  /** Nothing is fetched for `ms` after a Redis error. */
  backOff(ms: number): void {
    this.backoffUntil = Date.now() + ms;
    this.at(this.backoffUntil);
  }

  /**
   * A poll message is handled: whether this decision polls the limited and paused queues too, or
   * undefined while backing off (the timer is armed for its end).
   */
  begin(msg: PollInfo, now: number): { pollDue: boolean } | undefined {
    this.queued = false;
    if (msg.due) {
      this.timerAt = Infinity;
      this.due = true;
    }
    if (now < this.backoffUntil) {
      this.at(this.backoffUntil);
      return undefined;
    }
    const pollDue = this.due;
    this.due = false;
    return { pollDue };
  }

  stop(): void {
    this.timers.cancel(this.timer);
  }
}
