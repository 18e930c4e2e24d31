// ClockWatch: keeps the node's Clock on Redis' time and says when this machine's clock is off.
//
// Responsibilities:
//  1. Before the node starts, and every CLOCK_SYNC_MS after, read Redis' TIME into the node's
//     Clock (src/job/time.ts), on which every due time and timestamp the node computes is based
//     (docs/time.md). Liveness does not depend on it: the scripts read TIME themselves.
//  2. When this machine's wall clock is more than CLOCK_TOLERANCE_SECONDS off Redis', log one
//     `warn` line at start and every CLOCK_WARN_EVERY_MS while it stays so, and one `info` line
//     when it is back. The offset is the `nexq_clock_offset_seconds` metric (src/metrics/).
//  3. Keep going through Redis errors: the Clock keeps its last anchor, and the next round tries again.
import { performance } from 'node:perf_hooks';
import { TickingActor } from '../runtime';
import { sampleRedisClock } from '../redis/redis-time';
import type { NodeContext } from '../run/node-context';
import { ActorNames } from '../run/node-context';

/** Between two samples of Redis' clock (the monotonic clock carries the Clock meanwhile). */
export const CLOCK_SYNC_MS = 30_000;
/** An offset beyond this is worth a warning, as databases that depend on time warn. */
export const CLOCK_TOLERANCE_SECONDS = 1;
/** While the clock stays off, the warning again after this long. */
export const CLOCK_WARN_EVERY_MS = 5 * 60_000;

export class ClockWatch extends TickingActor {
  /** Monotonic ms of the last warning, while the clock is off; undefined while it is fine. */
  private warnedAt?: number;
  private first = true;

  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.clockWatch, registry: ctx.registry, logger: ctx.logger, what: 'clock sample' });
  }

  /** The first sample before the node goes on: its first enqueue is already on Redis' time. */
  protected override async init(): Promise<void> {
    try {
      await this.tick();
    } catch (err) {
      this.ctx.logger.warn(`reading Redis' clock failed: ${(err as Error).message}; using this machine's meanwhile`, {
        actor: this.name,
      });
    }
    await super.init();
  }

  protected override firstTickMs(): number {
    return CLOCK_SYNC_MS;
  }

  protected override nextTickMs(): number {
    return CLOCK_SYNC_MS;
  }

  protected override async tick(): Promise<void> {
    const { ctx } = this;
    const offset = await sampleRedisClock(ctx.redis, ctx.keys, ctx.clock);
    if (this.first) {
      this.first = false;
      ctx.startedAt += offset; // the start time as Sidekiq's dashboard reads it: by Redis' clock
    }
    const meta = { actor: this.name };
    // Only an offset beyond doubt: a slow round trip blurs the sample by half of it.
    if (Math.abs(offset) - ctx.clock.uncertaintySeconds > CLOCK_TOLERANCE_SECONDS) {
      const now = performance.now();
      if (this.warnedAt !== undefined && now - this.warnedAt < CLOCK_WARN_EVERY_MS) return;
      this.warnedAt = now;
      ctx.logger.warn(
        `this machine's clock is ${Math.abs(offset).toFixed(3)} s ${offset < 0 ? 'ahead of' : 'behind'} Redis'; ` +
          `nexq keeps time by Redis' clock, but log lines and times other programs write follow this one: sync it (NTP)`,
        meta,
      );
    } else if (this.warnedAt !== undefined && Math.abs(offset) <= CLOCK_TOLERANCE_SECONDS) {
      this.warnedAt = undefined;
      ctx.logger.info(`this machine's clock is back within ${CLOCK_TOLERANCE_SECONDS} s of Redis'`, meta);
    }
  }
}
