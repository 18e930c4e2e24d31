// How a job's log lines look. Every line about a job (start and end here at debug level; failures,
// expiry, cancel and cut-off by the JobRunner at info/warn) carries `jid`, `class`, `queue` and
// `retryCount` as fields, and its end `durationMs` and `error` ({ class, message, stack }): JSON
// lines hold them as fields; pretty lines show `[job:<jid>]` and the text (src/runtime/logger.ts).
import type { JobPayload } from '../job/job';
import { countOf } from '../job/json-object';
import type { Logger } from '../runtime/logger';
import type { Middleware } from './middleware';
import type { ThrownError } from '../../workers/protocol';

export interface JobLogFields {
  actor: string;
  jid: string;
  /** ActiveJob's wrapped class when there is one. */
  class: string;
  queue: string;
  /** Failures before this run: 0 on the first. */
  retryCount: number;
}

export function jobLogFields(job: JobPayload, queue: string): JobLogFields {
  return {
    actor: `job:${job.jid}`,
    jid: job.jid,
    class: typeof job.wrapped === 'string' ? job.wrapped : job.class,
    queue,
    retryCount: countOf(job.retry_count),
  };
}

/** A failure as log fields; `stack` is V8's form, `<class>: <message>` then the handler's frames. */
export function errorLogFields(error: ThrownError): { class: string; message: string; stack?: string } {
  const frames = error.backtrace ?? [];
  return {
    class: error.class,
    message: error.message,
    ...(frames.length
      ? { stack: [`${error.class}: ${error.message}`, ...frames.map((f) => `    ${f}`)].join('\n') }
      : {}),
  };
}

export function loggingMiddleware(logger: Logger): Middleware {
  return {
    name: 'logging',
    before: (e) => {
      if (!logger.isDebugEnabled()) return;
      const fields = jobLogFields(e.job, e.queue);
      logger.debug(`start ${fields.class}`, fields);
    },
    afterSuccess: (e) => {
      if (!logger.isDebugEnabled()) return;
      const fields = jobLogFields(e.job, e.queue);
      const durationMs = Date.now() - e.startedAt;
      logger.debug(`done ${fields.class} in ${durationMs} ms`, { ...fields, durationMs });
    },
  };
}
