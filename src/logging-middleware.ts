// Built-in middleware that logs each job's start and end at debug level (failures are logged,
// with their fate, by the JobWorker at info/warn).
import type { Logger } from './logger';
import type { Middleware } from './middleware';

export function loggingMiddleware(logger: Logger): Middleware {
  return {
    name: 'logging',
    before: (e) => void (logger.isDebugEnabled() && logger.debug(`start ${e.className} ${e.jid}`, { actor: 'job', queue: e.queue })),
    afterSuccess: (e) =>
      void (logger.isDebugEnabled() && logger.debug(`done ${e.className} ${e.jid} in ${Date.now() - e.startedAt} ms`, { actor: 'job', queue: e.queue })),
  };
}
