// Periodic: enqueues the jobs of the `periodic` option at the ticks of their cron expressions.
//
// Responsibilities:
//  1. Sleep until the next tick of any schedule (sendAfter), then enqueue each schedule's most
//     recent due tick with one atomic script (enqueue-periodic.lua: check the schedule's last
//     enqueued tick in Redis, advance it, push the job), so that of every node running the schedule
//     exactly one enqueues each tick. The jid names the tick: `periodic-<id>-<tick epoch seconds>`.
//  2. On boot, catch up the single most recent tick missed while no node ran, never a flood of
//     them; a schedule Redis has no state for is new and starts with its next tick.
//  3. Ticks are on Redis' clock (the node's Clock, docs/time.md), so nodes whose wall clocks
//     disagree still agree on which tick is due and enqueue it when Redis' time reaches it.
//  4. Keep going through Redis errors: log, try the tick again a second later (while it is still
//     the most recent one), and never crash.
import { TickingActor } from '../runtime';
import { encodeNewJob } from '../job/job';
import { PeriodicEntry, periodicJid, resolvePeriodic } from '../periodic/schedule';
import { enqueuePeriodic } from '../redis/enqueue-scripts';
import type { NodeContext } from '../node/context';
import { ActorNames } from '../node/context';

/** Longest single sleep: setTimeout cannot wait past 2^31-1 ms, and a long one drifts from the wall clock. */
export const PERIODIC_MAX_SLEEP_MS = 60_000;
/** Wait before trying a tick again after a Redis error (never past the next tick). */
export const PERIODIC_RETRY_MS = 1000;

export class Periodic extends TickingActor {
  private readonly entries: PeriodicEntry[];
  /** Per entry id: the last tick this node knows was enqueued (by it or by another node). */
  private readonly done = new Map<string, number>();
  private lastRoundFailed = false;

  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.periodic, registry: ctx.registry, logger: ctx.logger, what: 'periodic round' });
    this.entries = resolvePeriodic(ctx.config.periodic);
  }

  protected override init(): Promise<void> | void {
    if (this.entries.length > 0) return super.init();
  }

  /** Each entry's errors are logged by enqueueDue; a failed one makes the next round come sooner. */
  protected override async tick(): Promise<void> {
    const now = this.ctx.clock.now();
    let failed = false;
    for (const entry of this.entries) {
      if (!(await this.enqueueDue(entry, now))) failed = true;
    }
    this.lastRoundFailed = failed;
  }

  protected override nextTickMs(): number {
    return this.sleepMs(this.lastRoundFailed);
  }

  /** Enqueues the entry's last tick at or before `now` unless it is done; false after an error. */
  private async enqueueDue(entry: PeriodicEntry, now: number): Promise<boolean> {
    const { keys, redis, config, logger } = this.ctx;
    const meta = { actor: this.name };
    let tick: number | undefined;
    try {
      tick = entry.schedule.previous(now);
      const done = this.done.get(entry.id);
      if (done !== undefined && done >= tick) return true;
      const boot = done === undefined;
      const { queue } = entry.spec;
      const jid = periodicJid(entry.id, tick);
      const { json } = encodeNewJob(
        queue,
        entry.spec.class,
        entry.args,
        { jid },
        { timestamps: config.timestamps, now },
      );
      const outcome = await enqueuePeriodic(redis, keys, keys.periodic(entry.id, queue), queue, tick, json, jid, boot);
      this.done.set(entry.id, tick);
      if (outcome === 'enqueued') {
        if (boot)
          logger.info(
            `periodic ${entry.id}: caught up the tick of ${iso(tick)} missed while no node ran (${jid})`,
            meta,
          );
        else logger.debug(`periodic ${entry.id}: enqueued ${jid}`, meta);
      } else if (outcome === 'new-schedule') {
        logger.info(
          `periodic ${entry.id}: new schedule ${JSON.stringify(entry.spec.cron)}, first job at ${iso(entry.schedule.next(now))}`,
          meta,
        );
      }
      return true;
    } catch (err) {
      const when = tick === undefined ? '' : ` the tick of ${iso(tick)}`;
      logger.warn(`periodic ${entry.id}: enqueuing${when} failed: ${(err as Error).message}; trying again`, meta);
      return false;
    }
  }

  /** Until the next tick of any entry; sooner after an error, and never longer than the cap. */
  private sleepMs(failed: boolean): number {
    const now = this.ctx.clock.now();
    let next = Infinity;
    for (const entry of this.entries) {
      try {
        next = Math.min(next, entry.schedule.next(now));
      } catch {
        // No tick within 400 years: nothing to wake up for, beyond the cap.
      }
    }
    let ms = Math.ceil((next - now) * 1000);
    if (failed) ms = Math.min(ms, PERIODIC_RETRY_MS);
    return Math.max(0, Math.min(ms, PERIODIC_MAX_SLEEP_MS));
  }
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}
