// RedisConnection: owns the node's main Redis client (`ctx.redis`, shared by every actor).
//
// Responsibilities:
//  1. Watch the client: when ioredis ends it for good (src/redis/ended.ts), crash, so the
//     supervisor logs it once at warn and restarts this actor.
//  2. On a restart, open a fresh client (same target, same policy, scripts and write confirmation)
//     and put it in the context: every actor reads `ctx.redis` at each use, so the next command of
//     each goes to the fresh one; the ended one is closed.
// It never closes the live client: the node closes it after the tree has stopped, or at the stop's
// deadline (src/node/stop-deadline.ts); a client that ends while the node stops is not replaced.
import { Actor } from '../runtime';
import type { NodeContext } from '../run/node-context';
import { ActorNames } from '../run/node-context';
import { watchEnd } from '../redis/ended';

type Info = { type: 'ended'; error: Error };

export class RedisConnection extends Actor<never, never, Info> {
  private unwatch?: () => void;

  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.redisConnection, registry: ctx.registry });
  }

  protected override init(): void {
    const { ctx } = this;
    if (ctx.redis.status === 'end') replaceEndedClient(ctx);
    this.unwatch = watchEnd(ctx.redis, 'the main Redis connection', (error) => this.send({ type: 'ended', error }));
  }

  protected override handleInfo(msg: Info): void {
    if (this.ctx.lifecycle.stopping) return;
    throw msg.error;
  }

  protected override terminate(): void {
    this.unwatch?.();
  }
}

/** Puts a fresh main client in place of the ended one, and starts connecting it. */
export function replaceEndedClient(ctx: NodeContext): void {
  const ended = ctx.redis;
  ctx.redis = ctx.openRedis();
  ended.disconnect(); // its sentinel subscriptions too
  ctx.redis.connect().catch(() => {}); // ioredis keeps reconnecting by its retry strategy
}
