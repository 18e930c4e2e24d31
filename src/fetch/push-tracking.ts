// Pushes nobody announced, heard at once: Redis' key tracking (CLIENT TRACKING, the server side
// of client-side caching) tells a client when a key it read changes. When the idle poll checks an
// idle queue's key (src/fetch/idle-poll.ts) it asks Redis to track that read, so the next write to
// the key — an LPUSH from Sidekiq's client, Exq or redis-cli as much as from nexq — sends one
// invalidation message naming it, on the wake subscriber's connection (src/fetch/wake-signals.ts).
// That is a wake signal for every producer, at no cost while nothing is pushed: the idle node sends
// nothing per queue, and a tracked key costs Redis a lookup only when it is written.
//
// Responsibilities:
//  - turn tracking on for the main connection (OPTIN: only the idle poll's reads are tracked),
//    redirected to the wake subscriber, again after either connection reconnects (Redis forgets
//    tracking with the connection; the subscriber's client id changes);
//  - know which idle queues are armed (their key is tracked), so the manager checks, and so arms,
//    a queue the moment it turns idle, and only then;
//  - fall back quietly: a Redis Cluster client (the redirect must be on the same server), a server
//    or proxy that refuses CLIENT TRACKING: the idle poll alone, every `idlePollInterval`.
// A tracked key is invalidated once, by whatever writes it first (nexq's own fetch included), and
// then no longer tracked: the queue is woken, and armed again by the check when it is idle again.
import { Cluster } from 'ioredis';
import type { RedisClient } from '../redis/client';

export class PushTracking {
  /** The wake subscriber's client id, while it listens for invalidations. */
  private redirectTo?: number;
  /** Tracking is on for the main connection, redirected to the subscriber. */
  private on = false;
  /** Changes at every (re)enable: an answer to an older enable is stale. */
  private generation = 0;
  /** The keys of the idle queues Redis tracks for this node. */
  private readonly armedKeys = new Set<string>();
  private readonly onReady = () => this.reconnected();
  private closed = false;
  private refusalSaid = false;

  /**
   * `onActive` hears tracking turned on (the idle queues are to be armed now); `onRefused` hears,
   * once, why it cannot be used (the idle poll alone then).
   */
  constructor(
    private readonly redis: RedisClient,
    private readonly onActive: () => void,
    private readonly onRefused: (message: string) => void,
  ) {
    if (this.usable) redis.on('ready', this.onReady);
  }

  /** Redis Cluster: no tracking (the redirect would have to be on every master). */
  get usable(): boolean {
    return !(this.redis instanceof Cluster);
  }

  /** Tracking is on: a read made with `CLIENT CACHING yes` before it is tracked. */
  get active(): boolean {
    return this.on;
  }

  /** Tracking is on and Redis tracks `queueKey` for this node. */
  armed(queueKey: string): boolean {
    return this.on && this.armedKeys.has(queueKey);
  }

  /** The idle check reads `queueKeys` tracked: marked as it is sent (an invalidation may come before its answer). */
  arming(queueKeys: readonly string[]): void {
    if (!this.on) return;
    for (const key of queueKeys) this.armedKeys.add(key);
  }

  /** Redis said `queueKey` changed (or a tracked read was refused): it is tracked no more. */
  invalidated(queueKey: string): void {
    this.armedKeys.delete(queueKey);
  }

  /** Everything changed at once (FLUSHALL / FLUSHDB): nothing is tracked any more. */
  invalidatedAll(): void {
    this.armedKeys.clear();
  }

  forget(queueKey: string): void {
    this.armedKeys.delete(queueKey);
  }

  /** The wake subscriber listens for invalidations as client `id` (after each of its connects). */
  listening(id: number): void {
    this.redirectTo = id;
    this.enable().catch(() => {}); // it says its failures itself
  }

  /** The wake subscriber's connection closed: its id is no longer a place to send to. */
  notListening(): void {
    this.redirectTo = undefined;
    this.reset();
  }

  close(): void {
    this.closed = true;
    this.redis.off('ready', this.onReady);
    if (this.on) this.redis.call('CLIENT', 'TRACKING', 'OFF').catch(() => {});
    this.reset();
  }

  /** Redis forgot this connection's tracking when the connection dropped: turn it on again. */
  private reconnected(): void {
    this.reset();
    this.enable().catch(() => {}); // it says its failures itself
  }

  private reset(): void {
    this.on = false;
    this.generation++;
    this.armedKeys.clear();
  }

  private async enable(): Promise<void> {
    if (this.closed || !this.usable || this.redirectTo === undefined) return;
    this.reset();
    const generation = this.generation;
    try {
      // OFF first: ON with another redirect or mode is refused while tracking is on.
      await this.redis.call('CLIENT', 'TRACKING', 'OFF');
      await this.redis.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', this.redirectTo, 'OPTIN');
      if (generation !== this.generation) return; // reset meanwhile (a reconnect, close)
      this.on = true;
      this.onActive();
    } catch (err) {
      if (generation !== this.generation || this.refusalSaid) return;
      this.refusalSaid = true;
      this.onRefused((err as Error).message);
    }
  }
}
