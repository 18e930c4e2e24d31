// Periodic: enqueues the jobs of the `periodic` option and of the schedules set at run time
// (`nexq.schedules`, src/redis/schedule-store.ts) at the ticks of their cron expressions.
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
//  5. Read the schedules set at run time every round, at least every SCHEDULES_REFRESH_MS, so a
//     change made on any node runs everywhere within a second; one with the name of a `periodic`
//     entry replaces it on this node. A new or changed one starts with its next tick. A version
//     replaced or removed since the last read writes nothing: its state key went with it.
//  6. A schedule still listed whose state key stays gone (lost in a failover, evicted) starts again
//     with its next tick, with a warning, rather than never running again.
import { TickingActor } from '../runtime';
import { encodeNewJob } from '../job/job';
import { wantsEncryption } from '../job/encryption';
import { cronIn } from '../../config/cron-zone';
import { PeriodicEntry, periodicJid, resolvePeriodic } from '../periodic/schedule';
import { enqueuePeriodic } from '../redis/enqueue-scripts';
import { readSchedules, stateId, StoredSchedule } from '../redis/schedule-store';
import type { NodeContext } from '../run/node-context';
import { ActorNames } from '../run/node-context';

/** Longest single sleep: setTimeout cannot wait past 2^31-1 ms, and a long one drifts from the wall clock. */
export const PERIODIC_MAX_SLEEP_MS = 60_000;
/** Wait before trying a tick again after a Redis error (never past the next tick). */
export const PERIODIC_RETRY_MS = 1000;
/** How often the schedules set at run time are read again. */
export const SCHEDULES_REFRESH_MS = 1000;
/**
 * Rounds a listed schedule's state key is found gone before it is written afresh: more than the
 * moment a set or remove takes between its steps (src/redis/schedule-store.ts).
 */
export const STATE_GONE_ROUNDS = 3;

