// Canceller: hears cancel requests for jobs and stops the ones running on this node.
//
// Responsibilities:
//  1. Subscribe to the cancel channel (<ns>:nexq:cancel) on a connection of its own; every node
//     hears every request, and ioredis subscribes again after a reconnect.
//  2. For each jid heard, cancel its job if a worker of this node runs it (its thread is
//     terminated and the job filed in the dead set as cancelled); ignore it otherwise.
//  3. Crash when ioredis ends the subscriber for good (src/redis/ended.ts): the restart subscribes
//     on a fresh connection.
// A request lost while the connection was down is sent again by `Nexq#cancel` until it takes.
import { Actor } from '../runtime';
import type { NodeContext } from '../run/node-context';
import { ActorNames } from '../run/node-context';
import { duplicateClient, RedisClient } from '../redis/client';
import { watchEnd } from '../redis/ended';

type Info = { type: 'cancel'; jid: string } | { type: 'ended'; error: Error };

export class Canceller extends Actor<never, never, Info> {
  private subscriber?: RedisClient;
  private unwatch?: () => void;

  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.canceller, registry: ctx.registry });
  }

  protected override init(): void {
    const subscriber = duplicateClient(this.ctx.redis, { commandTimeout: undefined, enableAutoPipelining: false });
    subscriber.on('error', () => {}); // the shared connection's errors are logged already
    subscriber.on('message', (channel: string, jid: string) => {
      if (channel === this.ctx.keys.cancelChannel) this.send({ type: 'cancel', jid });
    });
    this.subscriber = subscriber;
    this.unwatch = watchEnd(subscriber, 'the cancel subscriber connection', (error) =>
      this.send({ type: 'ended', error }),
    );
    // Not awaited: a node starts while Redis is away too; the subscription is made once it answers.
    subscriber.subscribe(this.ctx.keys.cancelChannel).catch((err: unknown) => {
      // Its own connection closed (the node stopping right after its start) is nothing to warn of.
      if (this.subscriber !== subscriber) return;
      this.ctx.logger.warn(`cannot subscribe to cancel requests yet: ${(err as Error).message}`, { actor: this.name });
    });
  }

  protected override handleInfo(msg: Info): void {
    if (msg.type === 'ended') throw msg.error;
    if (this.ctx.jobs?.running.cancel(msg.jid)) this.ctx.logger.info(`cancelling job ${msg.jid}`, { actor: this.name });
  }

  protected override terminate(): void {
    this.unwatch?.();
    this.subscriber?.disconnect();
    this.subscriber = undefined;
  }
}
