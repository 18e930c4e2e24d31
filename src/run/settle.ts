// The one settle path: from how a run ended (its Outcome) to everything that follows, in one
// table — the job's fate (src/run/outcome.ts), the Redis step that files it (src/run/job-steps.ts,
// retried until it lands: until then the job stays in the backup list; a job of a batch is counted
// in its batch first, src/run/batch-step.ts), the log line, the job
// events and the middleware's after hooks (stats among them). The slot comes back when the
// worker exits, whatever happened here (src/run/running-jobs.ts).
//
//   outcome      fate                      log    events                  after hooks
//   success      done                      -      success                 afterSuccess
//   nack         queue (back)              -      success                 afterSuccess
//   rateLimited  queue (front), pause      info   -                       -
//   failure      retry | dead | discard    warn   failure, retry | dead   afterFailure
//   cancelled    dead                      info   -                       -
//   interrupted  queue (front)             -      -                       -
//   expired      dead                      warn   dead                    -
//   unopened     dead                      error  dead                    -
//   superseded   stay                      -      -                       -
//   abandoned    stay                      -      -                       -
// (At most once, a job that does not succeed is filed in dead or dropped, never put back.)
// A rateLimited run first pauses its queue or class on every node (JobSteps#throttle), then the job
// goes back: no node takes it again before the pause.
import type { JobErrorInfo, JobEventBase } from '../events/job-events';
import type { FetchedJob } from '../job/job';
import { errorLogFields, jobLogFields } from './logging-middleware';
import type { JobEvent, MiddlewarePipeline } from './middleware';
import type { NodeContext } from './node-context';
import type { JobSteps } from './job-steps';
import { batchOf, memberKindOf, settleInBatch } from './batch-step';
import { EXPIRED, Fate, fateOf, Outcome } from './outcome';
import { storeResult } from '../redis/results';
import { envelopeOf } from '../job/encryption';

const SETTLE_RETRY_MIN_MS = 100;
const SETTLE_RETRY_MAX_MS = 2000;

export interface SettlingJob {
  ctx: NodeContext;
  fetched: FetchedJob;
  steps: JobSteps;
  pipeline: MiddlewarePipeline;
  /** An at-most-once job already off its backup list. */
  taken: boolean;
  /** The middleware's view of the run, once its `before` hooks ran (the after hooks need it). */
  event?: JobEvent;
  /** True once retrying a Redis step is pointless (the node stops): the step then throws. */
  givingUp: () => boolean;
}

export async function settle(job: SettlingJob, outcome: Outcome): Promise<Fate> {
  // Retry backoff and failed_at by Redis' clock (docs/time.md).
  const fate = fateOf(outcome, job.fetched, job.ctx.config, job.ctx.clock.now());
  // A kept result lands before the ack: a crash between them re-runs the job, never loses its result.
  const kept = outcome.kind === 'success' ? outcome.result : undefined;
  if (kept) {
    const { jid } = job.fetched.job;
    // An encrypted job's result is encrypted too (the job opened, so the ring is there), bound to its jid.
    const { ring } = job.ctx.encryption;
    const json = ring && envelopeOf(job.fetched.job.args) ? ring.sealResult(kept.json, jid) : kept.json;
    await untilItLands(job, () => storeResult(job.ctx.redis, job.ctx.keys, jid, json, kept.ttl));
  }
  // A job of a batch is counted there first, the job held in its backup list until that lands.
  const bid = batchOf(job.fetched);
  const kind = bid === undefined ? undefined : memberKindOf(fate);
  if (kind) await untilItLands(job, () => settleInBatch(job.ctx, bid as string, job.fetched.job.jid, kind));
  // An at-most-once job that never started goes back on its backup list, where a reclaim (or, after
  // a crash, a recovery) puts it back in its queue.
  if (outcome.kind === 'withdrawn' && job.taken) {
    await untilItLands(job, () => job.steps.putBackOnBackup());
    job.taken = false;
  }
  let paused = '';
  if (outcome.kind === 'rateLimited')
    await untilItLands(job, async () => void (paused = await job.steps.throttle(outcome.seconds)));
  await untilItLands(job, () => job.steps.apply(fate, job.taken, countsAsProcessed(outcome)));
  await report(job, outcome, fate, paused);
  return fate;
}

