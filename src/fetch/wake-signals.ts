// The wake signals of one node: one subscriber connection, whatever the number of queues, on the
// channel where nexq's scripts name each queue they push jobs into (`nexq_wake` in
// src/redis/lua/_prelude.lua: enqueue, the scheduler's moves, periodic ticks, batch callbacks,
// requeues and recoveries). Every node hears every signal (PUBLISH fans out), so the idle node that
// serves the queue fetches at once, whichever node or producer pushed. The same connection hears
// Redis' key-tracking invalidations (src/fetch/push-tracking.ts): an idle queue's key written by
// anyone, a foreign producer included. A signal is a hint, never a job: one lost (the connection
// was down) only delays the job until the node's idle poll (src/fetch/idle-poll.ts).
//
// Outside Redis Cluster the subscriber subscribes by itself at each connect, after asking its
// client id (a subscribed connection may ask nothing else), the id tracking redirects to; in a
// Cluster ioredis subscribes again after a reconnect, and there is no tracking.
import { Cluster } from 'ioredis';
import { duplicateClient, RedisClient } from '../redis/client';
import { ConnectionEndedError, watchEnd } from '../redis/ended';

/** The channel Redis sends key-tracking invalidations on to a RESP2 redirect target. */
const INVALIDATE = '__redis__:invalidate';

export interface WakeListeners {
  /** A queue key signalled by a nexq script. */
  onWake(queueKey: string): void;
  /** Keys whose tracking a write ended (null: all of them, a FLUSHALL). */
  onInvalidated(keys: string[] | null): void;
  /** The subscriber listens for invalidations as client `id` (each connect). */
  onListening(id: number): void;
  /** The subscriber's connection closed: invalidations sent to its old id are lost. */
  onNotListening(): void;
  /** ioredis ended the connection by itself (the owner crashes; its restart subscribes afresh). */
  onEnded(err: ConnectionEndedError): void;
  /** A subscribe that failed (the node starts while Redis is away: it subscribes once it answers). */
  onCannotSubscribe(err: Error): void;
}

export class WakeSignals {
  private subscriber?: RedisClient;
  private unwatch?: () => void;

  /** `client` gives the node's main client, which the subscriber is a duplicate of. */
  constructor(
    private readonly client: () => RedisClient,
    private readonly channel: string,
    private readonly listeners: WakeListeners,
  ) {}

  open(): void {
    if (this.subscriber) return;
    const main = this.client();
    const cluster = main instanceof Cluster;
    const subscriber = duplicateClient(main, {
      commandTimeout: undefined,
      enableAutoPipelining: false,
      autoResubscribe: cluster,
    });
    subscriber.on('error', () => {}); // the shared connection's errors are logged already
    subscriber.on('messageBuffer', (channel: Buffer, message: Buffer | Buffer[] | null) => {
      const name = channel.toString();
      if (name === this.channel && Buffer.isBuffer(message)) this.listeners.onWake(message.toString());
      else if (name === INVALIDATE)
        this.listeners.onInvalidated(Array.isArray(message) ? message.map((key) => key.toString()) : null);
    });
    this.subscriber = subscriber;
    this.unwatch = watchEnd(subscriber, 'the wake subscriber connection', (err) => this.listeners.onEnded(err));
    if (cluster) {
      subscriber.subscribe(this.channel).catch((err: unknown) => this.listeners.onCannotSubscribe(err as Error));
      return;
    }
    subscriber.on('ready', () => {
      this.listen(subscriber).catch(() => {}); // it says its failures itself
    });
    subscriber.on('close', () => this.listeners.onNotListening());
    // A lazy client (the node's are) connects at its first command; this one has none to send yet.
    if (subscriber.status === 'wait') subscriber.connect().catch(() => {}); // its errors arrive as 'error' and reconnects
  }

  close(): void {
    this.unwatch?.();
    this.unwatch = undefined;
    this.subscriber?.disconnect();
    this.subscriber = undefined;
  }

  /**
   * One connect: the id first (nothing else may be asked once subscribed), then the wake channel,
   * then the invalidations apart (an ACL may allow the one channel and not the other: a refused
   * SUBSCRIBE subscribes to none of its channels).
   */
  private async listen(subscriber: RedisClient): Promise<void> {
    let id: number | undefined;
    try {
      id = Number(await subscriber.call('CLIENT', 'ID'));
    } catch {
      // A server or proxy that refuses CLIENT: wake signals without tracking.
    }
    try {
      await subscriber.subscribe(this.channel);
    } catch (err) {
      if (subscriber === this.subscriber) this.listeners.onCannotSubscribe(err as Error);
      return;
    }
    if (id === undefined || !Number.isSafeInteger(id)) return;
    try {
      await subscriber.subscribe(INVALIDATE);
    } catch {
      return; // wake signals without tracking
    }
    if (subscriber === this.subscriber) this.listeners.onListening(id);
  }
}
