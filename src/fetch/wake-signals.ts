// The wake signals of one node: one subscriber connection, whatever the number of queues, on the
// channel where nexq's scripts name each queue they push jobs into (`nexq_wake` in
// src/redis/lua/_prelude.lua: enqueue, the scheduler's moves, periodic ticks, batch callbacks,
// requeues and recoveries). Every node hears every signal (PUBLISH fans out), so the idle node that
// serves the queue fetches at once, whichever node or producer pushed. A signal is a hint, never a
// job: one lost (the connection was down, a foreign producer pushed) only delays the job until the
// node's idle poll (src/fetch/idle-poll.ts). ioredis subscribes again after a reconnect.
import { duplicateClient, RedisClient } from '../redis/client';
import { ConnectionEndedError, watchEnd } from '../redis/ended';

export class WakeSignals {
  private subscriber?: RedisClient;
  private unwatch?: () => void;

  /**
   * `onWake` hears each queue key signalled; `onEnded` a connection ioredis ended by itself (the
   * owner crashes; its restart subscribes afresh); `onCannotSubscribe` a first subscribe that failed
   * (the node starts while Redis is away too: ioredis subscribes once it answers).
   */
  constructor(
    private readonly redis: RedisClient,
    private readonly channel: string,
    private readonly onWake: (queueKey: string) => void,
    private readonly onEnded: (err: ConnectionEndedError) => void,
    private readonly onCannotSubscribe: (err: Error) => void,
  ) {}

  open(): void {
    if (this.subscriber) return;
    const subscriber = duplicateClient(this.redis, { commandTimeout: undefined, enableAutoPipelining: false });
    subscriber.on('error', () => {}); // the shared connection's errors are logged already
    subscriber.on('message', (channel: string, queueKey: string) => {
      if (channel === this.channel) this.onWake(queueKey);
    });
    this.subscriber = subscriber;
    this.unwatch = watchEnd(subscriber, 'the wake subscriber connection', (err) => this.onEnded(err));
    subscriber.subscribe(this.channel).catch((err: unknown) => this.onCannotSubscribe(err as Error));
  }

  close(): void {
    this.unwatch?.();
    this.unwatch = undefined;
    this.subscriber?.disconnect();
    this.subscriber = undefined;
  }
}
