// The idle watch: how a manager hears that a queue it left idle (its last fetch emptied it) holds
// jobs again, with a fixed number of connections whatever the number of queues (issue 32;
// docs/reliability.md, "Waking idle nodes"). Three parts, each in its file:
//  - wake signals (src/fetch/wake-signals.ts): nexq's scripts PUBLISH the key of each queue they
//    push into; one subscriber connection hears them all;
//  - key tracking (src/fetch/push-tracking.ts): Redis tells that same subscriber of the next write
//    to an idle queue's key the node read tracked, whoever writes it (a foreign producer too);
//  - the idle check (src/fetch/idle-poll.ts): one EXISTS over the idle queues' keys, which arms
//    them under tracking; run the moment a queue turns idle (while tracking is on), and
//    periodically for what nothing announced.
// Each way in ends as the same `wake` for the manager: a queue key, or null for every idle queue.
import type { RedisClient } from '../redis/client';
import type { ConnectionEndedError } from '../redis/ended';
import type { Keys } from '../redis/keys';
import { IdlePoll } from './idle-poll';
import { PushTracking } from './push-tracking';
import { WakeSignals } from './wake-signals';

export interface IdleWatchEvents {
  /** An idle queue whose key is `queueKey` may hold jobs (null: any of them may, a FLUSHALL). */
  wake(queueKey: string | null): void;
  /** Tracking turned on: the idle queues are to be checked, and so armed, now. */
  trackingOn(): void;
  /** ioredis ended the subscriber connection for good. */
  ended(err: ConnectionEndedError): void;
  warn(message: string): void;
  info(message: string): void;
}

export class IdleWatch {
  private readonly tracking: PushTracking;
  private readonly signals: WakeSignals;
  private readonly poll: IdlePoll;
  private readonly queueKeys = new Map<string, string>();

  /** `client` gives the node's main client (read at each use); `owner` is the node's (its context). */
  constructor(
    private readonly client: () => RedisClient,
    owner: object,
    private readonly keys: Keys,
    intervalMs: number,
    events: IdleWatchEvents,
  ) {
    this.tracking = new PushTracking(
      client,
      owner,
      () => events.trackingOn(),
      (message) =>
        events.info(`foreign pushes are found by the idle check alone for now: key tracking is off (${message})`),
    );
    this.signals = new WakeSignals(client, keys.wakeChannel, {
      onWake: (queueKey) => events.wake(queueKey),
      onInvalidated: (queueKeys) => {
        if (queueKeys === null) {
          this.tracking.invalidatedAll();
          events.wake(null);
          return;
        }
        for (const key of queueKeys) {
          this.tracking.invalidated(key);
          events.wake(key);
        }
      },
      onListening: (id) => this.tracking.listening(id),
      onNotListening: () => this.tracking.notListening(),
      onEnded: (err) => events.ended(err),
      onCannotSubscribe: (err) => events.warn(`cannot subscribe to wake signals yet: ${err.message}`),
    });
    this.poll = new IdlePoll(keys, intervalMs, this.tracking);
  }

  open(): void {
    this.signals.open();
  }

  close(): void {
    this.signals.close();
    this.tracking.close();
  }

  /** `queue` is served no more: its key's tracking is not counted on. */
  forget(queue: string): void {
    this.queueKeys.delete(queue);
    this.tracking.forget(this.keys.queue(queue));
  }

  /**
   * Tracking is on and `queue`'s key is not tracked: when idle, check it now (the check arms it).
   * Asked of every idle queue at every decision: the keys are kept, not built each time.
   */
  unarmed(queue: string): boolean {
    if (!this.tracking.active) return false;
    let key = this.queueKeys.get(queue);
    if (key === undefined) this.queueKeys.set(queue, (key = this.keys.queue(queue)));
    return !this.tracking.armed(key);
  }

  /** Epoch ms of the next periodic check. */
  get dueAt(): number {
    return this.poll.dueAt;
  }

  decided(now: number): void {
    this.poll.decided(now);
  }

  /** The idle check: which of `queues` may hold jobs. */
  holdingJobs(queues: readonly string[]): Promise<string[]> {
    return this.poll.holdingJobs(this.tracking.current(), queues);
  }
}
