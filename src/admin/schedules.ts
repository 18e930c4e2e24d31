// Schedules set at run time (`nexq.schedules`, the CLI's `nexq schedules`, the dashboard's
// /api/schedules): add or replace, remove, list with each one's next run. Kept in Redis
// (src/redis/schedule-store.ts); every node's Periodic actor reads them each second and enqueues
// each tick once across nodes, as it does the `periodic` option's entries.
import { ConfigError } from '../../config/validate';
import { checkPeriodicEntry } from '../../config/periodic-options';
import { cronIn } from '../../config/cron-zone';
import type { PeriodicSpec } from '../../config/defaults';
import { NexqError } from '../../config/nexq-error';
import { deleteSchedule, readSchedules, stateId, writeSchedule } from '../redis/schedule-store';
import type { AdminContext } from './context';

/** A schedule that `schedules.set` refuses: the message names the field. */
export class ScheduleError extends NexqError {
  static override readonly code = 'SCHEDULE_INVALID';
  override readonly name = 'ScheduleError';
}

/** What `schedules.set` takes: a `periodic` entry without its name. */
export type ScheduleSpec = Omit<PeriodicSpec, 'name'>;

export interface ScheduleInfo extends ScheduleSpec {
  name: string;
  args: unknown[];
  /** Its next tick after now (by Redis' clock when the node has sampled it); undefined if it has none. */
  nextRunAt?: Date;
  /**
   * Its latest tick the nodes took: the one last enqueued, or, for a schedule stored before nexq
   * said where its state starts, the tick at which the first node started counting (not enqueued).
   */
  lastRunAt?: Date;
}

export class Schedules {
  constructor(private readonly ctx: AdminContext) {}

  /** Adds schedule `name`, or replaces it (it then starts afresh with its next tick). */
  async set(name: string, spec: ScheduleSpec): Promise<void> {
    const where = `schedules.set(${JSON.stringify(name)})`;
    try {
      checkPeriodicEntry({ ...spec, name }, where);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      throw new ScheduleError(err.message.replace(/^invalid config: /, ''));
    }
    await writeSchedule(this.ctx.redis, this.ctx.keys, name, spec, this.ctx.clock?.now() ?? Date.now() / 1000);
  }

  /** Removes schedule `name`: no tick of it is enqueued from the next second on. False if there was none. */
  remove(name: string): Promise<boolean> {
    return deleteSchedule(this.ctx.redis, this.ctx.keys, name);
  }

  /** Every schedule set at run time, by name (the `periodic` option's entries are each node's own). */
  async list(): Promise<ScheduleInfo[]> {
    const now = this.ctx.clock?.now() ?? Date.now() / 1000;
    const { redis, keys } = this.ctx;
    const stored = await readSchedules(redis, keys);
    // Each version's state key holds its last tick (src/actors/periodic.ts).
    const lastTicks = await Promise.all(stored.map((s) => redis.get(keys.periodic(stateId(s), s.queue))));
    return stored.map(({ token: _token, from, ran, ...schedule }, i) => {
      let nextRunAt: Date | undefined;
      try {
        nextRunAt = new Date(cronIn(schedule.cron, schedule.tz).next(now) * 1000);
      } catch {
        // An entry written by hand that does not parse, or one without a tick: no next run.
      }
      // The tick the state started at was not run (unless the version before ran it): no run yet.
      const tick = Number(lastTicks[i] ?? NaN);
      const last = tick === from && !ran ? NaN : tick;
      return { ...schedule, nextRunAt, ...(Number.isFinite(last) ? { lastRunAt: new Date(last * 1000) } : {}) };
    });
  }
}
