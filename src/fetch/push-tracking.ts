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
// The main client is read at each use (the redis-connection actor replaces it when ioredis ends
// it): tracking moves to the new one. One instance per node is live: a manager killed without its
// terminate leaves one behind, which the next one's construction silences, so it can no longer
// turn tracking towards its own (dead) subscriber.
import { Cluster } from 'ioredis';
import type { RedisClient } from '../redis/client';

/** How often an instance whose main client ended looks for the fresh one, ms. */
const REPLACEMENT_LOOK_MS = 100;

/** The live instance of each node (keyed by an object of the node's: its context). */
const liveOf = new WeakMap<object, PushTracking>();

export class PushTracking {
  /** The wake subscriber's client id, while it listens for invalidations. */
  private redirectTo?: number;
  /** Tracking is on for the main connection, redirected to the subscriber. */
  private on = false;
  /** Changes at every (re)enable: an answer to an older enable is stale. */
  private generation = 0;
  /** The keys of the idle queues Redis tracks for this node. */
  private readonly armedKeys = new Set<string>();
  /** The main client tracking was turned on for (and whose reconnects are heard). */
  private bound?: RedisClient;
  private readonly onReady = () => this.reconnected();
  private readonly onEnd = () => this.awaitReplacement();
  private closed = false;
  private failureSaid = false;

  /**
   * `client` gives the node's main client (read at each use); `owner` is the node's (one live
   * instance per owner). `onActive` hears tracking turned on (the idle queues are to be armed now);
   * `onFailed` hears, once, why it could not be (the idle check alone until a reconnect).
   */
  constructor(
    private readonly client: () => RedisClient,
    owner: object,
    private readonly onActive: () => void,
    private readonly onFailed: (message: string) => void,
  ) {
    liveOf.get(owner)?.close();
    liveOf.set(owner, this);
    this.current();
  }

  /** Tracking is on: a read made with `CLIENT CACHING yes` before it is tracked. */
  get active(): boolean {
    this.current();
    return this.on;
  }

  /** The main client now; when it was replaced, tracking moves to it. */
  current(): RedisClient {
    const client = this.client();
    if (client === this.bound || this.closed) return client;
    this.bound?.off('ready', this.onReady).off('end', this.onEnd);
    this.bound = client;
    this.reset();
    if (client instanceof Cluster) return client; // no tracking: the redirect would have to be on every master
    client.on('ready', this.onReady).on('end', this.onEnd);
    if (client.status === 'ready') this.enable().catch(() => {}); // it says its failures itself
    return client;
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
    if (this.closed) return;
    this.closed = true;
    this.bound?.off('ready', this.onReady).off('end', this.onEnd);
    if (this.on) this.bound?.call('CLIENT', 'TRACKING', 'OFF').catch(() => {});
    this.reset();
  }

  /**
   * ioredis ended the main client for good: the redis-connection actor puts a fresh one in the
   * context when its restart runs; move to it then, even if the manager decides nothing meanwhile.
   */
  private awaitReplacement(): void {
    this.reset();
    const timer = setInterval(() => {
      if (this.closed || this.client() !== this.bound) {
        clearInterval(timer);
        this.current();
      }
    }, REPLACEMENT_LOOK_MS);
    timer.unref();
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
    const client = this.bound;
    if (this.closed || client === undefined || client instanceof Cluster || this.redirectTo === undefined) return;
    this.reset();
    const generation = this.generation;
    try {
      // OFF first: ON with another redirect or mode is refused while tracking is on.
      await client.call('CLIENT', 'TRACKING', 'OFF');
      await client.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', this.redirectTo, 'OPTIN');
      if (generation !== this.generation) return; // reset meanwhile (a reconnect, a new client, close)
      this.on = true;
      this.onActive();
    } catch (err) {
      // Refused (an old server, a proxy, an ACL) or cut off (a timeout, a redirect id of a
      // subscriber not reconnected yet): off until the next reconnect of either connection.
      if (generation !== this.generation || this.failureSaid) return;
      this.failureSaid = true;
      this.onFailed((err as Error).message);
    }
  }
}
