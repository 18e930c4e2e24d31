// The dashboard's actions beyond retry, delete and pause: kill retries, clear a queue or delete some
// of its jobs, remove a schedule, quiet or stop a process, cancel a running job. POST only, behind
// the X-Nexq header and the Origin check (server.ts), each one call of src/admin, the functions the
// CLI uses.
import { deleteFromQueue } from '../admin/actions';
import { cancelJob } from '../admin/cancel';
import { clearQueue } from '../admin/clear';
import { killAll, killJob } from '../admin/kill';
import { Schedules } from '../admin/schedules';
import { quietProcess, stopProcess } from '../admin/signals';
import type { AdminContext } from '../admin/context';
import { ApiError, Route, queueParam, selection } from './api-params';

/** How long the dashboard's Cancel waits for the job to be dead. */
const CANCEL_WAIT_MS = 10_000;

function signal(send: (ctx: AdminContext, identity: string) => Promise<boolean>, what: string): Route['handler'] {
  return async (ctx, [identity]) => {
    if (!(await send(ctx, identity))) throw new ApiError(404, `no live process ${identity}`);
    return { identity, sent: what };
  };
}

export const ACTION_ROUTES: Route[] = [
  {
    method: 'POST',
    path: /^\/sets\/retry\/kill$/,
    handler: async (ctx, _, __, body) => {
      const chosen = selection(body);
      if ('all' in chosen) return { set: 'retry', killed: (await killAll(ctx)).length };
      const results = [];
      for (const jid of chosen.jids) results.push(await killJob(ctx, jid));
      return { set: 'retry', results };
    },
  },
  {
    method: 'POST',
    path: /^\/queues\/([^/]+)\/clear$/,
    handler: async (ctx, [q]) => {
      const queue = queueParam(ctx, q);
      return { queue, deleted: await clearQueue(ctx, queue) };
    },
  },
  {
    method: 'POST',
    path: /^\/queues\/([^/]+)\/delete$/,
    handler: async (ctx, [q], _, body) => {
      const queue = queueParam(ctx, q);
      const chosen = selection(body);
      if ('all' in chosen) return { queue, deleted: await clearQueue(ctx, queue) };
      const results = [];
      for (const jid of chosen.jids) results.push(await deleteFromQueue(ctx, queue, jid));
      return { queue, results };
    },
  },
  {
    method: 'POST',
    path: /^\/schedules\/([^/]+)\/remove$/,
    handler: async (ctx, [name]) => {
      if (!(await new Schedules(ctx).remove(name))) throw new ApiError(404, `no schedule ${name}`);
      return { name, removed: true };
    },
  },
  { method: 'POST', path: /^\/processes\/([^/]+)\/quiet$/, handler: signal(quietProcess, 'TSTP') },
  { method: 'POST', path: /^\/processes\/([^/]+)\/stop$/, handler: signal(stopProcess, 'TERM') },
  {
    method: 'POST',
    path: /^\/jobs\/([^/]+)\/cancel$/,
    handler: async (ctx, [jid]) => {
      const cancelled = await cancelJob(ctx, jid, CANCEL_WAIT_MS);
      if (!cancelled) throw new ApiError(409, `job ${jid} is not running (it may have finished)`);
      return { jid, cancelled };
    },
  },
];