export class Periodic extends TickingActor {
  /** The `periodic` option's entries. */
  private readonly configured: PeriodicEntry[];
  /** Those and the schedules set at run time, as last read. */
  private entries: PeriodicEntry[];
  /** Per entry state: the last tick this node knows was enqueued (by it or by another node). */
  private done = new Map<string, number>();
  /** Per entry set at run time: rounds in a row its state key was found gone. */
  private gone = new Map<string, number>();
  /** States of the `periodic` entries a schedule of their name replaced at the last read. */
  private overridden = new Set<string>();
  /** Those back since (the schedule went): each starts at its next tick, as a new schedule does. */
  private returning = new Set<string>();
  /** Each stored schedule's entry, by state id: parsed once per version. */
  private stored = new Map<string, PeriodicEntry>();
  /** Stored schedules this node cannot run (said once each). */
  private readonly broken = new Set<string>();
  private lastRoundFailed = false;

  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.periodic, registry: ctx.registry, logger: ctx.logger, what: 'periodic round' });
    this.configured = resolvePeriodic(ctx.config.periodic);
    this.entries = this.configured;
  }

  /** Each entry's errors are logged by enqueueDue; a failed one makes the next round come sooner. */
  protected override async tick(): Promise<void> {
    const listed = await this.refresh();
    let failed = !listed;
    const now = this.ctx.clock.now();
    for (const entry of this.entries) {
      if (!(await this.enqueueDue(entry, now, listed))) failed = true;
    }
    this.lastRoundFailed = failed;
  }

  protected override nextTickMs(): number {
    return this.sleepMs(this.lastRoundFailed);
  }

  /**
   * Enqueues the entry's last tick at or before `now` unless it is done; false after an error.
   * `listed`: the schedules were read this round (so a stored entry is still listed as it is).
   */
  private async enqueueDue(entry: PeriodicEntry, now: number, listed: boolean): Promise<boolean> {
    const { keys, redis, config, logger, encryption } = this.ctx;
    const meta = { actor: this.name };
    let tick: number | undefined;
    try {
      tick = entry.schedule.previous(now);
      const done = this.done.get(entry.state);
      if (done !== undefined && done >= tick) return true;
      const boot = done === undefined;
      const goneRounds = this.gone.get(entry.state) ?? 0;
      // A state gone for good starts afresh as a new schedule does: its next tick is run.
      const restart = entry.kept && goneRounds >= STATE_GONE_ROUNDS;
      const returning = this.returning.has(entry.state);
      const mode = returning ? 'start' : entry.kept && !restart ? 'kept' : boot || restart ? 'boot' : '';
      const { queue } = entry.spec;
      const jid = periodicJid(entry.id, tick);
      const { json } = encodeNewJob(
        queue,
        entry.spec.class,
        entry.args,
        { jid },
        {
          timestamps: config.timestamps,
          now,
          // The start refused a queue or class that asks for encryption without keys (src/node/node.ts).
          seal: wantsEncryption(encryption, queue, entry.spec.class, undefined) ? encryption.ring : undefined,
        },
      );
      const outcome = await enqueuePeriodic(
        redis,
        keys,
        keys.periodic(entry.state, queue),
        queue,
        tick,
        json,
        jid,
        mode,
      );
      if (outcome === 'gone') {
        // Counted only while the schedules read this round still list this version.
        if (listed) this.gone.set(entry.state, goneRounds + 1);
        return true;
      }
      this.gone.delete(entry.state);
      this.returning.delete(entry.state);
      this.done.set(entry.state, tick);
      if (restart && outcome === 'new-schedule')
        logger.warn(
          `periodic ${entry.id}: its state in Redis (its last tick) was gone while the schedule stayed listed ` +
            `(lost in a failover or an eviction, deleted by hand, or a set that stopped half way); started again, next job at ${iso(entry.schedule.next(now))}`,
          meta,
        );
      else if (outcome === 'enqueued') {
        if (boot || restart)
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
    return Math.max(0, Math.min(ms, SCHEDULES_REFRESH_MS));
  }

  /** Reads the schedules set at run time; on an error keeps the last ones read (false). */
  private async refresh(): Promise<boolean> {
    let schedules: StoredSchedule[];
    try {
      schedules = await readSchedules(this.ctx.redis, this.ctx.keys);
    } catch (err) {
      this.ctx.logger.warn(`periodic: reading the schedules failed: ${(err as Error).message}`, { actor: this.name });
      return false;
    }
    const stored = new Map<string, PeriodicEntry>();
    for (const schedule of schedules) {
      const state = stateId(schedule);
      const entry = this.stored.get(state) ?? this.entryOf(schedule, state);
      if (entry) stored.set(state, entry);
    }
    this.stored = stored;
    const names = new Set([...stored.values()].map((e) => e.id));
    this.entries = [...this.configured.filter((e) => !names.has(e.id)), ...stored.values()];
    // A `periodic` entry back from under a removed schedule of its name does not catch up the tick
    // that schedule may have run (the same jid): it starts afresh.
    const overridden = new Set(this.configured.filter((e) => names.has(e.id)).map((e) => e.state));
    for (const state of this.overridden) if (!overridden.has(state)) this.returning.add(state);
    for (const state of overridden) this.returning.delete(state);
    this.overridden = overridden;
    // A removed or replaced schedule's state is forgotten: set again, it starts afresh.
    this.done = ofEntries(this.done, this.entries);
    this.gone = ofEntries(this.gone, this.entries);
    return true;
  }

  /** A stored schedule's entry; undefined (logged) for one this node cannot run. */
  private entryOf(schedule: StoredSchedule, state: string): PeriodicEntry | undefined {
    try {
      return {
        id: schedule.name,
        state,
        spec: schedule,
        schedule: cronIn(schedule.cron, schedule.tz),
        args: schedule.args,
        kept: schedule.from !== undefined,
      };
    } catch (err) {
      if (!this.broken.has(state))
        this.ctx.logger.warn(`periodic ${schedule.name}: cannot run it: ${(err as Error).message}`, {
          actor: this.name,
        });
      this.broken.add(state);
      return undefined;
    }
  }
}

/** The values of `byState` for the states of `entries`. */
function ofEntries<T>(byState: Map<string, T>, entries: PeriodicEntry[]): Map<string, T> {
  const left = new Map<string, T>();
  for (const { state } of entries) {
    const value = byState.get(state);
    if (value !== undefined) left.set(state, value);
  }
  return left;
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}