/**
 * The runs the after hooks see (the stats middleware counts them processed): the step that files
 * the job adds it to its queue's processed counter in the same script (`nexq drain`).
 */
function countsAsProcessed(outcome: Outcome): boolean {
  return outcome.kind === 'success' || outcome.kind === 'nack' || outcome.kind === 'failure';
}

/** Runs a Redis step until it succeeds; gives up (throwing, the job left in backup) only on stop. */
export async function untilItLands(job: SettlingJob, step: () => Promise<unknown>): Promise<void> {
  for (let delay = SETTLE_RETRY_MIN_MS; ; delay = Math.min(delay * 2, SETTLE_RETRY_MAX_MS)) {
    try {
      await step();
      return;
    } catch (err) {
      if (job.givingUp()) throw err;
      job.ctx.logger.warn(
        `settling the job failed, retrying: ${(err as Error).message}`,
        jobLogFields(job.fetched.job, job.fetched.queue),
      );
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** What every job event says about the job; `class` is ActiveJob's wrapped class when there is one. */
export function jobEventBase(ctx: NodeContext, fetched: FetchedJob): JobEventBase {
  const { jid, queue, class: className, retryCount } = jobLogFields(fetched.job, fetched.queue);
  return { jid, queue, class: className, args: fetched.job.args, nodeId: ctx.config.nodeId, retryCount };
}

async function report(job: SettlingJob, outcome: Outcome, fate: Fate, paused: string): Promise<void> {
  const { ctx, fetched, pipeline, event } = job;
  const { events, logger } = ctx;
  const fields = jobLogFields(fetched.job, fetched.queue);
  const base = () => jobEventBase(ctx, fetched);
  switch (outcome.kind) {
    case 'success':
    case 'nack':
      if (events.has('job:success')) events.emit('job:success', { ...base(), durationMs: outcome.durationMs });
      if (event) await observe(job, () => pipeline.afterSuccess(event));
      return;
    case 'failure': {
      const { error, durationMs } = outcome;
      const description = fate.to === 'retry' || fate.to === 'dead' || fate.to === 'discard' ? fate.description : '';
      logger.warn(`${fields.class} failed: ${error.class}: ${error.message}; ${description}`, {
        ...fields,
        durationMs,
        error: errorLogFields(error),
      });
      const info: JobErrorInfo = {
        class: error.class,
        message: error.message,
        ...(error.code === undefined ? {} : { code: error.code }),
      };
      if (events.has('job:failure')) events.emit('job:failure', { ...base(), durationMs, error: info });
      if (fate.to === 'retry' && events.has('job:retry'))
        events.emit('job:retry', {
          ...base(),
          retryCount: fate.retryCount,
          error: info,
          nextRetryAt: new Date(fate.at * 1000),
        });
      else if (fate.to === 'dead' && events.has('job:dead'))
        events.emit('job:dead', { ...base(), retryCount: fate.retryCount, error: info });
      if (event) await observe(job, () => pipeline.afterFailure(event, error));
      return;
    }
    case 'rateLimited':
      logger.info(`${fields.class} was throttled by the remote side; ${paused}`, fields);
      return;
    case 'cancelled':
      logger.info(`${fields.class} cancelled; moved to dead`, fields);
      return;
    case 'expired':
      logger.warn(`${fields.class} expired before it started; moved to dead`, fields);
      if (events.has('job:dead'))
        events.emit('job:dead', {
          ...base(),
          error: { class: EXPIRED.class, message: EXPIRED.message, code: EXPIRED.code },
        });
      return;
    case 'unopened':
      logger.error(`${fields.class} ${outcome.error.message}; moved to dead`, fields);
      if (events.has('job:dead')) events.emit('job:dead', { ...base(), error: outcome.error });
      return;
    case 'interrupted':
    case 'withdrawn':
    case 'superseded':
    case 'abandoned':
      return;
  }
}

/** After-hooks are observers: their errors are logged, the job is settled already. */
async function observe(job: SettlingJob, hooks: () => Promise<void>): Promise<void> {
  try {
    await hooks();
  } catch (err) {
    job.ctx.logger.error(
      `middleware failed after the job: ${(err as Error).message}`,
      jobLogFields(job.fetched.job, job.fetched.queue),
    );
  }
}
