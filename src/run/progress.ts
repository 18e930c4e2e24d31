// A handler's `this.progress(value)`, heard from its thread: recorded on the running job (the
// heartbeat writes it with the job into the process's workers hash, so `show(jid)` and the
// dashboard's running jobs see it at the next beat: no write of its own) and emitted as job:progress.
import type { JobPayload } from '../job/job';
import type { NodeContext } from './node-context';
import type { RunningJobs } from './running-jobs';
import { jobEventBase } from './settle';

export function reportProgress(ctx: NodeContext, running: RunningJobs, jid: string, value: unknown): void {
  const copies = running.setProgress(jid, value);
  if (copies.length === 0 || !ctx.events.has('job:progress')) return;
  const { raw, queue } = copies[0];
  const job = JSON.parse(raw) as JobPayload; // decoded once already: it ran
  ctx.events.emit('job:progress', { ...jobEventBase(ctx, { raw, job, queue }), progress: value });
}
