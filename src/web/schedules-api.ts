// The dashboard API's GET /api/schedules: the schedules set at run time with their next and last run
// (src/admin/schedules.ts), for the dashboard and for scripts.
import type { AdminContext } from '../admin/context';
import { Schedules } from '../admin/schedules';

export async function listSchedules(ctx: AdminContext) {
  return (await new Schedules(ctx).list()).map((s) => ({
    ...s,
    tz: s.tz ?? 'UTC',
    nextRunAt: s.nextRunAt ?? null,
    lastRunAt: s.lastRunAt ?? null,
  }));
}
